// Layer check: exercises the thin client layer (HubClient) against a live hub and prints one JSON
// line {"language": "typescript", "ok": ..., "steps": [...]} of normalised facts: clients built
// with no arguments, errors decoded into HubError, the default deadline (the hub ends a 10 s wait
// before the call's 3 s default deadline), and the resuming
// subscribe across a hub restart. Before the restart it prints {"waiting": "restart"} and blocks
// until a line "restarted" arrives on stdin (the test restarts the hub meanwhile).
// Environment: KXM_ADDR, KXM_TOKEN (or a credentials file), KXM_NAME_PREFIX.
// Run: npm run build && node dist/examples/layercheck.js
import { createInterface } from "node:readline";

import { durationFromMs } from "@bufbuild/protobuf/wkt";
import { CredentialKindSchema, HubClient, HubError } from "@kxm/hub-client";
import type { SubscribeResponse } from "@kxm/hub-client";

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type Facts = { [key: string]: Json };

const MISSING_MESSAGE_ID = `msg_${"0".repeat(32)}`;
const EVENT_WAIT_MS = 15_000; // one stream event, before the restart
const RESUME_WAIT_MS = 30_000; // the message sent after the restart
const SEND_RETRY_MS = 20_000; // retrying the send after the restart while the hub is unavailable
const DEFAULT_DEADLINE_MS = 3_000; // the short client's default deadline (the wait it bounds is 10 s)

/** A step that could not finish for a reason other than an RPC error. */
class CheckFailed extends Error {}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The thrown value as the layer's error; anything else fails the check. */
function layerError(err: unknown, what: string): HubError {
  if (err instanceof HubError) {
    return err;
  }
  throw new CheckFailed(`${what}: not a HubError: ${String(err)}`);
}

/** A call expected to fail: its HubError. */
async function failure(what: string, call: () => Promise<unknown>): Promise<HubError> {
  try {
    await call();
  } catch (err) {
    return layerError(err, what);
  }
  throw new CheckFailed(`${what} succeeded`);
}

/**
 * b's resuming subscription, read in the background (so it resumes by itself while the hub is
 * away) into a queue; counts the ready events and checks each later ready's after_seq against the
 * highest seq seen before it.
 */
class Inbox {
  readonly #queue: Array<SubscribeResponse | Error> = [];
  #wake: (() => void) | undefined;
  readonly #stop = new AbortController();
  readies = 0;
  highest = 0n;
  lastReadyIsCursor = true;

  constructor(client: HubClient) {
    void (async () => {
      try {
        for await (const event of client.subscribe({ afterSeq: 0, signal: this.#stop.signal })) {
          if (event.event.case === "ready") {
            this.readies += 1;
            this.lastReadyIsCursor = event.event.value.afterSeq === this.highest;
          }
          const seq = event.event.case === "ready" ? event.event.value.afterSeq : event.seq;
          this.highest = seq > this.highest ? seq : this.highest;
          this.#push(event);
        }
        this.#push(new CheckFailed("the subscription ended"));
      } catch (err) {
        this.#push(err instanceof Error ? err : new Error(String(err)));
      }
    })();
  }

  #push(item: SubscribeResponse | Error): void {
    this.#queue.push(item);
    this.#wake?.();
  }

  /** The next event, waiting at most `ms`. */
  async next(ms: number): Promise<SubscribeResponse> {
    if (this.#queue.length === 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        timer = setTimeout(resolve, ms);
      });
      clearTimeout(timer);
      this.#wake = undefined;
    }
    const item = this.#queue.shift();
    if (item === undefined) {
      throw new CheckFailed(`no stream event within ${ms} ms`);
    }
    if (item instanceof Error) {
      throw item;
    }
    return item;
  }

  /** The next message event with this content (skipping presence events), within `ms`. */
  async message(content: string, ms: number): Promise<SubscribeResponse & { event: { case: "message" } }> {
    const end = Date.now() + ms;
    for (;;) {
      const event = await this.next(Math.max(1, end - Date.now()));
      if (event.event.case === "message" && event.event.value.content === content) {
        return event as SubscribeResponse & { event: { case: "message" } };
      }
      if (event.event.case !== "presence" && event.event.case !== "ready") {
        throw new CheckFailed(`unexpected ${event.event.case ?? "empty"} event`);
      }
    }
  }

  stop(): void {
    this.#stop.abort();
  }
}

/** Blocks until the line `restarted` arrives on stdin. */
async function restarted(): Promise<void> {
  const lines = createInterface({ input: process.stdin });
  try {
    for await (const line of lines) {
      if (line.trim() === "restarted") {
        return;
      }
    }
    throw new CheckFailed("stdin ended before the line 'restarted'");
  } finally {
    lines.close();
    process.stdin.destroy();
  }
}

