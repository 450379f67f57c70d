// HubClient: one connection to the hub with one caller's credentials, the generated clients of the
// eight services on it (metadata and default deadline applied), and the helpers an agent needs.
import { setMaxListeners } from "node:events";
import { readFileSync } from "node:fs";

import { durationFromMs } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import type { CallOptions, Client } from "@connectrpc/connect";

import { AdminService } from "../gen/kxm/v1/admin_service_pb.js";
import { AgentService } from "../gen/kxm/v1/agent_service_pb.js";
import type { RegisterAgentResponse } from "../gen/kxm/v1/agent_service_pb.js";
import { ContextService } from "../gen/kxm/v1/context_service_pb.js";
import type { ReviewEnvelope, WorkerResult } from "../gen/kxm/v1/envelopes_pb.js";
import { LeaseService } from "../gen/kxm/v1/lease_service_pb.js";
import { MessageService } from "../gen/kxm/v1/message_service_pb.js";
import type {
  AckMessagesResponse,
  ReplyToMessageResponse,
  SendMessageResponse,
  SubscribeResponse,
  WaitMessageResponse,
} from "../gen/kxm/v1/message_service_pb.js";
import { OpsService } from "../gen/kxm/v1/ops_service_pb.js";
import { RuntimeService } from "../gen/kxm/v1/runtime_service_pb.js";
import type { Message } from "../gen/kxm/v1/types_pb.js";
import { WorkflowService } from "../gen/kxm/v1/workflow_service_pb.js";
import type { CompleteAssignmentResponse } from "../gen/kxm/v1/workflow_service_pb.js";
import { assignmentsOf, completeAssignment } from "./assignments.js";
import type { Assignment, AssignmentsOptions } from "./assignments.js";
import { resolveConfig } from "./config.js";
import type { ConfigOptions, ResolvedConfig } from "./config.js";
import { HubError } from "./errors.js";
import { resumingSubscribe } from "./subscribe.js";
import type { SubscribeOptions } from "./subscribe.js";
import { HubTransport, SharedConnection } from "./transport.js";
import type { Endpoint } from "./transport.js";

/** The default deadline of a unary call: 15 s. */
export const DEFAULT_TIMEOUT_MS = 15_000;
/** A long poll (WaitMessage, a send's wait) answers by itself before this much past its wait. */
const LONG_POLL_SLACK_MS = 5_000;
/** The longest wait one WaitMessage call covers; `wait` makes as many calls as a longer wait needs. */
const MAX_WAIT_CALL_MS = 60_000;

/** How a HubClient is built: where the hub is, who calls it, and the default deadline. */
export interface HubClientOptions extends ConfigOptions {
  /** The deadline of a unary call that has none of its own, in milliseconds (default 15 000). */
  timeoutMs?: number;
}

/** The deadline and cancellation of one call. */
export interface CallTimeout {
  /** This call's deadline in milliseconds (the client's default when left out; 0 or less: none). */
  timeoutMs?: number;
  /** Aborting it cancels the call (it rejects with a HubError `CANCELLED`). */
  signal?: AbortSignal;
}

/** Options of `HubClient.register`. */
export interface RegisterOptions extends CallTimeout {
  purpose?: string;
  model?: string;
  host?: string;
  /** The key of an earlier registration of this name: resumes that agent (same id and inbox). */
  previousKey?: string;
}

/** Options of `HubClient.send`. */
export interface SendOptions extends CallTimeout {
  /** Sending again with the same key returns the first message (`repeated`), stored once. */
  idempotencyKey?: string;
  /** Wait up to this long (at most 60 000 ms) on the hub for the message to end (its reply). */
  waitMs?: number;
  /** Send even when the target is offline. */
  allowOffline?: boolean;
}

/** Options of `HubClient.wait`. */
export interface WaitOptions {
  /** The longest wait in milliseconds (left out: until the message ends). */
  waitMs?: number;
  /** Aborting it cancels the wait (it rejects with a HubError `CANCELLED`). */
  signal?: AbortSignal;
}

const callOptions = (options: CallTimeout, timeoutMs = options.timeoutMs): CallOptions => {
  const call: CallOptions = {};
  if (timeoutMs !== undefined) call.timeoutMs = timeoutMs;
  if (options.signal !== undefined) call.signal = options.signal;
  return call;
};

const readPem = (path: string | undefined, what: string): string | undefined => {
  if (path === undefined) {
    return undefined;
  }
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`cannot read the ${what} ${path}: ${(err as Error).message}`, { cause: err });
  }
};

