//! [`Client`]: one hub connection and one caller's credentials, the generated clients of the eight
//! services on it, and the helpers a program of agents needs (register, send, reply, ack, wait,
//! get a message).

use std::future::IntoFuture;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tonic::codegen::http::Uri;
use tonic::transport::Endpoint;
use tonic::{Request, Response, Status};

use crate::channel::{BearerOnly, Credentials, HubChannel, Shared};
use crate::config::{self, Options, Settings, TlsFiles};
use crate::v1::admin_service_client::AdminServiceClient;
use crate::v1::agent_service_client::AgentServiceClient;
use crate::v1::context_service_client::ContextServiceClient;
use crate::v1::lease_service_client::LeaseServiceClient;
use crate::v1::message_service_client::MessageServiceClient;
use crate::v1::ops_service_client::OpsServiceClient;
use crate::v1::runtime_service_client::RuntimeServiceClient;
use crate::v1::workflow_service_client::WorkflowServiceClient;
use crate::v1::{
    AckMessagesRequest, AckMessagesResponse, ErrorReason, GetMessageRequest, GetMessageResponse, RegisterAgentRequest,
    RegisterAgentResponse, ReplyToMessageRequest, ReplyToMessageResponse, SendMessageRequest, SendMessageResponse,
    WaitMessageRequest, WaitMessageResponse,
};
use crate::{BoxFuture, Error};

/// The default deadline of a unary call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);
/// Keepalive pings: every 30 s, answered within 10 s (the hub refuses pings more often than every 10 s).
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(30);
const KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest message the generated clients accept (the hub's lists can exceed tonic's 4 MiB).
const MAX_MESSAGE: usize = 16 * 1024 * 1024;
/// The longest wait one WaitMessage call covers ([`Client::wait`] makes as many as a longer wait needs).
const MAX_WAIT_CALL: Duration = Duration::from_secs(60);
/// A long poll's deadline is its wait plus this much.
const LONG_POLL_SLACK: Duration = Duration::from_secs(5);

/// A client of one hub, acting for one caller (a project, an agent, the admin).
///
/// Built with [`Client::from_env`] (everything from the environment and the credentials file) or
/// [`Client::builder`]. Cheap to clone: clones share the connection and the credentials, so an
/// identity taken by [`register`](Self::register) or [`use_agent`](Self::use_agent) applies to
/// every clone and to every generated client handed out before or after.
///
/// Every call carries the client's metadata (`authorization: Bearer <token>`, the agent's
/// `x-kxm-agent-id`/`x-kxm-agent-key`, `x-kxm-project`, the tool-policy tokens) and every unary
/// call without a deadline of its own gets the client's default ([`DEFAULT_TIMEOUT`], or
/// [`ClientBuilder::timeout`]); streams get none. The connection is made at the first call and
/// made again, at the next call, after it broke; dropping the last clone (and the generated
/// clients and subscriptions made from it) closes it.
#[derive(Clone)]
pub struct Client {
    channel: HubChannel,
    shared: Arc<Shared>,
    info: Arc<Info>,
}

/// What a client keeps of its settings.
struct Info {
    address: String,
    missing_token: String,
}

impl std::fmt::Debug for Client {
    /// The address, project, agent id and default deadline (never a token or key).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let metadata = self.shared.metadata();
        f.debug_struct("Client")
            .field("address", &self.info.address)
            .field("project", &metadata.credentials.project)
            .field("agent_id", &metadata.credentials.agent_id)
            .field("timeout", &self.shared.timeout())
            .finish_non_exhaustive()
    }
}