async function check(prefix: string, steps: Facts[], clients: HubClient[]): Promise<void> {
  const built = (client: HubClient): HubClient => (clients.push(client), client);

  // 1. clients from the environment alone, registered; who a is, as the hub sees it
  const a = built(new HubClient());
  const b = built(new HubClient());
  const registeredA = await a.register(`${prefix}-a`);
  await b.register(`${prefix}-b`);
  const identity = await a.agents.getCallerIdentity({});
  steps.push({
    step: "register",
    credential_kind: CredentialKindSchema.value[identity.credentialKind]?.name ?? "",
    name_equal: identity.agentName === `${prefix}-a`,
  });

  // 2. a missing message: NOT_FOUND with its ErrorInfo, as a HubError
  let missing: unknown;
  try {
    await a.getMessage(MISSING_MESSAGE_ID);
  } catch (err) {
    missing = err;
  }
  if (missing === undefined) {
    throw new CheckFailed("GetMessage of a missing message succeeded");
  }
  const decoded = missing instanceof HubError ? missing : undefined;
  steps.push({
    step: "not_found",
    code: decoded?.code ?? "",
    reason: decoded?.reason ?? "",
    domain: decoded?.domain ?? "",
    layer_error: decoded !== undefined,
  });

  // 3. an empty name: INVALID_ARGUMENT with its BadRequest field violations
  const c = built(new HubClient());
  const invalid = await failure("registering an empty name", () => c.register(""));
  steps.push({
    step: "invalid",
    code: invalid.code,
    reason: invalid.reason,
    fields: invalid.fieldViolations.map((v) => v.field),
  });

  // 4. the default deadline (3 s) on a call that has none of its own: the hub ends the 10 s wait
  // before the deadline the call carried (OK, terminal false; DEADLINE_EXCEEDED when the answer
  // loses the race on a busy machine), well before the wait itself would end
  const d = built(
    new HubClient({
      agentId: registeredA.agent?.id ?? "",
      agentKey: registeredA.agentKey,
      timeoutMs: DEFAULT_DEADLINE_MS,
    }),
  );
  const probe = await a.send(`${prefix}-b`, "deadline probe");
  await d.agents.getCallerIdentity({}); // the connection is up before the timing starts
  const started = Date.now();
  let early: boolean;
  try {
    const messageId = probe.message?.id ?? "";
    const response = await d.messages.waitMessage({ messageId, wait: durationFromMs(10_000) });
    early = !response.terminal;
  } catch (err) {
    early = layerError(err, "WaitMessage").code === "DEADLINE_EXCEEDED";
  }
  steps.push({ step: "deadline", ended_before_wait: early && Date.now() - started < 8_000 });

  // 5. the resuming subscribe: first event ready; the probe taken and acknowledged
  const inbox = new Inbox(b);
  try {
    const first = await inbox.next(EVENT_WAIT_MS);
    steps.push({ step: "subscribe", first: first.event.case ?? "" });
    const taken = await inbox.message("deadline probe", EVENT_WAIT_MS);
    await b.ack(taken.event.value.id);

    const waiting = `${JSON.stringify({ waiting: "restart" })}\n`;
    await new Promise<void>((resolve) => process.stdout.write(waiting, () => resolve()));
    await restarted();

    // a sends again while the channel reconnects; b's subscription resumes by itself
    const sending = Date.now();
    for (;;) {
      try {
        // allowOffline: the restarted hub counts b offline until its stream is back
        await a.send(`${prefix}-b`, "after restart", { idempotencyKey: `${prefix}-after-restart`, allowOffline: true });
        break;
      } catch (err) {
        const error = layerError(err, "sending after the restart");
        if (error.code !== "UNAVAILABLE" || Date.now() - sending > SEND_RETRY_MS) {
          throw error;
        }
        await sleep(200);
      }
    }
    const received = await inbox.message("after restart", RESUME_WAIT_MS);
    steps.push({
      step: "resume",
      readies: inbox.readies,
      after_seq_is_cursor: inbox.readies >= 2 && inbox.lastReadyIsCursor,
      received: true,
      redelivered: received.redelivered,
    });
  } finally {
    inbox.stop();
  }

  // 6. everything closed
  await Promise.all(clients.splice(0).map((client) => client.close()));
  steps.push({ step: "closed" });
}

async function main(): Promise<boolean> {
  const prefix = process.env.KXM_NAME_PREFIX ?? "";
  const out: Facts = { language: "typescript", ok: true, steps: [] };
  const steps: Facts[] = [];
  const clients: HubClient[] = [];
  if (!prefix) {
    out.ok = false;
    out.error = "set KXM_NAME_PREFIX";
  } else {
    try {
      await check(prefix, steps, clients);
    } catch (err) {
      out.ok = false;
      out.error = err instanceof HubError ? `${err.code} ${err.reason}: ${err.message}` : String(err);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  }
  out.steps = steps;
  await new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(out)}\n`, () => resolve()));
  return out.ok === true;
}

process.exitCode = (await main()) ? 0 : 1;
