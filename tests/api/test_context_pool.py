"""The automatic pool, episodes and retention through a real hub (spec §5.10, §10 pin 21, §11.19).

A real hub (the ``hub`` fixture, on SQLite and PostgreSQL). Entries are recorded through
WorkflowService's RPCs and the hub's own steps; what the pool holds is read from the hub's store
in a transaction of its own, as the packet's reads would. ListEpisodes is called through the
generated stub over the client's channel and error mapping (the client area is not yet there).
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

import pytest

from kxm_grpc import InvalidArgument, NotFound, PermissionDenied, Reason
from kxm_grpc._gen.kxm.v1 import context_service_pb2 as cpb
from kxm_grpc._gen.kxm.v1 import context_service_pb2_grpc
from kxm_grpc._gen.kxm.v1 import envelopes_pb2 as epb
from kxm_grpc._gen.kxm.v1 import workflow_journal_pb2 as jpb
from kxm_grpc._gen.kxm.v1 import workflow_service_pb2 as pb
from kxm_grpc.cli import build_parser
from kxm_grpc.cli.hub import settings_from
from kxm_grpc.client import HubClient
from kxm_grpc.domain.clock import ManualClock, seconds
from kxm_grpc.domain.context.items import Authority, Confidence, ContextItem, Kind, Provenance, SourceType, Status
from kxm_grpc.domain.workflows.evidence import PeerEvidence
from kxm_grpc.domain.workflows.journal import Category, JournalEntry, Severity
from kxm_grpc.server.settings import Settings, SettingsError
from kxm_grpc.server.state import limits_from
from kxm_grpc.server.sweeps import sweep_context
from kxm_grpc.services.context import pool
from kxm_grpc.services.context.contradictions import journal_contradiction_ids
from kxm_grpc.services.workflows import journal_writes
from kxm_grpc.services.workflows import runs as workflow_runs
from kxm_grpc.store import Tx
from kxm_grpc.store.protocols.context_items import StoredContextItem
from tests.conftest import AgentFactory, Hub, Project, ProjectFactory
from tests.workflows import call, define

E = jpb
_deliveries = itertools.count(1)
EPISODE_CATEGORIES = {E.JOURNAL_CATEGORY_ERROR, E.JOURNAL_CATEGORY_LESSON, E.JOURNAL_CATEGORY_OBSERVATION}
EPISODE_CATEGORIES.add(E.JOURNAL_CATEGORY_EXPERIMENT)


async def start(admin: HubClient, document: dict[str, Any] | None = None) -> Any:
    """Register ``document`` (``fix``: review then ship) and start a run of it."""
    chosen = document or define()
    await admin.workflows.register_definition(chosen)
    return (await admin.workflows.start_run(chosen["id"], delivery_id=f"pool-{next(_deliveries)}")).run


async def record(coordinator: HubClient, run_id: str, category: int, summary: str, **fields: Any) -> Any:
    """Record an entry through RecordJournal; the entry as the hub answered it."""
    fields.setdefault("area", E.IMPROVEMENT_AREA_WORKFLOW)
    request = pb.RecordJournalRequest(run_id=run_id, category=category, summary=summary, **fields)  # type: ignore[arg-type]
    return (await call(coordinator, "RecordJournal", request)).record.entry


async def stored(hub: Hub, project: str, *item_ids: str) -> dict[str, StoredContextItem]:
    """The project's items among ``item_ids``, as the store holds them now."""
    found = await hub.server.store.read(lambda tx: tx.context_items.get(project, item_ids))
    return {one.item.id: one for one in found}


async def episodes(client: HubClient, **fields: str) -> list[Any]:
    """ContextService.ListEpisodes through the client's error mapping."""
    stub = client._stub(context_service_pb2_grpc.ContextServiceStub)
    return list((await client._call(stub.ListEpisodes, cpb.ListEpisodesRequest(**fields))).items)


def order_key(entry: Any) -> tuple[int, int, str]:
    return entry.create_time.seconds, entry.create_time.nanos, entry.id


# -- pin 21, end to end ----------------------------------------------------------------------------


