package dev.kxm.hub.client;

import dev.kxm.v1.AssignmentPacket;
import dev.kxm.v1.AssignmentRequest;
import dev.kxm.v1.CompleteAssignmentResponse;
import dev.kxm.v1.ReviewEnvelope;
import dev.kxm.v1.WorkerResult;

/** One open assignment of this agent, as {@link Assignments} yields it. */
public final class Assignment {
  private final HubClient hub;
  private final AssignmentRequest request;
  private final AssignmentPacket packet;

  Assignment(HubClient hub, AssignmentRequest request, AssignmentPacket packet) {
    this.hub = hub;
    this.request = request;
    this.packet = packet;
  }

  /**
   * The assignment's id.
   *
   * @return {@code request().getAssignmentId()}
   */
  public String id() {
    return request.getAssignmentId();
  }

  /**
   * The assignment: what to do, its run and stage, and the attempt token for the calls made on its
   * behalf ({@code HubClient.builder().attemptToken(...)}).
   *
   * @return the request
   */
  public AssignmentRequest request() {
    return request;
  }

  /**
   * Its context packet and brief, when {@link HubClient#assignments(boolean)} asked for them.
   *
   * @return the packet, or null
   */
  public AssignmentPacket packet() {
    return packet;
  }

  /**
   * Returns the worker's result ({@link HubClient#complete(String, WorkerResult)}).
   *
   * @param result the result
   * @return the hub's answer
   * @throws HubException the hub refused (ASSIGNMENT_CLOSED: drop it and go on to the next)
   */
  public CompleteAssignmentResponse complete(WorkerResult result) {
    return hub.complete(id(), result);
  }

  /**
   * Returns the reviewer's verdict ({@link HubClient#complete(String, ReviewEnvelope)}).
   *
   * @param review the review
   * @return the hub's answer
   * @throws HubException the hub refused (ASSIGNMENT_CLOSED: drop it and go on to the next)
   */
  public CompleteAssignmentResponse complete(ReviewEnvelope review) {
    return hub.complete(id(), review);
  }
}
