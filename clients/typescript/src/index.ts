// The package's root: every kxm.v1 message, enum and service descriptor, and google.rpc's Status
// and error details (decode a ConnectError's details with ErrorInfoSchema, BadRequestSchema, ...).
// Each module is also importable alone: "@kxm/hub-client/kxm/v1/agent_service_pb.js".
export * from "../gen/google/rpc/error_details_pb.js";
export * from "../gen/google/rpc/status_pb.js";
export * from "../gen/kxm/v1/admin_service_pb.js";
export * from "../gen/kxm/v1/agent_service_pb.js";
export * from "../gen/kxm/v1/context_service_pb.js";
export * from "../gen/kxm/v1/envelopes_pb.js";
export * from "../gen/kxm/v1/error_reason_pb.js";
export * from "../gen/kxm/v1/lease_service_pb.js";
export * from "../gen/kxm/v1/message_service_pb.js";
export * from "../gen/kxm/v1/ops_service_pb.js";
export * from "../gen/kxm/v1/options_pb.js";
export * from "../gen/kxm/v1/runtime_service_pb.js";
export * from "../gen/kxm/v1/types_pb.js";
export * from "../gen/kxm/v1/workflow_journal_pb.js";
export * from "../gen/kxm/v1/workflow_service_pb.js";
export * from "../gen/kxm/v1/workflow_steps_pb.js";
export * from "../gen/kxm/v1/workflow_types_pb.js";