/// The options of a [`Client`]; anything not given is resolved from the environment and the
/// credentials file when [`build`](Self::build) runs:
///
/// - address: option → `KXM_ADDR` → the file's `address` → `127.0.0.1:7331` (one `host:port`);
/// - token: option → `KXM_TOKEN` (`KXM_ADMIN_TOKEN` with [`admin`](Self::admin)) → the file's
///   `projects[<project or "default">]` (its `admin_token` with `admin`);
/// - project: option → `KXM_PROJECT`; agent id and key: option → `KXM_AGENT_ID`, `KXM_AGENT_KEY`;
/// - TLS: option → `KXM_TLS_CA` (TLS, trusting that CA), `KXM_TLS_CERT` + `KXM_TLS_KEY` (mTLS);
/// - tool-policy tokens: option → `KXM_ATTEMPT_TOKEN`, `KXM_SESSION_TOKEN`.
///
/// The credentials file (at most one is read) is `$KXM_CREDENTIALS`; else
/// `$KXM_DATA_DIR/credentials.json`; else `./.kxm/credentials.json` when it or `./.kxm/agents`
/// exists; else the per-user profile `${XDG_CONFIG_HOME:-$HOME/.config}/kxm/credentials.json` when
/// no address was given or the profile is for the address given. A missing token is not an error
/// here: the hub answers `UNAUTHENTICATED`, and the error's hint says where the token was looked for.
#[derive(Clone, Default)]
#[must_use]
pub struct ClientBuilder {
    options: Options,
    timeout: Option<Duration>,
}

impl std::fmt::Debug for ClientBuilder {
    /// The options given (a token's, key's or tool-policy token's value shown as `<redacted>`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder").field("options", &self.options).field("timeout", &self.timeout).finish()
    }
}

impl ClientBuilder {
    /// The hub's address, `host:port` (several comma-separated addresses are not supported).
    pub fn address(mut self, address: impl Into<String>) -> Self {
        self.options.address = Some(address.into());
        self
    }

    /// The bearer token: a project token, the admin token, an operator's or a runtime key.
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.options.token = Some(token.into());
        self
    }

    /// Look for the admin token (`KXM_ADMIN_TOKEN`, the file's `admin_token`) instead of a
    /// project token, when no [`token`](Self::token) is given.
    pub fn admin(mut self, admin: bool) -> Self {
        self.options.admin = admin;
        self
    }

    /// The project (`x-kxm-project`, and which of the file's `projects` tokens to use).
    pub fn project(mut self, project: impl Into<String>) -> Self {
        self.options.project = Some(project.into());
        self
    }

    /// Act as this agent from the first call (`x-kxm-agent-id`, `x-kxm-agent-key`).
    pub fn agent(mut self, agent_id: impl Into<String>, agent_key: impl Into<String>) -> Self {
        self.options.agent_id = Some(agent_id.into());
        self.options.agent_key = Some(agent_key.into());
        self
    }

    /// Speak TLS, trusting the CA in this PEM file (needs the crate's `tls` feature).
    pub fn tls_ca(mut self, ca_pem_file: impl Into<PathBuf>) -> Self {
        self.options.tls_ca = Some(ca_pem_file.into());
        self
    }

    /// Present this client certificate and key (PEM files) to a hub that asks for one (mTLS;
    /// needs the crate's `tls` feature and a CA, [`tls_ca`](Self::tls_ca) or `KXM_TLS_CA`).
    pub fn client_identity(mut self, cert_pem_file: impl Into<PathBuf>, key_pem_file: impl Into<PathBuf>) -> Self {
        self.options.tls_cert = Some(cert_pem_file.into());
        self.options.tls_key = Some(key_pem_file.into());
        self
    }

    /// The attempt token calls present (`x-kxm-attempt-token`), for the tool policy.
    pub fn attempt_token(mut self, token: impl Into<String>) -> Self {
        self.options.attempt_token = Some(token.into());
        self
    }

    /// The session token calls present (`x-kxm-session-token`), for the tool policy.
    pub fn session_token(mut self, token: impl Into<String>) -> Self {
        self.options.session_token = Some(token.into());
        self
    }

    /// The deadline of a unary call that has none of its own (default 15 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The client. It connects at its first call, so a hub that is down is no error here.
    ///
    /// Call it inside a Tokio runtime (the connection's worker runs there), with its time driver
    /// enabled (`#[tokio::main]` does both).
    ///
    /// # Errors
    ///
    /// A configuration [`Error`] ([`Error::is_config`]): no Tokio runtime; an address that is not
    /// one `host:port`; a token or key that cannot be sent as metadata; TLS asked for without the
    /// crate's `tls` feature, without a CA, or with a PEM file that cannot be read.
    pub fn build(self) -> Result<Client, Error> {
        let settings = config::resolve_from_process(&self.options);
        self.build_from(settings)
    }

    /// The client of settings already resolved.
    pub(crate) fn build_from(self, settings: Settings) -> Result<Client, Error> {
        let timeout = self.timeout.unwrap_or(DEFAULT_TIMEOUT);
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(Error::config("build a Client inside a Tokio runtime: its connection runs there"));
        }
        let endpoint = endpoint(&settings, timeout)?;
        let credentials = Credentials {
            token: settings.token,
            project: settings.project,
            agent_id: settings.agent_id,
            agent_key: settings.agent_key,
            attempt_token: settings.attempt_token,
            session_token: settings.session_token,
        };
        let shared = Arc::new(Shared::new(credentials, timeout)?);
        Ok(Client {
            channel: HubChannel::new(endpoint.connect_lazy(), Arc::clone(&shared)),
            shared,
            info: Arc::new(Info { address: settings.address, missing_token: settings.missing_token }),
        })
    }
}

