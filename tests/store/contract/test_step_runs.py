"""Contract: step runs (runs with their snapshot, contiguous per-run event logs, assignments)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
import sqlite_utils

from kxm_grpc.errors import DataLoss, HubError, Reason
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.postgres.migrations import MIGRATIONS as POSTGRES_MIGRATIONS
from kxm_grpc.store.protocols.step_runs import (
    AssignmentState,
    StepRunState,
    StoredAssignment,
    StoredRunEvent,
    StoredStepRun,
)
from kxm_grpc.store.rows.step_runs import (
    STEP_RUN_ASSIGNMENTS,
    STEP_RUN_EVENTS,
    STEP_RUNS,
    assignment_from_row,
    assignment_values,
    event_from_row,
    event_values,
    step_run_from_row,
    step_run_values,
)
from kxm_grpc.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS
from kxm_grpc.store.tables import raw_connection
from tests.store.contract.conftest import StoreFactory

SNAPSHOT = '{"v":1,"steps":{"plan":"entered"},"note":"é ✓ \\"quoted\\"\\n"}'


def _run(run_id: str, *, create_time: int = 10, **fields: Any) -> StoredStepRun:
    """A queued run of definition ``def_a`` in project ``p``, no event yet."""
    made = StoredStepRun(
        id=run_id,
        project="p",
        definition_id="def_a",
        plan_hash="sha256:" + "a" * 64,
        status=StepRunState.QUEUED,
        create_time=create_time,
        update_time=create_time,
        end_time=None,
        sequence=0,
        snapshot=SNAPSHOT,
    )
    return dataclasses.replace(made, **fields)


def _full_run() -> StoredStepRun:
    """A run with every field set (none at its default)."""
    return _run(
        "run_full",
        status=StepRunState.COMPLETED,
        update_time=20,
        end_time=21,
        sequence=7,
        start_request_id="req_full",
    )


def _event(run_id: str, sequence: int, *, type_: str = "step.entered") -> StoredRunEvent:
    return StoredRunEvent(run_id, sequence, type_, f'{{"n":{sequence},"text":"é"}}', 100 + sequence)


def _events(run_id: str, first: int, last: int) -> list[StoredRunEvent]:
    return [_event(run_id, n) for n in range(first, last + 1)]


def _assignment(assignment_id: str, *, run_id: str = "run_1", create_time: int = 10, **fields: Any) -> StoredAssignment:
    """An open assignment of ``run_id``'s step ``review`` (attempt 1) to ``agt_a``."""
    made = StoredAssignment(
        id=assignment_id,
        run_id=run_id,
        project="p",
        step_id="review",
        step_attempt=1,
        agent_id="agt_a",
        state=AssignmentState.OPEN,
        create_time=create_time,
        deadline=None,
        message_id=f"msg_{assignment_id}",
    )
    return dataclasses.replace(made, **fields)


def _tamper(sql: str, *params: object) -> Callable[[Tx], object]:
    """A unit of work changing a stored row behind the store's back (as bit rot or a foreign tool would)."""
    return lambda tx: tx.step_runs._conn.execute(sql, params)  # type: ignore[attr-defined]


def _ids(runs: list[StoredStepRun] | list[StoredAssignment]) -> list[str]:
    return [item.id for item in runs]


# -- rows (pure) -------------------------------------------------------------------------------------


def test_rows_round_trip_with_every_field() -> None:
    """A run, an event and an assignment with every field set decode from their rows to equal values;
    a None time stays None."""
    # Prepare
    run = _full_run()
    event = _event("run_full", 3)
    closed = _assignment(
        "asg_full", deadline=50, state=AssignmentState.COMPLETED, end_time=40, result='{"outcome":"ok"}'
    )

    # Execute
    decoded = (
        step_run_from_row(step_run_values(run)),
        step_run_from_row(step_run_values(_run("run_new"))),
        event_from_row(event_values(event)),
        assignment_from_row(assignment_values(closed)),
        assignment_from_row(assignment_values(_assignment("asg_open"))),
    )

    # Assert
    assert decoded == (run, _run("run_new"), event, closed, _assignment("asg_open"))
    assert (STEP_RUNS.width, STEP_RUN_EVENTS.width, STEP_RUN_ASSIGNMENTS.width) == (12, 6, 13)


