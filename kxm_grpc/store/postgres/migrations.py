"""Numbered schema migrations for PostgreSQL, applied at start under a lock (``kxm_schema`` holds the last).

The schema's versions are the hub's, shared with SQLite (``kxm_grpc/store/sqlite/migrations.py``):
version N has the same tables, columns and meaning on both, so ``kxm admin migrate`` can copy a
database of version N from one to the other, and a hub knows what it is looking at. PostgreSQL
arrived at version 7, so its first migration creates version 7's schema whole; every later
version is one migration in each dialect, appended at the end and never edited once shipped.

Dialect choices, the same in every migration: times and counters are ``BIGINT`` (microseconds
since the epoch, UTC, as on SQLite); every text column is ``COLLATE "C"`` (byte order, as SQLite
compares), so lists and their page tokens order exactly as on SQLite whatever the cluster's locale.
Each migration is a list of statements run in one transaction with the others still pending.
"""

from __future__ import annotations

from kxm_grpc.store.checksum import MESSAGE_FIELDS, REPLY_FIELDS, sql_checksum

T = 'TEXT COLLATE "C"'
"""Every text column: compared and ordered byte by byte, as SQLite does."""

_VERSION_7 = [
    f"CREATE TABLE meta (key {T} PRIMARY KEY, value {T})",
    f"CREATE TABLE projects (name {T} PRIMARY KEY, token_hash {T} NOT NULL, create_time BIGINT NOT NULL, "
    "token_rotate_time BIGINT NOT NULL)",
    "CREATE UNIQUE INDEX idx_projects_token_hash ON projects (token_hash)",
    f"CREATE TABLE agents (id {T} PRIMARY KEY, project {T} NOT NULL, name {T} NOT NULL, name_key {T} NOT NULL, "
    f"purpose {T} NOT NULL, model {T} NOT NULL, host {T} NOT NULL, key_hash {T}, key_active BIGINT NOT NULL, "
    "online BIGINT NOT NULL, connect_time BIGINT NOT NULL, last_seen_time BIGINT NOT NULL, retire_time BIGINT)",
    "CREATE INDEX idx_agents_online_last_seen_time ON agents (online, last_seen_time)",
    "CREATE UNIQUE INDEX agents_name ON agents (project, name_key) WHERE retire_time IS NULL",
    f"CREATE TABLE messages (id {T} PRIMARY KEY, project {T} NOT NULL, from_agent_id {T} NOT NULL, "
    f"from_agent_name {T} NOT NULL, to_agent_id {T} NOT NULL, to_agent_name {T} NOT NULL, content {T} NOT NULL, "
    f"delivery {T} NOT NULL, hops BIGINT NOT NULL, max_hops BIGINT NOT NULL, correlation_id {T} NOT NULL, "
    f"reply_to {T} NOT NULL, idempotency_key {T}, allow_offline BIGINT NOT NULL, seq BIGINT NOT NULL, "
    f"wf_run_id {T}, wf_stage_id {T}, wf_requirement_key {T}, wf_attempt BIGINT, create_time BIGINT NOT NULL, "
    f"expire_time BIGINT NOT NULL, deliver_time BIGINT, end_time BIGINT, state {T} NOT NULL, reply_content {T}, "
    f"reply_time BIGINT, error {T} NOT NULL)",
    "CREATE UNIQUE INDEX messages_idempotency ON messages (from_agent_id, idempotency_key) "
    "WHERE idempotency_key IS NOT NULL",
    "CREATE INDEX messages_open_inbox ON messages (to_agent_id, seq) WHERE state IN ('queued', 'delivered')",
    "CREATE INDEX messages_ended ON messages (end_time) WHERE end_time IS NOT NULL",
    f"CREATE TABLE inbox_entries (owner {T} NOT NULL, seq BIGINT NOT NULL, kind {T} NOT NULL, "
    f"event_time BIGINT NOT NULL, message_id {T}, subject_id {T}, subject_online BIGINT, subject_seen BIGINT, "
    "PRIMARY KEY (owner, seq))",
    "CREATE INDEX inbox_entries_message ON inbox_entries (message_id) WHERE message_id IS NOT NULL",
    "CREATE INDEX inbox_entries_presence ON inbox_entries (event_time) WHERE kind = 'presence'",
    f"CREATE TABLE leases (project {T} NOT NULL, name {T} NOT NULL, fencing_token BIGINT NOT NULL, "
    f"holder_agent_id {T}, holder_agent_name {T}, acquire_time BIGINT, expire_time BIGINT, "
    "PRIMARY KEY (project, name))",
    "CREATE INDEX idx_leases_expire_time ON leases (expire_time)",
    f"CREATE TABLE runtimes (project {T} NOT NULL, id {T} NOT NULL, host {T} NOT NULL, key_hash {T} NOT NULL, "
    "register_time BIGINT NOT NULL, heartbeat_time BIGINT, PRIMARY KEY (project, id))",
    "CREATE UNIQUE INDEX idx_runtimes_key_hash ON runtimes (key_hash)",
    f"CREATE TABLE sync_projects (project_id {T} PRIMARY KEY, hub_project {T} NOT NULL)",
    f"CREATE TABLE sync_runs (project_id {T} NOT NULL, run_id {T} NOT NULL, hub_project {T} NOT NULL, "
    f"home_runtime_id {T} NOT NULL, cursor BIGINT NOT NULL, last_sequence BIGINT NOT NULL, "
    "PRIMARY KEY (project_id, run_id))",
    f"CREATE TABLE sync_events (project_id {T} NOT NULL, run_id {T} NOT NULL, sequence BIGINT NOT NULL, "
    f"event_type {T} NOT NULL, content_hash {T} NOT NULL, receive_time BIGINT NOT NULL, bytes {T} NOT NULL, "
    "PRIMARY KEY (project_id, run_id, sequence))",
    f"CREATE TABLE timers (kind {T} NOT NULL, key {T} NOT NULL, due_time BIGINT NOT NULL, PRIMARY KEY (kind, key))",
    "CREATE INDEX timers_due ON timers (kind, due_time)",
    f"CREATE TABLE log_heads (log {T} NOT NULL, owner {T} NOT NULL, head_seq BIGINT NOT NULL, "
    "purged_seq BIGINT NOT NULL, PRIMARY KEY (log, owner))",
    f"CREATE TABLE operators (name {T} PRIMARY KEY, token_hash {T} NOT NULL, create_time BIGINT NOT NULL, "
    "revoke_time BIGINT)",
    "CREATE UNIQUE INDEX operators_token_hash ON operators (token_hash)",
    f"CREATE TABLE audit_records (seq BIGINT PRIMARY KEY, id {T} NOT NULL UNIQUE, create_time BIGINT NOT NULL, "
    f"operator {T} NOT NULL, action {T} NOT NULL, target {T} NOT NULL, metadata {T} NOT NULL)",
    "CREATE INDEX audit_records_operator ON audit_records (operator, seq)",
    "CREATE INDEX audit_records_action ON audit_records (action, seq)",
    "CREATE TABLE credentials_version (id BIGINT PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL)",
    "INSERT INTO credentials_version (id, version) VALUES (1, 0)",
]

