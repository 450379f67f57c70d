// Conformance program: runs the kxm client conformance scenario against a live hub and prints one
// JSON transcript ({"language": "typescript", "ok": ..., "steps": [...]}) to stdout.
//
// Every step holds only normalised facts (no ids, times or language-specific text), so the
// transcripts of the five languages compare equal step by step (tests/test_conformance.py). When a
// call fails unexpectedly the transcript ends with a "failed" step, "ok" is false, "error" says why
// and the exit status is 1.
//
// Environment: KXM_ADDR (host:port, plaintext), KXM_TOKEN, KXM_TLS_ADDR (host:port, TLS), KXM_TLS_CA
// (PEM file of the CA that signed the TLS hub's certificate), KXM_TLS_TOKEN, KXM_SWEEP (the contract
// sweep's JSON file), KXM_NAME_PREFIX.
// Run: npm run build && npm run conformance
// The same scenario, step by step, is in clients/python/conformance.py and the other clients.
import { readFileSync } from "node:fs";

import type { MessageInitShape } from "@bufbuild/protobuf";
import { durationFromMs } from "@bufbuild/protobuf/wkt";
import { ConnectError, createClient } from "@connectrpc/connect";
import type { Client, Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import { CODE_NAMES, runSweep } from "./conformance-sweep.js";
import { ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";
import { AgentService, CredentialKindSchema } from "../gen/kxm/v1/agent_service_pb.js";
import type {
  ChannelReady,
  ChannelResult,
  CredentialKind,
  OpenChannelRequestSchema,
  RegisterAgentResponse,
} from "../gen/kxm/v1/agent_service_pb.js";
import { LeaseService } from "../gen/kxm/v1/lease_service_pb.js";
import { FanoutStatusSchema, MessageService } from "../gen/kxm/v1/message_service_pb.js";
import type { FanoutStatus, SubscribeResponse } from "../gen/kxm/v1/message_service_pb.js";
import { MessageStateSchema, PresenceSchema } from "../gen/kxm/v1/types_pb.js";
import type { MessageState, Presence } from "../gen/kxm/v1/types_pb.js";

const DEADLINE_MS = 10_000; // every unary call
const EVENT_WAIT_MS = 15_000; // waiting for a stream event
const WAIT_TIMEOUT_MS = 10_000; // WaitMessage's own timeout (the call's deadline is 5 s longer)
const FANOUT_TIMEOUT_MS = 20_000; // FanoutMessages' gathering time (the call's deadline is 5 s longer)
const BARRIER_WAIT_MS = 15_000; // how long a fanout handler waits for the other one
const LEASE_TTL_MS = 30_000;
const CHANNEL_SEND_WAIT_MS = 10_000; // the wait of the channel's send command

const MISSING_MESSAGE_ID = "msg_00000000000000000000000000000000";
const REQUEST = "conformance request";
const IDEMPOTENCY_KEY = "conformance-request-1";
const REPLY = "conformance reply";
const FANOUT = "conformance fanout";
const FANOUT_KEY_PREFIX = "conformance-fanout";
const RESUME = ["conformance resume 1", "conformance resume 2"];
const CHANNEL_REQUEST = "conformance channel request";
const CHANNEL_REPLY = "conformance channel reply";
const REDELIVER = "conformance redeliver";

type Json = string | number | boolean | Json[] | { [key: string]: Json };
type Facts = { [key: string]: Json };
type Headers = Record<string, string>;

/** Where the program reaches the hubs, from the environment. */
type Config = {
  addr: string;
  token: string;
  tlsAddr: string;
  tlsCa: string;
  tlsToken: string;
  sweep: string;
  prefix: string;
};

/** A step that could not finish for a reason other than an RPC error. */
class StepFailed extends Error {
  constructor(
    message: string,
    readonly facts: Facts,
  ) {
    super(message);
  }
}

const fanoutReply = (suffix: string): string => `fanout reply from ${suffix}`;
const stateName = (v: MessageState): string => MessageStateSchema.value[v]?.name ?? `UNKNOWN_${v}`;
const presenceName = (v: Presence): string => PresenceSchema.value[v]?.name ?? `UNKNOWN_${v}`;
const fanoutStatusName = (v: FanoutStatus): string => FanoutStatusSchema.value[v]?.name ?? `UNKNOWN_${v}`;
const credentialKindName = (v: CredentialKind): string => CredentialKindSchema.value[v]?.name ?? `UNKNOWN_${v}`;

/** The gRPC transport of the program's connections (plaintext, or TLS with nodeOptions.ca). */
function transportTo(baseUrl: string, nodeOptions: { ca?: Buffer } = {}): Transport {
  return createGrpcTransport({
    baseUrl,
    nodeOptions,
    // The hub accepts client keepalive pings no more often than every 10 s.
    pingIntervalMs: 30_000,
    pingTimeoutMs: 10_000,
  });
}

/** The status code, and the google.rpc.ErrorInfo reason and domain decoded from the status details. */
function errorFacts(err: unknown): Facts {
  const e = ConnectError.from(err);
  const facts: Facts = { code: CODE_NAMES[e.code] ?? `CODE_${e.code}`, reason: "", domain: "" };
  for (const info of e.findDetails(ErrorInfoSchema)) {
    facts.reason = info.reason;
    facts.domain = info.domain;
  }
  return facts;
}

/** The name of the event's oneof case: ready, message, reply, cancelled, expired or presence. */
const eventKind = (ev: SubscribeResponse): string => ev.event.case ?? "none";

/** A promise that rejects with StepFailed(timeout) after ms, and a way to stop the timer. */
function timeout(ms: number, what: string): { promise: Promise<never>; clear: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StepFailed(`${what} timed out`, { error: "timeout" })), ms);
  });
  return { promise, clear: () => clearTimeout(timer) };
}

