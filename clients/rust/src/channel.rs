//! [`HubChannel`]: the middleware under every generated client a [`Client`](crate::Client) hands
//! out. It adds the client's credentials metadata to each call and, to a unary call without a
//! deadline of the caller's, the client's default deadline.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, PoisonError, RwLock};
use std::task::{Context, Poll};
use std::time::Duration;

use tonic::Status;
use tonic::body::Body;
use tonic::codegen::http::{self, HeaderMap, HeaderName, HeaderValue};
use tonic::codegen::{Service, StdError};
use tonic::transport::Channel;

use crate::Error;

/// The streaming RPCs of the contract (`/package.Service/Method`): they get no default deadline.
/// A unit test checks this list against the generated code.
pub(crate) const STREAMS: [&str; 3] =
    ["/kxm.v1.MessageService/Subscribe", "/kxm.v1.AgentService/OpenChannel", "/kxm.v1.OpsService/WatchOps"];

const GRPC_TIMEOUT: HeaderName = HeaderName::from_static("grpc-timeout");

/// A request extension that sends a call with the bearer metadata only: no agent id and key, and
/// none of the agent's tool-policy tokens (which are bound to the agent). `Client::register`
/// uses it; put it in a request's extensions to do the same on a call of your own:
/// `request.extensions_mut().insert(BearerOnly)`.
#[derive(Debug, Clone, Copy, Default)]
pub struct BearerOnly;

/// The channel under a [`Client`](crate::Client)'s generated clients: a `tonic` channel to the hub,
/// plus this client's metadata on every call and its default deadline on unary calls.
///
/// Metadata the caller put on a request itself wins over the client's (same name). A unary call
/// whose request has a deadline (`tonic::Request::set_timeout`) keeps it; the streams
/// (`Subscribe`, `OpenChannel`, `WatchOps`) get none. A deadline that passes on the client side is
/// answered `DEADLINE_EXCEEDED`, as the hub answers one that passes there.
#[derive(Clone)]
pub struct HubChannel {
    channel: Channel,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for HubChannel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HubChannel").field("timeout", &self.shared.timeout).finish_non_exhaustive()
    }
}

/// Who a client's calls speak for. Shared by the client and every generated client it handed out,
/// so that a change (`register`, `use_agent`) applies to all of them.
pub(crate) struct Shared {
    timeout: Duration,
    metadata: RwLock<Arc<Metadata>>,
}

/// The credentials a client presents; None (or empty) is not sent.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct Credentials {
    pub(crate) token: Option<String>,
    pub(crate) project: Option<String>,
    pub(crate) agent_id: Option<String>,
    pub(crate) agent_key: Option<String>,
    pub(crate) attempt_token: Option<String>,
    pub(crate) session_token: Option<String>,
}

/// The credentials and their headers, built once per change.
pub(crate) struct Metadata {
    pub(crate) credentials: Credentials,
    all: HeaderMap,
    bearer: HeaderMap,
}

