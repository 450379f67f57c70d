//! Conformance program: runs the kxm client conformance scenario against a live hub and prints one
//! JSON transcript (`{"language": "rust", "ok": ..., "steps": [...]}`) to stdout.
//!
//! Every step holds only normalised facts (no ids, times or language-specific text), so the
//! transcripts of the five languages compare equal step by step (tests/test_conformance.py). When a
//! call fails unexpectedly the transcript ends with a "failed" step, "ok" is false, "error" says why
//! and the exit status is 1.
//!
//! Environment: KXM_ADDR (host:port, plaintext), KXM_TOKEN, KXM_NAME_PREFIX; KXM_TLS_ADDR, KXM_TLS_CA and
//! KXM_TLS_TOKEN (a TLS hub, the PEM file of the CA that signed its certificate, a project token there); KXM_SWEEP
//! (the contract sweep's calls, written by tests/conformance_sweep.py; run by sweep.rs).
//! Run: `cargo run --example conformance` (or `target/debug/examples/conformance` after `cargo build --examples`).
//! The same scenario, step by step, is in clients/python/conformance.py and the other clients.

mod rpcs;
mod sweep;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use kxm_client::v1::agent_service_client::AgentServiceClient;
use kxm_client::v1::lease_service_client::LeaseServiceClient;
use kxm_client::v1::message_service_client::MessageServiceClient;
use kxm_client::v1::subscribe_response::Event;
use kxm_client::v1::{
    AckMessagesRequest, AcquireLeaseRequest, ChannelCommand, ChannelReady, ChannelResult, CheckFenceRequest,
    CredentialKind, FanoutMessagesRequest, FanoutStatus, GetCallerIdentityRequest, GetMessageRequest, MessageState,
    OpenChannelRequest, Presence, RegisterAgentRequest, RegisterAgentResponse, ReleaseLeaseRequest,
    ReplyToMessageRequest, SendMessageRequest, SubscribeRequest, SubscribeResponse, WaitMessageRequest,
    channel_command, channel_result,
};
use serde_json::{Map, Value, json};
use tokio::sync::{Barrier, mpsc};
use tokio::task::JoinHandle;
use tonic::codegen::tokio_stream::wrappers::UnboundedReceiverStream;
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic_types::StatusExt;

const DEADLINE: Duration = Duration::from_secs(10); // every unary call
const EVENT_WAIT: Duration = Duration::from_secs(15); // waiting for a stream event
const WAIT_TIMEOUT: Duration = Duration::from_secs(10); // WaitMessage's own timeout (deadline 5 s longer)
const FANOUT_TIMEOUT: Duration = Duration::from_secs(20); // FanoutMessages' gathering (deadline 5 s longer)
const BARRIER_WAIT: Duration = Duration::from_secs(15); // how long a fanout handler waits for the other
const LEASE_TTL: Duration = Duration::from_secs(30);
const SLACK: Duration = Duration::from_secs(5);

const MISSING_MESSAGE_ID: &str = "msg_00000000000000000000000000000000";
const REQUEST: &str = "conformance request";
const IDEMPOTENCY_KEY: &str = "conformance-request-1";
const REPLY: &str = "conformance reply";
const FANOUT: &str = "conformance fanout";
const FANOUT_KEY_PREFIX: &str = "conformance-fanout";
const RESUME: [&str; 2] = ["conformance resume 1", "conformance resume 2"];
const CHANNEL_REQUEST: &str = "conformance channel request";
const CHANNEL_REPLY: &str = "conformance channel reply";
const REDELIVER: &str = "conformance redeliver";

/// Canonical gRPC status code names, indexed by code number.
const CODE_NAMES: [&str; 17] = [
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
    "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
];

type Facts = Map<String, Value>;

/// Why the scenario stopped: an RPC error, or a step that could not finish for another reason.
#[derive(Debug)]
enum Failure {
    Status(Box<tonic::Status>),
    Step { detail: String, error: &'static str },
}

impl From<tonic::Status> for Failure {
    fn from(status: tonic::Status) -> Self {
        Failure::Status(Box::new(status))
    }
}

impl Failure {
    fn step(detail: impl Into<String>, error: &'static str) -> Self {
        Failure::Step { detail: detail.into(), error }
    }
}

type Result<T> = std::result::Result<T, Failure>;

/// Builds a JSON object from key/value pairs.
macro_rules! facts {
    ($($key:literal : $value:expr),* $(,)?) => {{
        let mut f = Facts::new();
        $(f.insert($key.to_string(), json!($value));)*
        f
    }};
}

fn fanout_reply(suffix: &str) -> String {
    format!("fanout reply from {suffix}")
}

fn state_name(value: i32) -> &'static str {
    MessageState::try_from(value).map_or("UNKNOWN", |s| s.as_str_name())
}

/// The canonical name of a status code.
fn code_name(code: tonic::Code) -> String {
    let code = code as usize;
    CODE_NAMES.get(code).map_or_else(|| format!("CODE_{code}"), |n| (*n).to_string())
}

/// The status code, and the google.rpc.ErrorInfo reason and domain decoded from the status details.
fn error_facts(status: &tonic::Status) -> Facts {
    let mut f = facts! {"code": code_name(status.code()), "reason": "", "domain": ""};
    if let Some(info) = status.get_details_error_info() {
        f.insert("reason".into(), json!(info.reason));
        f.insert("domain".into(), json!(info.domain));
    }
    f
}