/**
 * One Subscribe stream of an agent, read by a background async loop into a queue. `seen` is the
 * seq of the last event the scenario took from the queue (what it "saw").
 */
class Inbox {
  private readonly queue: Array<SubscribeResponse | Error> = [];
  private waiter: (() => void) | undefined;
  private readonly abort = new AbortController();
  seen: bigint;

  constructor(messages: Client<typeof MessageService>, headers: Headers, afterSeq: bigint) {
    this.seen = afterSeq;
    void (async () => {
      try {
        // A stream has no deadline; keepalive detects a dead connection.
        for await (const ev of messages.subscribe({ afterSeq }, { headers, signal: this.abort.signal })) {
          this.push(ev);
        }
        this.push(new StepFailed("the stream ended", { error: "stream_ended" }));
      } catch (err) {
        this.push(err instanceof Error ? err : new Error(String(err)));
      }
    })();
  }

  private push(item: SubscribeResponse | Error): void {
    this.queue.push(item);
    this.waiter?.();
  }

  /** The next event (waiting at most EVENT_WAIT_MS). */
  async next(): Promise<SubscribeResponse> {
    if (this.queue.length === 0) {
      const limit = timeout(EVENT_WAIT_MS, "waiting for a stream event");
      try {
        await Promise.race([new Promise<void>((resolve) => (this.waiter = resolve)), limit.promise]);
      } finally {
        limit.clear();
        this.waiter = undefined;
      }
    }
    const item = this.queue.shift()!;
    if (item instanceof Error) {
      throw item;
    }
    if (item.seq > 0n) {
      this.seen = item.seq;
    }
    return item;
  }

  /** The next message event, skipping presence events of the project's other agents. */
  async nextMessage(): Promise<SubscribeResponse & { event: { case: "message" } }> {
    for (;;) {
      const ev = await this.next();
      if (ev.event.case === "message") {
        return ev as SubscribeResponse & { event: { case: "message" } };
      }
      if (ev.event.case !== "presence") {
        throw new StepFailed(`unexpected ${eventKind(ev)} event`, { error: "unexpected_event" });
      }
    }
  }

