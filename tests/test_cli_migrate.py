"""``kxm admin migrate``: a real hub's state moved between SQLite and PostgreSQL, proved, and usable after.

The state is built by a real hub on a SQLite file (projects, a named operator and the audit of
its actions, agents, a replied and a queued message, leases released and held, a runtime and its
sync events; a row in each workflow table, written through the store), then the hub stops and the
command runs as a user would (a subprocess). The copy is checked table by table with
``kxm_grpc.store.tables``; the PostgreSQL side is then served by a hub again, through the API.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlite_utils

from kxm_grpc._gen.kxm.v1 import types_pb2
from kxm_grpc.client import HubClient
from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.domain.workflows.journal_chain import seal_all
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from kxm_grpc.store import Durability
from kxm_grpc.store import transfer as transfer_module
from kxm_grpc.store.protocols.gates import StoredGateRegistry
from kxm_grpc.store.protocols.step_runs import (
    AssignmentState,
    StepRunState,
    StoredAssignment,
    StoredRunEvent,
    StoredStepRun,
)
from kxm_grpc.store.protocols.workflows import (
    DeliveryKind,
    StoredDefinition,
    StoredDelivery,
    StoredNotification,
    StoredStep,
)
from kxm_grpc.store.sqlite.migrations import MIGRATIONS
from kxm_grpc.store.tables import TABLES, Table, counts, digest, raw_connection
from kxm_grpc.store.transfer import FRESH_ROWS, TransferFailed, transfer
from kxm_grpc.store.url import open_store
from tests.api.test_runtimes import sync_event
from tests.conftest import ADMIN_TOKEN
from tests.store.contract.conftest import full_entry, full_promotion, full_run
from tests.store.contract.test_context_items import full_context_item
from tests.store.contract.test_session_tokens import record as session_record
from tests.store.contract.test_skills import events as skill_events
from tests.store.contract.test_skills import skill as full_skill
from tests.test_cli import kxm

RUN = ("prj_alpha000001", "run_000000000001")
VERSION = len(MIGRATIONS)
"""This hub's schema version (both sides are brought to it)."""


def settings(data_dir: Path, database: str = "") -> Settings:
    """A test hub's settings (as tests/conftest.py's) on ``database`` (default: DATA_DIR/hub.db)."""
    return Settings(
        port=0,
        data_dir=data_dir,
        database=database,
        admin_token=ADMIN_TOKEN,
        durability=Durability.NORMAL,
        rate_limit=100_000,
        stale_after=30.0,
        shutdown_grace=0.5,
    )


@contextlib.asynccontextmanager
async def running_hub(data_dir: Path, database: str = "") -> AsyncIterator[HubServer]:
    """A hub serving ``database`` for the block; stopped (its lock released) after it."""
    server = HubServer(settings(data_dir, database))
    await server.start()
    try:
        yield server
    finally:
        await server.stop(0.2)


@dataclass
class State:
    """A stopped hub's SQLite database and the credentials that reach its state."""

    database: str
    alpha_token: str
    operator_token: str
    runtime_key: str
    bob_id: str
    bob_key: str
    replied_id: str
    queued_id: str


async def build_state(tmp_path: Path) -> State:
    """Run a hub on ``tmp_path/source/hub.db``, give every table of ``TABLES`` rows, and stop it."""
    database = f"sqlite:///{tmp_path / 'source' / 'hub.db'}"  # four slashes: an absolute path
    async with running_hub(tmp_path / "source", database) as server:
        address = server.address
        clients: list[HubClient] = []

        def client(token: str) -> HubClient:
            clients.append(HubClient(address, token=token))
            return clients[-1]

        try:
            admin = client(ADMIN_TOKEN)
            alpha_token = (await admin.admin.create_project("alpha")).project_token
            operator_token = (await admin.admin.create_operator("ops")).operator_token
            await client(operator_token).admin.create_project("beta")  # audited as "ops"

            alice, bob, carol = client(alpha_token), client(alpha_token), client(alpha_token)
            await alice.agents.register("alice")
            bob_registered = await bob.agents.register("bob")
            await carol.agents.register("carol")
            replied = (await alice.messages.send("bob", "please review")).message
            await bob.messages.reply(replied.id, "looks good")
            queued = (await alice.messages.send("bob", "deploy when ready")).message

            for _ in range(2):  # fencing tokens 1 and 2 issued for "deploy"
                granted = await alice.leases.acquire("deploy", ttl=60)
                await alice.leases.release("deploy", granted.lease.fencing_token)
            await bob.leases.acquire("build", ttl=600)

            runtime = client(alpha_token)
            registered = await runtime.runtimes.register("rtm_laptop000001", host="laptop", adopt=True)
            await runtime.runtimes.heartbeat(host="laptop")
            await runtime.runtimes.push_sync_events([sync_event(n) for n in (1, 2, 3)])
        finally:
            for each in clients:
                await each.close()
    await add_workflow_rows(database)
    state = State(
        database=database,
        alpha_token=alpha_token,
        operator_token=operator_token,
        runtime_key=registered.runtime_key,
        bob_id=bob_registered.agent.id,
        bob_key=bob_registered.agent_key,
        replied_id=replied.id,
        queued_id=queued.id,
    )
    empty = [table for table, count in snapshot(database)[0].items() if count == 0]
    assert empty == [], f"the state leaves tables empty: {empty}"
    return state


