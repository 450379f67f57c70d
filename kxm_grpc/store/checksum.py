"""Per-message checksums: a flipped bit in a stored message becomes DATA_LOSS, never wrong data.

SQLite keeps no page checksums, and ``PRAGMA quick_check`` passes a database in which one byte of a
row's payload changed (measured: docs/operations.md, "Durability and crashes"). So every message row
carries two checksums, written with the row and verified each time the row is decoded
(``kxm_grpc/store/rows/messages.py``), on both backends:

- ``checksum`` covers every column set once, when the message is sent (``MESSAGE_FIELDS``): its
  ids, names, content, routing, workflow context and times. Nothing changes them afterwards.
- ``reply_checksum`` covers the reply (``REPLY_FIELDS``), the one payload written later; the state,
  delivery and end times and the error are not covered (they change as the message moves).

A checksum is SHA-256 over the fields' values in order, each written as ``LEN:TEXT`` (the byte
length of its UTF-8 text, a colon, the text; integers in decimal) or ``-`` for NULL, so no two
different rows encode alike; its first 16 hex digits (64 bits) are stored. SHA-256 rather than
CRC-32: it is in Python's ``hashlib`` and in PostgreSQL itself (``sha256(bytea)``, PostgreSQL 11),
so a migration computes the checksums of rows written before it in plain SQL on either backend
(``sql_checksum``); CRC-32 is not built into PostgreSQL. 64 bits leave one undetected corruption in
2^64, at 16 bytes a row; hashing a 1 KiB message costs about a microsecond.

Workflow runs (schema version 10) are rewritten whole at every step, so their one ``checksum``
covers every column of the row (``RUN_FIELDS``), the run's JSON document included
(``kxm_grpc/store/rows/workflows.py``).

Journal records (schema version 11) carry none: each is sealed into its run's HMAC chain, which
covers the record, its sequence and key id, and the order, and which ``journal_chain.verify``
checks naming the first record that fails, where a checksum refused on read would only make the
journal unreadable (``kxm_grpc/store/rows/journal.py``).

Step runs (schema version 14) carry one each, over every column, in their three tables: a run is
rewritten whole at every step (``STEP_RUN_FIELDS``, its snapshot included), an event is written once
(``RUN_EVENT_FIELDS``), and an assignment once more when it closes (``ASSIGNMENT_FIELDS``, its state
included: an open assignment is what keeps an attempt token good, so a changed state must not read
as one) (``kxm_grpc/store/rows/step_runs.py``).

These definitions are part of the schema (messages: version 9; runs: version 10; step runs:
version 14): never change them. A new scheme is new columns and a migration that fills them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

MESSAGE_FIELDS = (
    "id",
    "project",
    "from_agent_id",
    "from_agent_name",
    "to_agent_id",
    "to_agent_name",
    "content",
    "delivery",
    "hops",
    "max_hops",
    "correlation_id",
    "reply_to",
    "idempotency_key",
    "allow_offline",
    "seq",
    "wf_run_id",
    "wf_stage_id",
    "wf_requirement_key",
    "wf_attempt",
    "create_time",
    "expire_time",
)
"""The columns ``messages.checksum`` covers, in order: every one set once, at send."""

REPLY_FIELDS = ("id", "reply_content")
"""The columns ``messages.reply_checksum`` covers, in order (the id binds the reply to its message)."""

RUN_FIELDS = (
    "id",
    "definition_id",
    "definition_hash",
    "project",
    "coordinator_id",
    "status",
    "current_stage",
    "delivery_id",
    "payload_sha256",
    "create_time",
    "update_time",
    "end_time",
    "wait_expire_time",
    "document",
)
"""The columns ``workflow_runs.checksum`` covers, in order: all of them (a save rewrites the row)."""

STEP_RUN_FIELDS = (
    "id",
    "project",
    "definition_id",
    "plan_hash",
    "status",
    "create_time",
    "update_time",
    "end_time",
    "sequence",
    "start_request_id",
    "snapshot",
)
"""The columns ``step_runs.checksum`` covers, in order: all of them (a save rewrites the row)."""

RUN_EVENT_FIELDS = ("run_id", "sequence", "type", "payload", "event_time")
"""The columns ``step_run_events.checksum`` covers, in order: all of them (an event is written once)."""

ASSIGNMENT_FIELDS = (
    "id",
    "run_id",
    "project",
    "step_id",
    "step_attempt",
    "agent_id",
    "state",
    "create_time",
    "deadline",
    "message_id",
    "end_time",
    "result",
)
"""The columns ``step_run_assignments.checksum`` covers, in order: all of them (closing rewrites the row)."""

DIGITS = 16
"""Hex digits of SHA-256 kept (64 bits)."""


def checksum(values: Iterable[str | int | None]) -> str:
    """The checksum of column values (text, integers or None), in their columns' order."""
    parts = []
    for value in values:
        if value is None:
            parts.append("-")
        elif isinstance(value, str):
            # str.isascii is O(1) in CPython: most texts need no encoding just to be measured.
            parts.append(f"{len(value) if value.isascii() else len(value.encode())}:{value}")
        else:
            text = str(int(value))  # a bool as 0 or 1, as stored
            parts.append(f"{len(text)}:{text}")
    return hashlib.sha256("".join(parts).encode()).hexdigest()[:DIGITS]


def sql_checksum(columns: Sequence[str]) -> str:
    """The PostgreSQL expression computing ``checksum`` of a row's ``columns`` (for a migration)."""
    parts = [
        f"COALESCE(octet_length(convert_to({column}::text, 'UTF8'))::text || ':' || {column}::text, '-')"
        for column in columns
    ]
    return f"substr(encode(sha256(convert_to({' || '.join(parts)}, 'UTF8')), 'hex'), 1, {DIGITS})"