  /**
   * Read the stream to its end, skipping presence events; the end's code, reason and domain
   * ("OK" when the hub ended it without an error).
   */
  async end(): Promise<Facts> {
    for (;;) {
      let ev: SubscribeResponse;
      try {
        ev = await this.next();
      } catch (err) {
        if (!(err instanceof StepFailed)) {
          return errorFacts(err);
        }
        if (err.facts.error === "stream_ended") {
          return { code: "OK", reason: "", domain: "" };
        }
        throw err; // a timeout: the stream did not end
      }
      if (ev.event.case !== "presence") {
        throw new StepFailed(`unexpected ${eventKind(ev)} event`, { error: "unexpected_event" });
      }
    }
  }

  /** Drop the stream (cancels the call). */
  close(): void {
    this.abort.abort();
  }
}

type OpenChannelInit = MessageInitShape<typeof OpenChannelRequestSchema>;
type ChannelCommandInit = Exclude<OpenChannelInit["commands"], undefined>[number];
/** What a channel's responses are taken apart into, by kind ("end": the status code's name). */
type ChannelValues = { ready: ChannelReady; event: SubscribeResponse; result: ChannelResult; end: string };
type ChannelItem = { [K in keyof ChannelValues]: { kind: K; value: ChannelValues[K] } }[keyof ChannelValues];

/**
 * One OpenChannel stream of an agent. Its requests are a queue the call reads from (ending it
 * closes the sending side); its responses are read by a background async loop and taken apart into
 * the channel's `ready`, the inbox events and the command results, each read in order. Presence
 * events are dropped: the project's other agents (the other programs' among them) come and go at
 * any moment.
 */
class Channel {
  private readonly written: OpenChannelInit[] = [];
  private writeWaiter: (() => void) | undefined;
  private writesDone = false;
  private readonly items: ChannelItem[] = [];
  private waiter: (() => void) | undefined;
  private readonly abort = new AbortController();

  constructor(agents: Client<typeof AgentService>, headers: Headers) {
    void (async () => {
      try {
        // A stream has no deadline; keepalive detects a dead connection.
        for await (const resp of agents.openChannel(this.requests(), { headers, signal: this.abort.signal })) {
          if (resp.ready !== undefined) {
            this.push({ kind: "ready", value: resp.ready });
          }
          for (const ev of resp.events) {
            if (ev.event.case !== "presence") {
              this.push({ kind: "event", value: ev });
            }
          }
          for (const result of resp.results) {
            this.push({ kind: "result", value: result });
          }
        }
        this.push({ kind: "end", value: "OK" });
      } catch (err) {
        const code = ConnectError.from(err).code;
        this.push({ kind: "end", value: CODE_NAMES[code] ?? `CODE_${code}` });
      }
    })();
  }

  /** The call's requests: each one written, in order, until the sending side is closed. */
  private async *requests(): AsyncGenerator<OpenChannelInit> {
    for (;;) {
      const request = this.written.shift();
      if (request !== undefined) {
        yield request;
      } else if (this.writesDone) {
        return;
      } else {
        await new Promise<void>((resolve) => (this.writeWaiter = resolve));
        this.writeWaiter = undefined;
      }
    }
  }

  /** Send a request (in order after the ones written before). */
  write(request: OpenChannelInit): void {
    this.written.push(request);
    this.writeWaiter?.();
  }

  private push(item: ChannelItem): void {
    this.items.push(item);
    this.waiter?.();
  }

  /** The next item, which must be of this kind (waiting at most EVENT_WAIT_MS). */
  private async next<K extends keyof ChannelValues>(kind: K): Promise<ChannelValues[K]> {
    if (this.items.length === 0) {
      const limit = timeout(EVENT_WAIT_MS, `waiting for a channel ${kind}`);
      try {
        await Promise.race([new Promise<void>((resolve) => (this.waiter = resolve)), limit.promise]);
      } finally {
        limit.clear();
        this.waiter = undefined;
      }
    }
    const item = this.items.shift()!;
    if (item.kind !== kind) {
      throw new StepFailed(`a channel ${item.kind} came before its ${kind}`, { error: `unexpected_${item.kind}` });
    }
    return item.value as ChannelValues[K];
  }