async def add_workflow_rows(database: str) -> None:
    """Give every workflow, step-run, gate-registry, session-token, context and skill table a row, through the store."""
    store = open_store(database, durability=Durability.NORMAL)
    await store.start()
    try:
        run = dataclasses.replace(full_run(), project="alpha")
        journal = seal_all([full_entry(), full_promotion()], None, Keyring({"k1": b"1" * 32}, current="k1"))
        await store.write(
            lambda tx: [
                tx.workflows.put_definition(
                    StoredDefinition(
                        run.definition_id,
                        "alpha",
                        run.definition_hash,
                        '{"id":"wf_a","secret":"literal-secret-0123456789"}',
                        '{"id":"wf_a","secret":"***"}',
                        1,
                        1,
                        "ops",
                    )
                ),
                tx.workflows.insert_run(run, payload='{"issue": 1}'),
                tx.workflows.put_delivery(
                    StoredDelivery(run.definition_id, DeliveryKind.START, run.delivery_id, "f" * 64, run.id, "", 5, 9)
                ),
                tx.workflows.put_step(StoredStep(run.id, "req_1", "checkpoint", '{"ok":true}', 5)),
                tx.workflows.enqueue_notification(
                    StoredNotification("ntf_1", run.definition_id, run.id, "waiting", "{}", 5, 10)
                ),
                *(tx.journal.append(link, project=run.project) for link in journal),
                tx.journal.put_retrospective(run.id, project=run.project, document='{"schema":"r"}', now=9),
                tx.session_tokens.insert(session_record()),
                tx.gate_registries.put(StoredGateRegistry("alpha", "sha256:" + "1" * 64, '{"gates":{}}', 9, "ops")),
                tx.step_runs.insert_run(
                    StoredStepRun(
                        "run_step1",
                        "alpha",
                        "def_a",
                        "sha256:" + "a" * 64,
                        StepRunState.RUNNING,
                        1,
                        2,
                        None,
                        1,
                        '{"v":1,"note":"é"}',
                        start_request_id="req_1",
                    )
                ),
                tx.step_runs.append_events([StoredRunEvent("run_step1", 1, "run.created", '{"at":1}', 1)]),
                tx.step_runs.put_assignment(
                    StoredAssignment(
                        "asg_1", "run_step1", "alpha", "review", 1, "agt_x", AssignmentState.OPEN, 2, 9, "msg_x"
                    )
                ),
                tx.context_items.put([full_context_item(project="alpha")]),
                tx.skills.insert(full_skill()),
                [tx.skills.append_event("alpha", full_skill().id, event) for event in skill_events()],
            ]
        )
    finally:
        await store.close()


def snapshot(url: str) -> tuple[dict[str, int], str]:
    """Row counts per table and the digest of the database at ``url``."""
    with raw_connection(url) as conn:
        return counts(conn), digest(conn)


def holds_nothing(url: str) -> bool:
    """Whether every table of ``TABLES`` is empty but for what a fresh schema seeds."""
    with raw_connection(url) as conn:
        return all(
            [tuple(row) for row in conn.execute(f"SELECT * FROM {table.name}").fetchall()]
            == FRESH_ROWS.get(table.name, [])
            for table in TABLES
        )


async def migrate(source: str, target: str, cwd: Path, *extra: str) -> tuple[int, str, str]:
    """Run ``kxm admin migrate --from SOURCE --to TARGET`` as a subprocess."""
    return await kxm("admin", "migrate", "--from", source, "--to", target, *extra, cwd=cwd)