/// The name of the event's oneof case: ready, message, reply, cancelled, expired or presence.
fn event_kind(ev: &SubscribeResponse) -> &'static str {
    match ev.event {
        Some(Event::Ready(_)) => "ready",
        Some(Event::Message(_)) => "message",
        Some(Event::Reply(_)) => "reply",
        Some(Event::Cancelled(_)) => "cancelled",
        Some(Event::Expired(_)) => "expired",
        Some(Event::Presence(_)) => "presence",
        None => "none",
    }
}

/// A request with a deadline (grpc-timeout, enforced by the channel too) and the given metadata.
fn request<T>(metadata: &MetadataMap, message: T, timeout: Duration) -> tonic::Request<T> {
    let mut req = tonic::Request::new(message);
    *req.metadata_mut() = metadata.clone();
    req.set_timeout(timeout);
    req
}

/// One Subscribe stream of an agent, read by a tokio task into a channel. `seen` is the seq of the
/// last event the scenario took from the channel (what it "saw").
struct Inbox {
    events: mpsc::UnboundedReceiver<std::result::Result<SubscribeResponse, tonic::Status>>,
    reader: JoinHandle<()>,
    seen: u64,
}

impl Inbox {
    /// The next event (waiting at most EVENT_WAIT).
    async fn next(&mut self) -> Result<SubscribeResponse> {
        match tokio::time::timeout(EVENT_WAIT, self.events.recv()).await {
            Err(_) => Err(Failure::step("no stream event in time", "timeout")),
            Ok(None) => Err(Failure::step("the stream ended", "stream_ended")),
            Ok(Some(Err(status))) => Err(status.into()),
            Ok(Some(Ok(ev))) => {
                if ev.seq > 0 {
                    self.seen = ev.seq;
                }
                Ok(ev)
            }
        }
    }

    /// The next message event, skipping presence events of the project's other agents.
    async fn next_message(&mut self) -> Result<(SubscribeResponse, kxm_client::v1::Message)> {
        loop {
            let ev = self.next().await?;
            match &ev.event {
                Some(Event::Message(m)) => {
                    let m = m.clone();
                    return Ok((ev, m));
                }
                Some(Event::Presence(_)) => {}
                _ => return Err(Failure::step(format!("unexpected {} event", event_kind(&ev)), "unexpected_event")),
            }
        }
    }

    /// Read the stream to its end, skipping presence events: the status code's name it ended with
    /// ("OK" when it ended without error) and the google.rpc.ErrorInfo reason ("" when none).
    async fn end(&mut self) -> Result<(String, String)> {
        loop {
            match self.next().await {
                Ok(ev) if event_kind(&ev) == "presence" => {}
                Ok(ev) => {
                    return Err(Failure::step(format!("unexpected {} event", event_kind(&ev)), "unexpected_event"));
                }
                Err(Failure::Status(status)) => {
                    let reason = status.get_details_error_info().map(|info| info.reason).unwrap_or_default();
                    return Ok((code_name(status.code()), reason));
                }
                Err(Failure::Step { error: "stream_ended", .. }) => return Ok(("OK".into(), String::new())),
                Err(failure) => return Err(failure),
            }
        }
    }

    /// Drop the stream (dropping the response stream cancels the call).
    fn close(&self) {
        self.reader.abort();
    }
}

impl Drop for Inbox {
    fn drop(&mut self) {
        self.close(); // every way out of a step cancels the streams it opened
    }
}

/// One item of a channel, in the order its responses carried them: the channel's `ready`, an inbox
/// event, a command result, or the end of the stream with its status code's name ("OK" when the
/// stream ended without error).
enum ChannelItem {
    Ready(ChannelReady),
    Event(SubscribeResponse),
    Result(ChannelResult),
    End(String),
}

impl ChannelItem {
    /// What the step reports when this item came before the one it waited for.
    fn unexpected(&self, kind: &str) -> Failure {
        let (got, error) = match self {
            ChannelItem::Ready(_) => ("ready", "unexpected_ready"),
            ChannelItem::Event(_) => ("event", "unexpected_event"),
            ChannelItem::Result(_) => ("result", "unexpected_result"),
            ChannelItem::End(_) => ("end", "unexpected_end"),
        };
        Failure::step(format!("a channel {got} came before its {kind}"), error)
    }
}

/// One OpenChannel stream of an agent. Its requests are fed from an mpsc channel (written in order);
/// its responses are read by a tokio task and taken apart into the channel's `ready`, the inbox
/// events and the command results, each read in order. Presence events are dropped: the project's
/// other agents (the other programs' among them) come and go at any moment. Dropping it cancels the
/// call.
struct AgentChannel {
    requests: Option<mpsc::UnboundedSender<OpenChannelRequest>>,
    items: mpsc::UnboundedReceiver<ChannelItem>,
    reader: JoinHandle<()>,
}