  ready(): Promise<ChannelReady> {
    return this.next("ready");
  }

  event(): Promise<SubscribeResponse> {
    return this.next("event");
  }

  result(): Promise<ChannelResult> {
    return this.next("result");
  }

  /** Close the sending side and wait for the hub to end the stream; its status code's name. */
  end(): Promise<string> {
    this.closeWrites();
    return this.next("end");
  }

  /** Drop the stream (cancels the call). */
  cancel(): void {
    this.closeWrites();
    this.abort.abort();
  }

  private closeWrites(): void {
    this.writesDone = true;
    this.writeWaiter?.();
  }
}

/** Releases its waiters once n of them arrived. */
class Barrier {
  private readonly arrived: Promise<void>;
  private release!: () => void;

  constructor(private n: number) {
    this.arrived = new Promise((resolve) => (this.release = resolve));
  }

  async wait(ms: number): Promise<boolean> {
    if (--this.n === 0) {
      this.release();
    }
    const limit = timeout(ms, "barrier");
    try {
      await Promise.race([this.arrived, limit.promise]);
      return true;
    } catch {
      return false;
    } finally {
      limit.clear();
    }
  }
}

class Scenario {
  readonly steps: Facts[] = [];
  private readonly inboxes: Inbox[] = [];
  private readonly headers: Record<string, Headers> = {};
  private readonly agents: Client<typeof AgentService>;
  private readonly messages: Client<typeof MessageService>;
  private readonly leases: Client<typeof LeaseService>;
  private readonly project: Headers;
  private readonly transport: Transport;
  private readonly prefix: string;

  constructor(private readonly config: Config) {
    this.transport = transportTo(`http://${config.addr}`);
    this.agents = createClient(AgentService, this.transport);
    this.messages = createClient(MessageService, this.transport);
    this.leases = createClient(LeaseService, this.transport);
    this.project = { authorization: `Bearer ${config.token}` };
    this.prefix = config.prefix;
  }

  private name(suffix: string): string {
    return `${this.prefix}-${suffix}`;
  }

  private add(step: string, facts: Facts): void {
    this.steps.push({ step, ...facts });
  }

  /** Call options for one unary call as agent suffix, with a deadline. */
  private as(suffix: string, timeoutMs = DEADLINE_MS): { headers: Headers; timeoutMs: number } {
    return { headers: this.headers[suffix]!, timeoutMs };
  }

  private async openInbox(suffix: string, afterSeq: bigint): Promise<[Inbox, SubscribeResponse]> {
    const inbox = new Inbox(this.messages, this.headers[suffix]!, afterSeq);
    this.inboxes.push(inbox);
    return [inbox, await inbox.next()];
  }

  close(): void {
    for (const inbox of this.inboxes) {
      inbox.close();
    }
  }

  async run(): Promise<void> {
    await this.register();
    const inboxB = await this.subscribe();
    const messageId = await this.sendIdempotent();
    await this.receiveAckReply(inboxB, messageId);
    await this.wait(messageId);
    await this.fanout(inboxB);
    await this.getMissing();
    await this.lease();
    await this.resume(inboxB);
    await this.channel();
    await this.redeliver();
    await this.tls();
    await this.sweep();
  }

  /**
   * Register agent suffix and keep its credentials for the calls made as it. With previousKey (the
   * agent's current key) the hub resumes the agent under a new key.
   */
  private async registerAgent(suffix: string, previousKey = ""): Promise<RegisterAgentResponse> {
    const resp = await this.agents.registerAgent(
      { name: this.name(suffix), purpose: "conformance", model: "typescript", previousKey },
      { headers: this.project, timeoutMs: DEADLINE_MS },
    );
    this.headers[suffix] = {
      ...this.project,
      "x-kxm-agent-id": resp.agent?.id ?? "",
      "x-kxm-agent-key": resp.agentKey,
    };
    return resp;
  }

