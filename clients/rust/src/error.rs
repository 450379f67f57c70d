//! [`Error`]: what every call of the layer returns when it fails, with the hub's error details
//! decoded.
//!
//! The hub answers a failed call with a gRPC status whose `google.rpc.Status` details (the
//! `grpc-status-details-bin` trailer) carry a `google.rpc.ErrorInfo` (`reason`, an
//! [`ErrorReason`](crate::v1::ErrorReason) name such as `ERROR_REASON_MESSAGE_NOT_FOUND`, `domain`
//! `kxm.dev`, and a metadata map), and for some errors a `google.rpc.BadRequest` (field violations)
//! or a `google.rpc.RetryInfo` (how long to wait). Those three messages are decoded here with prost
//! (a few lines, so the crate needs no `tonic-types`). Branch on [`Error::reason`] or
//! [`Error::error_reason`], never on the message text.

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use prost::Message as _;
use tonic::{Code, Status};

use crate::v1::ErrorReason;

/// A failed call (the hub's status with its details decoded), or a client that could not be
/// configured ([`Error::is_config`]).
///
/// Every method of [`Client`](crate::Client) returns it; a `tonic::Status` from a generated
/// client's call converts into it with `?` or [`Error::from`].
///
/// Small to move (one box), as a `Result`'s error should be.
#[derive(Debug)]
pub struct Error {
    inner: Box<Inner>,
}

#[derive(Debug)]
struct Inner {
    code: Code,
    message: String,
    reason: String,
    domain: String,
    metadata: HashMap<String, String>,
    field_violations: Vec<FieldViolation>,
    retry_delay: Option<Duration>,
    config: bool,
    hint: Option<String>,
    status: Option<Status>,
}

/// One `google.rpc.BadRequest.FieldViolation`: a field of the request the hub refused, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldViolation {
    /// The field's path in the request (`name`, `targets[1]`).
    pub field: String,
    /// What is wrong with it.
    pub description: String,
}

impl Error {
    /// The status code (`Code::NotFound`); `Code::InvalidArgument` for a configuration error.
    pub fn code(&self) -> Code {
        self.inner.code
    }

    /// The status code's canonical name: `NOT_FOUND`, `UNAVAILABLE`, ...
    pub fn code_name(&self) -> &'static str {
        code_name(self.inner.code)
    }

    /// The `google.rpc.ErrorInfo` reason (`ERROR_REASON_MESSAGE_NOT_FOUND`), or `""` when the
    /// status had none (a transport failure, a configuration error).
    pub fn reason(&self) -> &str {
        &self.inner.reason
    }

    /// The reason as the generated enum, or None when there is none or this build does not know
    /// it (a newer hub's: act on [`code`](Self::code) then).
    pub fn error_reason(&self) -> Option<ErrorReason> {
        ErrorReason::from_str_name(&self.inner.reason)
    }

    /// The `google.rpc.ErrorInfo` domain (`kxm.dev`), or `""`.
    pub fn domain(&self) -> &str {
        &self.inner.domain
    }

    /// The status message (human text: show it, do not parse it).
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The `google.rpc.ErrorInfo` metadata (facts about the error, such as the id it concerns).
    pub fn metadata(&self) -> &HashMap<String, String> {
        &self.inner.metadata
    }

    /// The `google.rpc.BadRequest` field violations, in order (empty when there are none).
    pub fn field_violations(&self) -> &[FieldViolation] {
        &self.inner.field_violations
    }

    /// The `google.rpc.RetryInfo` delay: how long to wait before trying again, when the hub said.
    pub fn retry_delay(&self) -> Option<Duration> {
        self.inner.retry_delay
    }

    /// Whether the client could not be configured (a bad address, an unreadable TLS file, TLS
    /// asked for without the `tls` feature), as opposed to a call that failed.
    pub fn is_config(&self) -> bool {
        self.inner.config
    }

    /// The raw status the hub or the transport answered, when this error is a failed call.
    pub fn status(&self) -> Option<&Status> {
        self.inner.status.as_ref()
    }

    /// A configuration error with this message.
    pub(crate) fn config(message: impl Into<String>) -> Self {
        let mut error = Error::bare(Code::InvalidArgument, message.into());
        error.inner.config = true;
        error
    }

    /// This error with a note added to what it displays.
    pub(crate) fn with_hint(mut self, hint: String) -> Self {
        self.inner.hint = Some(hint);
        self
    }

    fn bare(code: Code, message: String) -> Self {
        let inner = Inner {
            code,
            message,
            reason: String::new(),
            domain: String::new(),
            metadata: HashMap::new(),
            field_violations: Vec::new(),
            retry_delay: None,
            config: false,
            hint: None,
            status: None,
        };
        Error { inner: Box::new(inner) }
    }
}

impl From<Status> for Error {
    /// Decodes the status's `grpc-status-details-bin` (details it cannot decode are left out).
    fn from(status: Status) -> Self {
        let mut error = Error::bare(status.code(), status.message().to_owned());
        if let Ok(details) = RpcStatus::decode(status.details()) {
            for any in details.details {
                // "type.googleapis.com/google.rpc.ErrorInfo": the name is after the last '/'.
                let name = any.type_url.rsplit('/').next().unwrap_or_default();
                let value = any.value.as_slice();
                match name {
                    "google.rpc.ErrorInfo" => {
                        if let Ok(info) = ErrorInfo::decode(value) {
                            error.inner.reason = info.reason;
                            error.inner.domain = info.domain;
                            error.inner.metadata = info.metadata;
                        }
                    }
                    "google.rpc.BadRequest" => {
                        if let Ok(bad) = BadRequest::decode(value) {
                            error.inner.field_violations.extend(bad.field_violations.into_iter().map(|violation| {
                                FieldViolation { field: violation.field, description: violation.description }
                            }));
                        }
                    }
                    "google.rpc.RetryInfo" => {
                        if let Ok(RetryInfo { retry_delay: Some(delay) }) = RetryInfo::decode(value) {
                            error.inner.retry_delay = Duration::try_from(delay).ok();
                        }
                    }
                    _ => {}
                }
            }
        }
        error.inner.status = Some(status);
        error
    }
}