_VERSION_8 = [
    f"CREATE TABLE replicas (id {T} PRIMARY KEY, host {T} NOT NULL, pid BIGINT NOT NULL, "
    "start_time BIGINT NOT NULL, expire_time BIGINT NOT NULL)",
    f"CREATE TABLE roles (name {T} PRIMARY KEY, holder {T} NOT NULL, expire_time BIGINT NOT NULL)",
    f"CREATE TABLE streams (id {T} PRIMARY KEY, agent_id {T} NOT NULL, replica_id {T} NOT NULL, "
    "open_time BIGINT NOT NULL)",
    "CREATE INDEX streams_agent ON streams (agent_id)",
    "CREATE INDEX streams_replica ON streams (replica_id)",
]
"""The replicas sharing the database, their roles and their open streams (SQLite's ``_0008_replicas``)."""

_VERSION_9 = [
    f"ALTER TABLE messages ADD COLUMN checksum {T} NOT NULL DEFAULT ''",
    f"ALTER TABLE messages ADD COLUMN reply_checksum {T} NOT NULL DEFAULT ''",
    f"UPDATE messages SET checksum = {sql_checksum(MESSAGE_FIELDS)}, reply_checksum = {sql_checksum(REPLY_FIELDS)}",
]
"""Each message row's checksums, computed in SQL for the rows stored before (SQLite's ``_0009_message_checksums``)."""