async def first_message(client: HubClient, message_id: str) -> types_pb2.Message:
    """The message ``message_id`` as the agent's inbox stream delivers it."""
    async with asyncio.timeout(15):
        async for event in client.messages.subscribe(reconnect=False):
            if event.HasField("message") and event.message.id == message_id:
                return event.message
    raise AssertionError("the stream ended without the message")


# -- SQLite to PostgreSQL and back ------------------------------------------------------------------


async def test_sqlite_to_postgresql_copies_everything_and_a_hub_carries_on(
    tmp_path: Path, postgres_database: str
) -> None:
    """Counts and digest equal on both sides; a second run into the now full target is refused and
    writes nothing; a hub on PostgreSQL then serves the state: the project and operator tokens
    authenticate, the queued message is delivered to its agent (same id and key), a held lease is
    still held, and the next grant of a released lease gets fencing token 3."""
    state = await build_state(tmp_path)
    source_counts, source_digest = snapshot(state.database)

    code, out, err = await migrate(state.database, postgres_database, tmp_path, "--json")
    report = json.loads(out)
    again = await migrate(state.database, postgres_database, tmp_path)

    assert (code, err) == (0, "")
    assert report["ok"] is True and report["schemaVersion"] == report["sourceSchemaBefore"] == VERSION
    assert report["tables"] == source_counts and report["rows"] == sum(source_counts.values())
    assert list(report["tables"]) == [table.name for table in TABLES]
    assert report["digest"] == source_digest
    assert snapshot(postgres_database) == (source_counts, source_digest)
    assert snapshot(state.database) == (source_counts, source_digest)  # the source is untouched
    assert again[0] == 2 and "already holds rows (in meta, credentials_version, projects" in again[2]
    assert snapshot(postgres_database) == (source_counts, source_digest)

    async with running_hub(tmp_path / "pg", postgres_database) as server:
        alpha = HubClient(server.address, token=state.alpha_token)
        operator = HubClient(server.address, token=state.operator_token)
        runtime = HubClient(server.address, token=state.runtime_key)
        bob = HubClient(server.address, token=state.alpha_token, agent_id=state.bob_id, agent_key=state.bob_key)
        dave = HubClient(server.address, token=state.alpha_token)
        try:
            agents = sorted(agent.name for agent in (await alpha.agents.list(include_offline=True)).agents)
            projects = sorted(project.name for project in (await operator.admin.list_projects()).projects)
            delivered = await first_message(bob, state.queued_id)
            await bob.messages.ack([state.queued_id])
            acked = (await bob.messages.get(state.queued_id)).message
            replied = (await bob.messages.get(state.replied_id)).message
            held = (await bob.leases.get("build")).lease
            await dave.agents.register("dave")
            granted = (await dave.leases.acquire("deploy", ttl=60)).lease
            beat = (await runtime.runtimes.heartbeat(host="laptop")).runtime
            events = await alpha.runtimes.list_run_events(*RUN)
        finally:
            for client in (alpha, operator, runtime, bob, dave):
                await client.close()

    assert agents == ["alice", "bob", "carol"]
    assert projects == ["alpha", "beta"]
    assert (delivered.content, delivered.state) == ("deploy when ready", types_pb2.MESSAGE_STATE_QUEUED)
    assert acked.state == types_pb2.MESSAGE_STATE_DELIVERED
    assert (replied.state, replied.reply.content) == (types_pb2.MESSAGE_STATE_REPLIED, "looks good")
    assert (held.holder_agent_name, held.fencing_token) == ("bob", 1)
    assert granted.fencing_token == 3  # after 1 and 2 on the SQLite hub: never issued twice
    assert beat.id == "rtm_laptop000001"
    assert [stored.event.sequence for stored in events.events] == [1, 2, 3]


async def test_postgresql_to_sqlite_round_trip_gives_the_same_digest(tmp_path: Path, postgres_database: str) -> None:
    """SQLite -> PostgreSQL -> a new SQLite file: the same digest as the original; the report names
    every table, and a password in the URL is never printed."""
    state = await build_state(tmp_path)
    original = snapshot(state.database)
    with_password = postgres_database.replace("postgresql://kxm@", "postgresql://kxm:hunter2-secret@", 1)
    assert with_password != postgres_database  # the server trusts 127.0.0.1: the password is ignored
    back = f"sqlite:///{tmp_path / 'back' / 'hub.db'}"

    there = await migrate(state.database, with_password, tmp_path)
    home = await migrate(with_password, back, tmp_path, "--json")

    assert there[0] == 0 and home[0] == 0, (there, home)
    assert snapshot(back) == original
    assert json.loads(home[1])["digest"] == original[1]
    assert f"digest {original[1]}" in there[1]
    assert all(f"  {table.name} " in there[1] for table in TABLES)
    assert "hunter2" not in there[1] + there[2] + home[1] + home[2]
    assert f"-> {postgres_database} " in there[1]  # shown without the password


