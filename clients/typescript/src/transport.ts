// The transport under a HubClient: Connect's Node gRPC transport (loaded at the first call), wrapped
// so that every call carries the client's credentials metadata, every unary call without a deadline
// of the caller's gets the client's default one, and every failure is a HubError.
import type { DescMessage, DescMethodStreaming, DescMethodUnary, MessageInitShape } from "@bufbuild/protobuf";
import type { ContextValues, StreamResponse, Transport, UnaryResponse } from "@connectrpc/connect";

import { HubError } from "./errors.js";

/** Headers as a caller may give them (a record, pairs, or a Headers object). */
type HeadersInit = ConstructorParameters<typeof Headers>[0];

/** Keepalive: the hub accepts pings no more often than every 10 s (docs/clients.md). */
const PING_INTERVAL_MS = 30_000;
const PING_TIMEOUT_MS = 10_000;

/** Where and how to connect: the base URL and the TLS material (PEM contents). */
export interface Endpoint {
  baseUrl: string;
  ca?: string;
  cert?: string;
  key?: string;
}

/** `@connectrpc/connect-node` could not be imported: a setup error, not a failed call. */
class TransportMissing extends Error {
  override name = "TransportMissing";
}


/** A connection to the hub: the Connect transport and how to close it. */
interface Connection {
  transport: Transport;
  close(): void;
}

/**
 * Connect's gRPC transport over one HTTP/2 session, with keepalive pings every 30 s (10 s timeout,
 * idle connections too). `@connectrpc/connect-node` is imported here, at the first call, so that
 * importing the package root needs only the message runtime.
 */
async function connect(endpoint: Endpoint): Promise<Connection> {
  let node: typeof import("@connectrpc/connect-node");
  try {
    node = await import("@connectrpc/connect-node");
  } catch (err) {
    throw new TransportMissing(
      "@kxm/hub-client: HubClient calls the hub through @connectrpc/connect-node; install it beside the package " +
        "(npm install @connectrpc/connect-node@^2.1.2)",
      { cause: err },
    );
  }
  const tls: { ca?: string; cert?: string; key?: string } = {};
  if (endpoint.ca !== undefined) tls.ca = endpoint.ca;
  if (endpoint.cert !== undefined) tls.cert = endpoint.cert;
  if (endpoint.key !== undefined) tls.key = endpoint.key;
  // Reconnects need no backoff setting: the session manager opens a new connection at the next
  // call after one broke (the resuming subscribe paces its own reconnects).
  const session = new node.Http2SessionManager(
    endpoint.baseUrl,
    { pingIntervalMs: PING_INTERVAL_MS, pingTimeoutMs: PING_TIMEOUT_MS, pingIdleConnection: true },
    tls,
  );
  const transport = node.createGrpcTransport({ baseUrl: endpoint.baseUrl, sessionManager: session });
  return { transport, close: () => session.abort() };
}

/** What the wrapping transport asks its client at every call. */
export interface CallSettings {
  /** The metadata this call carries (the caller's own headers are applied on top). */
  metadata(): Record<string, string>;
  /** The default deadline of a unary call, in milliseconds. */
  readonly timeoutMs: number;
  /** Aborted when the client closes: every call still running is cancelled. */
  readonly closing: AbortSignal;
  /** The error a failed call rejects with (the client adds where it looked for a missing token). */
  explain(error: HubError): HubError;
}

/** One HTTP/2 connection, opened at the first call and shared by every view of a client. */
export class SharedConnection {
  #endpoint: Endpoint;
  #connection: Promise<Connection> | undefined;

  constructor(endpoint: Endpoint) {
    this.#endpoint = endpoint;
  }

