"""Write docs/errors.md from the comments of proto/kxm/v1/error_reason.proto.

Run by scripts/gen, so the drift check keeps the error catalogue and the contract equal. The whole
page is generated; it is written the way every docs generator writes its page (scripts/_splice.py).
Usage: python scripts/gen_errors_doc.py OUT_ROOT
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the shared helper, when loaded by file path
import _splice

ROOT = _splice.ROOT
PROTO = ROOT / "proto" / "kxm" / "v1" / "error_reason.proto"
PAGE = Path("docs") / "errors.md"

ACTIONS = {
    "INVALID_ARGUMENT": "Fix the request; `BadRequest` names the field. Do not retry unchanged.",
    "UNAUTHENTICATED": "Check the bearer token and agent identity; an agent whose key was replaced registers again.",
    "PERMISSION_DENIED": "Use a credential that may do this (the right agent, project or the admin token).",
    "NOT_FOUND": "The resource does not exist in your project (or was purged); do not retry.",
    "ALREADY_EXISTS": "Pick another name, or prove you are the existing one (for agents: `previous_key`).",
    "FAILED_PRECONDITION": "The resource is not in a state that allows this; read it, then decide.",
    "ABORTED": "A newer grant or an earlier, different request won; stop, re-read, do not retry blindly.",
    "RESOURCE_EXHAUSTED": "Back off: wait `RetryInfo.retry_delay` when present, or resume a stream from its cursor.",
    "UNAVAILABLE": "Retry with backoff, or reconnect (to another replica) and resume streams from their cursor.",
    "INTERNAL": "A hub bug; report it with the `x-request-id`.",
    "DATA_LOSS": "Stored data failed its checksum; do not retry. The operator restores a backup (docs/operations.md).",
}

HEADER = """# Errors

<!-- Generated from proto/kxm/v1/error_reason.proto by scripts/gen. Do not edit. -->

Every failed call is a gRPC status whose `grpc-status-details-bin` trailer holds a
`google.rpc.Status` with:

- `google.rpc.ErrorInfo`: `reason` (one of the names below), `domain` = `kxm.dev`, and `metadata`
  repeating every dynamic part of the message (for example `name`, `holderAgentId`, `messageId`);
- `google.rpc.BadRequest` for INVALID_ARGUMENT: one field violation naming the request field (none
  when the request's bytes could not be decoded at all: `ERROR_REASON_PROTOCOL_ERROR`);
- `google.rpc.RetryInfo` when waiting helps (rate limits, busy storage).

The trailing metadata also carries `x-request-id` (the caller's, or one the hub generated).
The Python client raises the same exception class on both sides (`kxm_grpc.errors`:
`InvalidArgument`, `NotFound`, `FailedPrecondition`, `Aborted`, …) with `.reason`, `.metadata`,
`.field_violations` and `.retry_after`. Other languages decode the same details (see
`clients/<lang>/README.md`).

## What to do, by status code

| status | what the caller should do |
| --- | --- |
"""


def parse(text: str) -> list[tuple[str, str, str]]:
    """(name, status, meaning) for each enum value after the zero value."""
    entries = []
    comment: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("//"):
            comment.append(stripped[2:].strip())
            continue
        match = re.match(r"(ERROR_REASON_[A-Z0-9_]+)\s*=\s*(\d+);", stripped)
        if match and match.group(2) != "0":
            text_ = " ".join(comment)
            status_match = re.match(r"([A-Z_]+): (.*)", text_)
            if status_match:
                status, meaning = status_match.group(1), status_match.group(2)
            elif text_.startswith("HTTP only"):
                status, meaning = "(HTTP only)", text_.removeprefix("HTTP only:").strip()
            else:
                status, meaning = "(per-event code)", text_.removeprefix("Per-event outcome code:").strip()
            entries.append((match.group(1), status, meaning))
        if not stripped.startswith("//"):
            comment = []
    return entries


def render(entries: list[tuple[str, str, str]]) -> str:
    """The Markdown document."""
    lines = [HEADER.rstrip("\n")]
    lines += [f"| {status} | {action} |" for status, action in ACTIONS.items()]
    lines += [
        "",
        "## Reasons",
        "",
        "`(per-event code)` reasons appear in `PushSyncEvents` results, not as call errors.",
        "`(HTTP only)` reasons belong to the original HTTP hub and are never returned over gRPC.",
        "",
        "| reason | status | meaning and metadata |",
        "| --- | --- | --- |",
    ]
    lines += [f"| `{name}` | {status} | {meaning.replace('|', '/')} |" for name, status, meaning in entries]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Write OUT_ROOT/docs/errors.md (the whole page is generated: it has no markers)."""
    _splice.write_page(PAGE, render(parse(PROTO.read_text())))


if __name__ == "__main__":
    main()
