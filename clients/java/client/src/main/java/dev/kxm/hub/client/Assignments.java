package dev.kxm.hub.client;

import dev.kxm.v1.NextAssignmentRequest;
import dev.kxm.v1.NextAssignmentResponse;
import io.grpc.Status;
import java.util.HashSet;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The worker side of step runs: each open assignment of this agent, oldest first, as an {@link
 * Iterator} that waits while there is none new; close it (from any thread) to stop.
 *
 * <p>It reads NextAssignment from after the last assignment yielded; when there is none after it,
 * it looks from the oldest again, and when that finds none new it waits (0.05 s at first, doubling
 * to 1 s) and starts over. An assignment still open after it was yielded (passed over, or its
 * {@code complete} failed) comes again after the next wait, so nothing is lost by skipping it.
 *
 * <pre>{@code
 * try (Assignments work = hub.assignments()) {
 *   for (Assignment assignment : (Iterable<Assignment>) () -> work) {
 *     assignment.complete(WorkerResult.newBuilder().setOutcome("passed").setSummary("done").build());
 *   }
 * }
 * }</pre>
 */
public final class Assignments implements Iterator<Assignment>, AutoCloseable {
  static final double MIN_POLL_S = 0.05;
  static final double MAX_POLL_S = 1.0;

  private final HubClient hub;
  private final boolean includeContext;
  private final Object sleeper = new Object();
  private final Set<String> round = new HashSet<>();
  private String cursor = "";
  private double delay = MIN_POLL_S;
  private Assignment peeked;
  private volatile boolean closed;

  Assignments(HubClient hub, boolean includeContext) {
    this.hub = hub;
    this.includeContext = includeContext;
  }

  /**
   * Waits for the next open assignment.
   *
   * @return true when there is one; false once closed
   * @throws HubException a NextAssignment call failed, or the thread was interrupted (CANCELLED)
   */
  @Override
  public boolean hasNext() {
    while (peeked == null && !closed) {
      NextAssignmentRequest request =
          NextAssignmentRequest.newBuilder()
              .setAfterAssignmentId(cursor)
              .setIncludeContext(includeContext)
              .build();
      NextAssignmentResponse response = hub.call(() -> hub.workflows().nextAssignment(request));
      String found = response.hasAssignment() ? response.getAssignment().getAssignmentId() : "";
      if (!found.isEmpty() && !round.contains(found)) {
        cursor = found;
        round.add(found);
        delay = MIN_POLL_S;
        peeked = new Assignment(hub, response.getAssignment(), response.hasPacket() ? response.getPacket() : null);
        break;
      }
      if (!cursor.isEmpty() && found.isEmpty()) {
        cursor = ""; // nothing after the last one: look from the oldest again (one may be older)
        continue;
      }
      cursor = "";
      round.clear();
      pause(delay);
      delay = Math.min(MAX_POLL_S, delay * 2);
    }
    return !closed && peeked != null;
  }

  /**
   * The next open assignment, waiting for it.
   *
   * @return the assignment
   * @throws NoSuchElementException closed
   * @throws HubException as {@link #hasNext()}
   */
  @Override
  public Assignment next() {
    if (!hasNext()) {
      throw new NoSuchElementException("the assignments are closed");
    }
    Assignment assignment = peeked;
    peeked = null;
    return assignment;
  }

  private void pause(double seconds) {
    long until = System.nanoTime() + (long) (seconds * 1e9);
    synchronized (sleeper) {
      while (!closed) {
        long left = until - System.nanoTime();
        if (left <= 0) {
          return;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(sleeper, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw HubException.local(Status.Code.CANCELLED, "interrupted while waiting for an assignment", e);
        }
      }
    }
  }

  /** Stops waiting: {@link #hasNext()} returns false from now on. Calling it again does nothing. */
  @Override
  public void close() {
    closed = true;
    synchronized (sleeper) {
      sleeper.notifyAll();
    }
    hub.forget(this);
  }
}