/// The endpoint of the one address in `settings`, with keepalive and TLS as asked.
fn endpoint(settings: &Settings, timeout: Duration) -> Result<Endpoint, Error> {
    let address = settings.address.as_str();
    if address.contains(',') {
        return Err(Error::config(format!(
            "hub address {address:?}: several addresses are not supported by the Rust client; give one host:port"
        )));
    }
    let scheme = if settings.tls.is_some() { "https" } else { "http" };
    let uri: Uri = format!("{scheme}://{address}")
        .parse()
        .ok()
        .filter(|uri: &Uri| uri.port().is_some() && uri.path() == "/" && !address.contains('/'))
        .ok_or_else(|| Error::config(format!("hub address {address:?} is not host:port")))?;
    let host = uri.host().unwrap_or_default().to_owned();
    let endpoint = Endpoint::from(uri)
        .user_agent(concat!("kxm-client-rust/", env!("CARGO_PKG_VERSION")))
        .map_err(|error| Error::config(format!("user agent: {error}")))?
        .http2_keep_alive_interval(KEEPALIVE_INTERVAL)
        .keep_alive_timeout(KEEPALIVE_TIMEOUT)
        .keep_alive_while_idle(true)
        .connect_timeout(timeout);
    match &settings.tls {
        Some(files) => with_tls(endpoint, files, &host),
        None => Ok(endpoint),
    }
}

/// The endpoint speaking TLS: trusting only the CA given (the server's certificate must name
/// `host`, an IP address or a DNS name), presenting the client certificate when one is given.
#[cfg(feature = "tls")]
fn with_tls(endpoint: Endpoint, files: &TlsFiles, host: &str) -> Result<Endpoint, Error> {
    use tonic::transport::{Certificate, ClientTlsConfig, Identity};

    let read = |path: &PathBuf, what: &str| {
        std::fs::read(path).map_err(|error| Error::config(format!("cannot read the {what} {}: {error}", path.display())))
    };
    let Some(ca) = &files.ca else {
        return Err(Error::config("a client certificate needs the CA to trust: KXM_TLS_CA or the builder's tls_ca"));
    };
    let mut tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(read(ca, "TLS CA (KXM_TLS_CA)")?))
        .domain_name(host.trim_start_matches('[').trim_end_matches(']'));
    match (&files.cert, &files.key) {
        (Some(cert), Some(key)) => {
            let identity = Identity::from_pem(read(cert, "client certificate")?, read(key, "client key")?);
            tls = tls.identity(identity);
        }
        (None, None) => {}
        _ => return Err(Error::config("a client certificate needs both KXM_TLS_CERT and KXM_TLS_KEY")),
    }
    endpoint.tls_config(tls).map_err(|error| Error::config(format!("TLS: {error}")))
}

/// Without the `tls` feature every TLS setting is refused, saying how to get it.
#[cfg(not(feature = "tls"))]
fn with_tls(_: Endpoint, files: &TlsFiles, _: &str) -> Result<Endpoint, Error> {
    let asked = if files.ca.is_some() { "KXM_TLS_CA (or tls_ca)" } else { "KXM_TLS_CERT/KXM_TLS_KEY (or client_identity)" };
    Err(Error::config(format!(
        "{asked} is set, but kxm-client was built without TLS: enable its `tls` feature \
         (kxm-client = {{ ..., features = [\"tls\"] }})"
    )))
}