impl AgentChannel {
    fn open(mut agents: AgentServiceClient<Channel>, metadata: MetadataMap) -> Self {
        let (requests, outgoing) = mpsc::unbounded_channel();
        let (tx, items) = mpsc::unbounded_channel();
        let reader = tokio::spawn(async move {
            // A stream has no deadline; keepalive detects a dead connection.
            let mut req = tonic::Request::new(UnboundedReceiverStream::new(outgoing));
            *req.metadata_mut() = metadata;
            let pump = async {
                let mut stream = agents.open_channel(req).await?.into_inner();
                while let Some(response) = stream.message().await? {
                    if let Some(ready) = response.ready {
                        let _ = tx.send(ChannelItem::Ready(ready));
                    }
                    for event in response.events {
                        if event_kind(&event) != "presence" {
                            let _ = tx.send(ChannelItem::Event(event));
                        }
                    }
                    for result in response.results {
                        let _ = tx.send(ChannelItem::Result(result));
                    }
                }
                Ok::<(), tonic::Status>(())
            };
            let code = match pump.await {
                Ok(()) => "OK".to_string(),
                Err(status) => code_name(status.code()),
            };
            let _ = tx.send(ChannelItem::End(code));
        });
        AgentChannel { requests: Some(requests), items, reader }
    }

    fn write(&self, request: OpenChannelRequest) {
        if let Some(requests) = &self.requests {
            let _ = requests.send(request); // fails only once the stream ended: the next item says so
        }
    }

    /// The next item (waiting at most EVENT_WAIT); `kind` is the one the step waits for.
    async fn next(&mut self, kind: &str) -> Result<ChannelItem> {
        match tokio::time::timeout(EVENT_WAIT, self.items.recv()).await {
            Err(_) => Err(Failure::step(format!("no channel {kind} in time"), "timeout")),
            Ok(None) => Err(ChannelItem::End(String::new()).unexpected(kind)),
            Ok(Some(item)) => Ok(item),
        }
    }

    async fn ready(&mut self) -> Result<ChannelReady> {
        match self.next("ready").await? {
            ChannelItem::Ready(ready) => Ok(ready),
            other => Err(other.unexpected("ready")),
        }
    }

    async fn event(&mut self) -> Result<SubscribeResponse> {
        match self.next("event").await? {
            ChannelItem::Event(event) => Ok(event),
            other => Err(other.unexpected("event")),
        }
    }

    async fn result(&mut self) -> Result<ChannelResult> {
        match self.next("result").await? {
            ChannelItem::Result(result) => Ok(result),
            other => Err(other.unexpected("result")),
        }
    }

    /// Close the sending side and wait for the hub to end the stream; its status code's name.
    async fn end(&mut self) -> Result<String> {
        self.requests = None;
        match self.next("end").await? {
            ChannelItem::End(code) => Ok(code),
            other => Err(other.unexpected("end")),
        }
    }
}

impl Drop for AgentChannel {
    fn drop(&mut self) {
        self.reader.abort(); // dropping the response stream cancels the call
    }
}

/// The response of a command result, or the message's default when it holds another outcome.
macro_rules! outcome {
    ($result:expr, $case:ident) => {
        match &$result.result {
            Some(channel_result::Result::$case(r)) => r.clone(),
            _ => Default::default(),
        }
    };
}

/// The TLS hub of the `tls` step: its address (host:port), the PEM file of the CA that signed its
/// certificate, and a project token there.
struct Tls {
    addr: String,
    ca: String,
    token: String,
}

struct Scenario {
    prefix: String,
    project: MetadataMap,
    md: HashMap<&'static str, MetadataMap>,
    channel: Channel,
    agents: AgentServiceClient<Channel>,
    messages: MessageServiceClient<Channel>,
    leases: LeaseServiceClient<Channel>,
    tls: Tls,
    sweep_file: String,
    steps: Vec<Value>,
}

impl Scenario {
    fn name(&self, suffix: &str) -> String {
        format!("{}-{suffix}", self.prefix)
    }

    fn add(&mut self, step: &str, mut facts: Facts) {
        facts.insert("step".into(), json!(step));
        self.steps.push(Value::Object(facts));
    }

    fn md(&self, suffix: &str) -> &MetadataMap {
        &self.md[suffix]
    }

    async fn open_inbox(&mut self, suffix: &str, after_seq: u64) -> Result<(Inbox, SubscribeResponse)> {
        // A stream has no deadline; keepalive detects a dead connection.
        let mut req = tonic::Request::new(SubscribeRequest { after_seq, ..Default::default() });
        *req.metadata_mut() = self.md(suffix).clone();
        let mut stream = self.messages.clone().subscribe(req).await?.into_inner();
        let (tx, rx) = mpsc::unbounded_channel();
        let reader = tokio::spawn(async move {
            loop {
                match stream.message().await {
                    Ok(Some(ev)) => {
                        if tx.send(Ok(ev)).is_err() {
                            return;
                        }
                    }
                    Ok(None) => return,
                    Err(status) => {
                        let _ = tx.send(Err(status));
                        return;
                    }
                }
            }
        });
        let mut inbox = Inbox { events: rx, reader, seen: after_seq };
        let first = inbox.next().await?;
        Ok((inbox, first))
    }