# -- runs ----------------------------------------------------------------------------------------------


async def test_a_run_reads_back_by_id_and_by_its_projects_request_id(store: Store) -> None:
    """get_run reads a run of any project; run_by_request finds it by (project, key) only, and an
    empty key finds nothing (runs started without one)."""
    # Prepare
    full = _full_run()
    keyless = _run("run_keyless")
    await store.write(lambda tx: [tx.step_runs.insert_run(r) for r in (full, keyless)])

    # Execute
    found = await store.read(
        lambda tx: [
            tx.step_runs.get_run("run_full"),
            tx.step_runs.get_run("run_keyless"),
            tx.step_runs.get_run("run_none"),
            tx.step_runs.run_by_request("p", "req_full"),
            tx.step_runs.run_by_request("q", "req_full"),
            tx.step_runs.run_by_request("p", "req_other"),
            tx.step_runs.run_by_request("p", ""),
        ]
    )

    # Assert
    assert found == [full, keyless, None, full, None, None, None]


async def test_a_second_run_with_its_id_or_its_projects_request_id_is_refused(store: Store) -> None:
    """One run per id, and per (project, start request id) when the key is not empty: refused with
    the store's error, nothing kept; the key in another project, and any number of keyless runs, are fine."""
    # Prepare
    await store.write(lambda tx: tx.step_runs.insert_run(_run("run_1", start_request_id="req_x")))

    # Execute
    with pytest.raises(HubError) as same_id:
        await store.write(lambda tx: tx.step_runs.insert_run(_run("run_1", start_request_id="req_y")))
    with pytest.raises(HubError) as same_key:
        await store.write(lambda tx: tx.step_runs.insert_run(_run("run_2", start_request_id="req_x")))
    await store.write(
        lambda tx: [
            tx.step_runs.insert_run(_run("run_3", start_request_id="req_x", project="q")),
            tx.step_runs.insert_run(_run("run_4")),
            tx.step_runs.insert_run(_run("run_5")),
        ]
    )

    # Assert
    assert same_id.value.reason is same_key.value.reason is Reason.STORAGE_UNAVAILABLE
    assert await store.read(lambda tx: tx.step_runs.get_run("run_2")) is None
    assert await store.read(lambda tx: tx.step_runs.run_by_request("p", "req_y")) is None
    assert _ids(await store.read(lambda tx: tx.step_runs.list_runs(limit=10))) == [
        "run_5",
        "run_4",
        "run_3",
        "run_1",
    ]


async def test_a_save_replaces_status_times_sequence_and_snapshot(store: Store) -> None:
    """save_run writes the run's status, update and end times, sequence and snapshot; what a lookup
    filters on follows (the status)."""
    # Prepare
    run = _run("run_1", start_request_id="req_1")
    await store.write(lambda tx: tx.step_runs.insert_run(run))
    saved = dataclasses.replace(
        run, status=StepRunState.FAILED, update_time=30, end_time=31, sequence=4, snapshot='{"v":1,"failed":true}'
    )

    # Execute
    await store.write(lambda tx: tx.step_runs.save_run(saved))

    # Assert
    assert await store.read(lambda tx: tx.step_runs.get_run("run_1")) == saved
    assert await store.read(lambda tx: tx.step_runs.run_by_request("p", "req_1")) == saved
    assert await store.read(lambda tx: tx.step_runs.list_runs(status=StepRunState.FAILED, limit=10)) == [saved]
    assert await store.read(lambda tx: tx.step_runs.oldest_queued("p", 10)) == []


@pytest.mark.parametrize(
    "change",
    [
        {"project": "q"},
        {"definition_id": "def_b"},
        {"plan_hash": "sha256:" + "b" * 64},
        {"create_time": 11},
        {"start_request_id": "req_other"},
        {"start_request_id": ""},
    ],
    ids=lambda change: next(iter(change)) + ("_cleared" if change == {"start_request_id": ""} else ""),
)
async def test_a_save_that_changes_what_never_changes_is_refused(store: Store, change: dict[str, Any]) -> None:
    """save_run refuses with ValueError a run whose project, definition, plan hash, create time or
    start request id differ from the stored run's, and keeps the stored run as it was."""
    # Prepare
    run = _run("run_1", start_request_id="req_1")
    await store.write(lambda tx: tx.step_runs.insert_run(run))
    changed = dataclasses.replace(run, status=StepRunState.RUNNING, sequence=1, **change)

    # Execute
    with pytest.raises(ValueError, match="set at its creation"):
        await store.write(lambda tx: tx.step_runs.save_run(changed))

    # Assert
    assert await store.read(lambda tx: tx.step_runs.get_run("run_1")) == run