async def test_sqlite_to_sqlite_copies_into_a_new_file(tmp_path: Path) -> None:
    """A relative target (``sqlite:///`` three slashes, from the working directory) is created and
    filled; its digest is the source's."""
    state = await build_state(tmp_path)

    code, out, err = await migrate(state.database, "sqlite:///copy/hub.db", tmp_path)

    assert (code, err) == (0, "")
    assert snapshot(str(tmp_path / "copy" / "hub.db")) == snapshot(state.database)
    assert out.splitlines()[0] == f"migrated {state.database} -> sqlite:///copy/hub.db (schema version {VERSION})"


async def test_an_older_source_is_brought_to_this_version_first(tmp_path: Path) -> None:
    """A source one schema version behind is migrated in place (as a hub's start would), then copied."""
    old = tmp_path / "old.db"
    with raw_connection(str(old)) as conn:
        db = sqlite_utils.Database(conn)
        for version, migration in enumerate(MIGRATIONS[:-1], start=1):
            migration(db)
            conn.execute(f"PRAGMA user_version = {version}")

    code, out, err = await migrate(str(old), str(tmp_path / "new.db"), tmp_path, "--json")

    assert (code, err) == (0, "")
    assert (json.loads(out)["sourceSchemaBefore"], json.loads(out)["schemaVersion"]) == (VERSION - 1, VERSION)
    with raw_connection(str(old)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == VERSION


# -- refusals ---------------------------------------------------------------------------------------


async def test_refuses_a_target_that_holds_rows_and_writes_nothing(tmp_path: Path) -> None:
    """A target some hub has state in is refused (exit 2) before anything is written to it."""
    state = await build_state(tmp_path)
    target = str(tmp_path / "other" / "hub.db")
    async with running_hub(tmp_path / "other") as server:
        admin = HubClient(server.address, token=ADMIN_TOKEN)
        await admin.admin.create_project("gamma")
        await admin.close()
    before = snapshot(target)

    code, out, err = await migrate(state.database, target, tmp_path)

    assert (code, out) == (2, "")
    assert err.startswith(f"kxm admin migrate: refused: target sqlite:///{target}: it already holds rows (in ")
    assert "nothing was written" in err
    assert snapshot(target) == before


async def test_refuses_a_sqlite_source_a_running_hub_holds(tmp_path: Path) -> None:
    """The source's lock is held by a live hub: refused with the hub's pid, and the target is not created."""
    state = await build_state(tmp_path)
    target = tmp_path / "copy" / "hub.db"
    async with running_hub(tmp_path / "source", state.database):
        code, out, err = await migrate(state.database, str(target), tmp_path, "--json")

    error = json.loads(err)
    assert (code, out) == (2, "")
    assert (error["ok"], error["error"]) == (False, "refused")
    assert "is in use by another hub (pid " in error["message"]
    assert not target.exists()


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("sqlite:///data/hub.db", "sqlite:///data/hub.db"),
        ("sqlite:///data/hub.db", "data/hub.db"),
        ("sqlite:///data/hub.db", "./data/../data/hub.db"),
        ("sqlite:///data/hub.db", "sqlite:///link/hub.db"),  # link -> data
        ("sqlite:///data/hub.db", "{tmp}/data/hub.db"),
    ],
    ids=["identical", "bare-path", "dot-segments", "symlinked-directory", "absolute"],
)
async def test_refuses_the_same_sqlite_database_however_spelled(tmp_path: Path, source: str, target: str) -> None:
    """One file named two ways is refused before anything is opened (exit 2): the file stays empty."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "hub.db").touch()
    (tmp_path / "link").symlink_to(tmp_path / "data")

    code, out, err = await migrate(source, target.format(tmp=tmp_path), tmp_path)

    assert (code, out) == (2, "")
    assert (
        err == "kxm admin migrate: refused: the source and the target are the same database (sqlite:///data/hub.db)\n"
    )
    assert (tmp_path / "data" / "hub.db").stat().st_size == 0
    assert sorted(path.name for path in (tmp_path / "data").iterdir()) == ["hub.db"]  # not even a lock file


@pytest.mark.parametrize("memory", ["sqlite://:memory:", ":memory:"])
async def test_refuses_an_in_memory_database_on_either_side(tmp_path: Path, memory: str) -> None:
    """Nothing outside a hub sees its in-memory database: refused both ways, without opening anything."""
    as_source = await migrate(memory, str(tmp_path / "x.db"), tmp_path)
    as_target = await migrate(str(tmp_path / "x.db"), memory, tmp_path)

    assert as_source[0] == as_target[0] == 2
    assert "source sqlite://:memory:: an in-memory database cannot be migrated" in as_source[2]
    assert "target sqlite://:memory:: an in-memory database cannot be migrated" in as_target[2]
    assert not (tmp_path / "x.db").exists()


async def test_refuses_a_source_that_is_missing_or_not_a_hub_database(tmp_path: Path) -> None:
    """A missing file is not created; a SQLite file without a hub schema is left as it was."""
    foreign = tmp_path / "foreign.db"
    with raw_connection(str(foreign)) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")

    missing = await migrate(str(tmp_path / "missing.db"), str(tmp_path / "a.db"), tmp_path)
    not_hub = await migrate(str(foreign), str(tmp_path / "b.db"), tmp_path)

    assert missing[0] == 2 and "no such database file" in missing[2]
    assert not_hub[0] == 2 and "not a kxm hub database" in not_hub[2]
    assert not (tmp_path / "missing.db").exists() and not (tmp_path / "a.db").exists()
    with raw_connection(str(foreign)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 0


async def test_refuses_the_same_postgresql_database_spelled_differently(postgres_database: str, tmp_path: Path) -> None:
    """Two URLs of one database (here: a libpq parameter more) are told apart by the server, not the text."""
    other_spelling = f"{postgres_database}?connect_timeout=10"

    code, _, err = await migrate(postgres_database, other_spelling, tmp_path)

    assert code == 2 and "the source and the target are the same database" in err


async def test_refuses_a_postgresql_source_while_a_hub_is_connected(postgres_database: str, tmp_path: Path) -> None:
    """A hub serving the source database is refused; once it has stopped, the same command copies it."""
    async with running_hub(tmp_path / "hub", postgres_database) as server:
        admin = HubClient(server.address, token=ADMIN_TOKEN)
        await admin.admin.create_project("alpha")
        await admin.close()
        refused = await migrate(postgres_database, str(tmp_path / "copy.db"), tmp_path)
        created = (tmp_path / "copy.db").exists()
    copied = await migrate(postgres_database, str(tmp_path / "copy.db"), tmp_path)  # at once: no wait needed

    assert refused[0] == 2 and "hub connection(s) are open on it" in refused[2]
    assert "stop every hub replica using it first" in refused[2]
    assert not created
    assert copied[0] == 0, copied
    assert snapshot(str(tmp_path / "copy.db")) == snapshot(postgres_database)


# -- failures roll the target back ------------------------------------------------------------------


@pytest.fixture
def broken_write(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """Make the copy of one table misbehave: ``{"table": name, "how": "drop" | "raise"}``."""
    plan: dict[str, str] = {}
    write = transfer_module._Side.write

    def misbehaving(self: transfer_module._Side, table: Table, names: list[str], batches: Iterator[list]) -> int:
        if table.name != plan.get("table"):
            return write(self, table, names, batches)
        if plan["how"] == "raise":
            raise OSError("the disk went away")
        return write(self, table, names, (batch[1:] for batch in batches))  # loses a row

    monkeypatch.setattr(transfer_module._Side, "write", misbehaving)
    yield plan


@pytest.mark.parametrize(
    ("how", "message"),
    [("drop", "verification failed: messages differ between"), ("raise", "copying table messages failed")],
)
async def test_a_failed_copy_or_verification_leaves_the_target_empty(
    tmp_path: Path, broken_write: dict[str, str], how: str, message: str
) -> None:
    """A copy that loses a row is caught by the verification, naming the table; one that fails half-way
    names it too; either way the target's one transaction is rolled back."""
    state = await build_state(tmp_path)
    target = str(tmp_path / "copy.db")
    broken_write.update(table="messages", how=how)

    with pytest.raises(TransferFailed) as failed:
        await transfer(state.database, target)

    assert str(failed.value).startswith(message)
    assert failed.value.tables == ("messages",)
    assert holds_nothing(target)
    broken_write.clear()
    report = await transfer(state.database, target)  # the empty schema left behind is accepted
    assert report.digest == snapshot(state.database)[1] == snapshot(target)[1]
