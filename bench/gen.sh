#!/usr/bin/env bash
# Regenerate bench/_gen from bench/proto (the benchmark's own ceilings; not the product contract).
#
#   bench/gen.sh            rewrite bench/_gen in place
#   bench/gen.sh /tmp/x     write the same tree under /tmp/x/bench/_gen
#
# Uses the pinned grpcio-tools and mypy-protobuf of the dev extra, so the output is reproducible byte for byte.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$here}"
venv="${KXM_VENV:-$here/.venv}"
cd "$here"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export PATH="$venv/bin:$PATH"  # protoc-gen-mypy and protoc-gen-mypy_grpc (mypy-protobuf)
"$venv/bin/python" -m grpc_tools.protoc -Ibench/proto \
  --python_out="$tmp" --grpc_python_out="$tmp" --mypy_out="$tmp" --mypy_grpc_out="$tmp" \
  bench/proto/kxm/bench/v1/bench.proto
# protoc writes `from kxm.bench.v1 import x_pb2`; the code lives in bench._gen.
find "$tmp" -name '*.py' -o -name '*.pyi' | while read -r f; do
  sed -i 's/^from kxm\.bench\.v1 import /from bench._gen.kxm.bench.v1 import /' "$f"
done
dest="$out/bench/_gen"
rm -rf "$dest"
mkdir -p "$dest/kxm/bench/v1"
cp "$tmp"/kxm/bench/v1/* "$dest/kxm/bench/v1/"
for d in "$dest" "$dest/kxm" "$dest/kxm/bench" "$dest/kxm/bench/v1"; do
  printf '"""Generated from bench/proto by bench/gen.sh. Do not edit."""\n' >"$d/__init__.py"
done
