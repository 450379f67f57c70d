// Conformance program: runs the kxm client scenario against a live hub and prints one JSON transcript
// ({"language": "typescript", "ok": ..., "steps": [...]}) to stdout; exits 1 when a step fails.
//
// Environment: KXM_ADDR (host:port, plaintext), KXM_PROJECT_TOKEN, KXM_NAME_PREFIX.
// Run: npm run build && npm run conformance
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import { ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";
import { AgentService, RegisterAgentRequestSchema } from "../gen/kxm/v1/agent_service_pb.js";
import type { RegisterAgentResponse } from "../gen/kxm/v1/agent_service_pb.js";
import { ErrorReason, ErrorReasonSchema } from "../gen/kxm/v1/error_reason_pb.js";
import { GetMessageRequestSchema, MessageService } from "../gen/kxm/v1/message_service_pb.js";

const MISSING_MESSAGE_ID = "msg_00000000000000000000000000000000";

/** Canonical gRPC status code names, indexed by code number (Connect's Code uses the same numbers). */
const CODE_NAMES = [
  "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
  "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
  "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
];

type Step = { name: string; ok: boolean; [key: string]: string | boolean };

interface Transcript {
  language: "typescript";
  ok: boolean;
  steps: Step[];
}

/** Records an RPC error's code, message and google.rpc.ErrorInfo (reason, domain) in a step. */
function describe(step: Step, err: unknown): void {
  const e = ConnectError.from(err);
  step.code = CODE_NAMES[e.code] ?? `CODE_${e.code}`;
  step.message = e.rawMessage;
  for (const info of e.findDetails(ErrorInfoSchema)) {
    step.reason = info.reason;
    step.domain = info.domain;
  }
}

async function run(out: Transcript): Promise<void> {
  const add = (step: Step): boolean => {
    out.steps.push(step);
    out.ok &&= step.ok;
    return out.ok;
  };
  const addr = process.env.KXM_ADDR ?? "";
  const token = process.env.KXM_PROJECT_TOKEN ?? "";
  const prefix = process.env.KXM_NAME_PREFIX ?? "";
  if (!addr || !token || !prefix) {
    add({ name: "config", ok: false, error: "set KXM_ADDR, KXM_PROJECT_TOKEN and KXM_NAME_PREFIX" });
    return;
  }
  const transport = createGrpcTransport({
    baseUrl: `http://${addr}`,
    // The hub accepts client keepalive pings no more often than every 10 s.
    pingIntervalMs: 30_000,
    pingTimeoutMs: 10_000,
  });
  const agents = createClient(AgentService, transport);
  const messages = createClient(MessageService, transport);
  const project = { authorization: `Bearer ${token}` };

  const registered: Record<string, RegisterAgentResponse> = {};
  for (const suffix of ["a", "b"]) {
    const name = `${prefix}-${suffix}`;
    const step: Step = { name: `register_${suffix}`, ok: false, agent_name: name };
    try {
      const resp = await agents.registerAgent(
        create(RegisterAgentRequestSchema, { name, purpose: "conformance", model: "typescript" }),
        { headers: project, timeoutMs: 10_000 },
      );
      step.code = "OK";
      step.agent_id = resp.agent?.id ?? "";
      step.ok = step.agent_id !== "" && resp.agentKey !== "";
      registered[suffix] = resp;
    } catch (err) {
      describe(step, err);
    }
    if (!add(step)) return;
  }

  const a = registered["a"]!;
  const step: Step = { name: "get_missing_message", ok: false, message_id: MISSING_MESSAGE_ID };
  try {
    await messages.getMessage(create(GetMessageRequestSchema, { messageId: MISSING_MESSAGE_ID }), {
      headers: { ...project, "x-kxm-agent-id": a.agent?.id ?? "", "x-kxm-agent-key": a.agentKey },
      timeoutMs: 10_000,
    });
    step.code = "OK";
  } catch (err) {
    describe(step, err);
    const expected = ErrorReasonSchema.value[ErrorReason.MESSAGE_NOT_FOUND]?.name;
    step.ok = ConnectError.from(err).code === Code.NotFound && step.reason === expected;
  }
  add(step);
}

const out: Transcript = { language: "typescript", ok: true, steps: [] };
try {
  await run(out);
} catch (err) {
  out.ok = false;
  out.steps.push({ name: "unexpected", ok: false, error: String(err) });
}
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exitCode = out.ok ? 0 : 1;