    async fn run(&mut self) -> Result<()> {
        self.register().await?;
        let mut inbox_b = self.subscribe().await?;
        let message_id = self.send_idempotent().await?;
        self.receive_ack_reply(&mut inbox_b, &message_id).await?;
        self.wait(&message_id).await?;
        let (mut inbox_b, inbox_c) = self.fanout(inbox_b).await?;
        inbox_c.close();
        self.get_missing().await?;
        self.lease().await?;
        self.resume(&mut inbox_b).await?;
        self.channel().await?;
        self.redeliver().await?;
        self.tls().await?;
        self.sweep().await
    }

    /// Register agent `<prefix>-<suffix>` and keep its credentials for the calls made as it.
    async fn register_agent(&mut self, suffix: &'static str) -> Result<RegisterAgentResponse> {
        self.register_with_key(suffix, String::new()).await
    }

    /// Register agent `<prefix>-<suffix>`, resuming it with `previous_key` (its current key) unless
    /// empty, and keep its credentials (the key this registration returned) for the calls made as it.
    async fn register_with_key(&mut self, suffix: &'static str, previous_key: String) -> Result<RegisterAgentResponse> {
        let req = RegisterAgentRequest {
            name: self.name(suffix),
            purpose: "conformance".into(),
            model: "rust".into(),
            previous_key,
            ..Default::default()
        };
        let resp = self.agents.register_agent(request(&self.project, req, DEADLINE)).await?.into_inner();
        let mut md = self.project.clone();
        let id: MetadataValue<_> = resp
            .agent
            .as_ref()
            .map_or("", |a| a.id.as_str())
            .parse()
            .map_err(|_| Failure::step("agent id is not ASCII", "bad_metadata"))?;
        let key: MetadataValue<_> =
            resp.agent_key.parse().map_err(|_| Failure::step("agent key is not ASCII", "bad_metadata"))?;
        md.insert("x-kxm-agent-id", id);
        md.insert("x-kxm-agent-key", key);
        self.md.insert(suffix, md);
        Ok(resp)
    }

    // 1. register a, b and c
    async fn register(&mut self) -> Result<()> {
        for suffix in ["a", "b", "c"] {
            let name = self.name(suffix);
            let resp = self.register_agent(suffix).await?;
            let agent = resp.agent.unwrap_or_default();
            let presence = Presence::try_from(agent.presence).map_or("UNKNOWN", |p| p.as_str_name());
            self.add(
                &format!("register_{suffix}"),
                facts! {"resumed": resp.resumed, "presence": presence, "name_equal": agent.name == name},
            );
        }
        Ok(())
    }

    // 2. subscribe b and wait for the ready event
    async fn subscribe(&mut self) -> Result<Inbox> {
        let (inbox, first) = self.open_inbox("b", 0).await?;
        let (after_seq, agent_is_b) = match &first.event {
            Some(Event::Ready(r)) => (r.after_seq, r.agent.as_ref().map(|a| a.name.clone()) == Some(self.name("b"))),
            _ => (u64::MAX, false),
        };
        self.add(
            "subscribe",
            facts! {
                "first_event": event_kind(&first),
                "after_seq": after_seq,
                "ready_seq": first.seq,
                "agent_is_b": agent_is_b,
            },
        );
        Ok(inbox)
    }

    // 3. a sends b a message with an idempotency key, twice
    async fn send_idempotent(&mut self) -> Result<String> {
        let req = SendMessageRequest {
            target: self.name("b"),
            content: REQUEST.into(),
            idempotency_key: IDEMPOTENCY_KEY.into(),
            ..Default::default()
        };
        let mut messages = self.messages.clone();
        let first = messages.send_message(request(self.md("a"), req.clone(), DEADLINE)).await?.into_inner();
        let second = messages.send_message(request(self.md("a"), req, DEADLINE)).await?.into_inner();
        let (m1, m2) = (first.message.unwrap_or_default(), second.message.unwrap_or_default());
        self.add(
            "send_repeat",
            facts! {
                "first_repeated": first.repeated,
                "first_state": state_name(m1.state),
                "repeated": second.repeated,
                "same_id": m2.id == m1.id,
                "same_seq": m2.seq == m1.seq,
            },
        );
        Ok(m1.id)
    }

    // 4. b receives it on the stream, acknowledges it and replies
    async fn receive_ack_reply(&mut self, inbox: &mut Inbox, message_id: &str) -> Result<()> {
        let (ev, m) = inbox.next_message().await?;
        let from_a = m.from_agent_name == self.name("a");
        self.add(
            "receive",
            facts! {
                "event": "message",
                "seq_positive": ev.seq >= 1,
                "seq_matches": m.seq == ev.seq,
                "same_id": m.id == message_id,
                "content_equal": m.content == REQUEST,
                "from_a": from_a,
                "redelivered": ev.redelivered,
            },
        );
        let mut messages = self.messages.clone();
        let ack = AckMessagesRequest { message_ids: vec![m.id.clone()] };
        let acked = messages.ack_messages(request(self.md("b"), ack, DEADLINE)).await?.into_inner();
        let state = acked.messages.first().map_or("NONE", |x| state_name(x.state));
        self.add("ack", facts! {"count": acked.messages.len(), "state": state});
        let reply = ReplyToMessageRequest { message_id: m.id.clone(), content: REPLY.into() };
        let replied = messages.reply_to_message(request(self.md("b"), reply, DEADLINE)).await?.into_inner();
        self.add("reply", facts! {"state": state_name(replied.message.unwrap_or_default().state)});
        Ok(())
    }