  // 1. register a, b and c
  private async register(): Promise<void> {
    for (const suffix of ["a", "b", "c"]) {
      const resp = await this.registerAgent(suffix);
      this.add(`register_${suffix}`, {
        resumed: resp.resumed,
        presence: presenceName(resp.agent?.presence ?? 0),
        name_equal: resp.agent?.name === this.name(suffix),
      });
    }
  }

  // 2. subscribe b and wait for the ready event
  private async subscribe(): Promise<Inbox> {
    const [inbox, first] = await this.openInbox("b", 0n);
    const ready = first.event.case === "ready" ? first.event.value : undefined;
    this.add("subscribe", {
      first_event: eventKind(first),
      after_seq: Number(ready?.afterSeq ?? -1n),
      ready_seq: Number(first.seq),
      agent_is_b: ready?.agent?.name === this.name("b"),
    });
    return inbox;
  }

  // 3. a sends b a message with an idempotency key, twice
  private async sendIdempotent(): Promise<string> {
    const request = { target: this.name("b"), content: REQUEST, idempotencyKey: IDEMPOTENCY_KEY };
    const first = await this.messages.sendMessage(request, this.as("a"));
    const second = await this.messages.sendMessage(request, this.as("a"));
    this.add("send_repeat", {
      first_repeated: first.repeated,
      first_state: stateName(first.message?.state ?? 0),
      repeated: second.repeated,
      same_id: second.message?.id === first.message?.id,
      same_seq: second.message?.seq === first.message?.seq,
    });
    return first.message?.id ?? "";
  }

  // 4. b receives it on the stream, acknowledges it and replies
  private async receiveAckReply(inbox: Inbox, messageId: string): Promise<void> {
    const ev = await inbox.nextMessage();
    const m = ev.event.value;
    this.add("receive", {
      event: "message",
      seq_positive: ev.seq >= 1n,
      seq_matches: m.seq === ev.seq,
      same_id: m.id === messageId,
      content_equal: m.content === REQUEST,
      from_a: m.fromAgentName === this.name("a"),
      redelivered: ev.redelivered,
    });
    const acked = await this.messages.ackMessages({ messageIds: [m.id] }, this.as("b"));
    this.add("ack", { count: acked.messages.length, state: stateName(acked.messages[0]?.state ?? 0) });
    const replied = await this.messages.replyToMessage({ messageId: m.id, content: REPLY }, this.as("b"));
    this.add("reply", { state: stateName(replied.message?.state ?? 0) });
  }

  // 5. a awaits the reply
  private async wait(messageId: string): Promise<void> {
    const waited = await this.messages.waitMessage(
      { messageId, wait: durationFromMs(WAIT_TIMEOUT_MS) },
      this.as("a", WAIT_TIMEOUT_MS + 5_000),
    );
    this.add("wait", {
      terminal: waited.terminal,
      state: stateName(waited.message?.state ?? 0),
      reply_equal: waited.message?.reply?.content === REPLY,
    });
  }