async def test_pin_21_a_recorded_entry_is_an_item_when_the_record_returns(hub: Hub, make_agent: AgentFactory) -> None:
    """Pin 21 through the API: an error is evidence with sourceRef ``journal:<id>``, a decision is
    knowledge, a skill candidate is a proposed skill, and a 500-character evidence string is
    dropped silently (the 200-character one kept); each item carries its run and is in the
    store as soon as RecordJournal returns."""
    coordinator = await make_agent("coordinator")
    async with hub.admin() as admin:
        run = await start(admin)
    error = await record(coordinator, run.id, E.JOURNAL_CATEGORY_ERROR, "The build broke", evidence=["log:1"])
    decision = await record(coordinator, run.id, E.JOURNAL_CATEGORY_DECISION, "Pin the compiler")
    skill = await record(
        coordinator,
        run.id,
        E.JOURNAL_CATEGORY_SKILL_CANDIDATE,
        "Cache the wheels",
        evidence=["x" * 500, "y" * 200, "bench:3"],
    )

    found = await stored(hub, "alpha", *(f"journal_{e.id}" for e in (error, decision, skill)))

    as_error, as_decision, as_skill = (found[f"journal_{e.id}"] for e in (error, decision, skill))
    assert as_error.item.kind is Kind.EVIDENCE
    assert as_error.item.provenance == Provenance(SourceType.WORKFLOW, f"journal:{error.id}")
    assert (as_error.item.authority, as_error.item.confidence) == (Authority.EVIDENCE, Confidence.PROBABLE)
    assert as_error.item.evidence_refs == ("log:1",)
    assert as_decision.item.kind is Kind.KNOWLEDGE
    assert (as_skill.item.kind, as_skill.item.status) == (Kind.SKILL, Status.PROPOSED)
    assert as_skill.item.evidence_refs == ("y" * 200, "bench:3")
    assert {one.run_id for one in found.values()} == {run.id}
    assert as_error.item.observed_at == error.create_time.seconds * 1_000_000 + error.create_time.nanos // 1000


async def test_the_hubs_own_entries_become_items_too(hub: Hub, make_agent: AgentFactory) -> None:
    """A warning checkpoint makes the hub write an error entry in the checkpoint's transaction;
    its item is there when the checkpoint returns."""
    coordinator = await make_agent("coordinator")
    async with hub.admin() as admin:
        run = await start(admin)
    await coordinator.workflows.checkpoint(run.id, "review", "warning", summary="flaky", evidence={"ci": "red"})
    async with hub.admin() as admin:
        journal = [r async for r in admin.workflows.journal.records(run.id)]

    (hub_entry,) = [r.entry for r in journal if r.WhichOneof("record") == "entry" and r.entry.author == "hub"]
    found = await stored(hub, "alpha", f"journal_{hub_entry.id}")

    assert found[f"journal_{hub_entry.id}"].item.kind is Kind.EVIDENCE
    assert found[f"journal_{hub_entry.id}"].run_id == run.id


async def test_an_entry_and_its_item_commit_or_roll_back_together(hub: Hub, make_agent: AgentFactory) -> None:
    """The item is written by the append that writes the entry, in its transaction: a unit of work
    that appends an entry and then fails leaves neither the entry nor the item."""
    await make_agent("coordinator")
    async with hub.admin() as admin:
        run_id = (await start(admin)).id
    store = hub.server.store
    run = await store.read(lambda tx: tx.workflows.get_run(run_id))
    assert run is not None
    entry = JournalEntry(
        id="journal_rolled_back",
        run_id=run.id,
        author="hub",
        category=Category.LESSON,
        area="workflow",
        severity=Severity.INFO,
        summary="never kept",
        create_time=1,
        evidence=("e",),
    )

    def work(tx: Tx) -> None:
        journal_writes.append(tx, run, (entry,))
        assert tx.context_items.get("alpha", ["journal_journal_rolled_back"])  # written in this transaction
        raise RuntimeError("the unit of work fails after the append")

    with pytest.raises(RuntimeError):
        await store.write(work)

    assert await store.read(lambda tx: tx.journal.entry(entry.id)) is None
    assert await stored(hub, "alpha", "journal_journal_rolled_back") == {}