async def test_a_save_of_a_run_not_stored_is_a_lookup_error(store: Store) -> None:
    """save_run of an id no run has raises LookupError and stores nothing."""
    # Execute
    with pytest.raises(LookupError, match="run_ghost"):
        await store.write(lambda tx: tx.step_runs.save_run(_run("run_ghost")))

    # Assert
    assert await store.read(lambda tx: tx.step_runs.get_run("run_ghost")) is None


async def test_runs_are_listed_newest_first_by_filter_with_keyset_paging(store: Store) -> None:
    """list_runs: newest first by (create_time, id), ties by id descending; every filter given
    applies; ``before`` pages strictly after the last row of the previous page."""
    # Prepare
    runs = [
        _run("run_a", create_time=10),
        _run("run_b", create_time=20, status=StepRunState.RUNNING),
        _run("run_c", create_time=20, status=StepRunState.RUNNING),
        _run("run_d", create_time=30, definition_id="def_b"),
        _run("run_e", create_time=40, project="q", status=StepRunState.RUNNING),
        _run("run_f", create_time=50, status=StepRunState.CANCELLED, end_time=55),
    ]
    await store.write(lambda tx: [tx.step_runs.insert_run(r) for r in runs])

    def ids(**filters: Any) -> Callable[[Tx], list[str]]:
        return lambda tx: _ids(tx.step_runs.list_runs(**{"limit": 10, **filters}))

    # Execute
    every = await store.read(ids())
    pages: list[list[str]] = []
    before: tuple[int, str] | None = None
    while True:
        page = await store.read(lambda tx, b=before: tx.step_runs.list_runs(project="p", before=b, limit=2))
        if not page:
            break
        pages.append(_ids(page))
        before = (page[-1].create_time, page[-1].id)
    filtered = {
        "project": await store.read(ids(project="q")),
        "status": await store.read(ids(status=StepRunState.RUNNING)),
        "project and status": await store.read(ids(project="p", status=StepRunState.RUNNING)),
        "definition": await store.read(ids(definition_id="def_b")),
        "all three": await store.read(ids(project="p", status=StepRunState.QUEUED, definition_id="def_a")),
        "before a tie": await store.read(ids(before=(20, "run_c"))),
        "limit": await store.read(ids(limit=1)),
    }

    # Assert
    assert every == ["run_f", "run_e", "run_d", "run_c", "run_b", "run_a"]
    assert pages == [["run_f", "run_d"], ["run_c", "run_b"], ["run_a"]]
    assert filtered == {
        "project": ["run_e"],
        "status": ["run_e", "run_c", "run_b"],
        "project and status": ["run_c", "run_b"],
        "definition": ["run_d"],
        "all three": ["run_a"],
        "before a tie": ["run_b", "run_a"],
        "limit": ["run_f"],
    }


async def test_active_runs_are_counted_and_queued_runs_admitted_oldest_first(store: Store) -> None:
    """count_active counts the project's running and blocked runs (not queued or ended ones, not
    another project's); oldest_queued gives its queued runs oldest first by (create_time, id), at
    most ``limit``."""
    # Prepare
    runs = [
        _run("run_q3", create_time=30),
        _run("run_q2", create_time=20),
        _run("run_q1b", create_time=10),
        _run("run_q1a", create_time=10),
        _run("run_r", status=StepRunState.RUNNING),
        _run("run_b", status=StepRunState.BLOCKED),
        _run("run_done", status=StepRunState.COMPLETED, end_time=12),
        _run("run_fail", status=StepRunState.FAILED, end_time=12),
        _run("run_gone", status=StepRunState.CANCELLED, end_time=12),
        _run("run_other", project="q", status=StepRunState.RUNNING),
        _run("run_other_q", project="q", create_time=1),
    ]
    await store.write(lambda tx: [tx.step_runs.insert_run(r) for r in runs])

    # Execute
    active = await store.read(lambda tx: [tx.step_runs.count_active(p) for p in ("p", "q", "none")])
    queued = await store.read(lambda tx: _ids(tx.step_runs.oldest_queued("p", 10)))
    first_two = await store.read(lambda tx: _ids(tx.step_runs.oldest_queued("p", 2)))
    elsewhere = await store.read(lambda tx: _ids(tx.step_runs.oldest_queued("q", 10)))

    # Assert
    assert active == [2, 1, 0]
    assert queued == ["run_q1a", "run_q1b", "run_q2", "run_q3"]
    assert first_two == ["run_q1a", "run_q1b"]
    assert elsewhere == ["run_other_q"]