_VERSION_10 = [
    f"CREATE TABLE workflow_definitions (id {T} PRIMARY KEY, project {T} NOT NULL, hash {T} NOT NULL, "
    f"document {T} NOT NULL, register_time BIGINT NOT NULL, update_time BIGINT NOT NULL, "
    f"registered_by {T} NOT NULL)",
    "CREATE INDEX workflow_definitions_project ON workflow_definitions (project, id)",
    "CREATE INDEX workflow_definitions_hash ON workflow_definitions (hash)",
    f"CREATE TABLE workflow_definition_versions (hash {T} PRIMARY KEY, definition_id {T} NOT NULL, "
    f"document {T} NOT NULL, create_time BIGINT NOT NULL)",
    "CREATE INDEX workflow_definition_versions_definition ON workflow_definition_versions (definition_id)",
    f"CREATE TABLE workflow_runs (id {T} PRIMARY KEY, definition_id {T} NOT NULL, definition_hash {T} NOT NULL, "
    f"project {T} NOT NULL, coordinator_id {T} NOT NULL, status {T} NOT NULL, current_stage {T}, "
    f"delivery_id {T} NOT NULL, payload_sha256 {T} NOT NULL, create_time BIGINT NOT NULL, "
    f"update_time BIGINT NOT NULL, end_time BIGINT, wait_expire_time BIGINT, document {T} NOT NULL, "
    f"checksum {T} NOT NULL)",
    "CREATE UNIQUE INDEX workflow_runs_delivery ON workflow_runs (definition_id, delivery_id)",
    "CREATE INDEX workflow_runs_project ON workflow_runs (project, create_time, id)",
    "CREATE INDEX workflow_runs_coordinator ON workflow_runs (coordinator_id, create_time, id)",
    "CREATE INDEX workflow_runs_created ON workflow_runs (create_time, id)",
    "CREATE INDEX workflow_runs_definition ON workflow_runs (definition_id, create_time, id)",
    "CREATE INDEX workflow_runs_hash ON workflow_runs (definition_hash)",
    "CREATE INDEX workflow_runs_wait ON workflow_runs (wait_expire_time, id) WHERE wait_expire_time IS NOT NULL",
    "CREATE INDEX workflow_runs_ended ON workflow_runs (end_time, id) WHERE end_time IS NOT NULL",
    f"CREATE TABLE workflow_deliveries (definition_id {T} NOT NULL, kind {T} NOT NULL, delivery_id {T} NOT NULL, "
    f"payload_sha256 {T} NOT NULL, run_id {T} NOT NULL, signal_key {T} NOT NULL, receive_time BIGINT NOT NULL, "
    "expire_time BIGINT NOT NULL, PRIMARY KEY (definition_id, kind, delivery_id))",
    "CREATE INDEX workflow_deliveries_payload ON workflow_deliveries "
    "(definition_id, kind, payload_sha256, receive_time)",
    "CREATE INDEX workflow_deliveries_expiry ON workflow_deliveries (expire_time)",
    f"CREATE TABLE workflow_payloads (run_id {T} PRIMARY KEY, payload {T} NOT NULL)",
    f"CREATE TABLE workflow_steps (run_id {T} NOT NULL, request_id {T} NOT NULL, kind {T} NOT NULL, "
    f"response {T} NOT NULL, create_time BIGINT NOT NULL, PRIMARY KEY (run_id, request_id))",
    f"CREATE TABLE workflow_notifications (id {T} PRIMARY KEY, definition_id {T} NOT NULL, run_id {T} NOT NULL, "
    f"event {T} NOT NULL, body {T} NOT NULL, create_time BIGINT NOT NULL, next_time BIGINT NOT NULL, "
    f"attempts BIGINT NOT NULL, deliver_time BIGINT, last_error {T} NOT NULL)",
    "CREATE INDEX workflow_notifications_due ON workflow_notifications (next_time, id) WHERE deliver_time IS NULL",
    "CREATE INDEX workflow_notifications_run ON workflow_notifications (run_id)",
]
"""Workflow definitions and versions, runs, deliveries, steps and notifications (SQLite's ``_0010_workflows``)."""