impl Metadata {
    /// The headers of `credentials`: `authorization: Bearer <token>`; `x-kxm-agent-id` and
    /// `x-kxm-agent-key` when both are known; `x-kxm-project`; `x-kxm-attempt-token` and
    /// `x-kxm-session-token`. `bearer` holds the ones not bound to the agent.
    fn new(credentials: Credentials) -> Result<Self, Error> {
        fn set(text: &Option<String>) -> Option<&str> {
            text.as_deref().filter(|value| !value.is_empty())
        }
        let mut all = HeaderMap::new();
        let mut add = |name: &'static str, value: String, secret: bool| -> Result<(), Error> {
            let mut value = HeaderValue::try_from(value)
                .map_err(|_| Error::config(format!("{name}: not a valid metadata value (printable ASCII only)")))?;
            value.set_sensitive(secret);
            all.insert(HeaderName::from_static(name), value);
            Ok(())
        };
        if let Some(token) = set(&credentials.token) {
            add("authorization", format!("Bearer {token}"), true)?;
        }
        if let (Some(id), Some(key)) = (set(&credentials.agent_id), set(&credentials.agent_key)) {
            add("x-kxm-agent-id", id.to_owned(), false)?;
            add("x-kxm-agent-key", key.to_owned(), true)?;
        }
        if let Some(project) = set(&credentials.project) {
            add("x-kxm-project", project.to_owned(), false)?;
        }
        if let Some(token) = set(&credentials.attempt_token) {
            add("x-kxm-attempt-token", token.to_owned(), true)?;
        }
        if let Some(token) = set(&credentials.session_token) {
            add("x-kxm-session-token", token.to_owned(), true)?;
        }
        let mut bearer = all.clone();
        for name in ["x-kxm-agent-id", "x-kxm-agent-key", "x-kxm-attempt-token", "x-kxm-session-token"] {
            bearer.remove(name);
        }
        Ok(Metadata { credentials, all, bearer })
    }
}

impl Shared {
    pub(crate) fn new(credentials: Credentials, timeout: Duration) -> Result<Self, Error> {
        Ok(Shared { timeout, metadata: RwLock::new(Arc::new(Metadata::new(credentials)?)) })
    }

    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The metadata in force now.
    pub(crate) fn metadata(&self) -> Arc<Metadata> {
        Arc::clone(&self.metadata.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Present these credentials on every later call.
    pub(crate) fn set(&self, credentials: Credentials) -> Result<(), Error> {
        let metadata = Arc::new(Metadata::new(credentials)?);
        *self.metadata.write().unwrap_or_else(PoisonError::into_inner) = metadata;
        Ok(())
    }
}

impl HubChannel {
    pub(crate) fn new(channel: Channel, shared: Arc<Shared>) -> Self {
        HubChannel { channel, shared }
    }
}

impl Service<http::Request<Body>> for HubChannel {
    type Response = http::Response<Body>;
    type Error = StdError;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Service::poll_ready(&mut self.channel, cx).map_err(Into::into)
    }

    fn call(&mut self, mut request: http::Request<Body>) -> Self::Future {
        let metadata = self.shared.metadata();
        let headers = if request.extensions().get::<BearerOnly>().is_some() { &metadata.bearer } else { &metadata.all };
        for (name, value) in headers {
            if !request.headers().contains_key(name) {
                request.headers_mut().insert(name.clone(), value.clone());
            }
        }
        if !request.headers().contains_key(GRPC_TIMEOUT) && !STREAMS.contains(&request.uri().path()) {
            request.headers_mut().insert(GRPC_TIMEOUT, grpc_timeout(self.shared.timeout));
        }
        ResponseFuture { inner: Service::call(&mut self.channel, request) }
    }
}

/// The response of one call on a [`HubChannel`] (its `Service::Future`).
pub struct ResponseFuture {
    inner: tonic::transport::channel::ResponseFuture,
}

impl Future for ResponseFuture {
    type Output = Result<http::Response<Body>, StdError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.inner).poll(cx).map_err(deadline_exceeded)
    }
}

/// tonic answers a deadline that passes on the client side as CANCELLED (its `TimeoutExpired`);
/// every gRPC client, and the hub for a deadline that passes on its side, says DEADLINE_EXCEEDED.
fn deadline_exceeded(error: tonic::transport::Error) -> StdError {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    while let Some(current) = cause {
        if current.is::<tonic::TimeoutExpired>() {
            return Box::new(Status::deadline_exceeded("the call's deadline passed before the hub answered"));
        }
        cause = current.source();
    }
    Box::new(error)
}