# -- the log -------------------------------------------------------------------------------------------


async def test_events_append_contiguously_and_read_back_in_order_with_paging(store: Store) -> None:
    """append_events continues a run's log (1, 2, … in one call or several); list_events reads the
    events after ``after`` in order, at most ``limit``; another run's log is its own; no events is a
    no-op."""
    # Prepare
    first, second = _events("run_1", 1, 3), _events("run_1", 4, 5)
    other = _events("run_2", 1, 2)

    # Execute
    await store.write(lambda tx: tx.step_runs.append_events(first))
    await store.write(lambda tx: [tx.step_runs.append_events(second), tx.step_runs.append_events(other)])
    await store.write(lambda tx: tx.step_runs.append_events([]))
    pages = await store.read(
        lambda tx: [
            tx.step_runs.list_events("run_1", limit=100),
            tx.step_runs.list_events("run_1", limit=2),
            tx.step_runs.list_events("run_1", after=2, limit=2),
            tx.step_runs.list_events("run_1", after=5, limit=2),
            tx.step_runs.list_events("run_2", limit=100),
            tx.step_runs.list_events("run_none", limit=100),
        ]
    )

    # Assert
    log = first + second
    assert pages == [log, log[:2], log[2:4], [], other, []]


@pytest.mark.parametrize(
    ("stored", "appended", "message"),
    [
        (0, [2], "continues at sequence 1, not 2"),
        (0, [0], "continues at sequence 1, not 0"),
        (3, [5], "continues at sequence 4, not 5"),
        (3, [3], "continues at sequence 4, not 3"),
        (3, [1, 2, 3, 4], "continues at sequence 4, not 1"),
        (3, [4, 6], "continues at sequence 5, not 6"),
        (3, [4, 4], "continues at sequence 5, not 4"),
        (3, [4, 5, 7], "continues at sequence 6, not 7"),
    ],
    ids=["gap-first", "zero", "gap", "repeat", "repeats", "gap-inside", "repeat-inside", "gap-last"],
)
async def test_events_that_leave_a_gap_or_repeat_are_refused_before_anything_is_written(
    store: Store, stored: int, appended: list[int], message: str
) -> None:
    """append_events refuses with ValueError events whose sequences do not continue the run's log
    one by one (a gap or a repeat, at the start or inside the batch); none of them is written,
    even those before the bad one, and the unit of work's other writes roll back with it."""
    # Prepare
    await store.write(lambda tx: tx.step_runs.append_events(_events("run_1", 1, stored)))

    def work(tx: Tx) -> None:
        tx.step_runs.insert_run(_run("run_1"))
        tx.step_runs.append_events([_event("run_1", n) for n in appended])

    # Execute
    with pytest.raises(ValueError, match=message):
        await store.write(work)

    # Assert
    assert await store.read(lambda tx: tx.step_runs.list_events("run_1", limit=100)) == _events("run_1", 1, stored)
    assert await store.read(lambda tx: tx.step_runs.get_run("run_1")) is None


async def test_events_of_more_than_one_run_are_refused(store: Store) -> None:
    """One call appends one run's events: a batch mixing runs raises ValueError and writes nothing."""
    # Execute
    with pytest.raises(ValueError, match="one run only: run_1 and run_2"):
        await store.write(lambda tx: tx.step_runs.append_events([_event("run_1", 1), _event("run_2", 1)]))

    # Assert
    assert await store.read(lambda tx: [tx.step_runs.list_events(r, limit=10) for r in ("run_1", "run_2")]) == [[], []]


