//! The contract sweep (docs/clients.md, "The contract sweep: every RPC in every language"): every
//! call of the file named by KXM_SWEEP, made through the generated client of its RPC (the table in
//! rpcs.rs) with exactly the metadata and the deadline the file gives, and recorded as
//! `{"name", "code", "reason", "domain", "violations", "responses"}`. A failed call is recorded
//! like any other; the sweep never stops at one.

use std::future::Future;
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use prost::Message;
use serde_json::{Value, json};
use tonic::codec::Streaming;
use tonic::codegen::tokio_stream::adapters::Chain;
use tonic::codegen::tokio_stream::{self, Iter, Pending, StreamExt};
use tonic::metadata::{AsciiMetadataKey, AsciiMetadataValue, MetadataMap};
use tonic::transport::Channel;
use tonic::{Code, Status};
use tonic_types::StatusExt;

use crate::{code_name, request, rpcs};

/// One call of the sweep file (requests still in binary: each RPC decodes them into its own type).
pub struct Call {
    name: String,
    pub method: String,
    metadata: MetadataMap,
    requests: Vec<Vec<u8>>,
    responses: usize,
    timeout: Duration,
}

/// What became of a call.
pub enum Outcome {
    /// The call was made: its end status (`None`: OK) and every response received, encoded again.
    Made { status: Option<Status>, responses: Vec<Vec<u8>> },
    /// The call was not made; the code recorded for it says why.
    NotMade(&'static str),
}

/// The requests of a bidirectional call: the file's, in order, then a sending side that stays open
/// until the call is cancelled.
pub type Outgoing<T> = Chain<Iter<std::vec::IntoIter<T>>, Pending<T>>;

/// The calls of the sweep file `path`, in order.
pub fn load(path: &str) -> Result<Vec<Call>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read KXM_SWEEP {path}: {e}"))?;
    let file: Value = serde_json::from_str(&text).map_err(|e| format!("KXM_SWEEP is not JSON: {e}"))?;
    let calls = file["calls"].as_array().ok_or("KXM_SWEEP holds no \"calls\" list")?;
    calls.iter().enumerate().map(|(i, call)| Call::parse(call).map_err(|e| format!("sweep call {i}: {e}"))).collect()
}

/// Runs every call in order and records each.
pub async fn run(channel: &Channel, calls: &[Call]) -> Vec<Value> {
    let mut recorded = Vec::with_capacity(calls.len());
    for call in calls {
        let outcome = rpcs::dispatch(channel, call).await.unwrap_or(Outcome::NotMade("UNIMPLEMENTED_IN_CLIENT"));
        recorded.push(call.record(outcome));
    }
    recorded
}

impl Call {
    fn parse(call: &Value) -> Result<Call, String> {
        let text = |key: &str| call[key].as_str().map(str::to_string).ok_or(format!("no \"{key}\" string"));
        let mut metadata = MetadataMap::new();
        for pair in call["metadata"].as_array().ok_or("no \"metadata\" list")? {
            let (Some(key), Some(value)) = (pair[0].as_str(), pair[1].as_str()) else {
                return Err(format!("metadata entry {pair} is not a [key, value] pair"));
            };
            let key: AsciiMetadataKey = key.parse().map_err(|_| format!("bad metadata key {key:?}"))?;
            let value: AsciiMetadataValue = value.parse().map_err(|_| format!("bad metadata value for {key}"))?;
            metadata.append(key, value);
        }
        let requests = call["requests"]
            .as_array()
            .ok_or("no \"requests\" list")?
            .iter()
            .map(|r| r.as_str().and_then(|r| BASE64.decode(r).ok()).ok_or("a request is not base64"))
            .collect::<Result<_, _>>()?;
        Ok(Call {
            name: text("name")?,
            method: text("method")?,
            metadata,
            requests,
            responses: call["responses"].as_u64().unwrap_or(1) as usize,
            timeout: Duration::from_millis(call["timeout_ms"].as_u64().ok_or("no \"timeout_ms\" number")?),
        })
    }

    /// The call's requests decoded into the generated request type.
    fn decode<T: Message + Default>(&self) -> Result<Vec<T>, Outcome> {
        let decoded: Result<Vec<T>, _> = self.requests.iter().map(|r| T::decode(r.as_slice())).collect();
        match decoded {
            Ok(requests) if !requests.is_empty() => Ok(requests),
            // No request, or bytes the generated type cannot read: nothing to send.
            _ => Err(Outcome::NotMade("INVALID_REQUEST_IN_CLIENT")),
        }
    }