/**
 * A client of the kxm hub: one HTTP/2 connection (gRPC, keepalive pings every 30 s with a 10 s
 * timeout) and the credentials of one caller, resolved by `resolveConfig` from the options, the
 * `KXM_*` variables and the credentials file (`new HubClient()` needs nothing else on a machine
 * where a hub runs, or with `KXM_ADDR` and `KXM_TOKEN` set).
 *
 * Every call carries `authorization: Bearer <token>`, `x-kxm-agent-id` and `x-kxm-agent-key` once
 * the client acts as an agent (`register`, `useAgent`), `x-kxm-project` and the tool-policy tokens
 * when set. Unary calls without a deadline of their own get `timeoutMs` (15 s); streams get none.
 * Every failed call rejects with a `HubError`. The connection is opened at the first call and
 * closed by `close()`.
 *
 * Throws (from the constructor) an Error when the address is not supported (several addresses)
 * or a TLS file cannot be read.
 */
export class HubClient {
  /**
   * The settings resolved at construction (the agent may change since: `agentId`). Printing it
   * (`JSON.stringify`, `util.inspect`) shows the secrets as `(set)`; property access reads them.
   */
  readonly config: ResolvedConfig;
  /** The hub address dialled. */
  readonly address: string;
  /** The default deadline of a unary call, in milliseconds. */
  readonly timeoutMs: number;

  /** AgentService (register, heartbeat, list, identity, channels), with this client's credentials. */
  readonly agents: Client<typeof AgentService>;
  /** MessageService (send, reply, ack, wait, subscribe, fanout, ...). */
  readonly messages: Client<typeof MessageService>;
  /** LeaseService (fenced leases). */
  readonly leases: Client<typeof LeaseService>;
  /** RuntimeService (runtimes and their run events). */
  readonly runtimes: Client<typeof RuntimeService>;
  /** AdminService (projects, tokens, operators, audit; needs the admin token). */
  readonly admin: Client<typeof AdminService>;
  /** WorkflowService (workflow runs, step assignments, journal). */
  readonly workflows: Client<typeof WorkflowService>;
  /** ContextService (context packets, state, memory, skills). */
  readonly context: Client<typeof ContextService>;
  /** OpsService (the hub's operational views). */
  readonly ops: Client<typeof OpsService>;

  #token: string | undefined;
  #agentId: string | undefined;
  #agentKey: string | undefined;
  readonly #connection: SharedConnection;
  readonly #closing = new AbortController();
  readonly #adminLookup: boolean;
  /** AgentService with the bearer metadata only (RegisterAgent). */
  readonly #bearerAgents: Client<typeof AgentService>;

  /** Builds a client; see `HubClientOptions` and `resolveConfig` for what is resolved how. */
  constructor(options: HubClientOptions = {}) {
    const config = resolveConfig(options);
    this.config = config;
    this.address = config.address;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#token = config.token;
    this.#adminLookup = options.admin === true;
    this.#agentId = config.agentId;
    this.#agentKey = config.agentKey;
    const endpoint: Endpoint = {
      baseUrl: config.address.includes("://")
        ? config.address
        : `${config.tls ? "https" : "http"}://${config.address}`,
    };
    const ca = readPem(config.tlsCa, "TLS CA file");
    const cert = readPem(config.tlsCert, "TLS client certificate");
    const key = readPem(config.tlsKey, "TLS client key");
    if (ca !== undefined) endpoint.ca = ca;
    if (cert !== undefined) endpoint.cert = cert;
    if (key !== undefined) endpoint.key = key;
    this.#connection = new SharedConnection(endpoint);

    const closing = this.#closing.signal;
    setMaxListeners(0, closing); // one listener per call in flight: any number is expected
    const timeoutMs = this.timeoutMs;
    const explain = (error: HubError): HubError => this.#explain(error);
    const metadata = (): Record<string, string> => this.metadata;
    const transport = new HubTransport(this.#connection, { metadata, timeoutMs, closing, explain });
    this.agents = createClient(AgentService, transport);
    this.messages = createClient(MessageService, transport);
    this.leases = createClient(LeaseService, transport);
    this.runtimes = createClient(RuntimeService, transport);
    this.admin = createClient(AdminService, transport);
    this.workflows = createClient(WorkflowService, transport);
    this.context = createClient(ContextService, transport);
    this.ops = createClient(OpsService, transport);
    const bearer = new HubTransport(this.#connection, {
      metadata: () => this.bearerMetadata,
      timeoutMs,
      closing,
      explain,
    });
    this.#bearerAgents = createClient(AgentService, bearer);
  }