async def test_a_taken_sequence_is_refused_by_the_primary_key(store: Store) -> None:
    """The log's key is (run id, sequence): a row at a taken sequence (what a concurrent writer that
    read the same last sequence would insert) is refused with the store's error."""
    # Prepare
    await store.write(lambda tx: tx.step_runs.append_events(_events("run_1", 1, 2)))
    rival = event_values(_event("run_1", 2, type_="rival"))

    # Execute
    with pytest.raises(HubError) as taken:
        await store.write(
            _tamper(
                f"INSERT INTO step_run_events ({STEP_RUN_EVENTS.select}) VALUES ({', '.join('?' * len(rival))})",
                *rival,
            )
        )

    # Assert
    assert taken.value.reason is Reason.STORAGE_UNAVAILABLE
    assert await store.read(lambda tx: tx.step_runs.list_events("run_1", limit=10)) == _events("run_1", 1, 2)


async def test_concurrent_steps_of_one_run_serialise_into_one_contiguous_log(store: Store) -> None:
    """Twelve units of work at once, each reading the run, appending its next event and saving the
    run with the new sequence: every one commits (the loser of a conflict runs again after the
    winner), the log is 1..12 and the run's sequence 12."""
    # Prepare
    await store.write(lambda tx: tx.step_runs.insert_run(_run("run_1")))

    def step(tx: Tx) -> int:
        run = tx.step_runs.get_run("run_1")
        assert run is not None
        sequence = run.sequence + 1
        tx.step_runs.append_events([_event("run_1", sequence)])
        tx.step_runs.save_run(dataclasses.replace(run, sequence=sequence, update_time=100 + sequence))
        return sequence

    # Execute
    taken = await asyncio.gather(*(store.write(step) for _ in range(12)))
    log = await store.read(lambda tx: tx.step_runs.list_events("run_1", limit=100))
    run = await store.read(lambda tx: tx.step_runs.get_run("run_1"))

    # Assert
    assert sorted(taken) == list(range(1, 13))
    assert log == _events("run_1", 1, 12)
    assert run is not None and run.sequence == 12


# -- assignments -------------------------------------------------------------------------------------


async def test_an_assignment_reads_back_by_id_and_is_stored_once(store: Store) -> None:
    """get_assignment reads an assignment of any project with every field; None for an unknown id; a
    second assignment with a stored id is refused with the store's error and changes nothing."""
    # Prepare
    timed = _assignment("asg_1", deadline=99, project="q", step_attempt=3)
    await store.write(lambda tx: tx.step_runs.put_assignment(timed))

    # Execute
    with pytest.raises(HubError) as again:
        await store.write(lambda tx: tx.step_runs.put_assignment(_assignment("asg_1", agent_id="agt_b")))
    found = await store.read(lambda tx: [tx.step_runs.get_assignment(i) for i in ("asg_1", "asg_none")])

    # Assert
    assert again.value.reason is Reason.STORAGE_UNAVAILABLE
    assert found == [timed, None]


async def test_an_assignment_closes_once(store: Store) -> None:
    """close_assignment closes an open assignment into the given state with its end time and result
    (True); closing it again, in any state, changes nothing (False), as does closing an unknown id;
    ``open`` is no closed state (ValueError)."""
    # Prepare
    await store.write(lambda tx: [tx.step_runs.put_assignment(_assignment(i)) for i in ("asg_1", "asg_2")])

    # Execute
    with pytest.raises(ValueError, match="closed state"):
        await store.write(lambda tx: tx.step_runs.close_assignment("asg_1", AssignmentState.OPEN, end_time=5))
    first = await store.write(
        lambda tx: tx.step_runs.close_assignment(
            "asg_1", AssignmentState.COMPLETED, end_time=20, result='{"outcome":"pass"}'
        )
    )
    again = await store.write(
        lambda tx: [
            tx.step_runs.close_assignment("asg_1", state, end_time=30, result="other")
            for state in AssignmentState
            if state is not AssignmentState.OPEN
        ]
    )
    expired = await store.write(lambda tx: tx.step_runs.close_assignment("asg_2", AssignmentState.EXPIRED, end_time=25))
    unknown = await store.write(
        lambda tx: tx.step_runs.close_assignment("asg_none", AssignmentState.CANCELLED, end_time=25)
    )
    read = await store.read(lambda tx: [tx.step_runs.get_assignment(i) for i in ("asg_1", "asg_2")])

    # Assert
    assert (first, again, expired, unknown) == (True, [False] * 4, True, False)
    assert read == [
        _assignment("asg_1", state=AssignmentState.COMPLETED, end_time=20, result='{"outcome":"pass"}'),
        _assignment("asg_2", state=AssignmentState.EXPIRED, end_time=25),
    ]