# -- verified peer evidence ------------------------------------------------------------------------


async def test_a_verified_peer_reply_becomes_verified_workflow_evidence(hub: Hub, make_agent: AgentFactory) -> None:
    """A passing checkpoint citing a reply puts ``peer_<message id>``: workflow provenance,
    confidence verified, the message id as its evidence ref, no body in its summary; the run's id
    is kept with it."""
    coordinator = await make_agent("coordinator")
    alice = await make_agent("alice")
    async with hub.admin() as admin:
        run = await start(admin, define(reviewers=("alice",)))
        (message_id,) = await coordinator.workflows.request_review(run, "review", "Unit Tests", "alice", "diff body")
        await alice.messages.reply(message_id, "reply body: looks fine")
        await coordinator.workflows.checkpoint(run.id, "review", "passed", evidence_refs={"Unit Tests": message_id})

    found = (await stored(hub, "alpha", f"peer_{message_id}"))[f"peer_{message_id}"]

    assert (found.item.kind, found.item.confidence) == (Kind.EVIDENCE, Confidence.VERIFIED)
    assert found.item.provenance == Provenance(SourceType.WORKFLOW, f"peer:{message_id}")
    assert (found.item.evidence_refs, found.run_id) == ((message_id,), run.id)
    assert "body" not in found.item.summary and "alice" in found.item.summary


# -- open contradictions ---------------------------------------------------------------------------


async def test_a_contradiction_is_open_until_a_decision_of_its_run_relates_to_it(
    hub: Hub, make_agent: AgentFactory
) -> None:
    """Open journal contradictions: both contradictions are open; a decision relating to the first
    closes it, a plan relating to the second does not."""
    coordinator = await make_agent("coordinator")
    async with hub.admin() as admin:
        run = await start(admin)
    first = await record(coordinator, run.id, E.JOURNAL_CATEGORY_CONTRADICTION, "The spec says 7 days")
    second = await record(coordinator, run.id, E.JOURNAL_CATEGORY_CONTRADICTION, "The code says 30")
    before = await hub.server.store.read(lambda tx: journal_contradiction_ids(tx, "alpha"))
    await record(coordinator, run.id, E.JOURNAL_CATEGORY_DECISION, "7 days", related_entry_ids=[first.id])
    await record(coordinator, run.id, E.JOURNAL_CATEGORY_PLAN, "Ask", related_entry_ids=[second.id])

    after = await hub.server.store.read(lambda tx: journal_contradiction_ids(tx, "alpha"))

    assert before == {f"journal_{first.id}", f"journal_{second.id}"}
    assert after == {f"journal_{second.id}"}


# -- episodes --------------------------------------------------------------------------------------


async def test_episodes_are_the_newest_50_oldest_first_of_the_four_categories(
    hub: Hub, make_agent: AgentFactory
) -> None:
    """ListEpisodes: only error, lesson, observation and experiment entries, of every run of the
    project, the newest 50 of them, sorted by create time then id; with a run named, that run's
    only."""
    coordinator = await make_agent("coordinator")
    async with hub.admin() as admin:
        first = await start(admin)
        second = await start(admin)
    categories = itertools.cycle(
        [E.JOURNAL_CATEGORY_ERROR, E.JOURNAL_CATEGORY_PLAN, E.JOURNAL_CATEGORY_OBSERVATION, E.JOURNAL_CATEGORY_LESSON]
    )
    recorded = []
    for n in range(70):
        category = next(categories)
        evidence = ["e"] if category == E.JOURNAL_CATEGORY_LESSON else []
        run_id = first.id if n % 3 else second.id
        recorded.append(await record(coordinator, run_id, category, f"entry {n}", evidence=evidence))
    recorded.append(await record(coordinator, second.id, E.JOURNAL_CATEGORY_EXPERIMENT, "try -O2"))
    expected = sorted((e for e in recorded if e.category in EPISODE_CATEGORIES), key=order_key)

    listed = await episodes(coordinator)
    of_second = await episodes(coordinator, workflow_run_id=second.id)

    assert len(expected) > 50
    assert [item.id for item in listed] == [f"journal_{e.id}" for e in expected[-50:]]
    assert [item.id for item in of_second] == [f"journal_{e.id}" for e in expected if e.run_id == second.id][-50:]
    assert listed[-1].kind == epb.CONTEXT_KIND_EVIDENCE and listed[-1].summary == "try -O2"
    assert listed[-1].provenance.source_ref == f"journal:{recorded[-1].id}"
    assert {item.project for item in listed} == {"alpha"}


