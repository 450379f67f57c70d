//! Conformance program: runs the kxm client scenario against a live hub and prints one JSON
//! transcript (`{"language": "rust", "ok": ..., "steps": [...]}`) to stdout; exits 1 when a step fails.
//!
//! Environment: KXM_ADDR (host:port, plaintext), KXM_PROJECT_TOKEN, KXM_NAME_PREFIX.
//! Run: `cargo run --bin conformance`.

use std::time::Duration;

use kxm_client::v1::agent_service_client::AgentServiceClient;
use kxm_client::v1::message_service_client::MessageServiceClient;
use kxm_client::v1::{ErrorReason, GetMessageRequest, RegisterAgentRequest, RegisterAgentResponse};
use serde_json::{Map, Value, json};
use tonic::metadata::MetadataValue;
use tonic::transport::{Channel, Endpoint};
use tonic_types::StatusExt;

const MISSING_MESSAGE_ID: &str = "msg_00000000000000000000000000000000";
const DEADLINE: Duration = Duration::from_secs(10);

/// Canonical gRPC status code names, indexed by code number.
const CODE_NAMES: [&str; 17] = [
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
    "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
];

type Step = Map<String, Value>;

struct Transcript {
    ok: bool,
    steps: Vec<Value>,
}

impl Transcript {
    fn add(&mut self, step: Step) -> bool {
        self.ok &= step.get("ok") == Some(&Value::Bool(true));
        self.steps.push(Value::Object(step));
        self.ok
    }
}

fn step(name: &str, pairs: &[(&str, &str)]) -> Step {
    let mut s = Map::new();
    s.insert("name".into(), json!(name));
    s.insert("ok".into(), json!(false));
    for (k, v) in pairs {
        s.insert((*k).into(), json!(v));
    }
    s
}

/// Records an RPC error's code, message and google.rpc.ErrorInfo (reason, domain) in a step.
fn describe(step: &mut Step, status: &tonic::Status) {
    let code = status.code() as usize;
    let name = CODE_NAMES.get(code).map_or_else(|| format!("CODE_{code}"), |n| (*n).to_string());
    step.insert("code".into(), json!(name));
    step.insert("message".into(), json!(status.message()));
    if let Some(info) = status.get_details_error_info() {
        step.insert("reason".into(), json!(info.reason));
        step.insert("domain".into(), json!(info.domain));
    }
}

/// A request with a deadline and the given metadata (ASCII values).
fn request<T>(message: T, metadata: &[(&'static str, &str)]) -> tonic::Request<T> {
    let mut req = tonic::Request::new(message);
    req.set_timeout(DEADLINE);
    for (key, value) in metadata {
        let value: MetadataValue<_> = value.parse().expect("ASCII metadata value");
        req.metadata_mut().insert(*key, value);
    }
    req
}

async fn run(out: &mut Transcript) {
    let env = |k: &str| std::env::var(k).unwrap_or_default();
    let (addr, token, prefix) = (env("KXM_ADDR"), env("KXM_PROJECT_TOKEN"), env("KXM_NAME_PREFIX"));
    if addr.is_empty() || token.is_empty() || prefix.is_empty() {
        out.add(step("config", &[("error", "set KXM_ADDR, KXM_PROJECT_TOKEN and KXM_NAME_PREFIX")]));
        return;
    }
    let channel: Channel = match Endpoint::from_shared(format!("http://{addr}")) {
        Ok(endpoint) => endpoint
            // The hub accepts client keepalive pings no more often than every 10 s.
            .http2_keep_alive_interval(Duration::from_secs(30))
            .keep_alive_timeout(Duration::from_secs(10))
            .keep_alive_while_idle(true)
            .connect_timeout(DEADLINE)
            .connect_lazy(),
        Err(e) => {
            out.add(step("connect", &[("error", &e.to_string())]));
            return;
        }
    };
    let mut agents = AgentServiceClient::new(channel.clone());
    let mut messages = MessageServiceClient::new(channel);
    let bearer = format!("Bearer {token}");

    let mut registered: Vec<RegisterAgentResponse> = Vec::new();
    for suffix in ["a", "b"] {
        let name = format!("{prefix}-{suffix}");
        let mut s = step(&format!("register_{suffix}"), &[("agent_name", &name)]);
        let req = RegisterAgentRequest {
            name: name.clone(),
            purpose: "conformance".into(),
            model: "rust".into(),
            ..Default::default()
        };
        match agents.register_agent(request(req, &[("authorization", &bearer)])).await {
            Ok(resp) => {
                let resp = resp.into_inner();
                let id = resp.agent.as_ref().map(|a| a.id.clone()).unwrap_or_default();
                s.insert("code".into(), json!("OK"));
                s.insert("agent_id".into(), json!(id));
                s.insert("ok".into(), json!(!id.is_empty() && !resp.agent_key.is_empty()));
                registered.push(resp);
            }
            Err(status) => describe(&mut s, &status),
        }
        if !out.add(s) {
            return;
        }
    }

    let a = &registered[0];
    let agent_id = a.agent.as_ref().map(|x| x.id.clone()).unwrap_or_default();
    let mut s = step("get_missing_message", &[("message_id", MISSING_MESSAGE_ID)]);
    let req = GetMessageRequest { message_id: MISSING_MESSAGE_ID.into() };
    let md = [("authorization", bearer.as_str()), ("x-kxm-agent-id", &agent_id), ("x-kxm-agent-key", &a.agent_key)];
    match messages.get_message(request(req, &md)).await {
        Ok(_) => {
            s.insert("code".into(), json!("OK"));
        }
        Err(status) => {
            describe(&mut s, &status);
            let ok = status.code() == tonic::Code::NotFound
                && s.get("reason") == Some(&json!(ErrorReason::MessageNotFound.as_str_name()));
            s.insert("ok".into(), json!(ok));
        }
    }
    out.add(s);
}

#[tokio::main]
async fn main() {
    let mut out = Transcript { ok: true, steps: Vec::new() };
    run(&mut out).await;
    println!("{}", json!({"language": "rust", "ok": out.ok, "steps": out.steps}));
    std::process::exit(if out.ok { 0 } else { 1 });
}
