// The resuming inbox stream: Subscribe(after_seq), opened again after every drop with the cursor,
// as the Python client's messages.subscribe does.
import type { Client } from "@connectrpc/connect";

import type { MessageService, SubscribeResponse } from "../gen/kxm/v1/message_service_pb.js";
import { HubError, isResumable } from "./errors.js";

/** The first reconnect waits up to this long (uniformly between half and all of it). */
export const SUBSCRIBE_INITIAL_BACKOFF_MS = 100;
/** The reconnect backoff doubles up to this (and starts over after a `ready` event). */
export const SUBSCRIBE_MAX_BACKOFF_MS = 5_000;
/** How many yielded message ids a subscription remembers, to drop their redeliveries. */
export const SUBSCRIBE_REMEMBERED_IDS = 1_024;

/** Options of `HubClient.subscribe`. */
export interface SubscribeOptions {
  /** Start after this sequence number (0, the default: every event still in the log). */
  afterSeq?: bigint | number;
  /** Only presence events (the request's `presence_only`). */
  presenceOnly?: boolean;
  /** Aborting it ends the subscription: the iteration finishes without an error. */
  signal?: AbortSignal;
}

/** Resolves after `ms`, or as soon as one of the signals aborts. */
export function sleep(ms: number, ...signals: Array<AbortSignal | undefined>): Promise<void> {
  return new Promise((resolve) => {
    const active = signals.filter((s): s is AbortSignal => s !== undefined);
    if (active.some((s) => s.aborted)) {
      resolve();
      return;
    }
    const finish = (): void => {
      clearTimeout(timer);
      active.forEach((s) => s.removeEventListener("abort", finish));
      resolve();
    };
    const timer = setTimeout(finish, ms);
    active.forEach((s) => s.addEventListener("abort", finish, { once: true }));
  });
}

/**
 * Yields the agent's inbox events until the caller stops (`signal`, `break`, or the client closes).
 *
 * Every (re)connection yields its `ready` event first. The cursor is `ready.afterSeq` after a
 * `ready`, else the highest `seq` yielded. When the stream ends (OK) or fails with UNAVAILABLE,
 * DEADLINE_EXCEEDED, CANCELLED (not the caller's), UNKNOWN, INTERNAL or RESOURCE_EXHAUSTED, it is
 * opened again after a jittered backoff (0.1 s doubling to 5 s, reset by a `ready`) with
 * `afterSeq` = the cursor. A message redelivered after a reconnect that this subscription already
 * yielded (one of the last 1,024) is not yielded again.
 *
 * Throws (from the iteration) the HubError of any other failure: UNAUTHENTICATED, INVALID_ARGUMENT,
 * PERMISSION_DENIED, FAILED_PRECONDITION, ...
 */
export async function* resumingSubscribe(
  messages: Client<typeof MessageService>,
  options: SubscribeOptions,
  closing: AbortSignal,
): AsyncGenerator<SubscribeResponse, void, undefined> {
  const { signal, presenceOnly = false } = options;
  const stopped = (): boolean => signal?.aborted === true || closing.aborted;
  let cursor = BigInt(options.afterSeq ?? 0);
  let backoff = SUBSCRIBE_INITIAL_BACKOFF_MS;
  const yielded = new Set<string>();
  while (!stopped()) {
    const attempt = new AbortController();
    const stop = (): void => attempt.abort();
    signal?.addEventListener("abort", stop, { once: true });
    try {
      // A stream has no deadline; keepalive pings find a dead connection.
      for await (const event of messages.subscribe({ afterSeq: cursor, presenceOnly }, { signal: attempt.signal })) {
        if (event.event.case === "ready") {
          backoff = SUBSCRIBE_INITIAL_BACKOFF_MS;
          cursor = event.event.value.afterSeq;
        } else if (event.seq > cursor) {
          cursor = event.seq;
        }
        if (event.event.case === "message") {
          const id = event.event.value.id;
          if (event.redelivered && yielded.has(id)) {
            continue; // yielded before a reconnect whose acknowledgement had not landed
          }
          yielded.add(id);
          if (yielded.size > SUBSCRIBE_REMEMBERED_IDS) {
            yielded.delete(yielded.values().next().value!);
          }
        }
        yield event;
      }
    } catch (err) {
      if (stopped()) {
        return;
      }
      const error = HubError.from(err);
      if (!isResumable(error)) {
        throw error;
      }
    } finally {
      signal?.removeEventListener("abort", stop);
      attempt.abort(); // the stream of this attempt, if still open (the caller stopped iterating)
    }
    await sleep(backoff / 2 + Math.random() * (backoff / 2), signal, closing);
    backoff = Math.min(SUBSCRIBE_MAX_BACKOFF_MS, backoff * 2);
  }
}
