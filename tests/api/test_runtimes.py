"""RuntimeService through HubClient against a real hub: registration, presence, sync ingest, isolation."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
import structlog
from google.protobuf import timestamp_pb2

from kxm_grpc._gen.kxm.v1 import envelopes_pb2, runtime_service_pb2, types_pb2
from kxm_grpc.client import HubClient
from kxm_grpc.domain.clock import ManualClock
from kxm_grpc.errors import AlreadyExists, InvalidArgument, NotFound, PermissionDenied, Reason, Unauthenticated
from tests.conftest import ADMIN_TOKEN, Hub

SHA = "sha256:" + "cd" * 32
ACCEPTED = runtime_service_pb2.SYNC_OUTCOME_ACCEPTED
DUPLICATE = runtime_service_pb2.SYNC_OUTCOME_DUPLICATE
CONFLICT = runtime_service_pb2.SYNC_OUTCOME_CONFLICT
REJECTED = runtime_service_pb2.SYNC_OUTCOME_REJECTED


def sync_event(
    sequence: int,
    *,
    runtime: str = "rtm_laptop000001",
    project_id: str = "prj_alpha000001",
    run_id: str = "run_000000000001",
    status: str = "running",
    **payload: Any,
) -> envelopes_pb2.SyncEvent:
    """A valid ``run.status_changed`` event."""
    event = envelopes_pb2.SyncEvent(
        schema="kxm.sync-event.v1",
        source_event_id=f"evt_{sequence:012d}",
        project_id=project_id,
        run_id=run_id,
        home_runtime_id=runtime,
        event_type="run.status_changed",
        sequence=sequence,
        occur_time=timestamp_pb2.Timestamp(seconds=1_767_225_600 + sequence),
        config_revision=SHA,
        executor_policy_revision=SHA,
        tool_policy_revision=SHA,
        sync_policy_revision=SHA,
        memory_revision="mem_000000000001",
        redaction=envelopes_pb2.SyncRedaction(version="redactor-v1", fields_omitted=["prompt"], values_replaced=1),
    )
    event.payload.update({"status": status, "stepAttempt": 1, **payload})
    return event


@dataclasses.dataclass
class Fleet:
    """A hub with projects alpha and beta, clients for their tokens, and runtime registration."""

    hub: Hub
    clock: ManualClock
    alpha: HubClient
    beta: HubClient
    clients: list[HubClient]

    async def runtime(self, runtime_id: str, project: str = "alpha", host: str = "") -> HubClient:
        """Register a runtime with the project token; return a client acting with its key."""
        registrar = self.alpha if project == "alpha" else self.beta
        registered = await registrar.register_runtime(runtime_id, host=host)
        client = HubClient(self.hub.address, token=registered.runtime_key)
        self.clients.append(client)
        return client


@pytest_asyncio.fixture
async def fleet(clocked_hub: tuple[Hub, ManualClock]) -> AsyncIterator[Fleet]:
    """Projects alpha and beta on a hub with a manual clock."""
    hub, clock = clocked_hub
    admin = hub.admin()
    tokens = {name: (await admin.create_project(name)).project_token for name in ("alpha", "beta")}
    await admin.close()
    alpha = HubClient(hub.address, token=tokens["alpha"])
    beta = HubClient(hub.address, token=tokens["beta"])
    fleet = Fleet(hub, clock, alpha, beta, [alpha, beta])
    yield fleet
    for client in fleet.clients:
        await client.close()


def outcomes(response: runtime_service_pb2.PushSyncEventsResponse) -> list[tuple[int, int, str]]:
    """(sequence, outcome, code) of each result."""
    return [(r.sequence, r.outcome, r.code) for r in response.results]


def cursors(response: Any) -> list[tuple[str, int, int, bool]]:
    """(run id, cursor, last sequence, pending gap) of each cursor."""
    items = response.cursors if hasattr(response, "cursors") else [response.cursor]
    return [(c.run_id, c.cursor, c.last_sequence, c.pending_gap) for c in items]


# -- registration and presence ------------------------------------------------------------------------


async def test_register_then_heartbeat_shows_presence_on_the_hub_clock(fleet: Fleet) -> None:
    """Unknown before any heartbeat, online after one, expired once stale-after passes."""
    laptop = await fleet.runtime("rtm_laptop000001", host="laptop")

    before = (await fleet.alpha.list_runtimes()).runtimes
    beat = (await laptop.runtime_heartbeat(host="laptop-2")).runtime
    fleet.clock.advance(30)
    later = (await fleet.alpha.list_runtimes()).runtimes

    assert [(r.id, r.host, r.presence) for r in before] == [
        ("rtm_laptop000001", "laptop", types_pb2.RUNTIME_PRESENCE_STATE_UNKNOWN)
    ]
    assert (beat.presence, beat.host, beat.project) == (types_pb2.RUNTIME_PRESENCE_STATE_ONLINE, "laptop-2", "alpha")
    assert beat.lease_expire_time.ToMicroseconds() - beat.heartbeat_time.ToMicroseconds() == 30_000_000
    assert later[0].presence == types_pb2.RUNTIME_PRESENCE_STATE_EXPIRED


async def test_registration_refusals_and_admin_key_rotation(fleet: Fleet) -> None:
    """A taken id needs the admin (which rotates the key); bad ids and hosts are refused."""
    laptop = await fleet.runtime("rtm_laptop000001")
    await laptop.runtime_heartbeat()

    with pytest.raises(AlreadyExists) as taken:
        await fleet.alpha.register_runtime("rtm_laptop000001")
    with pytest.raises(InvalidArgument) as bad_id:
        await fleet.alpha.register_runtime("laptop")
    with pytest.raises(InvalidArgument) as long_host:
        await fleet.alpha.register_runtime("rtm_desktop00001", host="h" * 65)
    admin = HubClient(fleet.hub.address, token=ADMIN_TOKEN, project="alpha")
    rotated = await admin.register_runtime("rtm_laptop000001", host="new")
    await admin.close()
    with pytest.raises(Unauthenticated) as old_key:
        await laptop.runtime_heartbeat()
    fresh = HubClient(fleet.hub.address, token=rotated.runtime_key)
    fleet.clients.append(fresh)
    beat = await fresh.runtime_heartbeat()

    assert taken.value.reason is Reason.RUNTIME_ALREADY_EXISTS
    assert bad_id.value.reason is Reason.INVALID_RUNTIME_ID and bad_id.value.metadata["field"] == "runtime_id"
    assert long_host.value.metadata["field"] == "host"
    assert old_key.value.reason is Reason.INVALID_AUTH
    assert beat.runtime.register_time == rotated.runtime.register_time


async def test_a_runtime_key_is_only_good_for_runtime_and_project_reads(fleet: Fleet) -> None:
    """A runtime key cannot act as an agent or register; a project token cannot push or heartbeat."""
    laptop = await fleet.runtime("rtm_laptop000001")
    agent = HubClient(fleet.hub.address, token=fleet.alpha.token)
    fleet.clients.append(agent)
    await agent.register_agent("alice")

    refusals = []
    for call in (
        laptop.acquire_lease("build"),
        laptop.register_runtime("rtm_other0000001"),
        fleet.alpha.push_sync_events([sync_event(1)]),
        fleet.alpha.runtime_heartbeat(),
        agent.push_sync_events([sync_event(1)]),
    ):
        with pytest.raises(PermissionDenied) as caught:
            await call
        refusals.append(caught.value.reason)
    reads = await laptop.list_runtimes()

    assert refusals == [Reason.CREDENTIAL_KIND_DENIED] * 5
    assert [r.id for r in reads.runtimes] == ["rtm_laptop000001"]


# -- sync ingest --------------------------------------------------------------------------------------


async def test_accept_then_duplicate_without_alert_then_conflict_with_alert(fleet: Fleet) -> None:
    """1..3 accepted (cursor 3); the same bytes again are duplicates; other bytes at 2 are a conflict."""
    laptop = await fleet.runtime("rtm_laptop000001")

    first = await laptop.push_sync_events([sync_event(n) for n in (1, 2, 3)])
    with structlog.testing.capture_logs() as replay_logs:
        replay = await laptop.push_sync_events([sync_event(n) for n in (1, 2, 3)])
    with structlog.testing.capture_logs() as conflict_logs:
        altered = await laptop.push_sync_events([sync_event(2, status="failed")])

    assert outcomes(first) == [(1, ACCEPTED, ""), (2, ACCEPTED, ""), (3, ACCEPTED, "")]
    assert cursors(first) == [("run_000000000001", 3, 3, False)]
    assert outcomes(replay) == [(n, DUPLICATE, "") for n in (1, 2, 3)]
    assert [r.content_hash for r in replay.results] == [r.content_hash for r in first.results]
    assert cursors(replay) == [("run_000000000001", 3, 3, False)]
    assert not [e for e in replay_logs if e["event"] == "security_alert"]
    result = altered.results[0]
    assert (result.outcome, result.code) == (CONFLICT, "ERROR_REASON_SYNC_SEQUENCE_REUSED")
    assert result.existing_hash == first.results[1].content_hash != result.content_hash
    assert list(altered.cursors) == []
    alerts = [e for e in conflict_logs if e["event"] == "security_alert"]
    assert [(a["alert"], a["sequence"]) for a in alerts] == [("sync_sequence_conflict", 2)]


async def test_invalid_events_are_rejected_one_by_one(fleet: Fleet) -> None:
    """An extra payload key, a missing field or another home runtime rejects only that event."""
    laptop = await fleet.runtime("rtm_laptop000001")
    extra = sync_event(2, prompt="the whole prompt")
    missing = sync_event(3)
    missing.ClearField("occur_time")
    foreign = sync_event(4, runtime="rtm_desktop00001")

    with structlog.testing.capture_logs() as logs:
        response = await laptop.push_sync_events([sync_event(1), extra, missing, foreign, sync_event(5)])

    assert outcomes(response) == [
        (1, ACCEPTED, ""),
        (2, REJECTED, "ERROR_REASON_SYNC_EVENT_INVALID"),
        (3, REJECTED, "ERROR_REASON_SYNC_EVENT_INVALID"),
        (4, REJECTED, "ERROR_REASON_SYNC_RUNTIME_MISMATCH"),
        (5, ACCEPTED, ""),
    ]
    assert "payload.prompt" in response.results[1].message
    assert "occurredAt" in response.results[2].message
    assert [(e["alert"], e["home_runtime_id"]) for e in logs if e["event"] == "security_alert"] == [
        ("sync_runtime_mismatch", "rtm_desktop00001")
    ]
    assert cursors(response) == [("run_000000000001", 1, 5, True)]


async def test_cursors_stay_at_the_gap_until_it_is_filled(fleet: Fleet) -> None:
    """Sequence 5 after 1..3 is stored but the cursor stays 3 (gap pending) until 4 arrives."""
    laptop = await fleet.runtime("rtm_laptop000001")
    await laptop.push_sync_events([sync_event(n) for n in (1, 2, 3)])

    gap = await laptop.push_sync_events([sync_event(5)])
    listed_gap = await fleet.alpha.list_run_events("prj_alpha000001", "run_000000000001")
    filled = await laptop.push_sync_events([sync_event(4)])
    other_run = await laptop.push_sync_events([sync_event(2, run_id="run_000000000002"), sync_event(4)])

    assert outcomes(gap) == [(5, ACCEPTED, "")]
    assert cursors(gap) == [("run_000000000001", 3, 5, True)]
    assert [e.event.sequence for e in listed_gap.events] == [1, 2, 3, 5]
    assert cursors(listed_gap) == [("run_000000000001", 3, 5, True)]
    assert cursors(filled) == [("run_000000000001", 5, 5, False)]
    assert cursors(other_run) == [("run_000000000002", 0, 2, True), ("run_000000000001", 5, 5, False)]


async def test_list_run_events_reads_back_the_pushed_events(fleet: Fleet) -> None:
    """Events come back as pushed (same message, same hash), after a cursor, a page at a time."""
    laptop = await fleet.runtime("rtm_laptop000001")
    pushed = [sync_event(n, summary=f"step {n} done", counts={"files": 2}) for n in (1, 2, 3, 4)]
    response = await laptop.push_sync_events(pushed)

    page = await laptop.list_run_events("prj_alpha000001", "run_000000000001", after_sequence=1, page_size=2)

    assert [e.event for e in page.events] == pushed[1:3]
    assert [e.content_hash for e in page.events] == [r.content_hash for r in response.results[1:3]]
    assert page.events[0].receive_time.ToMicroseconds() == fleet.clock.now()
    assert cursors(page) == [("run_000000000001", 4, 4, False)]


async def test_a_run_belongs_to_its_home_runtime(fleet: Fleet) -> None:
    """Another runtime of the project cannot add events to a run homed elsewhere."""
    laptop = await fleet.runtime("rtm_laptop000001")
    desktop = await fleet.runtime("rtm_desktop00001")
    await laptop.push_sync_events([sync_event(1)])

    response = await desktop.push_sync_events([sync_event(2, runtime="rtm_desktop00001")])

    assert outcomes(response) == [(2, CONFLICT, "ERROR_REASON_SYNC_HOME_RUNTIME_MISMATCH")]


async def test_a_project_id_belongs_to_the_first_hub_project_until_the_admin_moves_it(fleet: Fleet) -> None:
    """Beta cannot push alpha's project id; after ReassignSyncProject beta can and alpha cannot."""
    laptop = await fleet.runtime("rtm_laptop000001")
    beta_runtime = await fleet.runtime("rtm_betabox00001", "beta")
    await laptop.push_sync_events([sync_event(1), sync_event(2)])

    refused = await beta_runtime.push_sync_events(
        [sync_event(n, runtime="rtm_betabox00001", run_id="run_beta00000001") for n in (1, 2)]
    )
    admin = HubClient(fleet.hub.address, token=ADMIN_TOKEN)
    with pytest.raises(NotFound) as no_project:
        await admin.reassign_sync_project("prj_alpha000001", "gamma")
    with pytest.raises(InvalidArgument) as bad_id:
        await admin.reassign_sync_project("alpha", "beta")
    with pytest.raises(PermissionDenied):
        await fleet.alpha.reassign_sync_project("prj_alpha000001", "alpha")
    moved = await admin.reassign_sync_project("prj_alpha000001", "beta")
    await admin.close()
    accepted = await beta_runtime.push_sync_events(
        [sync_event(1, runtime="rtm_betabox00001", run_id="run_beta00000001")]
    )
    alpha_now = await laptop.push_sync_events([sync_event(3)])
    alpha_reads = await fleet.alpha.list_run_events("prj_alpha000001", "run_000000000001")
    beta_reads = await fleet.beta.list_run_events("prj_alpha000001", "run_000000000001")

    assert outcomes(refused) == [(n, CONFLICT, "ERROR_REASON_SYNC_PROJECT_MISMATCH") for n in (1, 2)]
    assert not refused.results[0].existing_hash  # nothing about the other project leaks
    assert no_project.value.reason is Reason.PROJECT_NOT_FOUND
    assert bad_id.value.reason is Reason.INVALID_RUNTIME_ID
    assert moved.moved_events == 2
    assert outcomes(accepted) == [(1, ACCEPTED, "")]
    assert outcomes(alpha_now) == [(3, CONFLICT, "ERROR_REASON_SYNC_PROJECT_MISMATCH")]
    assert list(alpha_reads.events) == [] and alpha_reads.cursor.cursor == 0
    assert [e.event.sequence for e in beta_reads.events] == [1, 2]


