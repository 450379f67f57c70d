"""Contract: runtimes' sync events, their runs' cursors and the owners of runtime-side project ids."""

from __future__ import annotations

from kxm_grpc.domain.sync_events import StoredEvent, SyncRun
from kxm_grpc.store import Store


def _event(sequence: int, *, run_id: str = "run_1") -> StoredEvent:
    return StoredEvent("proj", run_id, sequence, "step", f"sha256:{sequence}", 10 + sequence, '{"n":1}')


async def test_events_are_stored_by_slot_and_read_in_sequence_order(store: Store) -> None:
    """insert, get_hash per slot, sequences_after and list_events above a sequence, by sequence."""
    # Prepare
    await store.write(lambda tx: [tx.sync_events.insert(_event(s)) for s in (3, 1, 2)])
    await store.write(lambda tx: tx.sync_events.insert(_event(1, run_id="run_2")))

    # Execute
    hashes = await store.read(lambda tx: [tx.sync_events.get_hash("proj", "run_1", s) for s in (1, 4)])
    sequences = await store.read(lambda tx: tx.sync_events.sequences_after("proj", "run_1", 1, 10))
    events = await store.read(lambda tx: tx.sync_events.list_events("proj", "run_1", 0, 2))

    # Assert
    assert hashes == ["sha256:1", None]
    assert sequences == [2, 3]
    assert events == [_event(1), _event(2)]


async def test_a_run_reads_back_and_moves_with_its_project_ids_owner(store: Store) -> None:
    """put_run/get_run round-trip; set_owner gives the project id and its runs to another hub project
    and counts its events."""
    # Prepare
    run = SyncRun("proj", "run_1", "alpha", "rt_1", 2, 3)
    await store.write(lambda tx: [tx.sync_events.set_owner("proj", "alpha"), tx.sync_events.put_run(run)])
    await store.write(lambda tx: [tx.sync_events.insert(_event(s)) for s in (1, 2)])
    before = await store.read(lambda tx: (tx.sync_events.owner("proj"), tx.sync_events.get_run("proj", "run_1")))

    # Execute
    count = await store.write(lambda tx: tx.sync_events.set_owner("proj", "beta"))

    # Assert
    assert before == ("alpha", run)
    assert count == 2
    assert await store.read(lambda tx: tx.sync_events.owner("proj")) == "beta"
    assert await store.read(lambda tx: tx.sync_events.get_run("proj", "run_1")) == SyncRun(
        "proj", "run_1", "beta", "rt_1", 2, 3
    )
    assert await store.read(lambda tx: (tx.sync_events.owner("other"), tx.sync_events.get_run("proj", "x"))) == (
        None,
        None,
    )


async def test_runs_by_home_are_capped_per_runtime_and_counted(store: Store) -> None:
    """runs_by_home: at most ``per_runtime`` of each home runtime of the hub project, by project and
    run id; count_by_home: every run of each; another hub project's runs are neither."""
    # Prepare
    runs = [SyncRun("proj", f"run_{n}", "alpha", "rt_a", n, n) for n in range(3)]
    runs += [SyncRun("proj", "run_9", "alpha", "rt_b", 1, 4), SyncRun("proj", "run_x", "beta", "rt_a", 1, 1)]
    await store.write(lambda tx: [tx.sync_events.put_run(run) for run in runs])

    # Execute
    shown = await store.read(lambda tx: tx.sync_events.runs_by_home("alpha", 2))
    counts = await store.read(lambda tx: tx.sync_events.count_by_home("alpha"))

    # Assert
    assert [(r.home_runtime_id, r.run_id) for r in shown] == [("rt_a", "run_0"), ("rt_a", "run_1"), ("rt_b", "run_9")]
    assert shown[-1].pending_gap
    assert counts == {"rt_a": 3, "rt_b": 1}
    assert await store.read(lambda tx: tx.sync_events.count_by_home("nobody")) == {}
