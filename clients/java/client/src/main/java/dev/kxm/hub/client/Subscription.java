package dev.kxm.hub.client;

import dev.kxm.v1.SubscribeRequest;
import dev.kxm.v1.SubscribeResponse;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * This agent's inbox stream (MessageService.Subscribe) that keeps going across stream ends: an
 * {@link Iterator} of events, to close when done (from any thread; {@link HubClient#close()} closes
 * it too).
 *
 * <p>Every (re)connection starts with a {@code ready} event; then come redelivered unacknowledged
 * messages ({@code redelivered}) and the events after the cursor, each with its {@code seq}. The
 * cursor is {@code ready.after_seq} on a ready event, else the highest {@code seq} seen. When the
 * stream ends (OK, or UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED not caused by {@link #close()},
 * UNKNOWN, INTERNAL, RESOURCE_EXHAUSTED: a hub restart, a network failure, a slow consumer cut off)
 * it is opened again after a jittered backoff (uniform between half and all of a delay starting at
 * 0.1 s, doubling to at most 5 s, reset by a {@code ready}) with {@code after_seq} = the cursor. Any
 * other error (credentials, arguments) ends the subscription: {@link #hasNext()} throws it as a
 * {@link HubException}. Within one subscription a message already yielded is not yielded again
 * when it is redelivered (the last 1,024 ids are remembered); acknowledge messages once handled.
 *
 * <pre>{@code
 * try (Subscription inbox = hub.subscribe(0)) {
 *   while (inbox.hasNext()) {
 *     SubscribeResponse event = inbox.next();
 *     if (event.hasMessage()) { hub.reply(event.getMessage().getId(), "done"); }
 *   }
 * }
 * }</pre>
 *
 * <p>The stream is read on a thread of its own into a small buffer (64 events; the stream waits
 * while it is full). One thread at a time may iterate.
 */
public final class Subscription implements Iterator<SubscribeResponse>, AutoCloseable {
  static final int REMEMBERED = 1024;
  static final double INITIAL_BACKOFF_S = 0.1;
  static final double MAX_BACKOFF_S = 5.0;
  private static final long STEP_MS = 100;

  /** What the reader puts after the last event: the end, with the error that ended it or null. */
  private static final class End {
    final HubException error;

    End(HubException error) {
      this.error = error;
    }
  }

  private final HubClient hub;
  private final boolean presenceOnly;
  private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(64);
  private final Object sleeper = new Object();
  private final Thread reader;
  private volatile boolean closed;
  private volatile long cursor;
  private volatile Context.CancellableContext call;
  private SubscribeResponse peeked;
  private boolean ended;

  Subscription(HubClient hub, long afterSeq, boolean presenceOnly) {
    this.hub = hub;
    this.cursor = afterSeq;
    this.presenceOnly = presenceOnly;
    this.reader = new Thread(this::read, "kxm-hub-subscribe");
    this.reader.setDaemon(true);
  }

  void start() {
    reader.start();
  }

  /**
   * The cursor: where a reconnection resumes ({@code ready.after_seq}, else the highest {@code
   * seq} received).
   *
   * @return the sequence the next stream would start after
   */
  public long cursor() {
    return cursor;
  }

  /** Whether a stream that ended with {@code error} is opened again. */
  static boolean resumable(Status.Code code) {
    switch (code) {
      case OK:
      case UNAVAILABLE:
      case DEADLINE_EXCEEDED:
      case CANCELLED:
      case UNKNOWN:
      case INTERNAL:
      case RESOURCE_EXHAUSTED:
        return true;
      default:
        return false;
    }
  }

  private void read() {
    HubException failure = null;
    double backoff = INITIAL_BACKOFF_S;
    Set<String> yielded = new LinkedHashSet<>();
    try {
      while (!closed) {
        Context.CancellableContext context = Context.current().withCancellation();
        call = context;
        if (closed) {
          context.cancel(null);
          break;
        }
        Status.Code ended = Status.Code.OK;
        Context previous = context.attach();
        try {
          SubscribeRequest request =
              SubscribeRequest.newBuilder().setAfterSeq(cursor).setPresenceOnly(presenceOnly).build();
          Iterator<SubscribeResponse> events = hub.messages().subscribe(request);
          while (events.hasNext()) {
            SubscribeResponse event = events.next();
            if (event.hasReady()) {
              backoff = INITIAL_BACKOFF_S;
              cursor = event.getReady().getAfterSeq();
            } else {
              cursor = Math.max(cursor, event.getSeq());
            }
            if (event.hasMessage()) {
              String id = event.getMessage().getId();
              if (event.getRedelivered() && yielded.contains(id)) {
                continue;
              }
              yielded.add(id);
              if (yielded.size() > REMEMBERED) {
                Iterator<String> oldest = yielded.iterator();
                oldest.next();
                oldest.remove();
              }
            }
            if (!offer(event)) {
              return;
            }
          }
        } catch (StatusRuntimeException e) {
          if (closed) {
            return;
          }
          HubException error = HubException.from(e);
          if (!resumable(error.code())) {
            failure = error;
            return;
          }
          ended = error.code();
        } finally {
          context.detach(previous);
          context.cancel(null);
        }
        if (closed) {
          return;
        }
        pause(ThreadLocalRandom.current().nextDouble(backoff / 2, backoff));
        backoff = Math.min(MAX_BACKOFF_S, backoff * 2);
        if (ended == Status.Code.UNAVAILABLE) {
          hub.resetConnectBackoff(); // connect now rather than when grpc's own backoff ends
        }
      }
    } catch (RuntimeException e) {
      failure = HubException.from(e);
    } finally {
      End end = new End(closed ? null : failure);
      while (!closed) {
        try {
          if (queue.offer(end, STEP_MS, TimeUnit.MILLISECONDS)) {
            break;
          }
        } catch (InterruptedException e) {
          break;
        }
      }
    }
  }

  /** Puts an event into the buffer, waiting while it is full; false once closed. */
  private boolean offer(SubscribeResponse event) {
    while (!closed) {
      try {
        if (queue.offer(event, STEP_MS, TimeUnit.MILLISECONDS)) {
          return true;
        }
      } catch (InterruptedException e) {
        return false;
      }
    }
    return false;
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
          return;
        }
      }
    }
  }

  /**
   * Waits for the next event.
   *
   * @return true when there is one; false once the subscription is closed
   * @throws HubException the subscription ended with an error that is not resumed (UNAUTHENTICATED,
   *     INVALID_ARGUMENT, PERMISSION_DENIED...), or the waiting thread was interrupted (CANCELLED)
   */
  @Override
  public boolean hasNext() {
    return peek(Long.MAX_VALUE) != null;
  }

  /**
   * The next event, waiting for it.
   *
   * @return the event
   * @throws NoSuchElementException the subscription is closed
   * @throws HubException as {@link #hasNext()}
   */
  @Override
  public SubscribeResponse next() {
    if (!hasNext()) {
      throw new NoSuchElementException("the subscription is closed");
    }
    SubscribeResponse event = peeked;
    peeked = null;
    return event;
  }

  /**
   * The next event, waiting at most {@code timeout} for it.
   *
   * @param timeout how long to wait
   * @return the event, or null when none came in time
   * @throws NoSuchElementException the subscription is closed
   * @throws HubException as {@link #hasNext()}
   */
  public SubscribeResponse poll(Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    SubscribeResponse event = peek(until);
    if (event == null) {
      if (ended || closed) {
        throw new NoSuchElementException("the subscription is closed");
      }
      return null;
    }
    peeked = null;
    return event;
  }

  /** The buffered next event, waiting until {@code until} (System.nanoTime; MAX_VALUE: no limit). */
  private SubscribeResponse peek(long until) {
    while (peeked == null && !ended && !closed) {
      long left = until == Long.MAX_VALUE ? STEP_MS : Math.min(STEP_MS, (until - System.nanoTime()) / 1_000_000);
      if (left <= 0) {
        return null;
      }
      Object item;
      try {
        item = queue.poll(left, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw HubException.local(Status.Code.CANCELLED, "interrupted while waiting for an event", e);
      }
      if (item instanceof SubscribeResponse) {
        peeked = (SubscribeResponse) item;
      } else if (item instanceof End) {
        ended = true;
        if (((End) item).error != null) {
          throw ((End) item).error;
        }
      }
    }
    return closed ? null : peeked;
  }

  /**
   * Stops the subscription: cancels the stream and ends the iteration ({@link #hasNext()} returns
   * false, also in a thread waiting in it). Calling it again does nothing.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    Context.CancellableContext current = call;
    if (current != null) {
      current.cancel(null);
    }
    synchronized (sleeper) {
      sleeper.notifyAll();
    }
    hub.forget(this);
    if (Thread.currentThread() != reader) {
      try {
        reader.join(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