async def test_batch_limits(fleet: Fleet) -> None:
    """An empty batch is INVALID_SYNC_BATCH; 101 events are SYNC_BATCH_TOO_LARGE; 100 are fine."""
    laptop = await fleet.runtime("rtm_laptop000001")

    with pytest.raises(InvalidArgument) as empty:
        await laptop.push_sync_events([])
    with pytest.raises(InvalidArgument) as too_many:
        await laptop.push_sync_events([sync_event(n) for n in range(1, 102)])
    full = await laptop.push_sync_events([sync_event(n) for n in range(1, 101)])

    assert empty.value.reason is Reason.INVALID_SYNC_BATCH
    assert too_many.value.reason is Reason.SYNC_BATCH_TOO_LARGE
    assert cursors(full) == [("run_000000000001", 100, 100, False)]


# -- isolation ----------------------------------------------------------------------------------------


async def test_other_projects_runtimes_and_events_are_invisible(fleet: Fleet) -> None:
    """Beta lists none of alpha's runtimes and reads none of its run events; bad ids are refused."""
    laptop = await fleet.runtime("rtm_laptop000001")
    await fleet.runtime("rtm_betabox00001", "beta")
    await laptop.push_sync_events([sync_event(1)])
    beta_admin = HubClient(fleet.hub.address, token=ADMIN_TOKEN, project="beta")
    fleet.clients.append(beta_admin)

    beta_runtimes = [r.id for r in (await fleet.beta.list_runtimes()).runtimes]
    beta_events = await fleet.beta.list_run_events("prj_alpha000001", "run_000000000001")
    admin_events = await beta_admin.list_run_events("prj_alpha000001", "run_000000000001")
    with pytest.raises(InvalidArgument):
        await fleet.beta.list_run_events("../alpha", "run_000000000001")

    assert beta_runtimes == ["rtm_betabox00001"]
    assert list(beta_events.events) == [] and list(admin_events.events) == []
    assert (beta_events.cursor.cursor, beta_events.cursor.last_sequence) == (0, 0)


