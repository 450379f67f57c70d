//! Rust client of the kxm hub: the generated stubs of the `kxm.v1` gRPC contract (prost messages
//! and tonic clients, [`v1`]) and a thin layer over them ([`Client`]).
//!
//! The code under `gen/` is written by `scripts/gen` (buf + `codegen/`, the `protoc-gen-kxm-rust`
//! plugin) and committed; never edit it by hand. The rest is written by hand:
//!
//! - [`Client`]: a connection and a caller's credentials, resolved like every kxm client does
//!   (options → `KXM_*` variables → one credentials file); accessors for the generated clients of
//!   the eight services ([`Client::agents`], [`Client::messages`], ...) that attach the metadata
//!   and a default deadline to every unary call; [`Client::register`] and the messaging helpers.
//! - [`Error`]: a failed call with the hub's error details decoded (code, `ErrorInfo` reason,
//!   domain and metadata, field violations, retry delay).
//! - [`Subscription`]: the inbox stream that resumes by itself; [`Assignments`]: a worker's
//!   assignments.
//!
//! ```no_run
//! # async fn run() -> Result<(), kxm_client::Error> {
//! let alice = kxm_client::Client::from_env()?; // KXM_ADDR, KXM_TOKEN, or the credentials file
//! alice.register("alice").await?;
//! let sent = alice.send("bob", "ping").wait(std::time::Duration::from_secs(10)).await?;
//! # Ok(())
//! # }
//! ```
//!
//! The library starts no runtime: call it from a Tokio runtime of the program's (with its time
//! driver, for the backoffs). Feature `tls` (off by default): TLS to the hub (`KXM_TLS_CA`), with
//! rustls and ring through tonic.

#![warn(missing_docs)]

/// Messages, enums and service clients of the `kxm.v1` package.
#[allow(clippy::all, missing_docs, rustdoc::all)]
pub mod v1 {
    include!("../gen/kxm.v1.rs");
}

mod assignments;
pub mod channel;
mod client;
mod config;
mod error;
mod json;
mod subscribe;

pub use assignments::{Assignment, Assignments};
pub use channel::{BearerOnly, HubChannel};
pub use client::{Client, ClientBuilder, DEFAULT_TIMEOUT, RegisterCall, SendCall};
pub use config::DEFAULT_ADDRESS;
pub use error::{Error, FieldViolation, code_name};
pub use subscribe::Subscription;
/// What [`Client::complete`] takes: a `WorkerResult` or a `ReviewEnvelope` (both convert into it).
pub use v1::complete_assignment_request::Result as AssignmentResult;

/// A boxed future that can move between threads (the layer's calls and stream states).
pub(crate) type BoxFuture<T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>>;
