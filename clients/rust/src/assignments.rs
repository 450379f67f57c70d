//! The worker side of step runs, as the Python client's `kxm_grpc.client.assignments`: the
//! assignments the hub gives this agent ([`Client::assignments`]) and completing them
//! ([`Client::complete`]).
//!
//! ```no_run
//! # async fn worker(client: kxm_client::Client) -> Result<(), kxm_client::Error> {
//! use kxm_client::v1::WorkerResult;
//!
//! let mut assignments = client.assignments();
//! while let Some(assignment) = assignments.next().await {
//!     let assignment = assignment?;
//!     let result = WorkerResult { outcome: "passed".into(), summary: "done".into(), ..Default::default() };
//!     match assignment.complete(result).await {
//!         // Closed while we worked on it (the run was cancelled, a panel decided without us).
//!         Err(error) if error.reason() == "ERROR_REASON_ASSIGNMENT_CLOSED" => continue,
//!         other => other?,
//!     };
//! }
//! # Ok(())
//! # }
//! ```

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;
use tokio::time::Sleep;

use crate::v1::complete_assignment_request::Result as AssignmentResult;
use crate::v1::{
    AssignmentPacket, AssignmentRequest, CompleteAssignmentRequest, CompleteAssignmentResponse, NextAssignmentRequest,
    NextAssignmentResponse, ReviewEnvelope, WorkerResult,
};
use crate::{BoxFuture, Client, Error};

/// The first wait between reads when there is no assignment, and the most it grows to (by default).
const MIN_POLL: Duration = Duration::from_millis(50);
const MAX_POLL: Duration = Duration::from_secs(1);

impl From<WorkerResult> for AssignmentResult {
    fn from(result: WorkerResult) -> Self {
        AssignmentResult::WorkerResult(result)
    }
}

impl From<ReviewEnvelope> for AssignmentResult {
    fn from(review: ReviewEnvelope) -> Self {
        AssignmentResult::Review(review)
    }
}

impl Client {
    /// This agent's open assignments, oldest first, as [`Assignments`]: a stream that waits while
    /// there is none new. Nothing is sent until it is first read.
    pub fn assignments(&self) -> Assignments {
        Assignments {
            client: self.clone(),
            include_context: false,
            cursor: String::new(),
            round: HashSet::new(),
            delay: MIN_POLL,
            max_delay: MAX_POLL,
            state: State::Read,
        }
    }

    /// Return this agent's result for one of its assignments: a `WorkerResult`, or a
    /// `ReviewEnvelope` for a reviewer's assignment (both convert into [`AssignmentResult`]).
    /// Exactly one result per assignment: the same again is answered `duplicate`.
    ///
    /// # Errors
    ///
    /// The hub's [`Error`]: `ERROR_REASON_ASSIGNMENT_CLOSED` (the assignment closed meanwhile, or
    /// another result was given: drop it and go on), an invalid result (field violations), ...
    pub async fn complete(
        &self,
        assignment_id: impl Into<String>,
        result: impl Into<AssignmentResult>,
    ) -> Result<CompleteAssignmentResponse, Error> {
        let request = CompleteAssignmentRequest { assignment_id: assignment_id.into(), result: Some(result.into()) };
        self.answer(self.workflows().complete_assignment(request).await)
    }
}

/// One assignment this agent holds ([`Client::assignments`]).
#[derive(Clone)]
pub struct Assignment {
    /// The assignment: its step, instructions, outcomes, and the `attempt_token` for calls made
    /// on its behalf (`ClientBuilder::attempt_token`).
    pub request: AssignmentRequest,
    /// Its context packet and brief, when read with [`Assignments::include_context`].
    pub packet: Option<AssignmentPacket>,
    client: Client,
}

impl std::fmt::Debug for Assignment {
    /// The request (its `attempt_token`, a secret, shown as `<redacted>`), the packet and the client.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut request = self.request.clone();
        if !request.attempt_token.is_empty() {
            request.attempt_token = "<redacted>".to_owned();
        }
        f.debug_struct("Assignment")
            .field("request", &request)
            .field("packet", &self.packet)
            .field("client", &self.client)
            .finish()
    }
}

impl Assignment {
    /// The assignment's id (`asg_` + 32 hex).
    pub fn id(&self) -> &str {
        &self.request.assignment_id
    }

    /// Return the result ([`Client::complete`] for this assignment).
    ///
    /// # Errors
    ///
    /// As [`Client::complete`].
    pub async fn complete(&self, result: impl Into<AssignmentResult>) -> Result<CompleteAssignmentResponse, Error> {
        self.client.complete(self.id(), result).await
    }
}

/// This agent's open assignments, oldest first; a `Stream` of `Result<Assignment, Error>`, also
/// read with [`next`](Self::next).
///
/// Each read is a `NextAssignment` after the last assignment yielded; when there is none after
/// it, the next read starts from the oldest again at once (an older one may still be open). When
/// a read from the oldest finds nothing new (none at all, or one already yielded since the last
/// wait), the stream waits before reading from the oldest again: 0.05 s at first, doubling up to
/// 1 s ([`poll`](Self::poll)), back to 0.05 s after an assignment. So one still open after it
/// was yielded (passed over, or its `complete` failed) comes again after the next wait: nothing
/// is lost by skipping it. A failed read is yielded once and ends the stream. Dropping it stops it.
pub struct Assignments {
    client: Client,
    include_context: bool,
    /// The last assignment yielded ("": start from the oldest).
    cursor: String,
    /// The assignments yielded since the last wait: not yielded again before one.
    round: HashSet<String>,
    delay: Duration,
    max_delay: Duration,
    state: State,
}