async def test_a_runtime_key_cannot_name_another_project(fleet: Fleet) -> None:
    """x-kxm-project naming another project than the runtime's is refused."""
    registered = await fleet.alpha.register_runtime("rtm_laptop000001")
    confused = HubClient(fleet.hub.address, token=registered.runtime_key, project="beta")
    fleet.clients.append(confused)

    with pytest.raises(PermissionDenied) as caught:
        await confused.runtime_heartbeat()

    assert caught.value.reason is Reason.CREDENTIAL_KIND_DENIED


async def test_the_same_runtime_id_in_two_projects_is_two_runtimes(fleet: Fleet) -> None:
    """Runtime ids are per project: each key acts only as its own project's runtime."""
    alpha_rt = await fleet.runtime("rtm_shared000001", "alpha")
    beta_rt = await fleet.runtime("rtm_shared000001", "beta")

    alpha_beat = (await alpha_rt.runtime_heartbeat(host="a")).runtime
    beta_beat = (await beta_rt.runtime_heartbeat(host="b")).runtime

    assert (alpha_beat.project, alpha_beat.host) == ("alpha", "a")
    assert (beta_beat.project, beta_beat.host) == ("beta", "b")
    assert [r.host for r in (await fleet.alpha.list_runtimes()).runtimes] == ["a"]
