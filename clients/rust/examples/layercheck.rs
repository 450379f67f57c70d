//! Layer check (Rust): what the thin client layer must do, as facts (docs/clients.md, "The thin
//! layers"; tests/test_client_layers.py; the reference is clients/python/layercheck.py).
//!
//! Clients built with no arguments (`KXM_ADDR`/`KXM_TOKEN` or a credentials file), the decoded
//! errors, the default deadline, and a subscription that resumes by itself across a hub restart:
//! it prints `{"waiting": "restart"}`, then waits for a line `restarted` on stdin (the test kills
//! the hub and starts it again meanwhile). Prints one JSON transcript line; exits 1 when a step
//! failed. Environment: what the client reads, and `KXM_NAME_PREFIX`.
//! Run: `target/debug/examples/layercheck` after `cargo build --examples`.

use std::fmt;
use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use kxm_client::v1::subscribe_response::Event;
use kxm_client::v1::{CredentialKind, GetCallerIdentityRequest, SubscribeResponse, WaitMessageRequest};
use kxm_client::{Client, Error, Subscription};
use serde_json::{Value, json};
use tonic::Code;

const MISSING_MESSAGE_ID: &str = "msg_00000000000000000000000000000000";
const EVENT_WAIT: Duration = Duration::from_secs(30);
const RETRY_FOR: Duration = Duration::from_secs(20);
const RETRY_EVERY: Duration = Duration::from_millis(200);
/// The short client's default deadline (the wait it bounds is 10 s).
const DEFAULT_DEADLINE: Duration = Duration::from_secs(3);

/// Why the check stopped: a call failed, or a step did not get what it waited for.
enum Failure {
    Layer(Error),
    Step(String),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Failure::Layer(error)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Layer(error) => write!(f, "Error: {error}"),
            Failure::Step(why) => write!(f, "Failed: {why}"),
        }
    }
}

/// What b's subscription showed: ready events, the last ready's after_seq, the highest seq, and
/// the highest seq seen before the last ready (the cursor that connection should resume from).
#[derive(Default)]
struct Seen {
    readies: u32,
    ready_after_seq: Option<u64>,
    seq: u64,
    seq_before_ready: u64,
}

/// Whether `error` is the layer's error type (as a caller holding a `dyn Error` finds out).
fn is_layer_error(error: &(dyn std::error::Error + 'static)) -> bool {
    error.is::<Error>()
}

/// The next event of a subscription, within EVENT_WAIT.
async fn next_event(events: &mut Subscription) -> Result<SubscribeResponse, Failure> {
    match tokio::time::timeout(EVENT_WAIT, events.next()).await {
        Err(_) => Err(Failure::Step(format!("no event within {EVENT_WAIT:?}"))),
        Ok(None) => Err(Failure::Step("the subscription ended".to_owned())),
        Ok(Some(event)) => Ok(event?),
    }
}

/// The next message event of a subscription (counting ready events and the highest seq).
async fn next_message(events: &mut Subscription, seen: &mut Seen) -> Result<SubscribeResponse, Failure> {
    loop {
        let event = next_event(events).await?;
        match &event.event {
            Some(Event::Ready(ready)) => {
                seen.readies += 1;
                seen.ready_after_seq = Some(ready.after_seq);
                seen.seq_before_ready = seen.seq;
            }
            _ => seen.seq = seen.seq.max(event.seq),
        }
        if let Some(Event::Message(_)) = event.event {
            return Ok(event);
        }
    }
}

fn event_name(event: &SubscribeResponse) -> &'static str {
    match event.event {
        Some(Event::Ready(_)) => "ready",
        Some(Event::Message(_)) => "message",
        Some(Event::Reply(_)) => "reply",
        Some(Event::Cancelled(_)) => "cancelled",
        Some(Event::Expired(_)) => "expired",
        Some(Event::Presence(_)) => "presence",
        None => "",
    }
}

fn message_content(event: &SubscribeResponse) -> &str {
    match &event.event {
        Some(Event::Message(message)) => &message.content,
        _ => "",
    }
}

