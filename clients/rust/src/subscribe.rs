//! [`Subscription`]: an agent's inbox stream (`MessageService.Subscribe`) that keeps going across
//! stream ends, as the Python client's `messages.subscribe` does.

use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_core::Stream;
use tokio::time::Sleep;
use tonic::codec::Streaming;
use tonic::{Code, Response, Status};

use crate::v1::subscribe_response::Event;
use crate::v1::{SubscribeRequest, SubscribeResponse};
use crate::{BoxFuture, Client, Error};

/// The first backoff before a stream is opened again, and the most it grows to.
const INITIAL_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// How many yielded message ids a subscription remembers, to drop their redeliveries.
const REMEMBERED: usize = 1024;

/// The statuses after which the stream is opened again: the hub stopped, restarted or moved, the
/// connection broke, or a limit that passes (a slow reader cut off, the agent's old streams still
/// counted). Anything else (credentials, arguments) ends the subscription.
fn resumable(code: Code) -> bool {
    matches!(
        code,
        Code::Unavailable
            | Code::DeadlineExceeded
            | Code::Cancelled
            | Code::Unknown
            | Code::Internal
            | Code::ResourceExhausted
    )
}

impl Client {
    /// This agent's inbox events after `after_seq` (0: from the oldest kept), as a
    /// [`Subscription`] that opens the stream again by itself when it ends.
    ///
    /// Nothing is sent until the first [`next`](Subscription::next) (or poll).
    pub fn subscribe(&self, after_seq: u64) -> Subscription {
        Subscription {
            client: self.clone(),
            request: SubscribeRequest { after_seq, presence_only: false },
            backoff: INITIAL_BACKOFF,
            yielded: Remembered::default(),
            state: State::Open,
        }
    }
}

/// An agent's inbox events, for as long as the caller reads them; a `Stream` of
/// `Result<SubscribeResponse, Error>`, also read with [`next`](Self::next).
///
/// Every (re)connection starts with a `ready` event (`ready.after_seq` is where it resumed);
/// then come the unacknowledged messages again (`redelivered`) and the events after the cursor,
/// each with its `seq`. The cursor is `ready.after_seq` after a `ready` event, else the highest
/// `seq` seen. When the stream ends (OK, or `UNAVAILABLE`, `DEADLINE_EXCEEDED`, `CANCELLED`,
/// `UNKNOWN`, `INTERNAL`, `RESOURCE_EXHAUSTED`: a hub restart, a network failure, a slow reader
/// cut off) it is opened again after a jittered backoff (between half and all of a delay that
/// starts at 0.1 s and doubles up to 5 s, back to 0.1 s after a `ready`) from the cursor. Any other
/// error is yielded once and ends the subscription.
///
/// Within one subscription a message already yielded is not yielded again when it is redelivered
/// (its acknowledgement had not reached the hub); the last 1,024 ids are remembered. A new
/// subscription gets every unacknowledged message again: at least once across restarts of the
/// program. Acknowledge a message once handled ([`Client::ack`] or [`Client::reply`]).
///
/// Dropping it closes the stream. It needs a Tokio runtime with its time driver (the backoff).
pub struct Subscription {
    client: Client,
    request: SubscribeRequest,
    backoff: Duration,
    yielded: Remembered,
    state: State,
}

enum State {
    /// To open a stream from the cursor, now.
    Open,
    Opening(BoxFuture<Result<Response<Streaming<SubscribeResponse>>, Status>>),
    Reading(Box<Streaming<SubscribeResponse>>),
    /// The backoff before opening again.
    Waiting(Pin<Box<Sleep>>),
    /// Ended by an error that does not pass (already yielded).
    Done,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("cursor", &self.request.after_seq)
            .field("presence_only", &self.request.presence_only)
            .finish_non_exhaustive()
    }
}

impl Subscription {
    /// Only presence events (agents of the project coming and going), no messages.
    #[must_use]
    pub fn presence_only(mut self, presence_only: bool) -> Self {
        self.request.presence_only = presence_only;
        self
    }

    /// Where the next (re)connection resumes: the last `ready.after_seq`, or the highest `seq`
    /// yielded since.
    pub fn cursor(&self) -> u64 {
        self.request.after_seq
    }

    /// The next event; `Some(Err(_))` once when the subscription ends with an error that does not
    /// pass (such as `UNAUTHENTICATED`: a revoked key), then None. Cancel-safe: dropping the
    /// future loses no event.
    pub async fn next(&mut self) -> Option<Result<SubscribeResponse, Error>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }

    /// Whether a stream ended with `status` (None: OK) is opened again; if not, the error to yield.
    fn ended(&mut self, status: Option<Status>) -> Option<Error> {
        match status {
            Some(status) if !resumable(status.code()) => {
                self.state = State::Done;
                Some(self.client.error(status))
            }
            _ => {
                self.state = State::Waiting(Box::pin(tokio::time::sleep(jitter(self.backoff))));
                self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
                None
            }
        }
    }

    /// Move the cursor past `event`; None when it is a redelivery of a message already yielded.
    fn take(&mut self, event: SubscribeResponse) -> Option<SubscribeResponse> {
        match &event.event {
            Some(Event::Ready(ready)) => {
                self.backoff = INITIAL_BACKOFF;
                self.request.after_seq = ready.after_seq;
            }
            _ => self.request.after_seq = self.request.after_seq.max(event.seq),
        }
        if let Some(Event::Message(message)) = &event.event {
            if event.redelivered && self.yielded.contains(&message.id) {
                return None;
            }
            self.yielded.insert(&message.id);
        }
        Some(event)
    }
}

