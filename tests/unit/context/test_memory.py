"""Memory records as context items (spec §5.11, §5.14, §10 pin 20, §11.8): the parser, the mapping
and the revision, without a hub."""

from __future__ import annotations

import pytest

from kxm_grpc.domain.context.items import Authority, Confidence, Kind, Scope, SourceType, Status
from kxm_grpc.domain.context.memory import (
    RECORD_SOURCE_TYPES,
    Lifecycle,
    MemoryFile,
    RecordAuthority,
    memory_owner,
    parse_file,
    parse_files,
    revision,
)
from kxm_grpc.errors import InvalidArgument, PermissionDenied, Reason
from tests.api.test_context_memory import record


def parsed(text: str, path: str = "a.md", project: str = "alpha") -> object:
    return parse_file(MemoryFile(path, text), project=project)


def test_pin_20_a_record_becomes_a_mem_knowledge_item() -> None:
    """§10 pin 20 and seed 004: ``mem_<id>``, knowledge, instruction, confidence copied, current."""
    text = record(
        "lint-first",
        "run the linter, token ghp_0123456789abcdefghijklmnopqrstuvwxyz1234",
        extra="evidenceRefs: [review-1, 7]\n",
        body="Why: CI.\n",
    )
    text = text.replace("  sourceType: git\n", "  sourceType: git\n  timestamp: 2026-01-02T03:04:05Z\n")

    memory = parse_file(MemoryFile("lint.md", text), project="alpha")
    item = memory.item

    assert (memory.record_id, memory.scope, memory.kind, memory.lifecycle) == (
        "lint-first",
        Scope.PROJECT,
        "convention",
        Lifecycle.ACTIVE,
    )
    assert (item.id, item.kind, item.project, item.status) == (
        "mem_lint-first",
        Kind.KNOWLEDGE,
        "alpha",
        Status.CURRENT,
    )
    assert (item.authority, item.confidence, item.scope) == (Authority.INSTRUCTION, Confidence.VERIFIED, Scope.PROJECT)
    assert (item.provenance.source_type, item.provenance.source_ref) == (SourceType.GIT, "memory:alpha/lint.md")
    assert item.evidence_refs == ("review-1", "7")
    assert item.observed_at == 1_767_323_045_000_000
    assert "ghp_0123456789" not in item.summary and memory.stored


@pytest.mark.parametrize(
    ("authority", "expected"),
    [("instruction", Authority.INSTRUCTION), ("promoted", Authority.INSTRUCTION), ("evidence", Authority.EVIDENCE)],
)
def test_the_authority_mapping(authority: str, expected: Authority) -> None:
    memory = parse_file(MemoryFile("a.md", record("a", "x", authority=authority)), project="alpha")

    assert (memory.authority, memory.item.authority) == (RecordAuthority(authority), expected)


def test_operator_scope_is_shared_and_its_ref_names_neither_the_project_nor_the_file() -> None:
    """Every project reads a `_shared` item: its source ref says `_shared` and the record id (the
    owner is kept in the hub's settings); a project's own item names its project and file."""
    shared = parse_file(MemoryFile("d.md", record("d", "x", scope="operator")), project="beta")
    own = parse_file(MemoryFile("a.md", record("a", "x")), project="beta")

    assert (shared.item.project, shared.item.scope) == ("_shared", Scope.OPERATOR)
    assert shared.item.provenance.source_ref == "memory:_shared/d" and memory_owner(shared.item) == "_shared"
    assert own.item.provenance.source_ref == "memory:beta/a.md" and memory_owner(own.item) == "beta"


@pytest.mark.parametrize(("scope", "lifecycle"), [("agent", "active"), ("run", "active"), ("project", "deprecated")])
def test_unbound_scopes_and_inactive_records_are_checked_but_not_stored(scope: str, lifecycle: str) -> None:
    memory = parse_file(MemoryFile("a.md", record("a", "x", scope=scope, lifecycle=lifecycle)), project="alpha")

    assert not memory.stored


def test_the_source_type_set_is_closed_and_caps_authority() -> None:
    with pytest.raises(InvalidArgument) as free_text:
        parse_file(MemoryFile("a.md", record("a", "x", source_type="command")), project="alpha")
    with pytest.raises(PermissionDenied) as peer:
        parse_file(MemoryFile("a.md", record("a", "x", source_type="peer")), project="alpha")
    evidence = parse_file(MemoryFile("a.md", record("a", "x", source_type="peer", authority="evidence")), project="p")

    assert [t.value for t in RECORD_SOURCE_TYPES] == ["human", "git", "workflow", "tool", "peer", "external"]
    assert free_text.value.metadata["field"] == "provenance.sourceType"
    assert peer.value.reason is Reason.CONTEXT_AUTHORITY_VIOLATION
    assert evidence.item.provenance.source_type is SourceType.PEER


@pytest.mark.parametrize(
    "text",
    [
        "---\nprovenance: {1: git}\n---\n",
        "---\n- a list\n---\n",
        "---\nsummary: [unclosed\n---\n",
        "---\n" + "[" * 5_000 + "\n---\n",
        "\ufeff---\n---\n",
    ],
)
def test_odd_front_matter_is_an_invalid_record(text: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        parse_files([MemoryFile("a.md", text)], project="alpha")

    assert refused.value.reason is Reason.INVALID_MEMORY_RECORD
    assert refused.value.field_violations[0].field == "files[0].content"


def test_windows_line_endings_are_read() -> None:
    text = record("a", "x").replace("\n", "\r\n")

    assert parse_file(MemoryFile("a.md", text), project="alpha").item.summary == "x"


def test_the_revision_is_over_paths_and_bytes_in_code_unit_order() -> None:
    files = [
        MemoryFile("b.md", "two"),
        MemoryFile("a.md", "one"),
        MemoryFile("\U0001f600.md", "x"),
        MemoryFile("\uff5e.md", "y"),
    ]

    first = revision(files)

    assert first == revision(list(reversed(files)))
    assert first != revision([*files[:3], MemoryFile("\uff5e.md", "y ")])
    assert first.startswith("ctxrev_") and len(first) == len("ctxrev_") + 64