async fn run(steps: &mut Vec<Value>, prefix: &str) -> Result<(), Failure> {
    let (a, b, c) = (Client::from_env()?, Client::from_env()?, Client::from_env()?);
    a.register(format!("{prefix}-a")).purpose("layer check").await?;
    b.register(format!("{prefix}-b")).purpose("layer check").await?;
    let identity = a.agents().get_caller_identity(GetCallerIdentityRequest {}).await.map_err(Error::from)?;
    let identity = identity.into_inner();
    let kind = CredentialKind::try_from(identity.credential_kind).map_or("UNKNOWN", |kind| kind.as_str_name());
    let name_equal = identity.agent_name == format!("{prefix}-a");
    steps.push(json!({"step": "register", "credential_kind": kind, "name_equal": name_equal}));

    match a.get_message(MISSING_MESSAGE_ID).await {
        Ok(_) => steps.push(json!({"step": "not_found", "code": "OK"})),
        Err(error) => steps.push(json!({
            "step": "not_found", "code": error.code_name(), "reason": error.reason(), "domain": error.domain(),
            "layer_error": is_layer_error(&error),
        })),
    }

    match c.register("").await {
        Ok(_) => steps.push(json!({"step": "invalid", "code": "OK"})),
        Err(error) => {
            let fields: Vec<&str> = error.field_violations().iter().map(|violation| violation.field.as_str()).collect();
            steps.push(json!({"step": "invalid", "code": error.code_name(), "reason": error.reason(), "fields": fields}));
        }
    }

    // A client with a's credentials and a default deadline of 3 s: the hub ends a wait before the
    // call's deadline, so that default bounds a 10 s wait (without it the call takes 10 s). It
    // answers OK and not terminal, or DEADLINE_EXCEEDED when the answer loses the race on a busy
    // machine. One call first, so that the connection is up before the timing starts.
    let probe = a.send(format!("{prefix}-b"), "deadline probe").await?;
    let (agent_id, agent_key) = (a.agent_id().unwrap_or_default(), a.agent_key().unwrap_or_default());
    let short = Client::builder().agent(agent_id, agent_key).timeout(DEFAULT_DEADLINE).build()?;
    short.agents().get_caller_identity(GetCallerIdentityRequest {}).await.map_err(Error::from)?;
    let request = WaitMessageRequest {
        message_id: probe.message.map(|message| message.id).unwrap_or_default(),
        wait: Some(prost_types::Duration { seconds: 10, nanos: 0 }),
        ..WaitMessageRequest::default()
    };
    let started = Instant::now();
    let early = match short.messages().wait_message(request).await.map_err(Error::from) {
        Ok(waited) => !waited.into_inner().terminal,
        Err(error) => error.code() == Code::DeadlineExceeded,
    };
    let ended_before_wait = early && started.elapsed() < Duration::from_secs(8);
    steps.push(json!({"step": "deadline", "ended_before_wait": ended_before_wait}));
    drop(short);

    let mut events = b.subscribe(0);
    let mut seen = Seen::default();
    let first = next_event(&mut events).await?;
    seen.readies += 1;
    steps.push(json!({"step": "subscribe", "first": event_name(&first)}));
    let probed = next_message(&mut events, &mut seen).await?;
    if let Some(Event::Message(message)) = &probed.event {
        b.ack([message.id.as_str()]).await?;
    }

    println!("{{\"waiting\": \"restart\"}}");
    std::io::stdout().flush().map_err(|error| Failure::Step(format!("stdout: {error}")))?;
    let line = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|_| line)
    })
    .await
    .map_err(|error| Failure::Step(format!("reading stdin: {error}")))?
    .map_err(|error| Failure::Step(format!("reading stdin: {error}")))?;
    if line.trim() != "restarted" {
        return Err(Failure::Step(format!("expected 'restarted' on stdin, got {line:?}")));
    }
    let deadline = Instant::now() + RETRY_FOR;
    loop {
        // allow_offline: the restarted hub counts b offline until its stream is back.
        let send = a.send(format!("{prefix}-b"), "after restart").idempotency_key(format!("{prefix}-after-restart"));
        let send = send.allow_offline(true);
        match send.await {
            Ok(_) => break,
            Err(error) if error.code() == Code::Unavailable && Instant::now() < deadline => {
                tokio::time::sleep(RETRY_EVERY).await;
            }
            Err(error) => return Err(error.into()),
        }
    }
    let mut event = next_message(&mut events, &mut seen).await?;
    while message_content(&event) != "after restart" {
        event = next_message(&mut events, &mut seen).await?;
    }
    // The cursor: the highest seq b saw before the restart. That includes events the old stream
    // still delivered after the `restarted` line (presence events of other programs in the
    // project, sent before the hub died): the subscription resumed after them, as it should.
    steps.push(json!({
        "step": "resume",
        "readies": seen.readies,
        "after_seq_is_cursor": seen.ready_after_seq == Some(seen.seq_before_ready),
        "received": true,
        "redelivered": event.redelivered,
    }));
    drop(events);
    drop((a, b, c));
    steps.push(json!({"step": "closed"}));
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let prefix = std::env::var("KXM_NAME_PREFIX").unwrap_or_else(|_| "layercheck".to_owned());
    let mut steps = Vec::new();
    let outcome = run(&mut steps, &prefix).await;
    let mut out = json!({"language": "rust", "ok": outcome.is_ok(), "steps": steps});
    if let Err(failure) = &outcome {
        out["error"] = json!(failure.to_string());
    }
    println!("{out}");
    if outcome.is_ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