    // 5. a awaits the reply
    async fn wait(&mut self, message_id: &str) -> Result<()> {
        let req = WaitMessageRequest {
            message_id: message_id.into(),
            wait: Some(prost_types::Duration { seconds: WAIT_TIMEOUT.as_secs() as i64, nanos: 0 }),
            ..Default::default()
        };
        let waited =
            self.messages.clone().wait_message(request(self.md("a"), req, WAIT_TIMEOUT + SLACK)).await?.into_inner();
        let m = waited.message.unwrap_or_default();
        self.add(
            "wait",
            facts! {
                "terminal": waited.terminal,
                "state": state_name(m.state),
                "reply_equal": m.reply.map(|r| r.content).as_deref() == Some(REPLY),
            },
        );
        Ok(())
    }

    // 6. a fans out to b and c, which handle it concurrently (one tokio task each), and gathers
    async fn fanout(&mut self, inbox_b: Inbox) -> Result<(Inbox, Inbox)> {
        let (inbox_c, ready_c) = self.open_inbox("c", 0).await?;
        let both_received = Arc::new(Barrier::new(2));
        let handler = |suffix: &'static str, mut inbox: Inbox| {
            let mut messages = self.messages.clone();
            let md = self.md(suffix).clone();
            let both_received = both_received.clone();
            tokio::spawn(async move {
                let facts = async {
                    let (_, m) = inbox.next_message().await?;
                    let ack = AckMessagesRequest { message_ids: vec![m.id.clone()] };
                    let acked = messages.ack_messages(request(&md, ack, DEADLINE)).await?.into_inner();
                    // Both handlers hold their message before either replies: they run concurrently.
                    let concurrent = tokio::time::timeout(BARRIER_WAIT, both_received.wait()).await.is_ok();
                    let reply = ReplyToMessageRequest { message_id: m.id.clone(), content: fanout_reply(suffix) };
                    let replied = messages.reply_to_message(request(&md, reply, DEADLINE)).await?.into_inner();
                    Ok::<Facts, Failure>(facts! {
                        "content_equal": m.content == FANOUT,
                        "ack_state": acked.messages.first().map_or("NONE", |x| state_name(x.state)),
                        "reply_state": state_name(replied.message.unwrap_or_default().state),
                        "concurrent": concurrent,
                    })
                }
                .await;
                (inbox, facts)
            })
        };
        let handle_b = handler("b", inbox_b);
        let handle_c = handler("c", inbox_c);
        let req = FanoutMessagesRequest {
            targets: vec![self.name("b"), self.name("c")],
            content: FANOUT.into(),
            idempotency_key_prefix: FANOUT_KEY_PREFIX.into(),
            wait: Some(prost_types::Duration { seconds: FANOUT_TIMEOUT.as_secs() as i64, nanos: 0 }),
            ..Default::default()
        };
        let gathered =
            self.messages.clone().fanout_messages(request(self.md("a"), req, FANOUT_TIMEOUT + SLACK)).await;
        let joined = |r: std::result::Result<(Inbox, Result<Facts>), tokio::task::JoinError>| {
            r.map_err(|e| Failure::step(format!("a fanout handler panicked: {e}"), "panic"))
        };
        let (inbox_b, facts_b) = joined(handle_b.await)?;
        let (inbox_c, facts_c) = joined(handle_c.await)?;
        let gathered = gathered?.into_inner();
        let (facts_b, facts_c) = (facts_b?, facts_c?);
        let targets: HashMap<String, &str> =
            [(self.name("b").to_lowercase(), "b"), (self.name("c").to_lowercase(), "c")].into_iter().collect();
        let results: Vec<Value> = gathered
            .results
            .iter()
            .map(|r| {
                let target = targets.get(&r.target).copied().unwrap_or("unexpected");
                let m = r.message.clone().unwrap_or_default();
                let status = FanoutStatus::try_from(r.status).map_or("UNKNOWN", |s| s.as_str_name());
                Value::Object(facts! {
                    "target": target,
                    "status": status,
                    "state": state_name(m.state),
                    "reply_equal": m.reply.map(|x| x.content) == Some(fanout_reply(target)),
                })
            })
            .collect();
        self.add(
            "fanout",
            facts! {
                "c_first_event": event_kind(&ready_c),
                "results": results,
                "handler_b": facts_b,
                "handler_c": facts_c,
            },
        );
        Ok((inbox_b, inbox_c))
    }

    // 7. GetMessage with an unknown id
    async fn get_missing(&mut self) -> Result<()> {
        let req = GetMessageRequest { message_id: MISSING_MESSAGE_ID.into() };
        let facts = match self.messages.clone().get_message(request(self.md("a"), req, DEADLINE)).await {
            Ok(_) => facts! {"code": "OK", "reason": "", "domain": ""},
            Err(status) => error_facts(&status),
        };
        self.add("get_missing", facts);
        Ok(())
    }

    // 8. a acquires a lease, releases it, acquires it again; the first token is refused
    async fn lease(&mut self) -> Result<()> {
        let name = self.name("lease");
        let md = self.md("a").clone();
        let mut leases = self.leases.clone();
        let ttl = Some(prost_types::Duration { seconds: LEASE_TTL.as_secs() as i64, nanos: 0 });
        let acquire = AcquireLeaseRequest { name: name.clone(), ttl, ..Default::default() };
        let first = leases.acquire_lease(request(&md, acquire.clone(), DEADLINE)).await?.into_inner();
        let first_lease = first.lease.unwrap_or_default();
        let release = |token: u64| ReleaseLeaseRequest { name: name.clone(), fencing_token: token };
        let released = leases.release_lease(request(&md, release(first_lease.fencing_token), DEADLINE)).await?;
        let released = released.into_inner().lease.unwrap_or_default();
        let second = leases.acquire_lease(request(&md, acquire, DEADLINE)).await?.into_inner();
        let second_lease = second.lease.unwrap_or_default();
        let (first_token, second_token) = (first_lease.fencing_token, second_lease.fencing_token);
        self.add(
            "lease",
            facts! {
                "first_live": first_lease.live,
                "first_renewed": first.renewed,
                "released_token_equal": released.fencing_token == first_token,
                "second_renewed": second.renewed,
                "token_grew": second_token > first_token,
            },
        );
        let check = |token: u64| CheckFenceRequest { name: name.clone(), fencing_token: token };
        let current = leases.check_fence(request(&md, check(second_token), DEADLINE)).await?.into_inner();
        let current = current.lease.unwrap_or_default();
        let stale = match leases.check_fence(request(&md, check(first_token), DEADLINE)).await {
            Ok(_) => facts! {"code": "OK", "reason": "", "domain": ""},
            Err(status) => error_facts(&status),
        };
        self.add(
            "fence",
            facts! {
                "current_live": current.live,
                "current_token_equal": current.fencing_token == second_token,
                "stale": stale,
            },
        );
        leases.release_lease(request(&md, release(second_token), DEADLINE)).await?;
        Ok(())
    }

    // 9. b's stream is dropped after seq N; a sends two more; b resumes after N
    async fn resume(&mut self, inbox_b: &mut Inbox) -> Result<()> {
        let cursor = inbox_b.seen;
        inbox_b.close();
        let mut sent = Vec::new();
        let mut messages = self.messages.clone();
        for content in RESUME {
            let req = SendMessageRequest { target: self.name("b"), content: content.into(), ..Default::default() };
            let resp = messages.send_message(request(self.md("a"), req, DEADLINE)).await?.into_inner();
            sent.push(resp.message.unwrap_or_default().id);
        }
        let (mut inbox, ready) = self.open_inbox("b", cursor).await?;
        let mut seqs: Vec<u64> = Vec::new();
        let mut message_ids: Vec<String> = Vec::new();
        let mut contents: Vec<String> = Vec::new();
        let mut redelivered = false;
        while !sent.iter().all(|id| message_ids.contains(id)) {
            let ev = match inbox.next().await {
                Ok(ev) => ev,
                Err(e) => {
                    inbox.close();
                    return Err(e);
                }
            };
            seqs.push(ev.seq);
            redelivered |= ev.redelivered;
            if let Some(Event::Message(m)) = &ev.event {
                message_ids.push(m.id.clone());
                contents.push(m.content.clone());
            }
        }
        inbox.close();
        let ready_after_seq = match &ready.event {
            Some(Event::Ready(r)) => Some(r.after_seq),
            _ => None,
        };
        let unique: HashSet<&String> = message_ids.iter().collect();
        self.add(
            "resume",
            facts! {
                "first_event": event_kind(&ready),
                "ready_after_seq_is_cursor": ready_after_seq == Some(cursor),
                "first_seq_is_next": seqs.first() == Some(&(cursor + 1)),
                "contiguous": seqs.iter().enumerate().all(|(i, s)| *s == cursor + 1 + i as u64),
                "duplicates": unique.len() != message_ids.len(),
                "messages": message_ids.len(),
                "contents_in_order": contents == RESUME,
                "redelivered": redelivered,
            },
        );
        Ok(())
    }

    // 10. a and a new agent d exchange a request and its reply on channels (AgentService.OpenChannel)
    async fn channel(&mut self) -> Result<()> {
        self.register_agent("d").await?;
        // Dropped on every way out of the step, which cancels both calls.
        let mut a_channel = AgentChannel::open(self.agents.clone(), self.md("a").clone());
        let mut d_channel = AgentChannel::open(self.agents.clone(), self.md("d").clone());
        let subscribe = SubscribeRequest { after_seq: 0, ..Default::default() };
        d_channel.write(OpenChannelRequest { subscribe: Some(subscribe), ..Default::default() });
        let d_ready = d_channel.ready().await?;
        let a_ready = a_channel.ready().await?;
        let first = d_channel.event().await?;
        let send = ChannelCommand {
            command_id: "ch-send".into(),
            command: Some(channel_command::Command::Send(SendMessageRequest {
                target: self.name("d"),
                content: CHANNEL_REQUEST.into(),
                wait: Some(prost_types::Duration { seconds: 10, nanos: 0 }),
                ..Default::default()
            })),
        };
        a_channel.write(OpenChannelRequest { commands: vec![send.clone()], ..Default::default() });
        let event = d_channel.event().await?;
        let m = match &event.event {
            Some(Event::Message(m)) => m.clone(),
            _ => Default::default(),
        };
        let ack = AckMessagesRequest { message_ids: vec![m.id.clone()] };
        let reply = ReplyToMessageRequest { message_id: m.id.clone(), content: CHANNEL_REPLY.into() };
        d_channel.write(OpenChannelRequest {
            commands: vec![
                ChannelCommand { command_id: "ch-ack".into(), command: Some(channel_command::Command::Ack(ack)) },
                ChannelCommand { command_id: "ch-reply".into(), command: Some(channel_command::Command::Reply(reply)) },
            ],
            ..Default::default()
        });
        let (acked, replied) = (d_channel.result().await?, d_channel.result().await?);
        let sent = a_channel.result().await?;
        a_channel.write(OpenChannelRequest { commands: vec![send], ..Default::default() }); // the same command again
        let replay = a_channel.result().await?;
        let get = GetMessageRequest { message_id: MISSING_MESSAGE_ID.into() };
        let missing = ChannelCommand { command_id: "ch-get".into(), command: Some(channel_command::Command::Get(get)) };
        a_channel.write(OpenChannelRequest { commands: vec![missing], ..Default::default() });
        let failed = a_channel.result().await?;
        let (a_end, d_end) = (a_channel.end().await?, d_channel.end().await?);

        let ready_of = |ready: &ChannelReady, suffix: &str| {
            ready.agent.as_ref().map(|a| a.name.clone()) == Some(self.name(suffix))
        };
        let sent_send = outcome!(sent, Send);
        let sent_message = sent_send.message.unwrap_or_default();
        let replay_message = outcome!(replay, Send).message.unwrap_or_default();
        let error = outcome!(failed, Error);
        let from_a = m.from_agent_name == self.name("a");
        self.add(
            "channel",
            facts! {
                "a_ready": ready_of(&a_ready, "a"),
                "d_ready": ready_of(&d_ready, "d"),
                "max_commands_per_request": a_ready.max_commands_per_request,
                "max_in_flight_positive": a_ready.max_in_flight > 0,
                "d_first_event": event_kind(&first),
                "event": event_kind(&event),
                "content_equal": m.content == CHANNEL_REQUEST,
                "from_a": from_a,
                "seq_positive": event.seq > 0,
                "ack_state": outcome!(acked, Ack).messages.first().map_or("NONE", |x| state_name(x.state)),
                "reply_state": state_name(outcome!(replied, Reply).message.unwrap_or_default().state),
                "results_in_order": [acked.command_id.as_str(), replied.command_id.as_str()] == ["ch-ack", "ch-reply"],
                "send_terminal": sent_send.terminal,
                "send_reply_equal": sent_message.reply.as_ref().map(|r| r.content.as_str()) == Some(CHANNEL_REPLY),
                "send_key_is_command_id": sent_message.idempotency_key == "ch-send",
                "send_replayed": sent.replayed,
                "replayed": replay.replayed,
                "replay_same_id": replay_message.id == sent_message.id,
                "error": facts! {
                    "code": if error.code == 5 { "NOT_FOUND".to_string() } else { error.code.to_string() },
                    "reason": error.reason,
                },
                "a_end": a_end,
                "d_end": d_end,
            },
        );
        Ok(())
    }

    // 11. e's unacknowledged message comes again after the hub ended e's stream (a new key) and e resumed
    async fn redeliver(&mut self) -> Result<()> {
        let registered = self.register_agent("e").await?;
        let (mut old, ready) = self.open_inbox("e", 0).await?;
        let send = SendMessageRequest { target: self.name("e"), content: REDELIVER.into(), ..Default::default() };
        self.messages.clone().send_message(request(self.md("a"), send, DEADLINE)).await?;
        let (_, first) = old.next_message().await?; // and not acknowledged
        // Registering again with the current key replaces the key (kept for e's calls from now on);
        // the hub ends the stream opened with the old one.
        let resumed = self.register_with_key("e", registered.agent_key).await?;
        let (end_code, end_reason) = old.end().await?;
        let cursor = old.seen;
        let (mut new, again) = self.open_inbox("e", cursor).await?;
        let (event, message) = new.next_message().await?;
        let ack = AckMessagesRequest { message_ids: vec![message.id.clone()] };
        let acked = self.messages.clone().ack_messages(request(self.md("e"), ack, DEADLINE)).await?.into_inner();
        new.close();
        let ready_after_seq = match &again.event {
            Some(Event::Ready(r)) => Some(r.after_seq),
            _ => None,
        };
        self.add(
            "redeliver",
            facts! {
                "e_ready": event_kind(&ready) == "ready",
                "resumed": resumed.resumed,
                "end_code": end_code,
                "end_reason": end_reason,
                "ready_after_seq_is_cursor": ready_after_seq == Some(cursor),
                "redelivered": event.redelivered,
                "same_id": message.id == first.id,
                "content_equal": message.content == REDELIVER,
                "ack_state": acked.messages.first().map_or("NONE", |x| state_name(x.state)),
            },
        );
        Ok(())
    }

    // 12. a new connection over TLS that trusts only the given CA (rustls verifies the IP in the
    // certificate's subjectAltName against the host of KXM_TLS_ADDR)
    async fn tls(&mut self) -> Result<()> {
        let ca = std::fs::read(&self.tls.ca)
            .map_err(|e| Failure::step(format!("cannot read KXM_TLS_CA {}: {e}", self.tls.ca), "bad_tls_ca"))?;
        let host = self.tls.addr.rsplit_once(':').map_or(self.tls.addr.as_str(), |(host, _)| host);
        let config = ClientTlsConfig::new()
            .ca_certificate(Certificate::from_pem(ca))
            .domain_name(host.trim_start_matches('[').trim_end_matches(']'));
        let endpoint = Endpoint::from_shared(format!("https://{}", self.tls.addr))
            .and_then(|endpoint| endpoint.tls_config(config))
            .map_err(|e| Failure::step(format!("bad KXM_TLS_ADDR: {e}"), "bad_address"))?;
        let channel = connect(endpoint);
        let md = bearer(&self.tls.token)?;
        let identity = AgentServiceClient::new(channel)
            .get_caller_identity(request(&md, GetCallerIdentityRequest {}, DEADLINE))
            .await?
            .into_inner();
        let kind = CredentialKind::try_from(identity.credential_kind).map_or("UNKNOWN", |k| k.as_str_name());
        self.add("tls", facts! {"credential_kind": kind});
        Ok(())
    }

    // 13. every call of the contract sweep, through the generated clients (sweep.rs, rpcs.rs)
    async fn sweep(&mut self) -> Result<()> {
        let calls = sweep::load(&self.sweep_file).map_err(|e| Failure::step(e, "bad_sweep"))?;
        let recorded = sweep::run(&self.channel, &calls).await;
        self.add("sweep", facts! {"calls": recorded});
        Ok(())
    }
}

