// The contract sweep of the conformance program (docs/clients.md, "The contract sweep: every RPC in
// every language"): every call of the KXM_SWEEP file, in order, through the generated clients.
//
// The dispatch is driven by the generated service descriptors (protobuf-es GenService values): every
// method of the kxm.v1 services is found by its full name ("kxm.v1.AgentService/ListAgents"), its
// requests are decoded with the method's generated input type, it is called through Connect's
// client of its service, and its responses are encoded again with the generated output type. A new
// RPC of these services is covered without a change here.
//
// Unknown fields are never passed through: requests are decoded without them (so Connect encodes
// only the fields the generated input type knows), and responses, which Connect decodes itself
// keeping unknown fields, are encoded again without them. A generated type missing a field the
// server sends therefore shows as a dropped field in the recorded bytes, instead of handing the
// server's bytes back unchanged.
import { readFileSync } from "node:fs";

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { BinaryReadOptions, BinaryWriteOptions, DescMethod, DescService, Message } from "@bufbuild/protobuf";
import { ConnectError, createClient } from "@connectrpc/connect";
import type { CallOptions, Transport } from "@connectrpc/connect";

import { BadRequestSchema, ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";
import { AdminService } from "../gen/kxm/v1/admin_service_pb.js";
import { AgentService } from "../gen/kxm/v1/agent_service_pb.js";
import { ContextService } from "../gen/kxm/v1/context_service_pb.js";
import { LeaseService } from "../gen/kxm/v1/lease_service_pb.js";
import { MessageService } from "../gen/kxm/v1/message_service_pb.js";
import { OpsService } from "../gen/kxm/v1/ops_service_pb.js";
import { RuntimeService } from "../gen/kxm/v1/runtime_service_pb.js";
import { WorkflowService } from "../gen/kxm/v1/workflow_service_pb.js";

/** The services of proto/kxm/v1/*_service.proto. */
const SERVICES: DescService[] = [
  AdminService,
  AgentService,
  ContextService,
  LeaseService,
  MessageService,
  OpsService,
  RuntimeService,
  WorkflowService,
];

/** Canonical gRPC status code names, indexed by code number (Connect's Code uses the same numbers). */
export const CODE_NAMES = [
  "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
  "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
  "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
];

/** Decoding a request: fields the generated type does not know are dropped, not kept as unknown. */
const READ: Partial<BinaryReadOptions> = { readUnknownFields: false };
/** Encoding a response: unknown fields Connect's decoding kept are not written back. */
const WRITE: Partial<BinaryWriteOptions> = { writeUnknownFields: false };

/** The code recorded for a method the dispatch does not know. */
const NOT_IN_CLIENT = "UNIMPLEMENTED_IN_CLIENT";

/** One call of the sweep file, as tests/conformance_sweep.py writes it. */
type SweepCall = {
  name: string;
  method: string;
  kind: string;
  metadata: Array<[string, string]>;
  requests: string[];
  responses: number;
  timeout_ms: number;
};

/** What a call's outcome is recorded as. */
export type CallRecord = {
  name: string;
  code: string;
  reason: string;
  domain: string;
  violations: string[];
  responses: string[];
};

type Status = Pick<CallRecord, "code" | "reason" | "domain" | "violations">;

/**
 * A method of a generated client, whatever its kind: the client's typed methods, seen from the
 * dispatch (which knows the kind and the types from the descriptor, not from the static type).
 */
type AnyMethod = (request: unknown, options: CallOptions) => Promise<Message> | AsyncIterable<Message>;

/** A method found by its full name, and the generated client's function that calls it. */
type Target = { method: DescMethod; invoke: AnyMethod };

const OK: Status = { code: "OK", reason: "", domain: "", violations: [] };

/** The status of a failed call: code name, ErrorInfo reason and domain, BadRequest violations' fields. */
function statusOf(err: unknown): Status {
  const e = ConnectError.from(err);
  const info = e.findDetails(ErrorInfoSchema)[0];
  return {
    code: CODE_NAMES[e.code] ?? `CODE_${e.code}`,
    reason: info?.reason ?? "",
    domain: info?.domain ?? "",
    violations: e.findDetails(BadRequestSchema).flatMap((bad) => bad.fieldViolations.map((v) => v.field)),
  };
}

/** Every method of the services by full name, each bound to its service's client on the transport. */
function dispatchTable(transport: Transport): Map<string, Target> {
  const table = new Map<string, Target>();
  for (const service of SERVICES) {
    // Connect's client has one function per method, keyed by the method's localName.
    const client = createClient(service, transport) as unknown as Record<string, AnyMethod>;
    for (const method of service.methods) {
      const invoke = client[method.localName];
      if (invoke !== undefined) {
        table.set(`${service.typeName}/${method.name}`, { method, invoke });
      }
    }
  }
  return table;
}

/** The requests, then the end of the sending side (a client stream). */
async function* sendAll(requests: Message[]): AsyncGenerator<Message> {
  yield* requests;
}

/** The requests, then a sending side kept open until the call is cancelled (a bidirectional stream). */
async function* sendAndHold(requests: Message[], signal: AbortSignal): AsyncGenerator<Message> {
  yield* requests;
  if (!signal.aborted) {
    await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
  }
}

/** Read up to `want` responses into `into`; leaving the loop early cancels the call. */
async function readStream(stream: AsyncIterable<Message>, want: number, into: Message[]): Promise<void> {
  if (into.length >= want) {
    return;
  }
  for await (const response of stream) {
    into.push(response);
    if (into.length >= want) {
      return;
    }
  }
}

/** Run one call; a failure is its recorded status, never an exception. */
async function runCall(table: Map<string, Target>, call: SweepCall): Promise<CallRecord> {
  const target = table.get(call.method);
  if (target === undefined) {
    return { name: call.name, ...OK, code: NOT_IN_CLIENT, responses: [] };
  }
  const { method, invoke } = target;
  const received: Message[] = [];
  const abort = new AbortController();
  let status: Status = OK;
  try {
    const requests = call.requests.map((b64) => fromBinary(method.input, Buffer.from(b64, "base64"), READ));
    const headers = new Headers();
    for (const [key, value] of call.metadata) {
      headers.append(key, value);
    }
    const options: CallOptions = { headers, timeoutMs: call.timeout_ms, signal: abort.signal };
    const first = requests[0] ?? create(method.input);
    // The descriptor's kind decides how the generated client's function is called.
    switch (method.methodKind) {
      case "unary":
        received.push(await (invoke(first, options) as Promise<Message>));
        break;
      case "server_streaming":
        await readStream(invoke(first, options) as AsyncIterable<Message>, call.responses, received);
        break;
      case "client_streaming":
        received.push(await (invoke(sendAll(requests), options) as Promise<Message>));
        break;
      case "bidi_streaming":
        await readStream(
          invoke(sendAndHold(requests, abort.signal), options) as AsyncIterable<Message>,
          call.responses,
          received,
        );
        break;
    }
  } catch (err) {
    status = statusOf(err);
  } finally {
    abort.abort(); // cancels a stream that is still open, and ends sendAndHold
  }
  return {
    name: call.name,
    ...status,
    responses: received.map((m) => Buffer.from(toBinary(method.output, m, WRITE)).toString("base64")),
  };
}

/** Every call of the sweep file `path`, in order, on the transport. */
export async function runSweep(path: string, transport: Transport): Promise<CallRecord[]> {
  const sweep = JSON.parse(readFileSync(path, "utf8")) as { calls: SweepCall[] };
  const table = dispatchTable(transport);
  const records: CallRecord[] = [];
  for (const call of sweep.calls) {
    records.push(await runCall(table, call));
  }
  return records;
}