async def test_episodes_refuse_another_project_and_its_runs_without_saying_they_exist(
    hub: Hub, make_agent: AgentFactory, make_project: ProjectFactory, project: Project
) -> None:
    """Another project (or ``_shared``) named is PERMISSION_DENIED CONTEXT_ISOLATION_VIOLATION;
    another project's run is NOT_FOUND exactly as a run that never was; a malformed run id is
    INVALID_ARGUMENT naming the field; the project's own token reads the same episodes as its agents."""
    coordinator = await make_agent("coordinator")
    beta = await make_project("beta")
    outsider = await make_agent("outsider", in_project=beta)
    async with hub.admin() as admin:
        run = await start(admin)
    lesson = await record(coordinator, run.id, E.JOURNAL_CATEGORY_LESSON, "Retry less", evidence=["ci:9"])

    with pytest.raises(PermissionDenied) as other_project:
        await episodes(outsider, project="alpha")
    with pytest.raises(PermissionDenied) as shared:
        await episodes(coordinator, project="_shared")
    with pytest.raises(NotFound) as foreign_run:
        await episodes(outsider, workflow_run_id=run.id)
    with pytest.raises(NotFound) as no_run:
        await episodes(outsider, workflow_run_id="run_never")
    with pytest.raises(InvalidArgument) as malformed:
        await episodes(coordinator, workflow_run_id="r" * 81)
    async with HubClient(hub.address, token=project.token) as project_client:
        read_by_token = await episodes(project_client)

    assert other_project.value.reason == shared.value.reason == Reason.CONTEXT_ISOLATION_VIOLATION
    assert foreign_run.value.reason == no_run.value.reason == Reason.WORKFLOW_NOT_FOUND
    assert str(foreign_run.value).replace(run.id, "X") == str(no_run.value).replace("run_never", "X")
    assert (malformed.value.reason, malformed.value.metadata["field"]) == (
        Reason.INVALID_CONTEXT_REQUEST,
        "workflow_run_id",
    )
    assert await episodes(outsider) == []
    assert [item.id for item in read_by_token] == [f"journal_{lesson.id}"]


# -- retention -------------------------------------------------------------------------------------


async def test_a_purged_run_takes_its_items_with_it(hub: Hub, make_agent: AgentFactory) -> None:
    """The run purge deletes the items of the runs it purges, in its transaction; another run's
    items and items of no run stay."""
    coordinator = await make_agent("coordinator")
    async with hub.admin() as admin:
        ended = await start(admin)
        kept = await start(admin)
        await admin.workflows.cancel_run(ended.id, reason="done")
    gone = await record(coordinator, ended.id, E.JOURNAL_CATEGORY_ERROR, "broke")
    stays = await record(coordinator, kept.id, E.JOURNAL_CATEGORY_ERROR, "broke too")
    state = hub.server.hub
    assert state is not None
    await hub.server.store.write(lambda tx: tx.context_items.put([StoredContextItem(_item("mine"), 1)]))

    purged = await workflow_runs.purge(hub.server.store, now=state.now() + seconds(3_600), retention=seconds(60))

    assert purged == 1
    found = await stored(hub, "alpha", f"journal_{gone.id}", f"journal_{stays.id}", "mine")
    assert sorted(found) == sorted([f"journal_{stays.id}", "mine"])


def _item(item_id: str, *, kind: Kind = Kind.EVIDENCE, status: Status | None = None, **fields: Any) -> ContextItem:
    return ContextItem(
        id=item_id,
        kind=kind,
        project="alpha",
        summary=f"item {item_id}",
        provenance=Provenance(SourceType.HUMAN),
        authority=Authority.EVIDENCE,
        confidence=Confidence.PROBABLE,
        status=status,
        state_key="key" if kind is Kind.STATE else None,
        **fields,
    )


