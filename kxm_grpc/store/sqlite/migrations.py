"""Numbered schema migrations, applied in order at start (``PRAGMA user_version`` holds the last).

sqlite-utils owns schema changes; hot paths use plain SQL against the tables created here.
Append new migrations at the end; never edit one that has shipped. Times are INTEGER
microseconds since the epoch (UTC).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import sqlite_utils

from kxm_grpc.domain.context.joints import text_joints
from kxm_grpc.store.checksum import MESSAGE_FIELDS, REPLY_FIELDS, checksum

Migration = Callable[[sqlite_utils.Database], None]


def _0001_foundation(db: sqlite_utils.Database) -> None:
    db.table("meta").create({"key": str, "value": str}, pk="key", strict=True)
    db.table("projects").create(
        {"name": str, "token_hash": str, "create_time": int, "token_rotate_time": int},
        pk="name",
        not_null={"token_hash", "create_time", "token_rotate_time"},
        strict=True,
    )
    db.table("projects").create_index(["token_hash"], unique=True)
    db.table("agents").create(
        {
            "id": str,
            "project": str,
            "name": str,
            "name_key": str,
            "purpose": str,
            "model": str,
            "host": str,
            "key_hash": str,
            "key_active": int,
            "online": int,
            "connect_time": int,
            "last_seen_time": int,
        },
        pk="id",
        not_null={
            "project",
            "name",
            "name_key",
            "purpose",
            "model",
            "host",
            "key_active",
            "online",
            "connect_time",
            "last_seen_time",
        },
        strict=True,
    )
    db.table("agents").create_index(["project", "name_key"], unique=True)
    db.table("agents").create_index(["online", "last_seen_time"])


def _0002_messaging(db: sqlite_utils.Database) -> None:
    """Messages, per-agent event logs and sequences (MessageService)."""
    db.table("messages").create(
        {
            "id": str,
            "project": str,
            "from_agent_id": str,
            "from_agent_name": str,
            "to_agent_id": str,
            "to_agent_name": str,
            "content": str,
            "delivery": str,
            "hops": int,
            "max_hops": int,
            "correlation_id": str,
            "reply_to": str,
            "idempotency_key": str,
            "allow_offline": int,
            "seq": int,
            "wf_run_id": str,
            "wf_stage_id": str,
            "wf_requirement_key": str,
            "wf_attempt": int,
            "create_time": int,
            "expire_time": int,
            "deliver_time": int,
            "end_time": int,
            "state": str,
            "reply_content": str,
            "reply_time": int,
            "error": str,
        },
        pk="id",
        not_null={
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
            "allow_offline",
            "seq",
            "create_time",
            "expire_time",
            "state",
            "error",
        },
        strict=True,
    )
    # A key is unique per sender while its message is retained; sends without one cost no index entry.
    db.execute(
        "CREATE UNIQUE INDEX messages_idempotency ON messages (from_agent_id, idempotency_key) "
        "WHERE idempotency_key IS NOT NULL"
    )
    # Partial indexes keep the hot lookups (inbox, redelivery, the expiry timer, the purge) small
    # however many ended messages retention keeps.
    db.execute("CREATE INDEX messages_open_inbox ON messages (to_agent_id, seq) WHERE state IN ('queued', 'delivered')")
    db.execute("CREATE INDEX messages_open_deadline ON messages (expire_time) WHERE state IN ('queued', 'delivered')")
    db.execute("CREATE INDEX messages_ended ON messages (end_time) WHERE end_time IS NOT NULL")
    # Per agent: the last sequence number issued and the highest one purged by retention. Tables
    # written on every send are WITHOUT ROWID (which sqlite-utils cannot declare): one b-tree
    # instead of a table plus its primary-key index, so each commit writes fewer pages.
    db.execute(
        "CREATE TABLE agent_logs (agent_id TEXT PRIMARY KEY, head_seq INTEGER NOT NULL, "
        "purged_seq INTEGER NOT NULL) STRICT, WITHOUT ROWID"
    )
    # Each agent's event log, clustered by (agent, seq) so a stream reads it in order. Message
    # events point at the message; presence events keep the subject's presence as it was then.
    db.execute(
        "CREATE TABLE agent_events ("
        "agent_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, event_time INTEGER NOT NULL, "
        "message_id TEXT, subject_id TEXT, subject_online INTEGER, subject_seen INTEGER, "
        "PRIMARY KEY (agent_id, seq)) STRICT, WITHOUT ROWID"
    )
    db.execute("CREATE INDEX agent_events_message ON agent_events (message_id) WHERE message_id IS NOT NULL")
    db.execute("CREATE INDEX agent_events_presence ON agent_events (event_time) WHERE kind = 'presence'")


def _0003_leases_runtimes(db: sqlite_utils.Database) -> None:
    """Leases with per-name fencing high-water marks, runtimes and sync events."""
    # One row per (project, name) for good: `fencing_token` is the name's high-water mark and
    # outlives releases (holder columns become NULL) so a token is never issued twice.
    db.table("leases").create(
        {
            "project": str,
            "name": str,
            "fencing_token": int,
            "holder_agent_id": str,
            "holder_agent_name": str,
            "acquire_time": int,
            "expire_time": int,
        },
        pk=("project", "name"),
        not_null={"project", "name", "fencing_token"},
        strict=True,
    )
    db.table("leases").create_index(["expire_time"])
    db.table("runtimes").create(
        {
            "project": str,
            "id": str,
            "host": str,
            "key_hash": str,
            "register_time": int,
            "heartbeat_time": int,
        },
        pk=("project", "id"),
        not_null={"project", "id", "host", "key_hash", "register_time"},
        strict=True,
    )
    db.table("runtimes").create_index(["key_hash"], unique=True)
    # Which hub project owns a runtime-side project id (first accepted push; the admin may move it).
    db.table("sync_projects").create(
        {"project_id": str, "hub_project": str},
        pk="project_id",
        not_null={"hub_project"},
        strict=True,
    )
    db.table("sync_runs").create(
        {
            "project_id": str,
            "run_id": str,
            "hub_project": str,
            "home_runtime_id": str,
            "cursor": int,
            "last_sequence": int,
        },
        pk=("project_id", "run_id"),
        not_null={"project_id", "run_id", "hub_project", "home_runtime_id", "cursor", "last_sequence"},
        strict=True,
    )
    db.table("sync_events").create(
        {
            "project_id": str,
            "run_id": str,
            "sequence": int,
            "event_type": str,
            "content_hash": str,
            "receive_time": int,
            "bytes": str,
        },
        pk=("project_id", "run_id", "sequence"),
        not_null={"project_id", "run_id", "sequence", "event_type", "content_hash", "receive_time", "bytes"},
        strict=True,
    )


# JavaScript's trim set, frozen here as it was when migration 4 shipped (see domain/validation.py).
_JS_WHITESPACE_0004 = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def _0004_agent_names(db: sqlite_utils.Database) -> None:
    """Retired agents, and name keys with JavaScript's trim and toLowerCase.

    An unregistered agent's name can be taken by a fresh agent: the old one is retired, keeps its
    row (messages and leases name its id) and no longer holds its name, so the name is unique among
    agents that are not retired. Name keys were Python's ``strip().casefold()`` (``ß`` folded to
    ``ss``, U+FEFF kept); every key is recomputed at once, then written in two passes (through a
    temporary key) so no order of rows can leave one behind. Two agents whose names JavaScript
    treats as one (``bob`` and ``\ufeffbob``) cannot both hold it: the earlier one does, and the
    later one keeps a key no name can produce (``<key>\x00<id>``; names never contain NUL), so it
    is still reachable by id and key but no longer by name.
    """
    db.execute("ALTER TABLE agents ADD COLUMN retire_time INTEGER")
    db.execute("DROP INDEX idx_agents_project_name_key")
    db.execute("CREATE UNIQUE INDEX agents_name ON agents (project, name_key) WHERE retire_time IS NULL")
    rows = db.execute("SELECT id, project, name, name_key FROM agents ORDER BY connect_time, id").fetchall()
    holders: set[tuple[str, str]] = set()
    changes: list[tuple[str, str]] = []
    for agent_id, project, name, old_key in rows:
        new_key = name.strip(_JS_WHITESPACE_0004).lower()
        if (project, new_key) in holders:
            new_key = f"{new_key}\x00{agent_id}"
        holders.add((project, new_key))
        if new_key != old_key:
            changes.append((agent_id, new_key))
    for agent_id, _ in changes:
        db.execute("UPDATE agents SET name_key = ? WHERE id = ?", (f"\x00moving\x00{agent_id}", agent_id))
    for agent_id, new_key in changes:
        db.execute("UPDATE agents SET name_key = ? WHERE id = ?", (new_key, agent_id))


def _0005_timers(db: sqlite_utils.Database) -> None:
    """One durable timer per deadline: message expiry and lease lapse marks move into ``timers``.

    Every open message gets its ``message_expiry`` timer (key: the message id) at its deadline, and
    every held grant the last alive mark still counts as live gets its ``lease_lapse`` timer (key:
    ``project/name``) at its expiry; a grant that lapsed before the mark needs none. The kinds and
    the ``leases.alive_time`` key are written here as they were when this migration shipped. The
    partial index on open messages' deadlines only served the expiry timer, which now reads
    ``timers_due``.
    """
    # WITHOUT ROWID (written on every send and reply): one b-tree keyed by (kind, key). The index
    # orders each kind by deadline (and carries the key), so the scheduler's earliest-due and
    # due-now lookups, one per kind, read a few index entries whatever the number of timers.
    db.execute(
        "CREATE TABLE timers (kind TEXT NOT NULL, key TEXT NOT NULL, due_time INTEGER NOT NULL, "
        "PRIMARY KEY (kind, key)) STRICT, WITHOUT ROWID"
    )
    db.execute("CREATE INDEX timers_due ON timers (kind, due_time)")
    db.execute(
        "INSERT INTO timers (kind, key, due_time) SELECT 'message_expiry', id, expire_time FROM messages "
        "WHERE state IN ('queued', 'delivered')"
    )
    db.execute(
        "INSERT INTO timers (kind, key, due_time) SELECT 'lease_lapse', project || '/' || name, expire_time "
        "FROM leases WHERE holder_agent_id IS NOT NULL AND expire_time > "
        "COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'leases.alive_time'), -1)"
    )
    db.execute("DROP INDEX messages_open_deadline")


def _0006_sequenced_logs(db: sqlite_utils.Database) -> None:
    """Sequenced logs share one heads table; the agents' event log becomes the inbox log.

    ``agent_logs`` (one row per agent: the last sequence number issued and the highest purged) moves
    into ``log_heads`` under the log name ``inbox``, where later logs (run events, journals) keep
    theirs. ``agent_events`` becomes ``inbox_entries`` with its owner column named ``owner``, as
    every sequenced log's entries table has it; its rows, sequence numbers and layout are unchanged.
    """
    db.execute(
        "CREATE TABLE log_heads (log TEXT NOT NULL, owner TEXT NOT NULL, head_seq INTEGER NOT NULL, "
        "purged_seq INTEGER NOT NULL, PRIMARY KEY (log, owner)) STRICT, WITHOUT ROWID"
    )
    db.execute(
        "INSERT INTO log_heads (log, owner, head_seq, purged_seq) "
        "SELECT 'inbox', agent_id, head_seq, purged_seq FROM agent_logs"
    )
    db.execute("DROP TABLE agent_logs")
    db.execute("DROP INDEX agent_events_message")
    db.execute("DROP INDEX agent_events_presence")
    db.execute("ALTER TABLE agent_events RENAME TO inbox_entries")
    db.execute("ALTER TABLE inbox_entries RENAME COLUMN agent_id TO owner")
    db.execute("CREATE INDEX inbox_entries_message ON inbox_entries (message_id) WHERE message_id IS NOT NULL")
    db.execute("CREATE INDEX inbox_entries_presence ON inbox_entries (event_time) WHERE kind = 'presence'")


def _0007_operators_audit(db: sqlite_utils.Database) -> None:
    """Named operators, the audit of admin actions, and the durable credentials version.

    ``operators`` keeps revoked operators (``revoke_time`` set) so a name is never reused.
    ``audit_records`` is append-only; its rowid (``seq``) is the order records were written in, and
    the two indexes serve the operator and action filters newest first. ``credentials_version`` is
    one row, bumped in every transaction that issues, rotates or revokes a credential, so another
    process learns that its cached authentications may be stale.
    """
    db.execute(
        "CREATE TABLE operators (name TEXT PRIMARY KEY, token_hash TEXT NOT NULL, create_time INTEGER NOT NULL, "
        "revoke_time INTEGER) STRICT"
    )
    db.execute("CREATE UNIQUE INDEX operators_token_hash ON operators (token_hash)")
    db.execute(
        "CREATE TABLE audit_records (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, create_time INTEGER NOT NULL, "
        "operator TEXT NOT NULL, action TEXT NOT NULL, target TEXT NOT NULL, metadata TEXT NOT NULL) STRICT"
    )
    db.execute("CREATE INDEX audit_records_operator ON audit_records (operator, seq)")
    db.execute("CREATE INDEX audit_records_action ON audit_records (action, seq)")
    db.execute(
        "CREATE TABLE credentials_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL) STRICT"
    )
    db.execute("INSERT INTO credentials_version (id, version) VALUES (1, 0)")


def _0008_replicas(db: sqlite_utils.Database) -> None:
    """The replicas of a hub sharing one database, the roles one of them holds, and their open streams.

    Written only by hubs on a shared database (PostgreSQL; ``kxm_grpc/store/replicas``): a SQLite
    hub is alone on its file and leaves them empty. Every version of the schema is the same on both
    backends, so they exist here too. ``replicas`` holds each live process with the time its
    heartbeat lapses; ``roles`` one row per role (``sweeper``) with its holder until a time;
    ``streams`` one row per open Subscribe stream, counted against the per-agent cap cluster-wide.
    """
    db.execute(
        "CREATE TABLE replicas (id TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, "
        "start_time INTEGER NOT NULL, expire_time INTEGER NOT NULL) STRICT"
    )
    db.execute("CREATE TABLE roles (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expire_time INTEGER NOT NULL) STRICT")
    db.execute(
        "CREATE TABLE streams (id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, replica_id TEXT NOT NULL, "
        "open_time INTEGER NOT NULL) STRICT"
    )
    db.execute("CREATE INDEX streams_agent ON streams (agent_id)")
    db.execute("CREATE INDEX streams_replica ON streams (replica_id)")


def _0009_message_checksums(db: sqlite_utils.Database) -> None:
    """Each message row's checksums (``kxm_grpc/store/checksum.py``), computed here for the rows stored before.

    ``checksum`` covers the columns set at send, ``reply_checksum`` the reply; a reader verifies both
    and refuses a row that fails (DATA_LOSS). The empty default never matches a checksum, so a row
    written without them is refused too, never served unverified.
    """
    db.execute("ALTER TABLE messages ADD COLUMN checksum TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE messages ADD COLUMN reply_checksum TEXT NOT NULL DEFAULT ''")
    db.conn.create_function("kxm_checksum_v9", -1, lambda *values: checksum(values), deterministic=True)
    db.execute(
        f"UPDATE messages SET checksum = kxm_checksum_v9({', '.join(MESSAGE_FIELDS)}), "
        f"reply_checksum = kxm_checksum_v9({', '.join(REPLY_FIELDS)})"
    )


def _0010_workflows(db: sqlite_utils.Database) -> None:
    """Workflow definitions and the versions runs pin, runs, replay protection, steps and notifications.

    ``workflow_definitions`` holds each definition's current version (ids are global: the webhook
    route names no project); ``workflow_definition_versions`` every version some run pins or some
    definition holds, by hash. ``workflow_runs`` stores each run whole (``document``, checksummed
    with its columns) beside the columns its lookups need; one run per (definition, start delivery).
    ``workflow_payloads`` keeps each run's start payload (for a rerun) until the run is purged;
    ``workflow_deliveries`` keeps accepted starts and signals for the replay horizon, beyond the
    runs' retention; ``workflow_steps`` the first answer to each request a run applied;
    ``workflow_notifications`` the outbound queue. Partial indexes leave runs without a wait out of
    the wait index, runs not ended out of the retention index and delivered notifications out of
    the queue's. A save rewrites only a run's changing columns, so most run indexes cost only inserts.
    """
    db.execute(
        "CREATE TABLE workflow_definitions (id TEXT PRIMARY KEY, project TEXT NOT NULL, hash TEXT NOT NULL, "
        "document TEXT NOT NULL, register_time INTEGER NOT NULL, update_time INTEGER NOT NULL, "
        "registered_by TEXT NOT NULL) STRICT"
    )
    db.execute("CREATE INDEX workflow_definitions_project ON workflow_definitions (project, id)")
    db.execute("CREATE INDEX workflow_definitions_hash ON workflow_definitions (hash)")
    db.execute(
        "CREATE TABLE workflow_definition_versions (hash TEXT PRIMARY KEY, definition_id TEXT NOT NULL, "
        "document TEXT NOT NULL, create_time INTEGER NOT NULL) STRICT"
    )
    db.execute("CREATE INDEX workflow_definition_versions_definition ON workflow_definition_versions (definition_id)")
    db.execute(
        "CREATE TABLE workflow_runs (id TEXT PRIMARY KEY, definition_id TEXT NOT NULL, "
        "definition_hash TEXT NOT NULL, project TEXT NOT NULL, coordinator_id TEXT NOT NULL, "
        "status TEXT NOT NULL, current_stage TEXT, delivery_id TEXT NOT NULL, payload_sha256 TEXT NOT NULL, "
        "create_time INTEGER NOT NULL, update_time INTEGER NOT NULL, end_time INTEGER, "
        "wait_expire_time INTEGER, document TEXT NOT NULL, checksum TEXT NOT NULL) STRICT"
    )
    db.execute("CREATE UNIQUE INDEX workflow_runs_delivery ON workflow_runs (definition_id, delivery_id)")
    db.execute("CREATE INDEX workflow_runs_project ON workflow_runs (project, create_time, id)")
    db.execute("CREATE INDEX workflow_runs_coordinator ON workflow_runs (coordinator_id, create_time, id)")
    db.execute("CREATE INDEX workflow_runs_created ON workflow_runs (create_time, id)")
    db.execute("CREATE INDEX workflow_runs_definition ON workflow_runs (definition_id, create_time, id)")
    db.execute("CREATE INDEX workflow_runs_hash ON workflow_runs (definition_hash)")
    db.execute(
        "CREATE INDEX workflow_runs_wait ON workflow_runs (wait_expire_time, id) WHERE wait_expire_time IS NOT NULL"
    )
    db.execute("CREATE INDEX workflow_runs_ended ON workflow_runs (end_time, id) WHERE end_time IS NOT NULL")
    db.execute(
        "CREATE TABLE workflow_deliveries (definition_id TEXT NOT NULL, kind TEXT NOT NULL, "
        "delivery_id TEXT NOT NULL, payload_sha256 TEXT NOT NULL, run_id TEXT NOT NULL, "
        "signal_key TEXT NOT NULL, receive_time INTEGER NOT NULL, expire_time INTEGER NOT NULL, "
        "PRIMARY KEY (definition_id, kind, delivery_id)) STRICT, WITHOUT ROWID"
    )
    db.execute(
        "CREATE INDEX workflow_deliveries_payload ON workflow_deliveries "
        "(definition_id, kind, payload_sha256, receive_time)"
    )
    db.execute("CREATE INDEX workflow_deliveries_expiry ON workflow_deliveries (expire_time)")
    db.execute("CREATE TABLE workflow_payloads (run_id TEXT PRIMARY KEY, payload TEXT NOT NULL) STRICT")
    db.execute(
        "CREATE TABLE workflow_steps (run_id TEXT NOT NULL, request_id TEXT NOT NULL, kind TEXT NOT NULL, "
        "response TEXT NOT NULL, create_time INTEGER NOT NULL, PRIMARY KEY (run_id, request_id)) STRICT"
    )
    db.execute(
        "CREATE TABLE workflow_notifications (id TEXT PRIMARY KEY, definition_id TEXT NOT NULL, "
        "run_id TEXT NOT NULL, event TEXT NOT NULL, body TEXT NOT NULL, create_time INTEGER NOT NULL, "
        "next_time INTEGER NOT NULL, attempts INTEGER NOT NULL, deliver_time INTEGER, "
        "last_error TEXT NOT NULL) STRICT"
    )
    db.execute(
        "CREATE INDEX workflow_notifications_due ON workflow_notifications (next_time, id) WHERE deliver_time IS NULL"
    )
    db.execute("CREATE INDEX workflow_notifications_run ON workflow_notifications (run_id)")


def _0011_journal(db: sqlite_utils.Database) -> None:
    """The workflow runs' learning journals (``workflow_journal``, one row per record: entry or
    promotion) and the retrospectives written when runs end (``workflow_retrospectives``).

    Keyed by (run id, sequence), the run's journal in order; a record id is unique across runs and
    kinds. ``record`` is the record's JSON as the chain signs it, ``key_id`` and ``chain`` seal it;
    the other columns copy the run's project and the record's fields for the lookups. Partial
    indexes keep entries out of the promotions' index (``entry_id`` of an entry is its own id) and
    promotion records out of the reports' (a project's entries newest first, the record id last
    for keyset paging). A rowid table: a record may hold tens of kilobytes of evidence, too much
    for a WITHOUT ROWID b-tree.
    """
    db.execute(
        "CREATE TABLE workflow_journal (run_id TEXT NOT NULL, sequence INTEGER NOT NULL, project TEXT NOT NULL, "
        "record_id TEXT NOT NULL, kind TEXT NOT NULL, entry_id TEXT NOT NULL, category TEXT NOT NULL, "
        "area TEXT NOT NULL, create_time INTEGER NOT NULL, record TEXT NOT NULL, key_id TEXT NOT NULL, "
        "chain TEXT NOT NULL, PRIMARY KEY (run_id, sequence)) STRICT"
    )
    db.execute("CREATE UNIQUE INDEX workflow_journal_record ON workflow_journal (record_id)")
    db.execute(
        "CREATE INDEX workflow_journal_promotions ON workflow_journal (entry_id, sequence) WHERE kind = 'promotion'"
    )
    db.execute(
        "CREATE INDEX workflow_journal_recent ON workflow_journal (project, create_time, record_id) "
        "WHERE kind = 'entry'"
    )
    db.execute(
        "CREATE TABLE workflow_retrospectives (run_id TEXT PRIMARY KEY, project TEXT NOT NULL, "
        "document TEXT NOT NULL, write_time INTEGER NOT NULL) STRICT"
    )


def _0012_session_tokens(db: sqlite_utils.Database) -> None:
    """The session tokens operators minted (``session_tokens``): each one's facts, never the token.

    Keyed by session id. ``policy`` is the tool policy's JSON; ``revoke_time`` is NULL until it is
    revoked. A partial index finds the sessions in force of an agent name (authentication reads
    it on every cache miss of an agent), another pages a project's sessions newest first.
    """
    db.execute(
        "CREATE TABLE session_tokens (session_id TEXT PRIMARY KEY, project TEXT NOT NULL, agent_id TEXT NOT NULL, "
        "agent_name TEXT NOT NULL, policy TEXT NOT NULL, issue_time INTEGER NOT NULL, expire_time INTEGER NOT NULL, "
        "revoke_time INTEGER, minted_by TEXT NOT NULL, key_id TEXT NOT NULL) STRICT"
    )
    db.execute(
        "CREATE INDEX session_tokens_active ON session_tokens (project, agent_name, expire_time) "
        "WHERE revoke_time IS NULL"
    )
    db.execute("CREATE INDEX session_tokens_recent ON session_tokens (project, issue_time, session_id)")


def _0013_step_definitions(db: sqlite_utils.Database) -> None:
    """Step workflows beside stage workflows, and each project's gate registry.

    ``workflow_definitions.kind`` says which a definition is (``stages`` for every row before);
    a step workflow's versions are its compiled plans, by plan hash, in the same versions table.
    ``gate_registries`` holds one registry per project: its normalised document and hash.
    """
    db.execute("ALTER TABLE workflow_definitions ADD COLUMN kind TEXT NOT NULL DEFAULT 'stages'")
    db.execute("CREATE INDEX workflow_definitions_kind ON workflow_definitions (project, kind, id)")
    db.execute(
        "CREATE TABLE gate_registries (project TEXT PRIMARY KEY, hash TEXT NOT NULL, document TEXT NOT NULL, "
        "update_time INTEGER NOT NULL, registered_by TEXT NOT NULL) STRICT"
    )


def _0014_step_runs(db: sqlite_utils.Database) -> None:
    """Step runs (``step_runs``: each run's snapshot beside the columns its lookups need), their event
    logs (``step_run_events``, keyed by (run id, sequence): the log in order) and their assignments
    (``step_run_assignments``). Needs nothing after version 11.

    Runs are listed by project newest first, admitted by (project, status) oldest first (the same
    index counts the active ones) and found by their start's idempotency key, unique per project
    where one is given (a partial index: an empty key is none). Assignments are found by id, an
    agent's open ones oldest first, and a run's by state. Rowid tables: a snapshot or an event's
    payload may hold kilobytes, too much for a WITHOUT ROWID b-tree. Every row has a checksum
    (``kxm_grpc/store/checksum.py``).
    """
    db.execute(
        "CREATE TABLE step_runs (id TEXT PRIMARY KEY, project TEXT NOT NULL, definition_id TEXT NOT NULL, "
        "plan_hash TEXT NOT NULL, status TEXT NOT NULL, create_time INTEGER NOT NULL, "
        "update_time INTEGER NOT NULL, end_time INTEGER, sequence INTEGER NOT NULL, "
        "start_request_id TEXT NOT NULL, snapshot TEXT NOT NULL, checksum TEXT NOT NULL) STRICT"
    )
    db.execute("CREATE INDEX step_runs_project ON step_runs (project, create_time, id)")
    db.execute("CREATE INDEX step_runs_status ON step_runs (project, status, create_time, id)")
    db.execute(
        "CREATE UNIQUE INDEX step_runs_request ON step_runs (project, start_request_id) WHERE start_request_id <> ''"
    )
    db.execute("CREATE INDEX step_runs_created ON step_runs (create_time, id)")
    db.execute(
        "CREATE TABLE step_run_events (run_id TEXT NOT NULL, sequence INTEGER NOT NULL, type TEXT NOT NULL, "
        "payload TEXT NOT NULL, event_time INTEGER NOT NULL, checksum TEXT NOT NULL, "
        "PRIMARY KEY (run_id, sequence)) STRICT"
    )
    db.execute(
        "CREATE TABLE step_run_assignments (id TEXT PRIMARY KEY, run_id TEXT NOT NULL, project TEXT NOT NULL, "
        "step_id TEXT NOT NULL, step_attempt INTEGER NOT NULL, agent_id TEXT NOT NULL, state TEXT NOT NULL, "
        "create_time INTEGER NOT NULL, deadline INTEGER, message_id TEXT NOT NULL, end_time INTEGER, "
        "result TEXT NOT NULL, checksum TEXT NOT NULL) STRICT"
    )
    db.execute("CREATE INDEX step_run_assignments_agent ON step_run_assignments (agent_id, state, create_time, id)")
    db.execute("CREATE INDEX step_run_assignments_run ON step_run_assignments (run_id, state, create_time, id)")


def _0015_context_items(db: sqlite_utils.Database) -> None:
    """Context items (``context_items``, keyed by (project, id)) and their inverted index for BM25:
    the postings (``context_postings``: one row per term of an item, keyed by (project, term, kind,
    status, item id), found by item through a second index) and each (project, kind, status)
    partition's statistics (``context_index_stats``: item count and total length). Needs nothing
    after version 11.

    An item's typed columns are what queries filter, order and purge by; ``document`` is the rest
    as JSON. A status of ``''`` is none. Partial indexes find a run's items (purged with the run)
    and the superseded and rejected items by when they ended (retention). The index tables are
    WITHOUT ROWID b-trees of short rows; the items a rowid table (a summary may be 4,000 characters).
    """
    db.execute(
        "CREATE TABLE context_items (project TEXT NOT NULL, id TEXT NOT NULL, kind TEXT NOT NULL, "
        "status TEXT NOT NULL, authority TEXT NOT NULL, confidence TEXT NOT NULL, scope TEXT, state_key TEXT, "
        "observed_at INTEGER, valid_from INTEGER, valid_until INTEGER, superseded_by TEXT, run_id TEXT, "
        "write_time INTEGER NOT NULL, length INTEGER NOT NULL, document TEXT NOT NULL, "
        "PRIMARY KEY (project, id)) STRICT"
    )
    db.execute("CREATE INDEX context_items_run ON context_items (run_id) WHERE run_id IS NOT NULL")
    db.execute(
        "CREATE INDEX context_items_ended ON context_items (COALESCE(valid_until, write_time)) "
        "WHERE status IN ('superseded', 'rejected')"
    )
    db.execute(
        "CREATE TABLE context_postings (project TEXT NOT NULL, term TEXT NOT NULL, kind TEXT NOT NULL, "
        "status TEXT NOT NULL, item_id TEXT NOT NULL, frequency INTEGER NOT NULL, length INTEGER NOT NULL, "
        "PRIMARY KEY (project, term, kind, status, item_id)) STRICT, WITHOUT ROWID"
    )
    db.execute("CREATE INDEX context_postings_item ON context_postings (project, item_id)")
    db.execute(
        "CREATE TABLE context_index_stats (project TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL, "
        "documents INTEGER NOT NULL, total_length INTEGER NOT NULL, PRIMARY KEY (project, kind, status)) "
        "STRICT, WITHOUT ROWID"
    )


def _0016_context_state_keys(db: sqlite_utils.Database) -> None:
    """Temporal state's index: a state key's items (its history, its current and proposed items)
    by (project, state key, status), over state items only, so a state read or the contradiction
    check never scans a project's pool. Needs nothing after version 15."""
    db.execute(
        "CREATE INDEX context_items_state ON context_items (project, kind, state_key, status) WHERE kind = 'state'"
    )


RANKING_COLUMNS = (
    ("cost", "INTEGER NOT NULL DEFAULT 0"),
    ("confidence_key", "INTEGER NOT NULL DEFAULT 0"),
    ("authority_key", "INTEGER NOT NULL DEFAULT 0"),
    ("undated", "INTEGER NOT NULL DEFAULT 1"),
    ("recency", "INTEGER NOT NULL DEFAULT 0"),
    ("code_units", "BLOB NOT NULL DEFAULT x''"),
    ("folded_summary", "TEXT NOT NULL DEFAULT ''"),
    ("folded_key", "TEXT"),
)
"""``_0017_context_ranking``'s columns of ``context_items`` (PostgreSQL's spell BLOB as BYTEA)."""
RANK_INDEX = (
    "CREATE INDEX context_items_rank ON context_items "
    "(project, kind, confidence_key, authority_key, undated, recency, code_units, status, cost, id)"
)
CODE_UNITS_INDEX = "CREATE INDEX context_items_code_units ON context_items (project, code_units)"


def _0017_context_ranking(db: sqlite_utils.Database) -> None:
    """What the indexed packet and recall walk instead of the whole pool (issue 17 item 6,
    decisions 216–223): on ``context_items``, each item's cost (``tokens.item_characters``), its
    ordering keys as integers that ascend in rank order (minus the confidence and authority
    ranks; undated 0 or 1 and recency minus the moment, so newest first and undated last), its id
    as UTF-16-BE bytes (byte order is code-unit order), and its summary and state key lower-cased
    for recall's phrase test. ``context_items_rank`` is the unmatched items' order per (project,
    kind), covering what first fit reads; ``context_items_code_units`` recall's order by id.

    Version 15 came with the same issue and was never released: a database holding context items
    is refused rather than given an index that disagrees with them (the columns cannot be computed
    in SQL on PostgreSQL, and one rule for both backends).
    """
    if db.execute("SELECT 1 FROM context_items LIMIT 1").fetchone() is not None:
        raise RuntimeError("context_items holds items written before version 17; delete them and migrate again")
    for name, declaration in RANKING_COLUMNS:
        db.execute(f"ALTER TABLE context_items ADD COLUMN {name} {declaration}")
    db.execute(RANK_INDEX)
    db.execute(CODE_UNITS_INDEX)


def _0018_skills(db: sqlite_utils.Database) -> None:
    """Governed skills (spec §5.12, issue 17): ``skills``, one row per (project, skill id) with its
    text, hash, sources and compatibility (JSON) and its state, a content hash unique per project
    (identical content is one skill); ``skill_events``, each skill's history, append-only and
    never cut (decision 243). Needs nothing after version 11."""
    db.execute(
        "CREATE TABLE skills (project TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL, "
        "description TEXT NOT NULL, content TEXT NOT NULL, content_sha256 TEXT NOT NULL, version INTEGER NOT NULL, "
        "sources TEXT NOT NULL, compatibility TEXT NOT NULL, created_by TEXT NOT NULL, created_at INTEGER NOT NULL, "
        "supersedes TEXT, state TEXT NOT NULL, decided_by TEXT, decided_at INTEGER, PRIMARY KEY (project, id)) STRICT"
    )
    db.execute("CREATE UNIQUE INDEX skills_content ON skills (project, content_sha256)")
    db.execute("CREATE INDEX skills_state ON skills (project, state, id)")
    db.execute(
        "CREATE TABLE skill_events (project TEXT NOT NULL, skill_id TEXT NOT NULL, sequence INTEGER NOT NULL, "
        "type TEXT NOT NULL, actor TEXT NOT NULL, event_time INTEGER NOT NULL, document TEXT NOT NULL, "
        "PRIMARY KEY (project, skill_id, sequence)) STRICT, WITHOUT ROWID"
    )


COST_INDEX = "CREATE INDEX context_items_cost ON context_items (project, kind, status, cost)"
TEXT_INDEX = (
    "CREATE TABLE context_text (seq INTEGER PRIMARY KEY, project TEXT NOT NULL, id TEXT NOT NULL, "
    "UNIQUE (project, id)) STRICT",
    "CREATE VIRTUAL TABLE context_fts USING fts5(summary, key, content='', tokenize='trigram case_sensitive 1')",
    "CREATE TRIGGER context_items_text_insert AFTER INSERT ON context_items BEGIN "
    "INSERT INTO context_text (project, id) VALUES (new.project, new.id); "
    "INSERT INTO context_fts (rowid, summary, key) SELECT seq, new.folded_summary, new.folded_key FROM context_text "
    "WHERE project = new.project AND id = new.id; END",
    "CREATE TRIGGER context_items_text_delete AFTER DELETE ON context_items BEGIN "
    "INSERT INTO context_fts (context_fts, rowid, summary, key) SELECT 'delete', seq, old.folded_summary, "
    "old.folded_key FROM context_text WHERE project = old.project AND id = old.id; "
    "DELETE FROM context_text WHERE project = old.project AND id = old.id; END",
)
"""SQLite's substring index of the folded text (decision 259): an FTS5 trigram index, contentless,
keyed by ``context_text.seq`` (an INTEGER PRIMARY KEY, so VACUUM keeps it, unlike the rowid of
``context_items``), kept by triggers on every insert and delete of an item (a put replaces by
delete and insert; nothing updates the text in place)."""


def _0019_context_cost(db: sqlite_utils.Database) -> None:
    """The least cost of a partition's items in one index probe (``context_items_cost``): first fit
    stops once what is left of a budget is under it (decision 258). And, where this SQLite has FTS5
    and its trigram tokenizer (3.34 and later), the substring index recall's phrase hits are
    pre-filtered with (``TEXT_INDEX``, decision 259; without it recall scans the folded text, as
    PostgreSQL does). Needs version 17; the index is filled from the items already stored."""
    db.execute(COST_INDEX)
    try:
        db.execute("CREATE VIRTUAL TABLE temp.kxm_fts_probe USING fts5(x, tokenize='trigram')")
    except sqlite3.OperationalError:
        return  # no FTS5 or no trigram tokenizer in this build: phrase hits keep their scan
    db.execute("DROP TABLE temp.kxm_fts_probe")
    for statement in TEXT_INDEX:
        db.execute(statement)
    db.execute("INSERT INTO context_text (project, id) SELECT project, id FROM context_items ORDER BY project, id")
    db.execute(
        "INSERT INTO context_fts (rowid, summary, key) SELECT t.seq, i.folded_summary, i.folded_key "
        "FROM context_text t JOIN context_items i ON i.project = t.project AND i.id = t.id"
    )


OPEN_BY_PROJECT = (
    "CREATE INDEX messages_open_project ON messages (project, create_time, id) WHERE state IN ('queued', 'delivered')"
)
"""A project's open messages, newest first, and their count (the ops snapshot, decision 295)."""


def _0020_open_messages_by_project(db: sqlite_utils.Database) -> None:
    """A project's open messages in one index range (``messages_open_project``). Needs version 2."""
    db.execute(OPEN_BY_PROJECT)


SYNC_RUNS_BY_HOME = "CREATE INDEX sync_runs_home ON sync_runs (hub_project, home_runtime_id, project_id, run_id)"
"""A project's sync runs by home runtime, in one index range (the ops snapshot's runtimes, decision 296)."""


def _0021_sync_runs_by_home(db: sqlite_utils.Database) -> None:
    """A hub project's sync runs by home runtime (``sync_runs_home``). Needs version 3."""
    db.execute(SYNC_RUNS_BY_HOME)


JOINTS_COLUMN = (
    "ALTER TABLE context_items ADD COLUMN joints_indexed INTEGER NOT NULL DEFAULT 0",
    "CREATE INDEX context_items_unjointed ON context_items (project, id) WHERE joints_indexed = 0",
)
"""Whether an item's joints are among its postings: ``put`` of version 22 writes 1; an item a
replica of version 21 or older writes during a rolling upgrade gets 0, and recall's phrase test
reads those (``context_items_unjointed``, a handful at most) beside the items holding the joints."""


def _0022_context_joints(db: sqlite_utils.Database) -> None:
    """Every stored item's joints as postings (``joints``, decision 301): the seven characters
    around each space of its folded summary and state key, of frequency 0, beside its terms;
    ``put`` writes them from now on (and ``joints_indexed``, ``JOINTS_COLUMN``). Recall's phrase
    test of a query of several words reads the items holding the query's joints instead of the
    trigram index's matches. Needs version 17. A change to ``joints.text_joints`` needs a new
    version that writes the joints again: it defines what this one wrote."""
    for statement in JOINTS_COLUMN:
        db.execute(statement)
    rows = db.execute(
        "SELECT project, id, kind, status, length, folded_summary, folded_key FROM context_items ORDER BY project, id"
    )
    while batch := rows.fetchmany(1_000):
        db.conn.executemany(
            # OR IGNORE: a joint already there (an item put by this version's code at an older
            # schema, as tests do) is the same row.
            "INSERT OR IGNORE INTO context_postings (project, term, kind, status, item_id, frequency, length) "
            "VALUES (?, ?, ?, ?, ?, 0, ?)",
            [
                (project, joint, kind, status, item_id, length)
                for project, item_id, kind, status, length, summary, key in batch
                for joint in sorted(text_joints([summary, key]))
            ],
        )
    db.execute("UPDATE context_items SET joints_indexed = 1")


MIGRATIONS: list[Migration] = [
    _0001_foundation,
    _0002_messaging,
    _0003_leases_runtimes,
    _0004_agent_names,
    _0005_timers,
    _0006_sequenced_logs,
    _0007_operators_audit,
    _0008_replicas,
    _0009_message_checksums,
    _0010_workflows,
    _0011_journal,
    _0012_session_tokens,
    _0013_step_definitions,
    _0014_step_runs,
    _0015_context_items,
    _0016_context_state_keys,
    _0017_context_ranking,
    _0018_skills,
    _0019_context_cost,
    _0020_open_messages_by_project,
    _0021_sync_runs_by_home,
    _0022_context_joints,
]