_VERSION_11 = [
    f"CREATE TABLE workflow_journal (run_id {T} NOT NULL, sequence BIGINT NOT NULL, project {T} NOT NULL, "
    f"record_id {T} NOT NULL, kind {T} NOT NULL, entry_id {T} NOT NULL, category {T} NOT NULL, area {T} NOT NULL, "
    f"create_time BIGINT NOT NULL, record {T} NOT NULL, key_id {T} NOT NULL, chain {T} NOT NULL, "
    "PRIMARY KEY (run_id, sequence))",
    "CREATE UNIQUE INDEX workflow_journal_record ON workflow_journal (record_id)",
    "CREATE INDEX workflow_journal_promotions ON workflow_journal (entry_id, sequence) WHERE kind = 'promotion'",
    "CREATE INDEX workflow_journal_recent ON workflow_journal (project, create_time, record_id) WHERE kind = 'entry'",
    f"CREATE TABLE workflow_retrospectives (run_id {T} PRIMARY KEY, project {T} NOT NULL, document {T} NOT NULL, "
    "write_time BIGINT NOT NULL)",
]
"""The workflow runs' learning journals and retrospectives (SQLite's ``_0011_journal``)."""

_VERSION_12 = [
    f"CREATE TABLE session_tokens (session_id {T} PRIMARY KEY, project {T} NOT NULL, agent_id {T} NOT NULL, "
    f"agent_name {T} NOT NULL, policy {T} NOT NULL, issue_time BIGINT NOT NULL, expire_time BIGINT NOT NULL, "
    f"revoke_time BIGINT, minted_by {T} NOT NULL, key_id {T} NOT NULL)",
    "CREATE INDEX session_tokens_active ON session_tokens (project, agent_name, expire_time) WHERE revoke_time IS NULL",
    "CREATE INDEX session_tokens_recent ON session_tokens (project, issue_time, session_id)",
]
"""The session tokens operators minted (SQLite's ``_0012_session_tokens``)."""

_VERSION_13 = [
    f"ALTER TABLE workflow_definitions ADD COLUMN kind {T} NOT NULL DEFAULT 'stages'",
    "CREATE INDEX workflow_definitions_kind ON workflow_definitions (project, kind, id)",
    f"CREATE TABLE gate_registries (project {T} PRIMARY KEY, hash {T} NOT NULL, document {T} NOT NULL, "
    f"update_time BIGINT NOT NULL, registered_by {T} NOT NULL)",
]
"""Step workflows' kind and the projects' gate registries (SQLite's ``_0013_step_definitions``)."""
_VERSION_14 = [
    f"CREATE TABLE step_runs (id {T} PRIMARY KEY, project {T} NOT NULL, definition_id {T} NOT NULL, "
    f"plan_hash {T} NOT NULL, status {T} NOT NULL, create_time BIGINT NOT NULL, update_time BIGINT NOT NULL, "
    f"end_time BIGINT, sequence BIGINT NOT NULL, start_request_id {T} NOT NULL, snapshot {T} NOT NULL, "
    f"checksum {T} NOT NULL)",
    "CREATE INDEX step_runs_project ON step_runs (project, create_time, id)",
    "CREATE INDEX step_runs_status ON step_runs (project, status, create_time, id)",
    "CREATE UNIQUE INDEX step_runs_request ON step_runs (project, start_request_id) WHERE start_request_id <> ''",
    "CREATE INDEX step_runs_created ON step_runs (create_time, id)",
    f"CREATE TABLE step_run_events (run_id {T} NOT NULL, sequence BIGINT NOT NULL, type {T} NOT NULL, "
    f"payload {T} NOT NULL, event_time BIGINT NOT NULL, checksum {T} NOT NULL, PRIMARY KEY (run_id, sequence))",
    f"CREATE TABLE step_run_assignments (id {T} PRIMARY KEY, run_id {T} NOT NULL, project {T} NOT NULL, "
    f"step_id {T} NOT NULL, step_attempt BIGINT NOT NULL, agent_id {T} NOT NULL, state {T} NOT NULL, "
    f"create_time BIGINT NOT NULL, deadline BIGINT, message_id {T} NOT NULL, end_time BIGINT, "
    f"result {T} NOT NULL, checksum {T} NOT NULL)",
    "CREATE INDEX step_run_assignments_agent ON step_run_assignments (agent_id, state, create_time, id)",
    "CREATE INDEX step_run_assignments_run ON step_run_assignments (run_id, state, create_time, id)",
]
"""Step runs, their event logs and their assignments (SQLite's ``_0014_step_runs``); needs nothing after version 11."""