impl fmt::Display for Error {
    /// `NOT_FOUND ERROR_REASON_MESSAGE_NOT_FOUND: <message>` (no reason: `NOT_FOUND: <message>`),
    /// then the hint, if any, on its own line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.inner.config {
            write!(f, "kxm client configuration: {}", self.inner.message)?;
        } else if self.inner.reason.is_empty() {
            write!(f, "{}: {}", self.code_name(), self.inner.message)?;
        } else {
            write!(f, "{} {}: {}", self.code_name(), self.inner.reason, self.inner.message)?;
        }
        if let Some(hint) = &self.inner.hint {
            write!(f, "\nhint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    /// The raw `tonic::Status`, when this error is a failed call.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner.status.as_ref().map(|status| status as &(dyn std::error::Error + 'static))
    }
}

/// The canonical name of a gRPC status code (`NOT_FOUND`).
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

// The google.rpc messages the hub sends, as prost would generate them (google/rpc/status.proto,
// error_details.proto); only the fields read here.

/// `google.rpc.Status`.
#[derive(Clone, PartialEq, prost::Message)]
struct RpcStatus {
    #[prost(int32, tag = "1")]
    code: i32,
    #[prost(string, tag = "2")]
    message: String,
    #[prost(message, repeated, tag = "3")]
    details: Vec<prost_types::Any>,
}

/// `google.rpc.ErrorInfo`.
#[derive(Clone, PartialEq, prost::Message)]
struct ErrorInfo {
    #[prost(string, tag = "1")]
    reason: String,
    #[prost(string, tag = "2")]
    domain: String,
    #[prost(map = "string, string", tag = "3")]
    metadata: HashMap<String, String>,
}

/// `google.rpc.BadRequest`.
#[derive(Clone, PartialEq, prost::Message)]
struct BadRequest {
    #[prost(message, repeated, tag = "1")]
    field_violations: Vec<BadRequestFieldViolation>,
}

/// `google.rpc.BadRequest.FieldViolation`.
#[derive(Clone, PartialEq, prost::Message)]
struct BadRequestFieldViolation {
    #[prost(string, tag = "1")]
    field: String,
    #[prost(string, tag = "2")]
    description: String,
}

/// `google.rpc.RetryInfo`.
#[derive(Clone, PartialEq, prost::Message)]
struct RetryInfo {
    #[prost(message, optional, tag = "1")]
    retry_delay: Option<prost_types::Duration>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn any<M: prost::Message>(name: &str, message: &M) -> prost_types::Any {
        prost_types::Any { type_url: format!("type.googleapis.com/{name}"), value: message.encode_to_vec() }
    }

    #[test]
    fn decodes_error_info_field_violations_and_retry_info() {
        let details = RpcStatus {
            code: Code::InvalidArgument as i32,
            message: "bad".into(),
            details: vec![
                any(
                    "google.rpc.ErrorInfo",
                    &ErrorInfo {
                        reason: "ERROR_REASON_PROTOCOL_ERROR".into(),
                        domain: "kxm.dev".into(),
                        metadata: HashMap::from([("field".into(), "name".into())]),
                    },
                ),
                any(
                    "google.rpc.BadRequest",
                    &BadRequest {
                        field_violations: vec![BadRequestFieldViolation {
                            field: "name".into(),
                            description: "required".into(),
                        }],
                    },
                ),
                any("google.rpc.RetryInfo", &RetryInfo {
                    retry_delay: Some(prost_types::Duration { seconds: 1, nanos: 500_000_000 }),
                }),
                any("google.rpc.DebugInfo", &RetryInfo::default()),
            ],
        };
        let status = Status::with_details(Code::InvalidArgument, "bad", details.encode_to_vec().into());
        let error = Error::from(status);
        assert_eq!(error.code_name(), "INVALID_ARGUMENT");
        assert_eq!(error.reason(), "ERROR_REASON_PROTOCOL_ERROR");
        assert_eq!(error.error_reason(), Some(ErrorReason::ProtocolError));
        assert_eq!(error.domain(), "kxm.dev");
        assert_eq!(error.message(), "bad");
        assert_eq!(error.metadata().get("field").map(String::as_str), Some("name"));
        assert_eq!(error.field_violations(), [FieldViolation {
            field: "name".into(),
            description: "required".into()
        }]);
        assert_eq!(error.retry_delay(), Some(Duration::from_millis(1500)));
        assert!(!error.is_config());
        assert_eq!(error.to_string(), "INVALID_ARGUMENT ERROR_REASON_PROTOCOL_ERROR: bad");
    }

    #[test]
    fn a_status_without_details_has_none() {
        let error = Error::from(Status::unavailable("connection refused"));
        assert_eq!((error.code_name(), error.reason(), error.domain()), ("UNAVAILABLE", "", ""));
        assert!(error.field_violations().is_empty() && error.retry_delay().is_none());
        assert_eq!(error.to_string(), "UNAVAILABLE: connection refused");
    }
}