/// A client of `127.0.0.1:9` with token `t`, resolved without the process's environment or files
/// (for the unit tests: it never connects unless called).
#[cfg(test)]
pub(crate) fn test_client() -> Client {
    let options = Options { address: Some("127.0.0.1:9".into()), token: Some("t".into()), ..Options::default() };
    let settings = config::resolve(&options, &|_| None, std::path::Path::new("/nonexistent/kxm-client-test"));
    Client::builder().build_from(settings).expect("client")
}

/// A protobuf Duration of `duration`.
pub(crate) fn proto_duration(duration: Duration) -> prost_types::Duration {
    prost_types::Duration {
        seconds: i64::try_from(duration.as_secs()).unwrap_or(i64::MAX),
        nanos: i32::try_from(duration.subsec_nanos()).unwrap_or(0),
    }
}

impl Client {
    /// A builder of a client with options ([`ClientBuilder`] says how the rest is resolved).
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// A client configured from the environment and the credentials file alone
    /// (`Client::builder().build()`).
    ///
    /// # Errors
    ///
    /// A configuration [`Error`], as [`ClientBuilder::build`] says.
    pub fn from_env() -> Result<Client, Error> {
        Client::builder().build()
    }

    /// The hub's address, as resolved (`host:port`).
    pub fn address(&self) -> &str {
        &self.info.address
    }

    /// The project this client names (`x-kxm-project`), if any.
    pub fn project(&self) -> Option<String> {
        self.shared.metadata().credentials.project.clone()
    }

    /// The id of the agent this client acts as, if any.
    pub fn agent_id(&self) -> Option<String> {
        self.shared.metadata().credentials.agent_id.clone()
    }

    /// The key of the agent this client acts as, if any (a secret: keep it out of logs).
    pub fn agent_key(&self) -> Option<String> {
        self.shared.metadata().credentials.agent_key.clone()
    }

    /// The deadline of a unary call that has none of its own.
    pub fn timeout(&self) -> Duration {
        self.shared.timeout()
    }

    /// Act as this agent on every later call of this client, its clones and its generated clients
    /// (None for both: with the bearer token only).
    ///
    /// # Errors
    ///
    /// A configuration [`Error`] when the id or key cannot be sent as metadata.
    pub fn use_agent(&self, agent_id: Option<String>, agent_key: Option<String>) -> Result<(), Error> {
        let credentials = Credentials { agent_id, agent_key, ..self.shared.metadata().credentials.clone() };
        self.shared.set(credentials)
    }

    /// The channel under this client's generated clients, for a generated client of your own
    /// making (`AgentServiceClient::new(client.channel())`).
    pub fn channel(&self) -> HubChannel {
        self.channel.clone()
    }

    /// `kxm.v1.AgentService`: registration, identity, presence, the agent channel.
    pub fn agents(&self) -> AgentServiceClient<HubChannel> {
        AgentServiceClient::new(self.channel()).max_decoding_message_size(MAX_MESSAGE)
    }

    /// `kxm.v1.MessageService`: requests between agents and the inbox stream.
    pub fn messages(&self) -> MessageServiceClient<HubChannel> {
        MessageServiceClient::new(self.channel()).max_decoding_message_size(MAX_MESSAGE)
    }

    /// `kxm.v1.LeaseService`: leases and fencing.
    pub fn leases(&self) -> LeaseServiceClient<HubChannel> {
        LeaseServiceClient::new(self.channel()).max_decoding_message_size(MAX_MESSAGE)
    }

    /// `kxm.v1.RuntimeService`: runtimes and their sync.
    pub fn runtimes(&self) -> RuntimeServiceClient<HubChannel> {
        RuntimeServiceClient::new(self.channel()).max_decoding_message_size(MAX_MESSAGE)
    }

    /// `kxm.v1.AdminService`: projects, tokens, operators.
    pub fn admin(&self) -> AdminServiceClient<HubChannel> {
        AdminServiceClient::new(self.channel()).max_decoding_message_size(MAX_MESSAGE)
    }

    /// `kxm.v1.WorkflowService`: workflow runs, assignments, journals.
    pub fn workflows(&self) -> WorkflowServiceClient<HubChannel> {
        WorkflowServiceClient::new(self.channel()).max_decoding_message_size(MAX_MESSAGE)
    }