enum State {
    Read,
    Reading(BoxFuture<Result<NextAssignmentResponse, Error>>),
    Waiting(Pin<Box<Sleep>>),
    Done,
}

impl std::fmt::Debug for Assignments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Assignments").field("cursor", &self.cursor).finish_non_exhaustive()
    }
}

impl Assignments {
    /// Have each read that finds an assignment also assemble its context packet and brief
    /// ([`Assignment::packet`]); a read that finds none costs no assembly.
    #[must_use]
    pub fn include_context(mut self, include_context: bool) -> Self {
        self.include_context = include_context;
        self
    }

    /// The longest wait between reads while there is no assignment (default 1 s).
    #[must_use]
    pub fn poll(mut self, max_wait: Duration) -> Self {
        self.max_delay = max_wait.max(MIN_POLL);
        self
    }

    /// The next assignment; `Some(Err(_))` once when a read fails, then None. Cancel-safe.
    pub async fn next(&mut self) -> Option<Result<Assignment, Error>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }

    /// What a read's answer means: an assignment to yield, or the next read (now or after a wait).
    fn found(&mut self, response: NextAssignmentResponse) -> Option<Assignment> {
        let NextAssignmentResponse { assignment, packet } = response;
        let found = assignment.as_ref().map(|assignment| assignment.assignment_id.clone()).unwrap_or_default();
        if !found.is_empty() && !self.round.contains(&found) {
            self.cursor.clone_from(&found);
            self.round.insert(found);
            self.delay = MIN_POLL;
            self.state = State::Read;
            let request = assignment.unwrap_or_default();
            return Some(Assignment { request, packet, client: self.client.clone() });
        }
        if !self.cursor.is_empty() && found.is_empty() {
            // Nothing after the last one: look from the oldest again (one may be older).
            self.cursor.clear();
            self.state = State::Read;
            return None;
        }
        self.cursor.clear();
        self.round.clear();
        self.state = State::Waiting(Box::pin(tokio::time::sleep(self.delay)));
        self.delay = (self.delay * 2).min(self.max_delay);
        None
    }
}

impl Stream for Assignments {
    type Item = Result<Assignment, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            match &mut this.state {
                State::Read => {
                    let client = this.client.clone();
                    let request = NextAssignmentRequest {
                        after_assignment_id: this.cursor.clone(),
                        include_context: this.include_context,
                        context_budget_tokens: 0,
                    };
                    this.state = State::Reading(Box::pin(async move {
                        client.answer(client.workflows().next_assignment(request).await)
                    }));
                }
                State::Reading(reading) => match reading.as_mut().poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Ok(response)) => {
                        if let Some(assignment) = this.found(response) {
                            return Poll::Ready(Some(Ok(assignment)));
                        }
                    }
                    Poll::Ready(Err(error)) => {
                        this.state = State::Done;
                        return Poll::Ready(Some(Err(error)));
                    }
                },
                State::Waiting(sleep) => match sleep.as_mut().poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(()) => this.state = State::Read,
                },
                State::Done => return Poll::Ready(None),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(id: &str) -> NextAssignmentResponse {
        let assignment = (!id.is_empty())
            .then(|| AssignmentRequest { assignment_id: id.into(), ..AssignmentRequest::default() });
        NextAssignmentResponse { assignment, packet: None }
    }

    #[tokio::test]
    async fn reads_after_the_last_then_from_the_oldest_after_a_wait() {
        let client = crate::client::test_client();
        let mut assignments = client.assignments();
        assert_eq!(assignments.found(answer("asg_1")).map(|a| a.request.assignment_id), Some("asg_1".into()));
        assert_eq!(assignments.cursor, "asg_1");
        assert_eq!(assignments.found(answer("asg_2")).map(|a| a.request.assignment_id), Some("asg_2".into()));
        // Nothing after asg_2: read from the oldest at once.
        assert!(assignments.found(answer("")).is_none());
        assert!(matches!(assignments.state, State::Read) && assignments.cursor.is_empty());
        // asg_1 again (still open), yielded in this round already: wait, then it may come again.
        assert!(assignments.found(answer("asg_1")).is_none());
        assert!(matches!(assignments.state, State::Waiting(_)) && assignments.round.is_empty());
        assert_eq!(assignments.delay, MIN_POLL * 2);
        assert!(assignments.found(answer("asg_1")).is_some());
        assert_eq!(assignments.delay, MIN_POLL);
        // Nothing at all from the oldest: wait.
        assignments.cursor.clear();
        assert!(assignments.found(answer("")).is_none());
        assert!(matches!(assignments.state, State::Waiting(_)));
    }

    #[tokio::test]
    async fn debug_shows_no_attempt_token() {
        let client = crate::client::test_client();
        let request = AssignmentRequest {
            assignment_id: "asg_1".into(),
            attempt_token: "secret-attempt".into(),
            ..AssignmentRequest::default()
        };
        let shown = format!("{:?}", Assignment { request, packet: None, client });
        assert!(!shown.contains("secret-attempt") && shown.contains("<redacted>") && shown.contains("asg_1"), "{shown}");
    }
}