  // 6. a fans out to b and c, which handle it concurrently (one async task each), and gathers
  private async fanout(inboxB: Inbox): Promise<void> {
    const [inboxC, readyC] = await this.openInbox("c", 0n);
    const bothReceived = new Barrier(2);
    const handle = async (suffix: string, inbox: Inbox): Promise<Facts> => {
      const m = (await inbox.nextMessage()).event.value;
      const acked = await this.messages.ackMessages({ messageIds: [m.id] }, this.as(suffix));
      // Both handlers hold their message before either replies: they run concurrently.
      const concurrent = await bothReceived.wait(BARRIER_WAIT_MS);
      const replied = await this.messages.replyToMessage({ messageId: m.id, content: fanoutReply(suffix) }, this.as(suffix));
      return {
        content_equal: m.content === FANOUT,
        ack_state: stateName(acked.messages[0]?.state ?? 0),
        reply_state: stateName(replied.message?.state ?? 0),
        concurrent,
      };
    };
    const handlers = Promise.all([handle("b", inboxB), handle("c", inboxC)]);
    handlers.catch(() => undefined); // awaited below; a failure surfaces there
    const gathered = await this.messages.fanoutMessages(
      {
        targets: [this.name("b"), this.name("c")],
        content: FANOUT,
        idempotencyKeyPrefix: FANOUT_KEY_PREFIX,
        wait: durationFromMs(FANOUT_TIMEOUT_MS),
      },
      this.as("a", FANOUT_TIMEOUT_MS + 5_000),
    );
    const [handledB, handledC] = await handlers;
    const targets: Record<string, string> = {
      [this.name("b").toLowerCase()]: "b",
      [this.name("c").toLowerCase()]: "c",
    };
    const results = gathered.results.map((r): Facts => {
      const target = targets[r.target] ?? "unexpected";
      return {
        target,
        status: fanoutStatusName(r.status),
        state: stateName(r.message?.state ?? 0),
        reply_equal: r.message?.reply?.content === fanoutReply(target),
      };
    });
    this.add("fanout", { c_first_event: eventKind(readyC), results, handler_b: handledB, handler_c: handledC });
  }

  // 7. GetMessage with an unknown id
  private async getMissing(): Promise<void> {
    try {
      await this.messages.getMessage({ messageId: MISSING_MESSAGE_ID }, this.as("a"));
      this.add("get_missing", { code: "OK", reason: "", domain: "" });
    } catch (err) {
      this.add("get_missing", errorFacts(err));
    }
  }

  // 8. a acquires a lease, releases it, acquires it again; the first token is refused
  private async lease(): Promise<void> {
    const name = this.name("lease");
    const ttl = durationFromMs(LEASE_TTL_MS);
    const first = await this.leases.acquireLease({ name, ttl }, this.as("a"));
    const firstToken = first.lease?.fencingToken ?? 0n;
    const released = await this.leases.releaseLease({ name, fencingToken: firstToken }, this.as("a"));
    const second = await this.leases.acquireLease({ name, ttl }, this.as("a"));
    const secondToken = second.lease?.fencingToken ?? 0n;
    this.add("lease", {
      first_live: first.lease?.live ?? false,
      first_renewed: first.renewed,
      released_token_equal: released.lease?.fencingToken === firstToken,
      second_renewed: second.renewed,
      token_grew: secondToken > firstToken,
    });
    const current = await this.leases.checkFence({ name, fencingToken: secondToken }, this.as("a"));
    let stale: Facts = { code: "OK", reason: "", domain: "" };
    try {
      await this.leases.checkFence({ name, fencingToken: firstToken }, this.as("a"));
    } catch (err) {
      stale = errorFacts(err);
    }
    this.add("fence", {
      current_live: current.lease?.live ?? false,
      current_token_equal: current.lease?.fencingToken === secondToken,
      stale,
    });
    await this.leases.releaseLease({ name, fencingToken: secondToken }, this.as("a"));
  }

  // 9. b's stream is dropped after seq N; a sends two more; b resumes after N
  private async resume(inboxB: Inbox): Promise<void> {
    const cursor = inboxB.seen;
    inboxB.close();
    const sent: string[] = [];
    for (const content of RESUME) {
      const resp = await this.messages.sendMessage({ target: this.name("b"), content }, this.as("a"));
      sent.push(resp.message?.id ?? "");
    }
    const [inbox, ready] = await this.openInbox("b", cursor);
    const seqs: bigint[] = [];
    const messageIds: string[] = [];
    const contents: string[] = [];
    let redelivered = false;
    while (!sent.every((id) => messageIds.includes(id))) {
      const ev = await inbox.next();
      seqs.push(ev.seq);
      redelivered ||= ev.redelivered;
      if (ev.event.case === "message") {
        messageIds.push(ev.event.value.id);
        contents.push(ev.event.value.content);
      }
    }
    this.add("resume", {
      first_event: eventKind(ready),
      ready_after_seq_is_cursor: ready.event.case === "ready" && ready.event.value.afterSeq === cursor,
      first_seq_is_next: seqs[0] === cursor + 1n,
      contiguous: seqs.every((seq, i) => seq === cursor + 1n + BigInt(i)),
      duplicates: new Set(messageIds).size !== messageIds.length,
      messages: messageIds.length,
      contents_in_order: contents.length === RESUME.length && contents.every((c, i) => c === RESUME[i]),
      redelivered,
    });
  }