    /// Runs `call` to its end or to the call's deadline; its status (`None`: OK).
    async fn within(&self, call: impl Future<Output = Result<(), Status>>) -> Option<Status> {
        let start = Instant::now();
        match tokio::time::timeout(self.timeout, call).await {
            Ok(Ok(())) => None,
            // tonic enforces the deadline (grpc-timeout) on the client too, and names that CANCELLED;
            // gRPC's name for a deadline that passed is DEADLINE_EXCEEDED.
            Ok(Err(status)) if status.code() == Code::Cancelled && start.elapsed() >= self.timeout => {
                Some(Status::deadline_exceeded(status.message()))
            }
            Ok(Err(status)) => Some(status),
            Err(_) => Some(Status::deadline_exceeded("the call's deadline passed")),
        }
    }

    /// The transcript's record of the call.
    fn record(&self, outcome: Outcome) -> Value {
        let (code, status, responses) = match outcome {
            Outcome::Made { status: None, responses } => ("OK".to_string(), None, responses),
            Outcome::Made { status: Some(status), responses } => (code_name(status.code()), Some(status), responses),
            Outcome::NotMade(code) => (code.to_string(), None, Vec::new()),
        };
        let info = status.as_ref().and_then(|s| s.get_details_error_info());
        let violations: Vec<String> = status
            .as_ref()
            .and_then(|s| s.get_details_bad_request())
            .map(|bad| bad.field_violations.into_iter().map(|v| v.field).collect())
            .unwrap_or_default();
        let responses: Vec<String> = responses.iter().map(|r| BASE64.encode(r)).collect();
        json!({
            "name": self.name,
            "code": code,
            "reason": info.as_ref().map_or("", |i| i.reason.as_str()),
            "domain": info.as_ref().map_or("", |i| i.domain.as_str()),
            "violations": violations,
            "responses": responses,
        })
    }
}

/// Reads up to `wanted` responses of a stream (fewer when it ends OK before), each encoded again.
async fn read<T: Message>(stream: &mut Streaming<T>, wanted: usize, into: &mut Vec<Vec<u8>>) -> Result<(), Status> {
    while into.len() < wanted {
        match stream.message().await? {
            Some(response) => into.push(response.encode_to_vec()),
            None => break,
        }
    }
    Ok(())
}

/// A unary call: the first request, its response.
pub async fn unary<Req, Resp, Fut>(call: &Call, rpc: impl FnOnce(tonic::Request<Req>) -> Fut) -> Outcome
where
    Req: Message + Default,
    Resp: Message,
    Fut: Future<Output = Result<tonic::Response<Resp>, Status>>,
{
    let first = match call.decode::<Req>() {
        Ok(mut requests) => requests.swap_remove(0),
        Err(not_made) => return not_made,
    };
    let mut responses = Vec::new();
    let status = call
        .within(async {
            responses.push(rpc(request(&call.metadata, first, call.timeout)).await?.into_inner().encode_to_vec());
            Ok(())
        })
        .await;
    Outcome::Made { status, responses }
}

/// A server-streaming call: the first request, then `responses` messages; the call is cancelled
/// when it is dropped.
pub async fn server_stream<Req, Resp, Fut>(call: &Call, rpc: impl FnOnce(tonic::Request<Req>) -> Fut) -> Outcome
where
    Req: Message + Default,
    Resp: Message,
    Fut: Future<Output = Result<tonic::Response<Streaming<Resp>>, Status>>,
{
    let first = match call.decode::<Req>() {
        Ok(mut requests) => requests.swap_remove(0),
        Err(not_made) => return not_made,
    };
    let mut responses = Vec::new();
    let status = call
        .within(async {
            let mut stream = rpc(request(&call.metadata, first, call.timeout)).await?.into_inner();
            read(&mut stream, call.responses, &mut responses).await
        })
        .await;
    Outcome::Made { status, responses }
}

/// A bidirectional call: every request in order with the sending side kept open, then `responses`
/// messages; the call is cancelled when it is dropped.
pub async fn bidi_stream<Req, Resp, Fut>(call: &Call, rpc: impl FnOnce(tonic::Request<Outgoing<Req>>) -> Fut) -> Outcome
where
    Req: Message + Default + Send + 'static,
    Resp: Message,
    Fut: Future<Output = Result<tonic::Response<Streaming<Resp>>, Status>>,
{
    let requests = match call.decode::<Req>() {
        Ok(requests) => requests,
        Err(not_made) => return not_made,
    };
    let outgoing = tokio_stream::iter(requests).chain(tokio_stream::pending());
    let mut responses = Vec::new();
    let status = call
        .within(async {
            let mut stream = rpc(request(&call.metadata, outgoing, call.timeout)).await?.into_inner();
            read(&mut stream, call.responses, &mut responses).await
        })
        .await;
    Outcome::Made { status, responses }
}