/// A channel to `endpoint`, connected on its first call.
fn connect(endpoint: Endpoint) -> Channel {
    endpoint
        // The hub accepts client keepalive pings no more often than every 10 s.
        .http2_keep_alive_interval(Duration::from_secs(30))
        .keep_alive_timeout(Duration::from_secs(10))
        .keep_alive_while_idle(true)
        .connect_timeout(DEADLINE)
        .connect_lazy()
}

/// The metadata of calls made with a project token.
fn bearer(token: &str) -> Result<MetadataMap> {
    let mut md = MetadataMap::new();
    let value: MetadataValue<_> =
        format!("Bearer {token}").parse().map_err(|_| Failure::step("token is not ASCII", "bad_metadata"))?;
    md.insert("authorization", value);
    Ok(md)
}

/// What the program reads from its environment (all of it required).
struct Inputs {
    addr: String,
    token: String,
    prefix: String,
    tls: Tls,
    sweep_file: String,
}

impl Inputs {
    const NAMES: &str = "KXM_ADDR, KXM_TOKEN, KXM_NAME_PREFIX, KXM_TLS_ADDR, KXM_TLS_CA, KXM_TLS_TOKEN and KXM_SWEEP";

    /// The inputs, or `None` when one is missing or empty.
    fn from_env() -> Option<Inputs> {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        Some(Inputs {
            addr: env("KXM_ADDR")?,
            token: env("KXM_TOKEN")?,
            prefix: env("KXM_NAME_PREFIX")?,
            tls: Tls { addr: env("KXM_TLS_ADDR")?, ca: env("KXM_TLS_CA")?, token: env("KXM_TLS_TOKEN")? },
            sweep_file: env("KXM_SWEEP")?,
        })
    }
}

