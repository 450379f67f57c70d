//! `protoc-gen-kxm-rust`: a protoc/buf plugin that writes prost messages and tonic clients.
//!
//! protoc-gen-prost/protoc-gen-tonic lag behind tonic releases; this plugin runs tonic's own code
//! generator (tonic-prost-build) on the descriptors buf hands over, so the generated code always
//! matches the tonic and prost versions in Cargo.lock. It needs no protoc. Use with
//! `strategy: all` so that every file of a package arrives in one request.
//!
//! Output: one `<package>.rs` file per proto package (for example `kxm.v1.rs`).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use prost::Message;
use prost_types::FileDescriptorSet;
use prost_types::compiler::code_generator_response::{Feature, File};
use prost_types::compiler::{CodeGeneratorRequest, CodeGeneratorResponse};

fn main() {
    let mut input = Vec::new();
    std::io::stdin().read_to_end(&mut input).expect("read CodeGeneratorRequest from stdin");
    let request = CodeGeneratorRequest::decode(input.as_slice()).expect("decode CodeGeneratorRequest");
    let response = match generate(&request) {
        Ok(files) => CodeGeneratorResponse {
            supported_features: Some(Feature::Proto3Optional as u64),
            file: files,
            ..Default::default()
        },
        Err(error) => CodeGeneratorResponse { error: Some(error), ..Default::default() },
    };
    std::io::stdout()
        .write_all(&response.encode_to_vec())
        .expect("write CodeGeneratorResponse to stdout");
}

fn generate(request: &CodeGeneratorRequest) -> Result<Vec<File>, String> {
    if let Some(parameter) = request.parameter.as_deref().filter(|p| !p.is_empty()) {
        return Err(format!("protoc-gen-kxm-rust takes no options, got {parameter:?}"));
    }
    // prost needs every descriptor (imports too) to resolve types; only the packages of the files to
    // generate are written (imports such as the well-known types map to prost-types).
    let mut wanted: Vec<String> = request
        .proto_file
        .iter()
        .filter(|f| request.file_to_generate.iter().any(|name| Some(name.as_str()) == f.name.as_deref()))
        .map(|f| format!("{}.rs", f.package()))
        .collect();
    wanted.sort();
    wanted.dedup();
    let files = request.proto_file.clone();
    let out_dir = scratch_dir()?;
    let result = tonic_prost_build::configure()
        .build_server(false)
        .build_client(true)
        .build_transport(true)
        .emit_rerun_if_changed(false)
        .out_dir(&out_dir)
        .compile_fds(FileDescriptorSet { file: files })
        .map_err(|e| format!("tonic-prost-build: {e}"))
        .and_then(|()| collect(&out_dir, &wanted));
    let _ = std::fs::remove_dir_all(&out_dir);
    result
}

fn scratch_dir() -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join(format!("protoc-gen-kxm-rust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
    Ok(dir)
}

fn collect(out_dir: &Path, wanted: &[String]) -> Result<Vec<File>, String> {
    wanted
        .iter()
        .map(|name| {
            let path = out_dir.join(name);
            let content = std::fs::read_to_string(&path).map_err(|e| format!("read {}: {e}", path.display()))?;
            Ok(File { name: Some(name.clone()), content: Some(content), ..Default::default() })
        })
        .collect()
}