async def test_open_assignments_of_an_agent_or_a_run_oldest_first(store: Store) -> None:
    """open_assignments: the open assignments of the agent, of the run, or of both, oldest first by
    (create_time, id), at most ``limit``; closed ones never; neither filter given is a ValueError."""
    # Prepare
    assignments = [
        _assignment("asg_3", create_time=30),
        _assignment("asg_1b", create_time=10),
        _assignment("asg_1a", create_time=10, run_id="run_2"),
        _assignment("asg_2", create_time=20, agent_id="agt_b"),
        _assignment("asg_closed", create_time=5),
        _assignment("asg_other", create_time=1, run_id="run_2", agent_id="agt_b"),
    ]
    await store.write(lambda tx: [tx.step_runs.put_assignment(a) for a in assignments])
    await store.write(lambda tx: tx.step_runs.close_assignment("asg_closed", AssignmentState.SUPERSEDED, end_time=6))

    def ids(**filters: Any) -> Callable[[Tx], list[str]]:
        return lambda tx: _ids(tx.step_runs.open_assignments(**{"limit": 10, **filters}))

    # Execute
    found = {
        "agent": await store.read(ids(agent_id="agt_a")),
        "other agent": await store.read(ids(agent_id="agt_b")),
        "run": await store.read(ids(run_id="run_1")),
        "both": await store.read(ids(agent_id="agt_b", run_id="run_2")),
        "limit": await store.read(ids(agent_id="agt_a", limit=2)),
        "nobody": await store.read(ids(agent_id="agt_none")),
    }
    with pytest.raises(ValueError, match="agent id, a run id"):
        await store.read(lambda tx: tx.step_runs.open_assignments(limit=10))

    # Assert
    assert found == {
        "agent": ["asg_1a", "asg_1b", "asg_3"],
        "other agent": ["asg_other", "asg_2"],
        "run": ["asg_1b", "asg_2", "asg_3"],
        "both": ["asg_other"],
        "limit": ["asg_1a", "asg_1b"],
        "nobody": [],
    }


async def test_open_assignees_are_the_agents_holding_open_assignments(store: Store) -> None:
    """open_assignees: each agent holding at least one open assignment once, sorted; an agent whose
    assignments are all closed is not one."""
    # Prepare
    assignments = [
        _assignment("asg_1", agent_id="agt_b"),
        _assignment("asg_2", agent_id="agt_b", run_id="run_2"),
        _assignment("asg_3", agent_id="agt_a"),
        _assignment("asg_4", agent_id="agt_c"),
    ]
    await store.write(lambda tx: [tx.step_runs.put_assignment(a) for a in assignments])
    await store.write(lambda tx: tx.step_runs.close_assignment("asg_4", AssignmentState.COMPLETED, end_time=6))

    # Execute
    found = await store.read(lambda tx: tx.step_runs.open_assignees())

    # Assert
    assert found == ["agt_a", "agt_b"]


# -- purge, restart, migration ---------------------------------------------------------------------------