  /** The transport, connecting (importing the Node transport) at the first call. */
  transport(): Promise<Transport> {
    if (this.#connection === undefined) {
      const pending = connect(this.#endpoint);
      this.#connection = pending;
      // A failed import is not kept: installing the module and calling again works.
      pending.catch(() => {
        if (this.#connection === pending) this.#connection = undefined;
      });
    }
    return this.#connection.then((c) => c.transport);
  }

  /** Closes the connection and its streams, if one was opened. */
  async close(): Promise<void> {
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection !== undefined) {
      try {
        (await connection).close();
      } catch {
        // never connected: nothing to close
      }
    }
  }
}

/** Headers of the call: the client's metadata, then the caller's own headers on top. */
function headersOf(metadata: Record<string, string>, header: HeadersInit | undefined): Headers {
  const merged = new Headers(metadata);
  if (header !== undefined) {
    new Headers(header).forEach((value, name) => merged.set(name, value));
  }
  return merged;
}

/** A signal aborted when the caller's is or the client closes; `done` detaches it. */
function linked(caller: AbortSignal | undefined, closing: AbortSignal): { signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  const abort = (source: AbortSignal) => () => controller.abort(source.reason);
  const sources = caller === undefined ? [closing] : [caller, closing];
  const listeners = sources.map((source) => {
    const listener = abort(source);
    if (source.aborted) {
      listener();
    } else {
      source.addEventListener("abort", listener, { once: true });
    }
    return [source, listener] as const;
  });
  return {
    signal: controller.signal,
    done: () => listeners.forEach(([source, listener]) => source.removeEventListener("abort", listener)),
  };
}

/** A stream's messages, each failure turned into a HubError and the signal detached at the end. */
async function* decoded<T>(
  messages: AsyncIterable<T>,
  explain: (error: HubError) => HubError,
  done: () => void,
): AsyncGenerator<T> {
  try {
    yield* messages;
  } catch (err) {
    throw explain(HubError.from(err));
  } finally {
    done();
  }
}

/**
 * A Connect Transport that applies a client's call settings: its metadata on every call, its
 * default deadline on unary calls that have none of the caller's (a stream gets none), its closing
 * signal, and HubError for every failure.
 */
export class HubTransport implements Transport {
  readonly #connection: SharedConnection;
  readonly #settings: CallSettings;

  constructor(connection: SharedConnection, settings: CallSettings) {
    this.#connection = connection;
    this.#settings = settings;
  }

  /** The error of a call whose signal aborted before it started. */
  #aborted(): HubError {
    return new HubError("CANCELLED", this.#settings.closing.aborted ? "the client is closed" : "the call was aborted");
  }

  /** What a call rejects with: a HubError (explained by the client), or the setup error as it is. */
  #failure(err: unknown): unknown {
    return err instanceof TransportMissing ? err : this.#settings.explain(HubError.from(err));
  }

  /** A unary call with the client's metadata, default deadline and closing signal; rejects with HubError. */
  async unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: MessageInitShape<I>,
    contextValues?: ContextValues,
  ): Promise<UnaryResponse<I, O>> {
    const call = linked(signal, this.#settings.closing);
    try {
      if (call.signal.aborted) {
        throw this.#aborted();
      }
      const transport = await this.#connection.transport();
      return await transport.unary(
        method,
        call.signal,
        timeoutMs ?? this.#settings.timeoutMs,
        headersOf(this.#settings.metadata(), header),
        input,
        contextValues,
      );
    } catch (err) {
      throw this.#failure(err);
    } finally {
      call.done();
    }
  }

  /** A streaming call with the client's metadata and closing signal (no deadline); fails with HubError. */
  async stream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodStreaming<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: AsyncIterable<MessageInitShape<I>>,
    contextValues?: ContextValues,
  ): Promise<StreamResponse<I, O>> {
    const call = linked(signal, this.#settings.closing);
    let response: StreamResponse<I, O>;
    try {
      if (call.signal.aborted) {
        throw this.#aborted();
      }
      const transport = await this.#connection.transport();
      // No default deadline: a stream lives as long as its reader wants it to.
      response = await transport.stream(
        method,
        call.signal,
        timeoutMs,
        headersOf(this.#settings.metadata(), header),
        input,
        contextValues,
      );
    } catch (err) {
      call.done();
      throw this.#failure(err);
    }
    const explain = (error: HubError): HubError => this.#settings.explain(error);
    return { ...response, message: decoded(response.message, explain, call.done) };
  }
}