  /** A missing token's error, with every place the token was looked for (the others as they are). */
  #explain(error: HubError): HubError {
    if (error.reason !== "ERROR_REASON_CREDENTIAL_MISSING" || this.#token) {
      return error;
    }
    const wanted = this.#adminLookup ? "admin_token" : `token for project '${this.project ?? "default"}'`;
    const places = [
      "the token option",
      this.#adminLookup ? "KXM_ADMIN_TOKEN" : "KXM_TOKEN",
      this.config.credentialsFile === undefined
        ? "no credentials file (KXM_CREDENTIALS, KXM_DATA_DIR, ./.kxm, or the profile for this address)"
        : `${this.config.credentialsFile} (no ${wanted})`,
    ];
    const message = `${error.message} (hint: no token found; looked in ${places.join(", ")})`;
    return new HubError(error.code, message, {
      reason: error.reason,
      domain: error.domain,
      metadata: error.metadata,
      fieldViolations: error.fieldViolations,
      ...(error.retryDelayMs === undefined ? {} : { retryDelayMs: error.retryDelayMs }),
      cause: error.cause,
    });
  }

  /** Node's util.inspect (console.log): the address and identity, never the token or the agent key. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    const quoted = (value: string | undefined): string => (value === undefined ? "undefined" : `'${value}'`);
    const shown = `address: '${this.address}', project: ${quoted(this.project)}, agentId: ${quoted(this.#agentId)}`;
    return `HubClient { ${shown} }`;
  }

  /** The agent this client acts as, if any. */
  get agentId(): string | undefined {
    return this.#agentId;
  }

  /** The project sent as `x-kxm-project`, if any. */
  get project(): string | undefined {
    return this.config.project;
  }

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.#closing.signal.aborted;
  }

  /** The credentials metadata every call carries. */
  get metadata(): Record<string, string> {
    const metadata = this.bearerMetadata;
    if (this.#agentId && this.#agentKey) {
      metadata["x-kxm-agent-id"] = this.#agentId;
      metadata["x-kxm-agent-key"] = this.#agentKey;
    }
    if (this.config.attemptToken) metadata["x-kxm-attempt-token"] = this.config.attemptToken;
    if (this.config.sessionToken) metadata["x-kxm-session-token"] = this.config.sessionToken;
    return metadata;
  }

  /**
   * The metadata without the agent identity (RegisterAgent's): the bearer token and the project;
   * no agent id and key, and none of the tool-policy tokens bound to the agent.
   */
  get bearerMetadata(): Record<string, string> {
    const metadata: Record<string, string> = {};
    if (this.#token) metadata["authorization"] = `Bearer ${this.#token}`;
    if (this.config.project) metadata["x-kxm-project"] = this.config.project;
    return metadata;
  }

  /** Acts as this agent from now on (leave both out: act with the bearer token only). */
  useAgent(agentId?: string, agentKey?: string): void {
    this.#agentId = agentId;
    this.#agentKey = agentKey;
  }

  /**
   * RegisterAgent with the bearer metadata only; the client then acts as the returned agent (its
   * id and key) on every later call. Rejects with a HubError: `ALREADY_EXISTS` or
   * `PERMISSION_DENIED` when the name is taken and no valid `previousKey` was given,
   * `INVALID_ARGUMENT` for a bad name, `UNAUTHENTICATED` without a valid token.
   */
  async register(name: string, options: RegisterOptions = {}): Promise<RegisterAgentResponse> {
    const response = await this.#bearerAgents.registerAgent(
      {
        name,
        purpose: options.purpose ?? "",
        model: options.model ?? "",
        host: options.host ?? "",
        previousKey: options.previousKey ?? "",
      },
      callOptions(options),
    );
    this.useAgent(response.agent?.id, response.agentKey);
    return response;
  }

  /**
   * SendMessage to the agent named `target`. With `waitMs` the hub also waits (at most 60 s) for
   * the message to end, and the answer carries it (`terminal`, `message.reply`); the call's deadline
   * then covers the wait unless `timeoutMs` is given. Rejects with a HubError (`NOT_FOUND`
   * `ERROR_REASON_TARGET_NOT_FOUND`, `FAILED_PRECONDITION` for an offline target, ...).
   */
  send(target: string, content: string, options: SendOptions = {}): Promise<SendMessageResponse> {
    const timeoutMs =
      options.timeoutMs ?? (options.waitMs === undefined ? undefined : this.timeoutMs + options.waitMs);
    return this.messages.sendMessage(
      {
        target,
        content,
        idempotencyKey: options.idempotencyKey ?? "",
        allowOffline: options.allowOffline ?? false,
        ...(options.waitMs === undefined ? {} : { wait: durationFromMs(options.waitMs) }),
      },
      callOptions(options, timeoutMs),
    );
  }

  /** ReplyToMessage: answers a request this agent received. Rejects with a HubError. */
  reply(messageId: string, content: string, options: CallTimeout = {}): Promise<ReplyToMessageResponse> {
    return this.messages.replyToMessage({ messageId, content }, callOptions(options));
  }

  /** AckMessages: acknowledges one or more messages this agent received. Rejects with a HubError. */
  ack(messageIds: string | readonly string[], options: CallTimeout = {}): Promise<AckMessagesResponse> {
    const ids = typeof messageIds === "string" ? [messageIds] : [...messageIds];
    return this.messages.ackMessages({ messageIds: ids }, callOptions(options));
  }

  /**
   * Waits until the message ends (replied, cancelled, expired, ...), for at most `waitMs` (left
   * out: until it does). One WaitMessage long poll covers up to 60 s, each with a deadline covering
   * its poll; a wait that runs out returns the current state with `terminal` false (not an error).
   * Rejects with a HubError (`PERMISSION_DENIED` for a message neither from nor to this agent).
   */
  async wait(messageId: string, options: WaitOptions = {}): Promise<WaitMessageResponse> {
    const deadline = options.waitMs === undefined ? undefined : Date.now() + options.waitMs;
    for (;;) {
      const remaining = deadline === undefined ? undefined : Math.max(0, deadline - Date.now());
      const poll = remaining === undefined ? MAX_WAIT_CALL_MS : Math.min(remaining, MAX_WAIT_CALL_MS);
      const response = await this.messages.waitMessage(
        { messageId, wait: durationFromMs(poll) },
        callOptions({ signal: options.signal }, poll + LONG_POLL_SLACK_MS),
      );
      if (response.terminal || (remaining !== undefined && remaining <= MAX_WAIT_CALL_MS)) {
        return response;
      }
    }
  }

  /**
   * GetMessage: the message with its content, state and reply. Rejects with a HubError
   * (`NOT_FOUND` `ERROR_REASON_MESSAGE_NOT_FOUND`, `PERMISSION_DENIED` `ERROR_REASON_MESSAGE_FORBIDDEN`).
   */
  async getMessage(messageId: string, options: CallTimeout = {}): Promise<Message> {
    const response = await this.messages.getMessage({ messageId }, callOptions(options));
    if (response.message === undefined) {
      throw new HubError("INTERNAL", "GetMessage answered without a message");
    }
    return response.message;
  }

  /**
   * The agent's inbox events, resuming across stream ends (see `resumingSubscribe`): iterate it
   * with `for await`; stop with `options.signal`, `break`, or `close()`. The iteration throws the
   * HubError of a failure that resuming cannot cure (credentials, arguments).
   */
  subscribe(options: SubscribeOptions = {}): AsyncGenerator<SubscribeResponse, void, undefined> {
    return resumingSubscribe(this.messages, options, this.#closing.signal);
  }

  /**
   * The open step-workflow assignments of this agent, oldest first (see `assignmentsOf`): iterate
   * it with `for await` and `complete` each. A failed read throws its HubError from the iteration.
   */
  assignments(options: AssignmentsOptions = {}): AsyncGenerator<Assignment, void, undefined> {
    return assignmentsOf(this.workflows, options, this.#closing.signal);
  }

  /**
   * CompleteAssignment with a WorkerResult or a ReviewEnvelope (created with `create(...Schema)`).
   * Rejects with a HubError (`FAILED_PRECONDITION` `ERROR_REASON_ASSIGNMENT_CLOSED` when it closed).
   */
  complete(
    assignmentId: string,
    result: WorkerResult | ReviewEnvelope,
    options: CallTimeout = {},
  ): Promise<CompleteAssignmentResponse> {
    return completeAssignment(this.workflows, assignmentId, result, callOptions(options));
  }

  /**
   * Closes the connection: calls and streams still running are cancelled (subscriptions and
   * assignment iterations end; unary calls reject with `CANCELLED`), later calls reject the same way.
   */
  async close(): Promise<void> {
    this.#closing.abort(new HubError("CANCELLED", "the client is closed"));
    await this.#connection.close();
  }
}
