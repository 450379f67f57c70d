// HubError: every failed call of the thin layer, decoded from the gRPC status and its
// google.rpc details (the grpc-status-details-bin trailer): ErrorInfo, BadRequest, RetryInfo.
import { ConnectError } from "@connectrpc/connect";
import { durationMs } from "@bufbuild/protobuf/wkt";

import { BadRequestSchema, ErrorInfoSchema, RetryInfoSchema } from "../gen/google/rpc/error_details_pb.js";

/** The canonical gRPC status code names, indexed by code number. */
export const STATUS_CODE_NAMES = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;

/** A gRPC status code's canonical name, such as `"NOT_FOUND"`. */
export type StatusCodeName = (typeof STATUS_CODE_NAMES)[number];

/** One `google.rpc.BadRequest` field violation: which request field was wrong, and why. */
export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

/** What a HubError carries besides its code and message (all optional when building one). */
export interface HubErrorDetails {
  /** The `google.rpc.ErrorInfo` reason, an `ErrorReason` name (`"ERROR_REASON_MESSAGE_NOT_FOUND"`). */
  reason?: string;
  /** The ErrorInfo domain (`"kxm.dev"` for the hub's own errors). */
  domain?: string;
  /** The ErrorInfo metadata map. */
  metadata?: Readonly<Record<string, string>>;
  /** The `google.rpc.BadRequest` field violations, in order. */
  fieldViolations?: readonly FieldViolation[];
  /** The `google.rpc.RetryInfo` delay in milliseconds. */
  retryDelayMs?: number;
  /** The error this one was decoded from (a ConnectError for a failed call). */
  cause?: unknown;
}

/**
 * A call to the hub failed: the status code's name, the hub's ErrorInfo reason and domain, its
 * metadata, BadRequest field violations and RetryInfo delay, decoded from the status details.
 * Branch on `reason` (docs/errors.md), not on the message text. `message` is the status message as
 * the hub wrote it; `cause` is the ConnectError it was decoded from.
 *
 * Every call made through a HubClient (its helpers and its service accessors alike) rejects with a
 * HubError, transport failures included (`UNAVAILABLE`, `DEADLINE_EXCEEDED`; `CANCELLED` when the
 * caller's signal aborted the call or the client was closed).
 */
export class HubError extends Error {
  override name = "HubError";
  /** The status code's canonical name, such as `"NOT_FOUND"`. */
  readonly code: StatusCodeName;
  /** The ErrorInfo reason (an `ErrorReason` name), or `""` when the status carried none. */
  readonly reason: string;
  /** The ErrorInfo domain (`"kxm.dev"`), or `""` when the status carried none. */
  readonly domain: string;
  /** The ErrorInfo metadata (empty when none). */
  readonly metadata: Readonly<Record<string, string>>;
  /** The BadRequest field violations, in order (empty when none). */
  readonly fieldViolations: readonly FieldViolation[];
  /** The RetryInfo delay in milliseconds, when the hub said how long to wait before trying again. */
  readonly retryDelayMs: number | undefined;

  /** Builds an error with the given status code name and message (a test double, a local check). */
  constructor(code: StatusCodeName, message: string, details: HubErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.reason = details.reason ?? "";
    this.domain = details.domain ?? "";
    this.metadata = details.metadata ?? {};
    this.fieldViolations = details.fieldViolations ?? [];
    this.retryDelayMs = details.retryDelayMs;
  }

  /**
   * The HubError of any failure: a HubError is returned as is; a ConnectError (or anything else,
   * which Connect reads as `UNKNOWN`, or `CANCELLED` for an AbortError) is decoded.
   */
  static from(error: unknown): HubError {
    if (error instanceof HubError) {
      return error;
    }
    const connect = ConnectError.from(error);
    const details: HubErrorDetails = { cause: connect };
    for (const info of connect.findDetails(ErrorInfoSchema)) {
      details.reason = info.reason;
      details.domain = info.domain;
      details.metadata = { ...info.metadata };
    }
    const violations = connect
      .findDetails(BadRequestSchema)
      .flatMap((bad) => bad.fieldViolations.map((v) => ({ field: v.field, description: v.description })));
    if (violations.length > 0) {
      details.fieldViolations = violations;
    }
    for (const retry of connect.findDetails(RetryInfoSchema)) {
      if (retry.retryDelay !== undefined) {
        details.retryDelayMs = durationMs(retry.retryDelay);
      }
    }
    const code = STATUS_CODE_NAMES[connect.code] ?? "UNKNOWN";
    return new HubError(code, connect.rawMessage || code, details);
  }
}

/** Statuses after which a stream is opened again: the hub stopped or moved, or the connection broke. */
const RESUMABLE: ReadonlySet<StatusCodeName> = new Set<StatusCodeName>([
  "UNAVAILABLE",
  "DEADLINE_EXCEEDED",
  "CANCELLED",
  "UNKNOWN",
  "INTERNAL",
  // A slow reader cut off, or the agent's previous streams still counted after a reconnect.
  "RESOURCE_EXHAUSTED",
]);

/** Whether a stream that ended with `error` should be opened again (the subscribe loop's rule). */
export function isResumable(error: HubError): boolean {
  return RESUMABLE.has(error.code);
}