/// A `grpc-timeout` value: the most precise unit that fits the protocol's 8 digits.
fn grpc_timeout(timeout: Duration) -> HeaderValue {
    let candidates = [
        (timeout.as_micros(), 'u'),
        (timeout.as_millis(), 'm'),
        (u128::from(timeout.as_secs()), 'S'),
        (u128::from(timeout.as_secs() / 60), 'M'),
        (u128::from(timeout.as_secs() / 3600), 'H'),
    ];
    let (value, unit) = candidates.into_iter().find(|(value, _)| *value <= 99_999_999).unwrap_or((99_999_999, 'H'));
    HeaderValue::try_from(format!("{value}{unit}")).expect("digits and a letter")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_list_is_every_streaming_rpc_of_the_generated_code() {
        let generated = include_str!("../gen/kxm.v1.rs");
        let mut streams = Vec::new();
        let mut last_path = "";
        for line in generated.lines() {
            let line = line.trim();
            if line.starts_with("\"/kxm.v1.") {
                last_path = line.trim_end_matches(',').trim_matches('"');
            } else if line.contains("self.inner.server_streaming(")
                || line.contains("self.inner.client_streaming(")
                || line.contains("self.inner.streaming(")
            {
                streams.push(last_path);
            }
        }
        streams.sort_unstable();
        let mut expected = STREAMS.to_vec();
        expected.sort_unstable();
        assert_eq!(streams, expected);
    }

    /// A hub that accepts connections and never answers: the default deadline ends the call.
    #[tokio::test]
    async fn a_deadline_passing_on_the_client_is_deadline_exceeded() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let address = listener.local_addr().expect("address");
        std::thread::spawn(move || {
            let held: Vec<_> = listener.incoming().take(4).collect(); // accepted, never answered
            std::thread::sleep(Duration::from_secs(5));
            drop(held);
        });
        let options = crate::config::Options { address: Some(address.to_string()), ..Default::default() };
        let settings = crate::config::resolve(&options, &|_| None, std::path::Path::new("/nonexistent/kxm"));
        let client = crate::Client::builder().timeout(Duration::from_millis(300)).build_from(settings).expect("client");
        let started = std::time::Instant::now();
        let error = client.get_message("msg_x").await.expect_err("no answer");
        assert_eq!(error.code_name(), "DEADLINE_EXCEEDED", "{error}");
        assert!(started.elapsed() < Duration::from_secs(3));
    }

    #[test]
    fn timeouts_fit_eight_digits() {
        assert_eq!(grpc_timeout(Duration::from_millis(500)), "500000u");
        assert_eq!(grpc_timeout(Duration::from_secs(15)), "15000000u");
        assert_eq!(grpc_timeout(Duration::from_secs(3600)), "3600000m");
    }

    #[test]
    fn agent_headers_go_in_pairs_and_bearer_leaves_them_out() {
        let credentials = Credentials {
            token: Some("t".into()),
            agent_id: Some("agt_1".into()),
            agent_key: Some("k".into()),
            project: Some("p".into()),
            attempt_token: Some("a".into()),
            session_token: None,
        };
        let metadata = Metadata::new(credentials.clone()).expect("valid");
        assert_eq!(metadata.all["authorization"], "Bearer t");
        assert_eq!(metadata.all["x-kxm-agent-id"], "agt_1");
        assert_eq!(metadata.all["x-kxm-agent-key"], "k");
        assert_eq!(metadata.all["x-kxm-project"], "p");
        assert_eq!(metadata.all["x-kxm-attempt-token"], "a");
        assert!(!metadata.all.contains_key("x-kxm-session-token"));
        let names: Vec<_> = metadata.bearer.keys().map(HeaderName::as_str).collect();
        assert_eq!(names, ["authorization", "x-kxm-project"]);

        let half = Metadata::new(Credentials { agent_key: None, ..credentials }).expect("valid");
        assert!(!half.all.contains_key("x-kxm-agent-id") && !half.all.contains_key("x-kxm-agent-key"));
        assert!(Metadata::new(Credentials { token: Some("bad\ntoken".into()), ..Credentials::default() }).is_err());
    }
}