async def test_purging_a_run_deletes_it_its_log_and_its_assignments_only(store: Store) -> None:
    """purge_run deletes the run, every event of its log and every assignment of it (open or
    closed), and says whether the run existed; another run's rows stay; a purged run's key is free."""
    # Prepare
    await store.write(
        lambda tx: [
            tx.step_runs.insert_run(_run("run_1", start_request_id="req_1")),
            tx.step_runs.insert_run(_run("run_2")),
            tx.step_runs.append_events(_events("run_1", 1, 3)),
            tx.step_runs.append_events(_events("run_2", 1, 2)),
            tx.step_runs.put_assignment(_assignment("asg_1")),
            tx.step_runs.put_assignment(_assignment("asg_1c")),
            tx.step_runs.put_assignment(_assignment("asg_2", run_id="run_2")),
            tx.step_runs.close_assignment("asg_1c", AssignmentState.CANCELLED, end_time=9),
        ]
    )

    # Execute
    purged = await store.write(lambda tx: [tx.step_runs.purge_run("run_1"), tx.step_runs.purge_run("run_1")])
    never = await store.write(lambda tx: tx.step_runs.purge_run("run_none"))
    await store.write(lambda tx: tx.step_runs.insert_run(_run("run_3", start_request_id="req_1")))

    # Assert
    assert (purged, never) == ([True, False], False)
    assert await store.read(
        lambda tx: [
            tx.step_runs.get_run("run_1"),
            tx.step_runs.list_events("run_1", limit=10),
            tx.step_runs.get_assignment("asg_1"),
            tx.step_runs.get_assignment("asg_1c"),
            tx.step_runs.open_assignments(run_id="run_1", limit=10),
        ]
    ) == [None, [], None, None, []]
    assert await store.read(lambda tx: tx.step_runs.get_run("run_2")) == _run("run_2")
    assert await store.read(lambda tx: tx.step_runs.list_events("run_2", limit=10)) == _events("run_2", 1, 2)
    assert await store.read(lambda tx: tx.step_runs.get_assignment("asg_2")) == _assignment("asg_2", run_id="run_2")
    assert await store.read(lambda tx: tx.step_runs.run_by_request("p", "req_1")) == _run(
        "run_3", start_request_id="req_1"
    )


async def test_step_runs_survive_a_restart(store_factory: StoreFactory) -> None:
    """A run, its log and its assignments read back the same after the store is reopened."""
    # Prepare
    store = await store_factory.open()
    await store.write(
        lambda tx: [
            tx.step_runs.insert_run(_full_run()),
            tx.step_runs.append_events(_events("run_full", 1, 2)),
            tx.step_runs.put_assignment(_assignment("asg_1", run_id="run_full", deadline=70)),
        ]
    )

    # Execute
    store = await store_factory.reopen(store)

    # Assert
    assert await store.read(
        lambda tx: [
            tx.step_runs.get_run("run_full"),
            tx.step_runs.list_events("run_full", limit=10),
            tx.step_runs.get_assignment("asg_1"),
        ]
    ) == [_full_run(), _events("run_full", 1, 2), _assignment("asg_1", run_id="run_full", deadline=70)]


def _version_11_database(url: str) -> None:
    """Create the schema of version 11 at ``url`` (no hub: the migrations a hub of version 11 applied)."""
    with raw_connection(url) as conn:
        if url.startswith("sqlite"):
            db = sqlite_utils.Database(conn)  # type: ignore[arg-type]
            for migration in SQLITE_MIGRATIONS[:11]:
                migration(db)
            conn.execute("PRAGMA user_version = 11")
            return
        conn.execute("CREATE TABLE kxm_schema (version BIGINT NOT NULL)")
        conn.execute("INSERT INTO kxm_schema (version) VALUES (11)")
        for version in range(7, 12):
            for statement in POSTGRES_MIGRATIONS[version]:
                conn.execute(statement)


async def test_a_database_of_version_11_migrates_to_hold_step_runs(store_factory: StoreFactory) -> None:
    """The step-run tables need nothing after version 11: a database of version 11 opens at this
    hub's version and stores and reads step runs."""
    if not store_factory.persistent:
        pytest.skip(f"{store_factory.name} has no database to migrate")
    # Prepare
    _version_11_database(store_factory.url)

    # Execute
    store = await store_factory.open()
    await store.write(
        lambda tx: [
            tx.step_runs.insert_run(_run("run_1")),
            tx.step_runs.append_events(_events("run_1", 1, 1)),
            tx.step_runs.put_assignment(_assignment("asg_1")),
        ]
    )

    # Assert
    assert await store.read(
        lambda tx: [
            tx.step_runs.get_run("run_1"),
            tx.step_runs.list_events("run_1", limit=10),
            tx.step_runs.open_assignments(run_id="run_1", limit=10),
        ]
    ) == [_run("run_1"), _events("run_1", 1, 1), [_assignment("asg_1")]]