async def test_the_sweep_removes_ended_items_past_their_horizons(clocked_hub: tuple[Hub, ManualClock]) -> None:
    """The context sweep: a superseded or rejected item ended more than 7 days ago goes, state
    history stays until 30 days; current, proposed and undated-status items never go; an item
    whose validity ended recently stays even when written long ago."""
    hub, clock = clocked_hub
    state = hub.server.hub
    assert state is not None
    day = seconds(86_400)
    written = clock.now()
    items = [
        _item("superseded", status=Status.SUPERSEDED),
        _item("rejected", status=Status.REJECTED),
        _item("current", status=Status.CURRENT),
        _item("proposed", status=Status.PROPOSED),
        _item("plain"),
        _item("ended-late", status=Status.SUPERSEDED, valid_until=written + 6 * day),
        _item("state-old", kind=Kind.STATE, status=Status.SUPERSEDED),
        _item("state-now", kind=Kind.STATE, status=Status.CURRENT),
    ]
    await hub.server.store.write(lambda tx: tx.context_items.put([StoredContextItem(i, written) for i in items]))
    ids = [i.id for i in items]

    clock.advance(8 * 86_400)
    await sweep_context(state)
    after_8_days = sorted(await stored(hub, "alpha", *ids))
    clock.advance(23 * 86_400)
    await sweep_context(state)
    after_31_days = sorted(await stored(hub, "alpha", *ids))

    assert after_8_days == sorted(["current", "proposed", "plain", "ended-late", "state-old", "state-now"])
    assert after_31_days == sorted(["current", "proposed", "plain", "state-now"])


def test_the_two_horizons_are_settings_with_flags_and_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """--context-retention (default 7 days) and --context-state-retention (default 30 days), or
    their KXM_ variables, become the services' limits; each must be 1 s to 3650 days."""
    monkeypatch.setenv("KXM_CONTEXT_STATE_RETENTION", "86400")
    chosen = settings_from(build_parser().parse_args(["hub", "serve", "--context-retention", "3600"]))

    assert (Settings().context_retention, Settings().context_state_retention) == (7 * 86_400, 30 * 86_400)
    assert (limits_from(chosen).context_retention, limits_from(chosen).context_state_retention) == (
        seconds(3_600),
        seconds(86_400),
    )
    for wrong in (Settings(context_retention=0), Settings(context_state_retention=3_651 * 86_400)):
        with pytest.raises(SettingsError, match="context-retention and context-state-retention"):
            wrong.validate()


async def test_a_reply_verified_again_keeps_its_first_item(hub: Hub, make_agent: AgentFactory) -> None:
    """put_peer_evidence puts the replies it has not seen and leaves an item already there as
    first verified (as the stage keeps its first snapshot of a message)."""
    await make_agent("coordinator")
    async with hub.admin() as admin:
        run_id = (await start(admin)).id
    store = hub.server.store
    run = await store.read(lambda tx: tx.workflows.get_run(run_id))
    assert run is not None
    first = PeerEvidence(
        "msg_1", "agt_r", "reviewer", run.id, "review", "unit tests", 1, 1, "a" * 64, "b" * 64, 1, 2, 3, 4
    )
    again = replace(first, verify_time=99)
    other = replace(first, message_id="msg_2")

    put = [
        await store.write(lambda tx: pool.put_peer_evidence(tx, run, {"unit tests": [first]}, now=10)),
        await store.write(lambda tx: pool.put_peer_evidence(tx, run, {"unit tests": [again, other]}, now=20)),
    ]
    found = await stored(hub, "alpha", "peer_msg_1", "peer_msg_2")

    assert put == [1, 1]
    assert (found["peer_msg_1"].item.observed_at, found["peer_msg_1"].write_time) == (4, 10)
    assert (found["peer_msg_2"].item.observed_at, found["peer_msg_2"].write_time) == (4, 20)