async fn run_scenario(inputs: Inputs, steps: &mut Vec<Value>) -> Result<()> {
    let Inputs { addr, token, prefix, tls, sweep_file } = inputs;
    let endpoint = Endpoint::from_shared(format!("http://{addr}"))
        .map_err(|e| Failure::step(format!("bad KXM_ADDR: {e}"), "bad_address"))?;
    let channel = connect(endpoint);
    let mut s = Scenario {
        prefix,
        project: bearer(&token)?,
        md: HashMap::new(),
        agents: AgentServiceClient::new(channel.clone()),
        messages: MessageServiceClient::new(channel.clone()),
        leases: LeaseServiceClient::new(channel.clone()),
        channel,
        tls,
        sweep_file,
        steps: Vec::new(),
    };
    let result = s.run().await;
    if let Err(failure) = &result {
        let facts = match failure {
            Failure::Status(status) => error_facts(status),
            Failure::Step { error, .. } => facts! {"error": *error},
        };
        s.add("failed", facts);
    }
    steps.append(&mut s.steps);
    result
}

#[tokio::main]
async fn main() {
    let mut steps = Vec::new();
    let error = match Inputs::from_env() {
        None => Some(format!("set {}", Inputs::NAMES)),
        Some(inputs) => match run_scenario(inputs, &mut steps).await {
            Ok(()) => None,
            Err(Failure::Status(status)) => Some(format!("{:?}: {}", status.code(), status.message())),
            Err(Failure::Step { detail, .. }) => Some(detail),
        },
    };
    let mut out = json!({"language": "rust", "ok": error.is_none(), "steps": steps});
    if let Some(error) = error {
        out["error"] = json!(error);
    }
    println!("{out}");
    std::process::exit(if out["ok"] == json!(true) { 0 } else { 1 });
}
