// The worker side of step workflows: the assignments the hub gives this agent, and completing them,
// as the Python client's kxm_grpc.client.assignments does.
import { isMessage } from "@bufbuild/protobuf";
import type { CallOptions, Client } from "@connectrpc/connect";

import { WorkerResultSchema } from "../gen/kxm/v1/envelopes_pb.js";
import type { AssignmentRequest, ReviewEnvelope, WorkerResult } from "../gen/kxm/v1/envelopes_pb.js";
import type {
  AssignmentPacket,
  CompleteAssignmentResponse,
  WorkflowService,
} from "../gen/kxm/v1/workflow_service_pb.js";
import { sleep } from "./subscribe.js";

/** The first wait when there is no assignment; it doubles up to `pollMs` (1 s by default). */
export const ASSIGNMENT_MIN_POLL_MS = 50;
/** The longest wait between reads while there is no assignment (the default of `pollMs`). */
export const ASSIGNMENT_MAX_POLL_MS = 1_000;

/** Options of `HubClient.assignments`. */
export interface AssignmentsOptions {
  /** Aborting it ends the iteration (without an error). */
  signal?: AbortSignal;
  /** The longest wait between reads while there is none, in milliseconds (default 1000). */
  pollMs?: number;
  /** Also assemble each assignment's context packet (`Assignment.packet`). */
  includeContext?: boolean;
}

/**
 * CompleteAssignment: settle `assignmentId` with a WorkerResult (a worker's assignment) or a
 * ReviewEnvelope (a reviewer's). The same result again is answered `duplicate`; rejects with a
 * HubError (reason `ERROR_REASON_ASSIGNMENT_CLOSED` when the assignment closed meanwhile: drop it
 * and go on to the next).
 */
export function completeAssignment(
  workflows: Client<typeof WorkflowService>,
  assignmentId: string,
  result: WorkerResult | ReviewEnvelope,
  options?: CallOptions,
): Promise<CompleteAssignmentResponse> {
  const oneof = isMessage(result, WorkerResultSchema)
    ? ({ case: "workerResult", value: result } as const)
    : ({ case: "review", value: result } as const);
  return workflows.completeAssignment({ assignmentId, result: oneof }, options);
}

/** One open assignment of this agent. */
export class Assignment {
  /** The AssignmentRequest (its `attemptToken` is for calls made on the assignment's behalf). */
  readonly request: AssignmentRequest;
  /** Its context packet and brief, when read with `includeContext`. */
  readonly packet: AssignmentPacket | undefined;
  readonly #workflows: Client<typeof WorkflowService>;

  /** An assignment read by `assignmentsOf`, completed through `workflows`. */
  constructor(
    request: AssignmentRequest,
    packet: AssignmentPacket | undefined,
    workflows: Client<typeof WorkflowService>,
  ) {
    this.request = request;
    this.packet = packet;
    this.#workflows = workflows;
  }

  /** The assignment's id. */
  get id(): string {
    return this.request.assignmentId;
  }

  /** Returns the result (see `completeAssignment`); rejects with a HubError. */
  complete(result: WorkerResult | ReviewEnvelope, options?: CallOptions): Promise<CompleteAssignmentResponse> {
    return completeAssignment(this.#workflows, this.id, result, options);
  }
}

/**
 * Yields each open assignment of this agent, oldest first: NextAssignment with
 * `afterAssignmentId` = the last one yielded; when there is none after it, it looks from the oldest
 * again, and when there is none at all it waits (50 ms, doubling up to `pollMs`) and starts over.
 * One still open after it was yielded (skipped, or its completion failed) comes again after the
 * next wait. Ends when `signal` aborts; a failed read rejects the iteration with its HubError.
 */
export async function* assignmentsOf(
  workflows: Client<typeof WorkflowService>,
  options: AssignmentsOptions,
  closing: AbortSignal,
): AsyncGenerator<Assignment, void, undefined> {
  const { signal, includeContext = false } = options;
  const pollMs = options.pollMs ?? ASSIGNMENT_MAX_POLL_MS;
  const stopped = (): boolean => signal?.aborted === true || closing.aborted;
  let cursor = "";
  let round = new Set<string>(); // yielded since the last wait: not yielded again before one
  let delay = ASSIGNMENT_MIN_POLL_MS;
  while (!stopped()) {
    let response;
    try {
      response = await workflows.nextAssignment({ afterAssignmentId: cursor, includeContext }, { signal });
    } catch (err) {
      if (stopped()) {
        return;
      }
      throw err;
    }
    const found = response.assignment?.assignmentId ?? "";
    if (found && !round.has(found)) {
      cursor = found;
      round.add(found);
      delay = ASSIGNMENT_MIN_POLL_MS;
      yield new Assignment(response.assignment!, response.packet, workflows);
      continue;
    }
    if (cursor && !found) {
      cursor = ""; // nothing after the last one: look from the oldest again (one may be older)
      continue;
    }
    cursor = "";
    round = new Set();
    await sleep(delay, signal, closing);
    delay = Math.min(pollMs, delay * 2);
  }
}