_VERSION_15 = [
    f"CREATE TABLE context_items (project {T} NOT NULL, id {T} NOT NULL, kind {T} NOT NULL, status {T} NOT NULL, "
    f"authority {T} NOT NULL, confidence {T} NOT NULL, scope {T}, state_key {T}, observed_at BIGINT, "
    f"valid_from BIGINT, valid_until BIGINT, superseded_by {T}, run_id {T}, write_time BIGINT NOT NULL, "
    f"length BIGINT NOT NULL, document {T} NOT NULL, PRIMARY KEY (project, id))",
    "CREATE INDEX context_items_run ON context_items (run_id) WHERE run_id IS NOT NULL",
    "CREATE INDEX context_items_ended ON context_items (COALESCE(valid_until, write_time)) "
    "WHERE status IN ('superseded', 'rejected')",
    f"CREATE TABLE context_postings (project {T} NOT NULL, term {T} NOT NULL, kind {T} NOT NULL, "
    f"status {T} NOT NULL, item_id {T} NOT NULL, frequency BIGINT NOT NULL, length BIGINT NOT NULL, "
    "PRIMARY KEY (project, term, kind, status, item_id))",
    "CREATE INDEX context_postings_item ON context_postings (project, item_id)",
    f"CREATE TABLE context_index_stats (project {T} NOT NULL, kind {T} NOT NULL, status {T} NOT NULL, "
    "documents BIGINT NOT NULL, total_length BIGINT NOT NULL, PRIMARY KEY (project, kind, status))",
]
"""Context items, their postings and partition statistics (SQLite's ``_0015_context_items``); needs
nothing after version 11."""

_VERSION_16 = [
    "CREATE INDEX context_items_state ON context_items (project, kind, state_key, status) WHERE kind = 'state'",
]
"""A state key's items by (project, state key, status), state items only (SQLite's
``_0016_context_state_keys``); needs nothing after version 15."""
_VERSION_17 = [
    "DO $$ BEGIN IF EXISTS (SELECT 1 FROM context_items) THEN RAISE EXCEPTION "
    "'context_items holds items written before version 17; delete them and migrate again'; END IF; END $$",
    "ALTER TABLE context_items ADD COLUMN cost BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE context_items ADD COLUMN confidence_key BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE context_items ADD COLUMN authority_key BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE context_items ADD COLUMN undated BIGINT NOT NULL DEFAULT 1",
    "ALTER TABLE context_items ADD COLUMN recency BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE context_items ADD COLUMN code_units BYTEA NOT NULL DEFAULT ''",
    f"ALTER TABLE context_items ADD COLUMN folded_summary {T} NOT NULL DEFAULT ''",
    f"ALTER TABLE context_items ADD COLUMN folded_key {T}",
    "CREATE INDEX context_items_rank ON context_items "
    "(project, kind, confidence_key, authority_key, undated, recency, code_units, status, cost, id)",
    "CREATE INDEX context_items_code_units ON context_items (project, code_units)",
]
"""The ranking columns and indexes (SQLite's ``_0017_context_ranking``); needs version 15."""