impl Stream for Subscription {
    type Item = Result<SubscribeResponse, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            match &mut this.state {
                State::Open => {
                    let mut messages = this.client.messages();
                    let request = this.request;
                    this.state = State::Opening(Box::pin(async move { messages.subscribe(request).await }));
                }
                State::Opening(opening) => match opening.as_mut().poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Ok(response)) => this.state = State::Reading(Box::new(response.into_inner())),
                    Poll::Ready(Err(status)) => {
                        if let Some(error) = this.ended(Some(status)) {
                            return Poll::Ready(Some(Err(error)));
                        }
                    }
                },
                State::Reading(stream) => match Pin::new(&mut **stream).poll_next(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Some(Ok(event))) => {
                        if let Some(event) = this.take(event) {
                            return Poll::Ready(Some(Ok(event)));
                        }
                    }
                    Poll::Ready(Some(Err(status))) => {
                        if let Some(error) = this.ended(Some(status)) {
                            return Poll::Ready(Some(Err(error)));
                        }
                    }
                    Poll::Ready(None) => {
                        this.ended(None);
                    }
                },
                State::Waiting(sleep) => match sleep.as_mut().poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(()) => this.state = State::Open,
                },
                State::Done => return Poll::Ready(None),
            }
        }
    }
}

/// The last `REMEMBERED` message ids yielded.
#[derive(Default)]
struct Remembered {
    order: VecDeque<String>,
    ids: HashSet<String>,
}

impl Remembered {
    fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    fn insert(&mut self, id: &str) {
        if self.ids.insert(id.to_owned()) {
            self.order.push_back(id.to_owned());
            if self.order.len() > REMEMBERED
                && let Some(oldest) = self.order.pop_front()
            {
                self.ids.remove(&oldest);
            }
        }
    }
}

/// A delay drawn uniformly between half of `delay` and all of it (so that clients cut off together
/// do not come back together). Seeded by the standard library's per-process random keys and the
/// clock: jitter needs no cryptographic randomness, nor a crate for it.
pub(crate) fn jitter(delay: Duration) -> Duration {
    use std::hash::{BuildHasher, Hasher};

    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_nanos()));
    #[allow(clippy::cast_precision_loss)] // 53 bits: exact in an f64
    let unit = (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64;
    delay / 2 + (delay / 2).mul_f64(unit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v1::{Message, SubscribeReady};

    #[test]
    fn jitter_stays_between_half_and_all() {
        for _ in 0..1000 {
            let delay = jitter(Duration::from_millis(400));
            assert!(delay >= Duration::from_millis(200) && delay <= Duration::from_millis(400), "{delay:?}");
        }
    }

    #[test]
    fn remembers_the_last_ids_only() {
        let mut remembered = Remembered::default();
        for n in 0..=REMEMBERED {
            remembered.insert(&n.to_string());
        }
        assert!(!remembered.contains("0") && remembered.contains("1") && remembered.contains(&REMEMBERED.to_string()));
        assert_eq!(remembered.order.len(), REMEMBERED);
    }

    #[test]
    fn the_codes_that_resume() {
        assert!(resumable(Code::Unavailable) && resumable(Code::ResourceExhausted) && resumable(Code::Cancelled));
        assert!(!resumable(Code::Unauthenticated) && !resumable(Code::InvalidArgument) && !resumable(Code::NotFound));
    }

    #[tokio::test]
    async fn the_cursor_follows_ready_and_seq_and_redeliveries_are_dropped() {
        let client = crate::client::test_client();
        let mut subscription = client.subscribe(5);
        let ready = |after_seq| SubscribeResponse {
            event: Some(Event::Ready(SubscribeReady { after_seq, ..SubscribeReady::default() })),
            ..SubscribeResponse::default()
        };
        let message = |seq, id: &str, redelivered| SubscribeResponse {
            seq,
            redelivered,
            event: Some(Event::Message(Message { id: id.into(), ..Message::default() })),
            ..SubscribeResponse::default()
        };
        subscription.backoff = MAX_BACKOFF;
        assert!(subscription.take(ready(5)).is_some());
        assert_eq!((subscription.cursor(), subscription.backoff), (5, INITIAL_BACKOFF));
        assert!(subscription.take(message(9, "msg_a", false)).is_some());
        assert!(subscription.take(message(7, "msg_b", false)).is_some());
        assert_eq!(subscription.cursor(), 9);
        assert!(subscription.take(ready(9)).is_some());
        assert!(subscription.take(message(8, "msg_a", true)).is_none(), "yielded before: dropped");
        assert!(subscription.take(message(8, "msg_c", true)).is_some(), "never yielded: kept");
    }
}