    /// `kxm.v1.ContextService`: context items, memory, state, skills.
    pub fn context(&self) -> ContextServiceClient<HubChannel> {
        ContextServiceClient::new(self.channel()).max_decoding_message_size(MAX_MESSAGE)
    }

    /// `kxm.v1.OpsService`: the operator's view of the hub.
    pub fn ops(&self) -> OpsServiceClient<HubChannel> {
        OpsServiceClient::new(self.channel()).max_decoding_message_size(MAX_MESSAGE)
    }

    /// Register (or resume, with [`RegisterCall::previous_key`]) the agent `name`; await the call.
    /// It is sent with the bearer metadata only, and from its answer on this client (its clones,
    /// its generated clients) acts as the returned agent.
    pub fn register(&self, name: impl Into<String>) -> RegisterCall {
        RegisterCall {
            client: self.clone(),
            request: RegisterAgentRequest { name: name.into(), ..RegisterAgentRequest::default() },
        }
    }

    /// Send a request with `content` to another agent of the project (its id or name); await the
    /// call, after setting what else it needs ([`SendCall::wait`], [`SendCall::idempotency_key`],
    /// [`SendCall::allow_offline`]).
    pub fn send(&self, target: impl Into<String>, content: impl Into<String>) -> SendCall {
        SendCall {
            client: self.clone(),
            request: SendMessageRequest { target: target.into(), content: content.into(), ..SendMessageRequest::default() },
            wait: None,
        }
    }

    /// Reply (once) to a message this agent received.
    ///
    /// # Errors
    ///
    /// The hub's [`Error`]: `ERROR_REASON_MESSAGE_NOT_FOUND`, `ERROR_REASON_DUPLICATE_REPLY`
    /// (another reply was given), a message that ended (`FAILED_PRECONDITION`), ...
    pub async fn reply(
        &self,
        message_id: impl Into<String>,
        content: impl Into<String>,
    ) -> Result<ReplyToMessageResponse, Error> {
        let request = ReplyToMessageRequest { message_id: message_id.into(), content: content.into() };
        self.answer(self.messages().reply_to_message(request).await)
    }

    /// Acknowledge received messages (all or none): they are never redelivered on a stream.
    ///
    /// # Errors
    ///
    /// The hub's [`Error`] (a message not found or not this agent's).
    pub async fn ack<I, S>(&self, message_ids: I) -> Result<AckMessagesResponse, Error>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let request = AckMessagesRequest { message_ids: message_ids.into_iter().map(Into::into).collect() };
        self.answer(self.messages().ack_messages(request).await)
    }

    /// A message this agent sent or received.
    ///
    /// # Errors
    ///
    /// The hub's [`Error`]: `NOT_FOUND` with reason `ERROR_REASON_MESSAGE_NOT_FOUND`, ...
    pub async fn get_message(&self, message_id: impl Into<String>) -> Result<GetMessageResponse, Error> {
        let request = GetMessageRequest { message_id: message_id.into() };
        self.answer(self.messages().get_message(request).await)
    }

    /// Wait until the message is terminal (replied, cancelled, expired...), for at most `wait`
    /// (None: until it is). A wait that ends first returns the current state with `terminal`
    /// false; it is not an error. One WaitMessage call covers up to 60 s, so a longer wait takes
    /// several; each call's deadline is its wait plus 5 s.
    ///
    /// # Errors
    ///
    /// The hub's [`Error`]: the message is not this agent's (`ERROR_REASON_MESSAGE_FORBIDDEN`), ...
    pub async fn wait(
        &self,
        message_id: impl Into<String>,
        wait: Option<Duration>,
    ) -> Result<WaitMessageResponse, Error> {
        let message_id = message_id.into();
        let deadline = wait.map(|wait| Instant::now() + wait);
        let mut remaining = wait;
        loop {
            let poll = remaining.map_or(MAX_WAIT_CALL, |left| left.min(MAX_WAIT_CALL));
            #[allow(deprecated)] // `timeout`: the deprecated field, with the same value, for older hubs
            let mut request = Request::new(WaitMessageRequest {
                message_id: message_id.clone(),
                wait: Some(proto_duration(poll)),
                timeout: Some(proto_duration(poll)),
            });
            request.set_timeout(poll + LONG_POLL_SLACK);
            let response = self.answer(self.messages().wait_message(request).await)?;
            if response.terminal || remaining.is_some_and(|left| left <= MAX_WAIT_CALL) {
                return Ok(response);
            }
            if let Some(deadline) = deadline {
                remaining = Some(deadline.saturating_duration_since(Instant::now()));
            }
        }
    }

    /// The message of a call's answer, or its [`Error`].
    pub(crate) fn answer<T>(&self, answer: Result<Response<T>, Status>) -> Result<T, Error> {
        answer.map(Response::into_inner).map_err(|status| self.error(status))
    }

    /// The [`Error`] of a failed call; a missing credential while this client has no token says
    /// where the token was looked for.
    pub(crate) fn error(&self, status: Status) -> Error {
        let error = Error::from(status);
        let no_token = self.shared.metadata().credentials.token.as_deref().is_none_or(str::is_empty);
        if no_token && error.error_reason() == Some(ErrorReason::CredentialMissing) {
            return error.with_hint(self.info.missing_token.clone());
        }
        error
    }
}

