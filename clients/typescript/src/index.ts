// The package's root: the thin client layer (HubClient, HubError, the resuming subscribe, the
// worker helper, the configuration rule), then every kxm.v1 message, enum and service descriptor
// and google.rpc's Status and error details. Each generated module is also importable alone:
// "@kxm/hub-client/kxm/v1/agent_service_pb.js" (those import neither Connect nor Node modules).
export { DEFAULT_TIMEOUT_MS, HubClient } from "./client.js";
export type { CallTimeout, HubClientOptions, RegisterOptions, SendOptions, WaitOptions } from "./client.js";
export { DEFAULT_ADDRESS, credentialsFileFor, resolveConfig } from "./config.js";
export type { ConfigOptions, Environment, ResolvedConfig } from "./config.js";
export { HubError, STATUS_CODE_NAMES, isResumable } from "./errors.js";
export type { FieldViolation, HubErrorDetails, StatusCodeName } from "./errors.js";
export {
  SUBSCRIBE_INITIAL_BACKOFF_MS,
  SUBSCRIBE_MAX_BACKOFF_MS,
  SUBSCRIBE_REMEMBERED_IDS,
  resumingSubscribe,
} from "./subscribe.js";
export type { SubscribeOptions } from "./subscribe.js";
export {
  ASSIGNMENT_MAX_POLL_MS,
  ASSIGNMENT_MIN_POLL_MS,
  Assignment,
  assignmentsOf,
  completeAssignment,
} from "./assignments.js";
export type { AssignmentsOptions } from "./assignments.js";

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
