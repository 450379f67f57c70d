//! Generated Rust stubs for the kxm hub's `kxm.v1` gRPC contract: prost messages and tonic clients.
//!
//! The code under `gen/` is written by `scripts/gen` (buf + `codegen/`, the `protoc-gen-kxm-rust`
//! plugin) and committed; never edit it by hand.

/// Messages, enums and service clients of the `kxm.v1` package.
#[allow(clippy::all, missing_docs, rustdoc::all)]
pub mod v1 {
    include!("../gen/kxm.v1.rs");
}