/// A RegisterAgent call ([`Client::register`]); await it (it is an `IntoFuture`).
#[must_use = "a call does nothing until it is awaited"]
pub struct RegisterCall {
    client: Client,
    request: RegisterAgentRequest,
}

impl std::fmt::Debug for RegisterCall {
    /// The client and the request, with the previous key (if any) shown as `<redacted>`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let RegisterAgentRequest { name, purpose, model, host, previous_key } = &self.request;
        let previous_key = (!previous_key.is_empty()).then_some(config::Redacted);
        f.debug_struct("RegisterCall")
            .field("client", &self.client)
            .field("name", name)
            .field("purpose", purpose)
            .field("model", model)
            .field("host", host)
            .field("previous_key", &previous_key)
            .finish()
    }
}

impl RegisterCall {
    /// What the agent is for (shown to the other agents of the project).
    pub fn purpose(mut self, purpose: impl Into<String>) -> Self {
        self.request.purpose = purpose.into();
        self
    }

    /// The model the agent runs on.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.request.model = model.into();
        self
    }

    /// Resume the agent this key was issued to (same name): the answer has `resumed` set and a
    /// new key, and the old key stops working.
    pub fn previous_key(mut self, previous_key: impl Into<String>) -> Self {
        self.request.previous_key = previous_key.into();
        self
    }
}

impl IntoFuture for RegisterCall {
    /// The registered agent and its key, or the hub's [`Error`]: `INVALID_ARGUMENT` (a bad name,
    /// with its field violation), `ALREADY_EXISTS` (the name is taken and no `previous_key`),
    /// `UNAUTHENTICATED` (no or a bad token), ...
    type Output = Result<RegisterAgentResponse, Error>;
    type IntoFuture = BoxFuture<Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let RegisterCall { client, request } = self;
            let mut request = Request::new(request);
            request.extensions_mut().insert(BearerOnly);
            let registered = client.answer(client.agents().register_agent(request).await)?;
            let agent_id = registered.agent.as_ref().map(|agent| agent.id.clone());
            client.use_agent(agent_id, Some(registered.agent_key.clone()))?;
            Ok(registered)
        })
    }
}

/// A SendMessage call ([`Client::send`]); await it (it is an `IntoFuture`). For fields not set
/// here (delivery, ttl, correlation...), call `client.messages().send_message(...)`.
// Debug derived: the client's Debug shows no secret, and the request holds none.
#[derive(Debug)]
#[must_use = "a call does nothing until it is awaited"]
pub struct SendCall {
    client: Client,
    request: SendMessageRequest,
    wait: Option<Duration>,
}