# -- corruption ------------------------------------------------------------------------------------------


async def test_a_run_whose_stored_bytes_changed_is_refused_with_data_loss(store: Store) -> None:
    """A flipped byte in a run's snapshot, a changed column, or a row without its checksum: every read
    of the run raises DataLoss naming it (STORAGE_CORRUPTED), in a read or a write; other runs read as before."""
    # Prepare
    await store.write(lambda tx: [tx.step_runs.insert_run(r) for r in (_full_run(), _run("run_2"))])
    flipped = SNAPSHOT.replace("entered", "enteres")
    await store.write(_tamper("UPDATE step_runs SET snapshot = ? WHERE id = 'run_full'", flipped))

    # Execute
    reads: dict[str, Callable[[Tx], object]] = {
        "get_run": lambda tx: tx.step_runs.get_run("run_full"),
        "run_by_request": lambda tx: tx.step_runs.run_by_request("p", "req_full"),
        "list_runs": lambda tx: tx.step_runs.list_runs(project="p", limit=10),
    }
    refused = {}
    for name, work in reads.items():
        with pytest.raises(DataLoss) as caught:
            await store.read(work)
        refused[name] = (caught.value.reason, caught.value.metadata)
    with pytest.raises(DataLoss) as in_write:
        await store.write(lambda tx: tx.step_runs.get_run("run_full"))
    columns = []
    for column, value in (("status", "running"), ("sequence", 9), ("checksum", "")):
        await store.write(_tamper(f"UPDATE step_runs SET {column} = ? WHERE id = 'run_2'", value))
        with pytest.raises(DataLoss):
            await store.read(lambda tx: tx.step_runs.get_run("run_2"))
        columns.append(column)

    # Assert
    assert refused == dict.fromkeys(reads, (Reason.STORAGE_CORRUPTED, {"runId": "run_full"}))
    assert in_write.value.reason is Reason.STORAGE_CORRUPTED
    assert columns == ["status", "sequence", "checksum"]


async def test_an_event_or_assignment_whose_stored_bytes_changed_is_refused_with_data_loss(store: Store) -> None:
    """A changed event payload fails list_events naming the run and sequence; an assignment whose
    state changed behind the store (closed to open) fails every read and close of it naming its id,
    so a changed row never revokes or keeps a token; the rest reads as before."""
    # Prepare
    await store.write(
        lambda tx: [
            tx.step_runs.append_events(_events("run_1", 1, 2)),
            tx.step_runs.put_assignment(_assignment("asg_1")),
            tx.step_runs.put_assignment(_assignment("asg_2")),
            tx.step_runs.close_assignment("asg_1", AssignmentState.SUPERSEDED, end_time=11),
        ]
    )
    await store.write(
        lambda tx: [
            _tamper("UPDATE step_run_events SET payload = '{}' WHERE run_id = 'run_1' AND sequence = 2")(tx),
            _tamper("UPDATE step_run_assignments SET state = 'open' WHERE id = 'asg_1'")(tx),
        ]
    )

    # Execute
    with pytest.raises(DataLoss) as event:
        await store.read(lambda tx: tx.step_runs.list_events("run_1", limit=10))
    first = await store.read(lambda tx: tx.step_runs.list_events("run_1", limit=1))
    refused = []
    for work in (
        lambda tx: tx.step_runs.get_assignment("asg_1"),
        lambda tx: tx.step_runs.open_assignments(agent_id="agt_a", limit=10),
        lambda tx: tx.step_runs.close_assignment("asg_1", AssignmentState.COMPLETED, end_time=12),
    ):
        with pytest.raises(DataLoss) as caught:
            await store.write(work)
        refused.append((caught.value.reason, caught.value.metadata))

    # Assert
    assert (event.value.reason, event.value.metadata) == (
        Reason.STORAGE_CORRUPTED,
        {"runId": "run_1", "sequence": "2"},
    )
    assert first == [_event("run_1", 1)]
    assert refused == [(Reason.STORAGE_CORRUPTED, {"assignmentId": "asg_1"})] * 3
    assert await store.read(lambda tx: tx.step_runs.get_assignment("asg_2")) == _assignment("asg_2")