  // 10. a and a new agent d exchange a request and its reply on channels (AgentService.OpenChannel)
  private async channel(): Promise<void> {
    await this.registerAgent("d");
    const aChannel = new Channel(this.agents, this.headers["a"]!);
    const dChannel = new Channel(this.agents, this.headers["d"]!);
    try {
      dChannel.write({ subscribe: { afterSeq: 0n } });
      const dReady = await dChannel.ready();
      const aReady = await aChannel.ready();
      const first = await dChannel.event();
      const send: ChannelCommandInit = {
        commandId: "ch-send",
        command: {
          case: "send",
          value: { target: this.name("d"), content: CHANNEL_REQUEST, wait: durationFromMs(CHANNEL_SEND_WAIT_MS) },
        },
      };
      aChannel.write({ commands: [send] });
      const ev = await dChannel.event();
      const m = ev.event.case === "message" ? ev.event.value : undefined;
      const messageId = m?.id ?? "";
      dChannel.write({
        commands: [
          { commandId: "ch-ack", command: { case: "ack", value: { messageIds: [messageId] } } },
          { commandId: "ch-reply", command: { case: "reply", value: { messageId, content: CHANNEL_REPLY } } },
        ],
      });
      const acked = await dChannel.result();
      const replied = await dChannel.result();
      const sent = await aChannel.result();
      aChannel.write({ commands: [send] }); // the same command again
      const replay = await aChannel.result();
      aChannel.write({
        commands: [{ commandId: "ch-get", command: { case: "get", value: { messageId: MISSING_MESSAGE_ID } } }],
      });
      const failed = await aChannel.result();
      const aEnd = await aChannel.end();
      const dEnd = await dChannel.end();
      const ackResult = acked.result.case === "ack" ? acked.result.value : undefined;
      const replyResult = replied.result.case === "reply" ? replied.result.value : undefined;
      const sendResult = sent.result.case === "send" ? sent.result.value : undefined;
      const replayResult = replay.result.case === "send" ? replay.result.value : undefined;
      const error = failed.result.case === "error" ? failed.result.value : undefined;
      const errorCode = error?.code ?? 0;
      this.add("channel", {
        a_ready: aReady.agent?.name === this.name("a"),
        d_ready: dReady.agent?.name === this.name("d"),
        max_commands_per_request: aReady.maxCommandsPerRequest,
        max_in_flight_positive: aReady.maxInFlight > 0,
        d_first_event: eventKind(first),
        event: eventKind(ev),
        content_equal: m?.content === CHANNEL_REQUEST,
        from_a: m?.fromAgentName === this.name("a"),
        seq_positive: ev.seq > 0n,
        ack_state: stateName(ackResult?.messages[0]?.state ?? 0),
        reply_state: stateName(replyResult?.message?.state ?? 0),
        results_in_order: acked.commandId === "ch-ack" && replied.commandId === "ch-reply",
        send_terminal: sendResult?.terminal ?? false,
        send_reply_equal: sendResult?.message?.reply?.content === CHANNEL_REPLY,
        send_key_is_command_id: sendResult?.message?.idempotencyKey === "ch-send",
        send_replayed: sent.replayed,
        replayed: replay.replayed,
        replay_same_id: (replayResult?.message?.id ?? "") === (sendResult?.message?.id ?? ""),
        error: { code: errorCode === 5 ? "NOT_FOUND" : String(errorCode), reason: error?.reason ?? "" },
        a_end: aEnd,
        d_end: dEnd,
      });
    } finally {
      aChannel.cancel();
      dChannel.cancel();
    }
  }

