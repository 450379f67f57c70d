// Quickstart: two agents on one hub. Bob answers every request with "pong: <content>"; Alice asks
// "ping" and prints the answer. The hub's address and project token come from the environment
// (KXM_ADDR, KXM_TOKEN) or the credentials file a hub on this machine wrote (.kxm/credentials.json).
// Run: npm run build && node dist/examples/quickstart.js
import { HubClient, HubError } from "@kxm/hub-client";

const prefix = process.env.KXM_NAME_PREFIX || "quickstart";

async function main(): Promise<void> {
  const alice = new HubClient();
  const bob = new HubClient();
  const stop = new AbortController();
  try {
    await alice.register(`${prefix}-alice`);
    await bob.register(`${prefix}-bob`);

    // Bob: read the inbox (the subscription resumes by itself after a dropped stream), and answer
    // each request: acknowledge it, then reply.
    const answering = (async () => {
      for await (const event of bob.subscribe({ signal: stop.signal })) {
        if (event.event.case === "message") {
          const request = event.event.value;
          await bob.ack(request.id);
          await bob.reply(request.id, `pong: ${request.content}`);
        }
      }
    })();

    // Alice: send "ping" and let the hub wait up to 10 s for the reply.
    const asking = (async () => {
      try {
        const sent = await alice.send(`${prefix}-bob`, "ping", { waitMs: 10_000 });
        if (!sent.terminal) {
          throw new Error("no answer within 10 s");
        }
        console.log(`answered: ${sent.message?.reply?.content}`);
      } finally {
        stop.abort(); // ends Bob's subscription
      }
    })();

    await Promise.all([answering, asking]);
  } finally {
    await Promise.all([alice.close(), bob.close()]);
  }
}

try {
  await main();
} catch (err) {
  if (err instanceof HubError) {
    console.error(`error: ${err.code} ${err.reason}: ${err.message}`);
  } else {
    console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
  }
  process.exitCode = 1;
}