impl SendCall {
    /// Store the send once per key: a repeat with the same key (after a lost answer) returns the
    /// first message with `repeated` set.
    pub fn idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.request.idempotency_key = key.into();
        self
    }

    /// Queue the request even when the target is offline (it gets it when it connects); without
    /// this, a send to an offline agent is refused (`NOT_FOUND`, `ERROR_REASON_TARGET_NOT_FOUND`).
    pub fn allow_offline(mut self, allow_offline: bool) -> Self {
        self.request.allow_offline = allow_offline;
        self
    }

    /// Have the hub wait up to `wait` (at most 60 s) for the message to end and return it replied
    /// (`terminal`), saving a WaitMessage call; the call's deadline grows by the wait.
    pub fn wait(mut self, wait: Duration) -> Self {
        self.wait = Some(wait);
        self
    }
}

impl IntoFuture for SendCall {
    /// The message as stored (replied when a wait saw it end), or the hub's [`Error`]:
    /// `ERROR_REASON_TARGET_NOT_FOUND`, an invalid argument (with its field violations), ...
    type Output = Result<SendMessageResponse, Error>;
    type IntoFuture = BoxFuture<Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let SendCall { client, mut request, wait } = self;
            if let Some(wait) = wait {
                request.wait = Some(proto_duration(wait));
                // The deprecated field too, with the same value: a hub older than `wait` reads it.
                #[allow(deprecated)]
                {
                    request.reply_wait = request.wait;
                }
            }
            let mut request = Request::new(request);
            if let Some(wait) = wait {
                request.set_timeout(client.timeout() + wait);
            }
            client.answer(client.messages().send_message(request).await)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(address: &str, tls: Option<TlsFiles>) -> Settings {
        let options = Options { address: Some(address.into()), ..Options::default() };
        let settings = config::resolve(&options, &|_| None, std::path::Path::new("/nonexistent/kxm-client-test"));
        Settings { tls, ..settings }
    }

    #[test]
    fn one_host_and_port_only() {
        for good in ["127.0.0.1:7331", "hub.example:443", "[::1]:7331"] {
            assert!(endpoint(&settings(good, None), DEFAULT_TIMEOUT).is_ok(), "{good}");
        }
        for bad in ["10.0.0.1:1,10.0.0.2:2", "hub.example", "http://h:1", "h:1/path", "h:port"] {
            let error = endpoint(&settings(bad, None), DEFAULT_TIMEOUT).expect_err(bad);
            assert!(error.is_config(), "{bad}");
        }
    }

    #[test]
    fn building_outside_a_runtime_is_an_error_not_a_panic() {
        let error = Client::builder().build_from(settings("127.0.0.1:9", None)).expect_err("no runtime");
        assert!(error.is_config() && error.to_string().contains("Tokio runtime"), "{error}");
    }

    #[tokio::test]
    async fn debug_shows_no_token_or_key() {
        let builder = Client::builder()
            .address("127.0.0.1:9")
            .token("secret-token")
            .agent("agt_1", "secret-key")
            .attempt_token("secret-attempt")
            .session_token("secret-session");
        let settings = config::resolve(&builder.options, &|_| None, std::path::Path::new("/nonexistent/kxm-client-test"));
        let client = builder.clone().build_from(settings).expect("client");
        let register = client.register("alice").previous_key("secret-previous");
        let send = client.send("bob", "hello");
        let shown = [format!("{builder:?}"), format!("{client:?}"), format!("{register:?}"), format!("{send:?}")];
        for shown in shown {
            assert!(!shown.contains("secret-"), "{shown}");
        }
        assert!(format!("{builder:?}").contains("<redacted>") && format!("{register:?}").contains("<redacted>"));
        assert!(format!("{client:?}").contains("agt_1") && format!("{register:?}").contains("alice"));
    }

    #[test]
    fn tls_asks_for_its_feature_and_a_ca() {
        let ca = Some(TlsFiles { ca: Some("/nonexistent/ca.pem".into()), cert: None, key: None });
        let error = endpoint(&settings("127.0.0.1:7331", ca), DEFAULT_TIMEOUT).expect_err("tls");
        if cfg!(feature = "tls") {
            assert!(error.to_string().contains("cannot read the TLS CA"), "{error}");
        } else {
            assert!(error.to_string().contains("`tls` feature"), "{error}");
        }
        let no_ca = Some(TlsFiles { ca: None, cert: Some("/c.pem".into()), key: Some("/k.pem".into()) });
        assert!(endpoint(&settings("127.0.0.1:7331", no_ca), DEFAULT_TIMEOUT).is_err());
    }
}