  // 11. a new agent e takes a request without acknowledging it, registers again (the hub ends its
  // stream), resumes after the last seq it saw and gets the request again, redelivered
  private async redeliver(): Promise<void> {
    await this.registerAgent("e");
    const [oldInbox, first] = await this.openInbox("e", 0n);
    await this.messages.sendMessage({ target: this.name("e"), content: REDELIVER }, this.as("a"));
    const delivered = (await oldInbox.nextMessage()).event.value; // not acknowledged
    const oldKey = this.headers["e"]!["x-kxm-agent-key"]!;
    const again = await this.registerAgent("e", oldKey); // e's calls use the new key from here on
    const end = await oldInbox.end();
    const cursor = oldInbox.seen;
    const [inbox, ready] = await this.openInbox("e", cursor);
    const ev = await inbox.nextMessage();
    const m = ev.event.value;
    const acked = await this.messages.ackMessages({ messageIds: [m.id] }, this.as("e"));
    inbox.close();
    this.add("redeliver", {
      e_ready: first.event.case === "ready",
      resumed: again.resumed,
      end_code: end.code ?? "",
      end_reason: end.reason ?? "",
      ready_after_seq_is_cursor: ready.event.case === "ready" && ready.event.value.afterSeq === cursor,
      redelivered: ev.redelivered,
      same_id: m.id === delivered.id,
      content_equal: m.content === REDELIVER,
      ack_state: stateName(acked.messages.find((a) => a.id === m.id)?.state ?? 0),
    });
  }

  // 12. a new connection over TLS that trusts only the given CA; who the project token is
  private async tls(): Promise<void> {
    const transport = transportTo(`https://${this.config.tlsAddr}`, { ca: readFileSync(this.config.tlsCa) });
    const agents = createClient(AgentService, transport);
    const identity = await agents.getCallerIdentity(
      {},
      { headers: { authorization: `Bearer ${this.config.tlsToken}` }, timeoutMs: DEADLINE_MS },
    );
    this.add("tls", { credential_kind: credentialKindName(identity.credentialKind) });
  }

  // 13. every call of the contract sweep, in order, through the generated clients
  private async sweep(): Promise<void> {
    const calls = await runSweep(this.config.sweep, this.transport);
    this.add("sweep", { calls });
  }
}

async function main(): Promise<boolean> {
  const env = (name: string): string => process.env[name] ?? "";
  const config: Config = {
    addr: env("KXM_ADDR"),
    token: env("KXM_TOKEN"),
    tlsAddr: env("KXM_TLS_ADDR"),
    tlsCa: env("KXM_TLS_CA"),
    tlsToken: env("KXM_TLS_TOKEN"),
    sweep: env("KXM_SWEEP"),
    prefix: env("KXM_NAME_PREFIX"),
  };
  const out: Facts = { language: "typescript", ok: true, steps: [] };
  if (Object.values(config).some((value) => !value)) {
    out.ok = false;
    out.error = "set KXM_ADDR, KXM_TOKEN, KXM_TLS_ADDR, KXM_TLS_CA, KXM_TLS_TOKEN, KXM_SWEEP and KXM_NAME_PREFIX";
  } else {
    const scenario = new Scenario(config);
    try {
      await scenario.run();
    } catch (err) {
      out.ok = false;
      if (err instanceof StepFailed) {
        scenario.steps.push({ step: "failed", ...err.facts });
        out.error = err.message;
      } else {
        scenario.steps.push({ step: "failed", ...errorFacts(err) });
        out.error = String(err);
      }
    } finally {
      scenario.close();
    }
    out.steps = scenario.steps;
  }
  // Wait until the line is written: on a pipe the write is asynchronous, and process.exit would
  // cut a long transcript (the sweep's responses) short.
  await new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(out)}\n`, () => resolve()));
  return out.ok === true;
}

const ok = await main();
// Exit explicitly: an HTTP/2 session with keepalive pings would keep Node running.
process.exit(ok ? 0 : 1);