_VERSION_18 = [
    f"CREATE TABLE skills (project {T} NOT NULL, id {T} NOT NULL, name {T} NOT NULL, description {T} NOT NULL, "
    f"content {T} NOT NULL, content_sha256 {T} NOT NULL, version BIGINT NOT NULL, sources {T} NOT NULL, "
    f"compatibility {T} NOT NULL, created_by {T} NOT NULL, created_at BIGINT NOT NULL, supersedes {T}, "
    f"state {T} NOT NULL, decided_by {T}, decided_at BIGINT, PRIMARY KEY (project, id))",
    "CREATE UNIQUE INDEX skills_content ON skills (project, content_sha256)",
    "CREATE INDEX skills_state ON skills (project, state, id)",
    f"CREATE TABLE skill_events (project {T} NOT NULL, skill_id {T} NOT NULL, sequence BIGINT NOT NULL, "
    f"type {T} NOT NULL, actor {T} NOT NULL, event_time BIGINT NOT NULL, document {T} NOT NULL, "
    "PRIMARY KEY (project, skill_id, sequence))",
]
"""Governed skills and their append-only histories (SQLite's ``_0018_skills``); needs nothing after version 11."""

_VERSION_19 = [
    "CREATE INDEX context_items_cost ON context_items (project, kind, status, cost)",
]
"""A partition's least cost in one probe (SQLite's ``_0019_context_cost``); needs version 17."""

_VERSION_20 = [
    "CREATE INDEX messages_open_project ON messages (project, create_time, id) WHERE state IN ('queued', 'delivered')",
]
"""A project's open messages in one index range (SQLite's ``_0020_open_messages_by_project``); needs version 7."""

_VERSION_21 = [
    "CREATE INDEX sync_runs_home ON sync_runs (hub_project, home_runtime_id, project_id, run_id)",
]
"""A hub project's sync runs by home runtime (SQLite's ``_0021_sync_runs_by_home``); needs version 7."""
_VERSION_22 = [
    # First, so its lock keeps a replica of version 21 from putting an item while the joints are
    # written: every item there now is 1 (a default, no row rewritten), and what such a replica
    # puts from the commit on is 0.
    "ALTER TABLE context_items ADD COLUMN joints_indexed INTEGER NOT NULL DEFAULT 1",
    "ALTER TABLE context_items ALTER COLUMN joints_indexed SET DEFAULT 0",
    "CREATE INDEX context_items_unjointed ON context_items (project, id) WHERE joints_indexed = 0",
    # joints.text_joints in SQL, by code points: a window of 7 (JOINT_SIDE 3 on each side of the
    # space) starting at g, the space at g + 3, g from 1 to the length less 6.
    "INSERT INTO context_postings (project, term, kind, status, item_id, frequency, length) "
    "SELECT DISTINCT i.project, substr(t.text, g, 7), i.kind, i.status, i.id, 0, i.length FROM context_items i "
    "CROSS JOIN LATERAL (VALUES (i.folded_summary), (i.folded_key)) AS t (text) "
    "CROSS JOIN LATERAL generate_series(1, char_length(t.text) - 6) AS g "
    "WHERE t.text IS NOT NULL AND substr(t.text, g + 3, 1) = ' ' ON CONFLICT DO NOTHING",
]
"""Every stored item's joints as postings of frequency 0 (SQLite's ``_0022_context_joints``,
decision 301): the seven characters (code points: the database is UTF8) around each space with
three on both sides of its folded summary and state key, as ``joints.text_joints`` has them, and
``joints_indexed`` (SQLite's ``JOINTS_COLUMN``). Needs version 17."""

FIRST_VERSION = 7
"""The schema version a new PostgreSQL database starts at (its first migration creates it whole)."""

MIGRATIONS: dict[int, list[str]] = {
    7: _VERSION_7,
    8: _VERSION_8,
    9: _VERSION_9,
    10: _VERSION_10,
    11: _VERSION_11,
    12: _VERSION_12,
    13: _VERSION_13,
    14: _VERSION_14,
    15: _VERSION_15,
    16: _VERSION_16,
    17: _VERSION_17,
    18: _VERSION_18,
    19: _VERSION_19,
    20: _VERSION_20,
    21: _VERSION_21,
    22: _VERSION_22,
}
"""Each version's statements, by version; versions before ``FIRST_VERSION`` never existed here."""
