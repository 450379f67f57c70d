"""Contract: workflows (definitions and their versions, runs, deliveries, steps, notifications)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pytest

from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.workflows.definitions import Notify
from kxm_grpc.domain.workflows.diversity import Dimension
from kxm_grpc.domain.workflows.evidence import DegradationApproval, EligibleProducer, PeerEvidence, ResolvedPolicy
from kxm_grpc.domain.workflows.runs import (
    CheckpointStatus,
    Escalation,
    EvidenceHash,
    Run,
    RunStatus,
    SignalReceipt,
    StageState,
    StageStatus,
    Transition,
    Wait,
)
from kxm_grpc.errors import DataLoss, HubError, Reason
from kxm_grpc.services.workflows import definitions
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.workflows import (
    DeliveryKind,
    StoredDefinition,
    StoredDelivery,
    StoredNotification,
    StoredStep,
)
from kxm_grpc.store.rows.workflows import (
    run_from_document,
    run_to_document,
    run_to_object,
    signal_receipt_from_document,
    signal_receipt_to_document,
)
from tests.store.contract.conftest import StoreFactory, full_run
from tests.workflows import define


def _run(run_id: str, *, create_time: int = 10, **fields: Any) -> Run:
    """A running run of definition ``wf_a`` in project ``p`` started by delivery ``dlv_<run id>``."""
    started = Run(
        id=run_id,
        definition_id="wf_a",
        definition_hash="h1",
        project="p",
        coordinator_id="agt_a",
        coordinator_name="alice",
        delivery_id=f"dlv_{run_id}",
        payload_sha256="0" * 64,
        prompt_message_id="msg_prompt",
        stages=[StageState("plan", StageStatus.IN_PROGRESS, visit=1, visit_start_time=create_time)],
        policies={},
        create_time=create_time,
        update_time=create_time,
        current_stage="plan",
    )
    return dataclasses.replace(started, **fields)


LITERAL_SECRET = "literal-secret-0123456789"


def _definition(
    definition_id: str, hash_: str, *, project: str = "p", time: int = 1, secret: str = LITERAL_SECRET
) -> StoredDefinition:
    """A definition whose ``document`` holds a literal secret and whose ``pinned_document`` does not."""
    document = f'{{"id":"{definition_id}","v":"{hash_}","secret":"{secret}"}}'
    pinned = f'{{"id":"{definition_id}","v":"{hash_}","secret":"***"}}'
    return StoredDefinition(definition_id, project, hash_, document, pinned, 1, time, "ops")


def _stored_text(tx: Tx) -> list[str]:
    """Every definition document of both tables, as stored (behind the store's API)."""
    conn = tx.workflows._conn  # type: ignore[attr-defined]
    rows = conn.execute("SELECT document FROM workflow_definition_versions").fetchall()
    rows += conn.execute("SELECT document FROM workflow_definitions").fetchall()
    return [str(row[0]) for row in rows]


def _delivery(delivery_id: str, *, kind: DeliveryKind = DeliveryKind.START, **fields: Any) -> StoredDelivery:
    made = StoredDelivery("wf_a", kind, delivery_id, "f" * 64, "wfr_1", "", 5, 1_000)
    return dataclasses.replace(made, **fields)


def _notification(notification_id: str, *, next_time: int = 10, run_id: str = "wfr_1") -> StoredNotification:
    return StoredNotification(notification_id, "wf_a", run_id, "waiting", '{"status":"waiting"}', 5, next_time)


def _tamper(sql: str, *params: object) -> Callable[[Tx], object]:
    """A unit of work changing a stored row behind the store's back (as bit rot or a foreign tool would)."""
    return lambda tx: tx.workflows._conn.execute(sql, params)  # type: ignore[attr-defined]


# -- the run document --------------------------------------------------------------------------------


def test_a_run_document_decodes_to_an_equal_run_with_every_field() -> None:
    """run_from_document(run_to_document(run)) == run for a run with every optional field set (and for
    a fresh one); enums are stored as their values and tuples as arrays."""
    # Prepare
    full, fresh = full_run(), _run("wfr_1")

    # Execute
    document = run_to_document(full)
    decoded = run_from_document(document)

    # Assert
    assert decoded == full
    assert run_from_document(run_to_document(fresh)) == fresh
    assert isinstance(decoded.stages[0].evidence["plan"], tuple)
    assert isinstance(decoded.policies["plan"]["review"].distinct_by[0], Dimension)
    stored = json.loads(document)
    assert (stored["v"], stored["status"], stored["stages"][0]["status"]) == (1, "waiting", "warning")
    assert stored["policies"]["plan"]["review"]["distinct_by"] == ["provider", "model"]
    assert stored["stages"][0]["escalation"]["ruling_status"] == "warning"
    assert document.isascii()


def _fields(kind: type) -> set[str]:
    return {f.name for f in dataclasses.fields(kind)}


def test_the_run_document_names_every_field_of_every_type() -> None:
    """Each encoded object holds exactly its type's fields (a field added to a type must be added to the codec)."""
    # Execute
    data = run_to_object(full_run())
    stage = data["stages"][0]
    policy = data["policies"]["plan"]["review"]

    # Assert
    assert set(data) - {"v"} == _fields(Run)
    assert set(stage) == _fields(StageState)
    assert set(stage["escalation"]) == _fields(Escalation)
    assert set(stage["peer_evidence"]["review"][0]) == _fields(PeerEvidence)
    assert set(policy) == _fields(ResolvedPolicy)
    assert set(policy["eligible"][0]) == _fields(EligibleProducer)
    assert set(data["wait"]) == _fields(Wait)
    assert set(data["transitions"][0]) == _fields(Transition)
    assert set(data["plan_hash"]) == _fields(EvidenceHash)
    assert set(data["approvals"][0]) == _fields(DegradationApproval)


def test_a_signal_receipt_round_trips() -> None:
    """A signal receipt (all fields set, and with its defaults) decodes to an equal receipt."""
    # Prepare
    receipt = SignalReceipt("dlv_s", "a" * 64, "deploy", "build", CheckpointStatus.FAILED, 30, True, ("review",), "m")
    plain = SignalReceipt("dlv_t", "b" * 64, "deploy", "build", CheckpointStatus.PASSED, 31, False)

    # Execute
    decoded = [signal_receipt_from_document(signal_receipt_to_document(r)) for r in (receipt, plain)]

    # Assert
    assert decoded == [receipt, plain]
    assert set(json.loads(signal_receipt_to_document(receipt))) == _fields(SignalReceipt)


def test_a_document_of_another_format_is_refused() -> None:
    """A document without format 1 is not read as a run."""
    with pytest.raises(ValueError):
        run_from_document(json.dumps({**run_to_object(_run("wfr_1")), "v": 2}))
    with pytest.raises(ValueError):
        run_from_document("[]")


# -- definitions -----------------------------------------------------------------------------------


async def test_a_definition_reads_back_and_a_put_replaces_its_current_version(store: Store) -> None:
    """put then get returns the definition; a second put replaces it and keeps its new version; the
    replaced version goes when no run pins it and stays while one does."""
    # Prepare
    first, second, third = _definition("wf_a", "h1"), _definition("wf_a", "h2", time=2), _definition("wf_a", "h3")

    # Execute
    await store.write(lambda tx: tx.workflows.put_definition(first))
    read_first = await store.read(lambda tx: tx.workflows.get_definition("wf_a"))
    await store.write(lambda tx: tx.workflows.insert_run(_run("wfr_1", definition_hash="h1")))
    await store.write(lambda tx: tx.workflows.put_definition(second))
    after_second = await store.read(
        lambda tx: (tx.workflows.get_definition("wf_a"), tx.workflows.definition_version("h1"))
    )
    await store.write(lambda tx: tx.workflows.put_definition(third))
    versions = await store.read(lambda tx: [tx.workflows.definition_version(h) for h in ("h1", "h2", "h3")])
    await store.write(lambda tx: tx.workflows.put_definition(third))  # the same version again: unchanged

    # Assert
    assert read_first == first
    assert after_second == (second, first.pinned_document)  # h1 is pinned by wfr_1
    assert versions == [first.pinned_document, None, third.pinned_document]  # h2: no run, no longer current
    assert await store.read(lambda tx: tx.workflows.get_definition("wf_a")) == third
    assert await store.read(lambda tx: tx.workflows.get_definition("wf_none")) is None
    assert await store.read(lambda tx: tx.workflows.definition_version("h_none")) is None


async def test_a_version_holds_the_pinned_document_and_the_definition_its_document(store: Store) -> None:
    """The version of a definition's hash holds ``pinned_document`` (no literal secret), its row the
    ``document``; get and list return both, each from its table."""
    # Prepare
    definition = _definition("wf_a", "h1", secret="the-literal-secret-0123")

    # Execute
    await store.write(lambda tx: tx.workflows.put_definition(definition))
    read = await store.read(lambda tx: tx.workflows.get_definition("wf_a"))
    listed = await store.read(lambda tx: tx.workflows.list_definitions("p", None, 10))
    version = await store.read(lambda tx: tx.workflows.definition_version("h1"))
    raw = await store.read(
        lambda tx: tx.workflows._conn.execute(  # type: ignore[attr-defined]
            "SELECT v.document, d.document FROM workflow_definition_versions v "
            "JOIN workflow_definitions d ON d.hash = v.hash WHERE v.hash = 'h1'"
        ).fetchone()
    )

    # Assert
    assert read == definition and listed == [definition]
    assert version == definition.pinned_document
    assert tuple(raw) == (definition.pinned_document, definition.document)
    assert "the-literal-secret-0123" not in version


async def test_a_rotated_literal_secret_stays_in_no_version(store: Store) -> None:
    """A secret rotation keeps the hash: the version a run pins is the same, and the new registration's
    ``pinned_document`` replaces what it held. Afterwards no stored document holds the old literal
    secret (the version, the definition's row), while runs still pin the version."""
    # Prepare: a version of h1 that holds the old secret, as a store before the fix wrote it.
    old, new = "old-literal-secret-0123", "new-literal-secret-4567"
    before = _definition("wf_a", "h1", secret=old)
    leaky = dataclasses.replace(before, pinned_document=before.document)
    await store.write(lambda tx: tx.workflows.put_definition(leaky))
    await store.write(lambda tx: tx.workflows.insert_run(_run("wfr_1", definition_hash="h1")))
    leaked = await store.read(_stored_text)

    # Execute: the operator rotates the secret (same hash), and rotates it back to an env name.
    rotated = _definition("wf_a", "h1", time=2, secret=new)
    await store.write(lambda tx: tx.workflows.put_definition(rotated))
    after = await store.read(_stored_text)
    read = await store.read(lambda tx: (tx.workflows.get_definition("wf_a"), tx.workflows.definition_version("h1")))
    to_env = dataclasses.replace(rotated, document='{"secretEnv":"WF_A"}', pinned_document='{"secretEnv":"WF_A"}')
    await store.write(lambda tx: tx.workflows.put_definition(to_env))
    last = await store.read(_stored_text)

    # Assert
    assert any(old in text for text in leaked)  # the fixture did store it
    assert [text for text in after if old in text] == []
    assert read == (rotated, rotated.pinned_document)
    assert [text for text in last if old in text or new in text] == []
    assert await store.read(lambda tx: tx.workflows.definition_version("h1")) == '{"secretEnv":"WF_A"}'
    assert await store.read(lambda tx: tx.workflows.get_run("wfr_1")) is not None


async def test_a_registered_secret_rotation_leaves_no_old_secret_and_the_pinned_version_loads(store: Store) -> None:
    """Through the service: a definition with literal start, signal and notify secrets, a run pinning
    it, then the secrets rotated (the same hash). No stored document holds an old secret, the
    version holds the redacted definition, and it loads structurally as the run's pinned version."""
    # Prepare
    notify = {"url": "https://ci.example/events"}
    first = define(
        "wf_a",
        secret="old-start-secret-0123",
        signalSecret="old-signal-secret-0123",
        notify={**notify, "secret": "old-notify-secret-0123"},
    )
    registered = await definitions.register(
        store, Caller(CredentialKind.ADMIN), json.dumps(first), format="json", validate_only=False, now=1
    )
    await store.write(lambda tx: tx.workflows.insert_run(_run("wfr_1", definition_hash=registered.stored.hash)))

    # Execute
    second = define(
        "wf_a",
        secret="new-start-secret-4567",
        signalSecret="new-signal-secret-4567",
        notify={**notify, "secret": "new-notify-secret-4567"},
    )
    rotated = await definitions.register(
        store, Caller(CredentialKind.ADMIN), json.dumps(second), format="json", validate_only=False, now=2
    )
    stored = await store.read(_stored_text)
    version = await store.read(lambda tx: tx.workflows.definition_version(registered.stored.hash))

    # Assert
    assert rotated.stored.hash == registered.stored.hash and not rotated.unchanged
    assert [text for text in stored if "old-" in text] == []
    assert version is not None and "new-" not in version
    assert version == definitions.pinned_document(rotated.definition)
    pinned = definitions.structure(version)
    current = definitions.structure(rotated.stored.document)
    assert (pinned.secret, pinned.signal_secret, pinned.notify) == ("***", "***", Notify(notify["url"], "***"))
    assert pinned.hash == current.hash and pinned.stages == current.stages
    assert dataclasses.replace(current, secret="***", signal_secret="***", notify=pinned.notify) == pinned
    with pytest.raises(HubError):  # no signature is verified with a pinned version: it has no secret
        definitions.resolved(version, {})


async def test_definitions_are_listed_by_id_per_project_or_all_after_the_cursor(store: Store) -> None:
    """list_definitions: by id, of one project or of all, after ``after``, at most ``limit``."""
    # Prepare
    await store.write(
        lambda tx: [
            tx.workflows.put_definition(d)
            for d in (_definition("wf_c", "hc"), _definition("wf_a", "ha"), _definition("wf_b", "hb", project="q"))
        ]
    )

    # Execute
    every = await store.read(lambda tx: tx.workflows.list_definitions(None, None, 10))
    of_p = await store.read(lambda tx: tx.workflows.list_definitions("p", None, 10))
    after = await store.read(lambda tx: tx.workflows.list_definitions(None, "wf_a", 1))
    of_none = await store.read(lambda tx: tx.workflows.list_definitions("r", None, 10))

    # Assert
    assert [d.id for d in every] == ["wf_a", "wf_b", "wf_c"]
    assert [d.id for d in of_p] == ["wf_a", "wf_c"]
    assert [d.id for d in after] == ["wf_b"]
    assert of_none == []


async def test_deleting_a_definition_keeps_its_runs_and_their_pinned_version(store: Store) -> None:
    """delete_definition removes the definition and its unpinned versions; its runs and the version
    they pin stay; a second delete finds nothing."""
    # Prepare
    await store.write(lambda tx: tx.workflows.put_definition(_definition("wf_a", "h1")))
    await store.write(lambda tx: tx.workflows.insert_run(_run("wfr_1", definition_hash="h1")))
    await store.write(lambda tx: tx.workflows.put_definition(_definition("wf_a", "h2")))

    # Execute
    deleted = await store.write(lambda tx: tx.workflows.delete_definition("wf_a"))
    again = await store.write(lambda tx: tx.workflows.delete_definition("wf_a"))

    # Assert
    assert (deleted, again) == (True, False)
    assert await store.read(lambda tx: tx.workflows.get_definition("wf_a")) is None
    assert await store.read(lambda tx: tx.workflows.definition_version("h1")) is not None
    assert await store.read(lambda tx: tx.workflows.definition_version("h2")) is None
    assert await store.read(lambda tx: tx.workflows.get_run("wfr_1")) is not None


# -- runs ------------------------------------------------------------------------------------------


async def test_a_run_reads_back_with_every_field_by_id_and_by_delivery(store: Store) -> None:
    """insert_run then get_run and run_by_delivery return the run as inserted, every field included."""
    # Prepare
    full = full_run()

    # Execute
    await store.write(lambda tx: tx.workflows.insert_run(full))

    # Assert
    assert await store.read(lambda tx: tx.workflows.get_run("wfr_full")) == full
    assert await store.read(lambda tx: tx.workflows.run_by_delivery("wf_a", "dlv_full")) == full
    assert await store.read(lambda tx: tx.workflows.run_by_delivery("wf_b", "dlv_full")) is None
    assert await store.read(lambda tx: tx.workflows.get_run("wfr_none")) is None


async def test_a_saved_run_replaces_the_stored_one_and_its_columns(store: Store) -> None:
    """save_run replaces the run read and modified in one transaction; its columns follow (the status
    filter, the wait and end indexes); saving a run never inserted raises LookupError, and one whose
    columns set at its start changed ValueError (nothing written)."""
    # Prepare
    await store.write(lambda tx: tx.workflows.insert_run(_run("wfr_1")))

    def wait(tx: Tx) -> Run:
        run = tx.workflows.get_run("wfr_1")
        assert run is not None
        run.status = RunStatus.WAITING
        run.wait = Wait("plan", "deploy", "", 20, 50)
        run.stages[0].status = StageStatus.WAITING
        tx.workflows.save_run(run)
        return run

    # Execute
    waiting = await store.write(wait)
    read_waiting = await store.read(lambda tx: tx.workflows.get_run("wfr_1"))
    due = await store.read(lambda tx: tx.workflows.due_waits(50, 10))
    ended = dataclasses.replace(waiting, status=RunStatus.FAILED, wait=None, current_stage=None, end_time=60)
    await store.write(lambda tx: tx.workflows.save_run(ended))
    after_end = await store.read(
        lambda tx: (
            tx.workflows.due_waits(1_000, 10),
            tx.workflows.ended_before(60, 10),
            [r.id for r in tx.workflows.list_runs(status=RunStatus.FAILED, limit=10)],
        )
    )
    with pytest.raises(LookupError):
        await store.write(lambda tx: tx.workflows.save_run(_run("wfr_none")))
    with pytest.raises(ValueError):
        await store.write(lambda tx: tx.workflows.save_run(dataclasses.replace(ended, project="q", end_time=70)))

    # Assert
    assert read_waiting == waiting
    assert due == ["wfr_1"]
    assert after_end == ([], ["wfr_1"], ["wfr_1"])
    assert await store.read(lambda tx: tx.workflows.get_run("wfr_1")) == ended


async def test_a_second_run_for_the_same_delivery_or_id_is_refused(store: Store) -> None:
    """One run per (definition, delivery id) and per id, refused with the store's error; the same
    delivery id of another definition starts its own run."""
    # Prepare
    await store.write(lambda tx: tx.workflows.insert_run(_run("wfr_1", delivery_id="dlv_x")))

    # Execute
    with pytest.raises(HubError):
        await store.write(lambda tx: tx.workflows.insert_run(_run("wfr_2", delivery_id="dlv_x")))
    with pytest.raises(HubError):
        await store.write(lambda tx: tx.workflows.insert_run(_run("wfr_1", delivery_id="dlv_y")))
    await store.write(lambda tx: tx.workflows.insert_run(_run("wfr_3", delivery_id="dlv_x", definition_id="wf_b")))

    # Assert
    assert await store.read(lambda tx: tx.workflows.get_run("wfr_2")) is None
    stored = await store.read(lambda tx: tx.workflows.get_run("wfr_1"))
    assert stored is not None and stored.delivery_id == "dlv_x"
    assert [r.id for r in await store.read(lambda tx: tx.workflows.list_runs(limit=10))] == ["wfr_3", "wfr_1"]


async def test_runs_are_listed_newest_first_by_filter_with_keyset_paging(store: Store) -> None:
    """list_runs: newest first by (create_time, id), ties by id descending; every filter given
    applies; ``before`` pages strictly after the last row of the previous page."""
    # Prepare
    runs = [
        _run("wfr_a", create_time=10),
        _run("wfr_b", create_time=20),
        _run("wfr_c", create_time=20),
        _run("wfr_d", create_time=30, coordinator_id="agt_x"),
        _run("wfr_e", create_time=40, project="q", definition_id="wf_q"),
        _run("wfr_f", create_time=50, status=RunStatus.COMPLETED, end_time=55, current_stage=None),
    ]
    await store.write(lambda tx: [tx.workflows.insert_run(r) for r in runs])

    def ids(**filters: Any) -> Callable[[Tx], list[str]]:
        return lambda tx: [r.id for r in tx.workflows.list_runs(**{"limit": 10, **filters})]

    # Execute
    every = await store.read(ids())
    pages: list[list[str]] = []
    before: tuple[int, str] | None = None
    while True:
        page = await store.read(lambda tx, b=before: tx.workflows.list_runs(project="p", before=b, limit=2))
        if not page:
            break
        pages.append([r.id for r in page])
        before = (page[-1].create_time, page[-1].id)
    filtered = {
        "coordinator": await store.read(ids(coordinator_id="agt_x")),
        "status": await store.read(ids(status=RunStatus.RUNNING, project="p")),
        "definition": await store.read(ids(definition_id="wf_q")),
        "project and coordinator": await store.read(ids(project="q", coordinator_id="agt_x")),
    }

    # Assert
    assert every == ["wfr_f", "wfr_e", "wfr_d", "wfr_c", "wfr_b", "wfr_a"]
    assert pages == [["wfr_f", "wfr_d"], ["wfr_c", "wfr_b"], ["wfr_a"]]
    assert filtered == {
        "coordinator": ["wfr_d"],
        "status": ["wfr_d", "wfr_c", "wfr_b", "wfr_a"],
        "definition": ["wfr_e"],
        "project and coordinator": [],
    }


async def test_due_waits_are_waiting_runs_whose_wait_expired_earliest_first(store: Store) -> None:
    """due_waits: ids of waiting runs with wait expire time at or before now, by expire time then id, at
    most ``limit``; ended_before: ids of runs ended at or before the cutoff, oldest first."""

    # Prepare
    def waiting(run_id: str, expire_time: int) -> Run:
        return _run(run_id, status=RunStatus.WAITING, wait=Wait("plan", "deploy", "", 5, expire_time))

    runs = [
        waiting("wfr_late", 30),
        waiting("wfr_b", 20),
        waiting("wfr_a", 20),
        waiting("wfr_future", 100),
        _run("wfr_running"),
        _run("wfr_old", status=RunStatus.CANCELLED, end_time=40, current_stage=None),
        _run("wfr_older", status=RunStatus.COMPLETED, end_time=35, current_stage=None),
    ]
    await store.write(lambda tx: [tx.workflows.insert_run(r) for r in runs])

    # Execute
    due = await store.read(lambda tx: tx.workflows.due_waits(30, 10))
    limited = await store.read(lambda tx: tx.workflows.due_waits(30, 2))
    none_yet = await store.read(lambda tx: tx.workflows.due_waits(19, 10))
    ended = await store.read(lambda tx: tx.workflows.ended_before(40, 10))
    ended_early = await store.read(lambda tx: tx.workflows.ended_before(39, 10))

    # Assert
    assert due == ["wfr_a", "wfr_b", "wfr_late"]
    assert limited == ["wfr_a", "wfr_b"]
    assert none_yet == []
    assert ended == ["wfr_older", "wfr_old"]
    assert ended_early == ["wfr_older"]


async def test_purging_a_run_deletes_its_steps_notifications_and_unpinned_versions_not_deliveries(
    store: Store,
) -> None:
    """purge_run deletes the run, its steps and notifications (not another run's), then the versions no
    run pins that are no definition's current version; the deliveries stay for their horizon."""
    # Prepare
    await store.write(lambda tx: tx.workflows.put_definition(_definition("wf_a", "h1")))
    await store.write(
        lambda tx: [
            tx.workflows.insert_run(_run("wfr_1", definition_hash="h1")),
            tx.workflows.insert_run(_run("wfr_2", definition_hash="h1")),
        ]
    )
    await store.write(lambda tx: tx.workflows.put_definition(_definition("wf_a", "h2")))
    await store.write(
        lambda tx: [
            tx.workflows.put_step(StoredStep("wfr_1", "req_1", "checkpoint", "{}", 5)),
            tx.workflows.put_step(StoredStep("wfr_2", "req_1", "checkpoint", "{}", 5)),
            tx.workflows.enqueue_notification(_notification("ntf_1", run_id="wfr_1")),
            tx.workflows.enqueue_notification(_notification("ntf_2", run_id="wfr_2")),
            tx.workflows.put_delivery(_delivery("dlv_wfr_1", run_id="wfr_1")),
        ]
    )

    # Execute
    first = await store.write(lambda tx: tx.workflows.purge_run("wfr_1"))
    h1_while_pinned = await store.read(lambda tx: tx.workflows.definition_version("h1"))
    second = await store.write(lambda tx: tx.workflows.purge_run("wfr_2"))
    again = await store.write(lambda tx: tx.workflows.purge_run("wfr_2"))

    # Assert
    assert (first, second, again) == (True, True, False)
    assert h1_while_pinned is not None
    left = await store.read(
        lambda tx: (
            tx.workflows.get_run("wfr_1"),
            tx.workflows.get_step("wfr_1", "req_1"),
            tx.workflows.get_notification("ntf_1"),
            tx.workflows.definition_version("h1"),
            tx.workflows.definition_version("h2"),
            tx.workflows.get_delivery("wf_a", DeliveryKind.START, "dlv_wfr_1"),
        )
    )
    assert left[:4] == (None, None, None, None)
    assert left[4] is not None  # the current version
    assert left[5] == _delivery("dlv_wfr_1", run_id="wfr_1")


async def test_a_runs_project_reads_from_its_column(store: Store) -> None:
    """run_project answers the run's project without decoding it, None for an unknown run."""
    await store.write(lambda tx: tx.workflows.put_definition(_definition("wf_a", "h1")))
    await store.write(lambda tx: tx.workflows.insert_run(_run("wfr_1", definition_hash="h1")))

    found = await store.read(lambda tx: (tx.workflows.run_project("wfr_1"), tx.workflows.run_project("wfr_x")))

    assert found == (_run("wfr_1", definition_hash="h1").project, None)


async def test_a_run_keeps_its_start_payload_until_it_is_purged(store: Store) -> None:
    """insert_run stores the start payload beside the run (for a rerun); purge_run deletes it."""
    await store.write(lambda tx: tx.workflows.put_definition(_definition("wf_a", "h1")))
    await store.write(
        lambda tx: [
            tx.workflows.insert_run(_run("wfr_1", definition_hash="h1"), payload='{"issue": "KXM-1"}'),
            tx.workflows.insert_run(_run("wfr_2", definition_hash="h1")),
        ]
    )

    stored = await store.read(lambda tx: (tx.workflows.run_payload("wfr_1"), tx.workflows.run_payload("wfr_2")))
    await store.write(lambda tx: tx.workflows.purge_run("wfr_1"))
    purged = await store.read(lambda tx: tx.workflows.run_payload("wfr_1"))

    assert stored == ('{"issue": "KXM-1"}', None)
    assert purged is None


async def test_runs_and_the_rest_survive_a_restart(store_factory: StoreFactory) -> None:
    """A run, a definition, a delivery, a step and a notification written before a restart read back after it."""
    # Prepare
    store = await store_factory.open()
    full = full_run()
    await store.write(
        lambda tx: [
            tx.workflows.put_definition(_definition("wf_a", "h1")),
            tx.workflows.insert_run(full),
            tx.workflows.put_delivery(_delivery("dlv_full", run_id="wfr_full")),
            tx.workflows.put_step(StoredStep("wfr_full", "req_1", "checkpoint", '{"ok":true}', 5)),
            tx.workflows.enqueue_notification(_notification("ntf_1", run_id="wfr_full")),
        ]
    )

    # Execute
    store = await store_factory.reopen(store)

    # Assert
    assert await store.read(lambda tx: tx.workflows.get_run("wfr_full")) == full
    assert await store.read(lambda tx: tx.workflows.get_definition("wf_a")) == _definition("wf_a", "h1")
    assert await store.read(lambda tx: tx.workflows.get_delivery("wf_a", DeliveryKind.START, "dlv_full")) is not None
    assert await store.read(lambda tx: tx.workflows.get_step("wfr_full", "req_1")) == StoredStep(
        "wfr_full", "req_1", "checkpoint", '{"ok":true}', 5
    )
    assert await store.read(lambda tx: tx.workflows.due_notifications(10, 10)) == [
        _notification("ntf_1", run_id="wfr_full")
    ]


async def test_a_run_whose_stored_bytes_changed_is_refused_with_data_loss(store: Store) -> None:
    """A flipped byte in a run's document, a changed column, or a row without its checksum: every read
    of the run raises DataLoss naming it (STORAGE_CORRUPTED); other runs read as before."""
    # Prepare
    await store.write(lambda tx: [tx.workflows.insert_run(r) for r in (full_run(), _run("wfr_2"))])
    document = await store.read(
        lambda tx: tx.workflows._conn.execute(  # type: ignore[attr-defined]
            "SELECT document FROM workflow_runs WHERE id = 'wfr_full'"
        ).fetchone()[0]
    )
    at = document.index('"attempts":2') + len('"attempts":')
    flipped = document[:at] + chr(ord(document[at]) ^ 1) + document[at + 1 :]  # 2 -> 3
    await store.write(_tamper("UPDATE workflow_runs SET document = ? WHERE id = 'wfr_full'", flipped))

    # Execute
    reads = {
        "get_run": lambda tx: tx.workflows.get_run("wfr_full"),
        "run_by_delivery": lambda tx: tx.workflows.run_by_delivery("wf_a", "dlv_full"),
        "list_runs": lambda tx: tx.workflows.list_runs(project="p", limit=10),
    }
    refused = {}
    for name, work in reads.items():
        with pytest.raises(DataLoss) as caught:
            await store.read(work)
        refused[name] = (caught.value.reason, caught.value.metadata)
    with pytest.raises(DataLoss) as in_write:
        await store.write(lambda tx: tx.workflows.get_run("wfr_full"))
    columns = []
    for column, value in (("status", "completed"), ("wait_expire_time", 1), ("checksum", "")):
        await store.write(_tamper(f"UPDATE workflow_runs SET {column} = ? WHERE id = 'wfr_2'", value))
        with pytest.raises(DataLoss):
            await store.read(lambda tx: tx.workflows.get_run("wfr_2"))
        columns.append(column)

    # Assert
    assert flipped != document and len(flipped) == len(document)
    assert refused == dict.fromkeys(reads, (Reason.STORAGE_CORRUPTED, {"runId": "wfr_full"}))
    assert in_write.value.reason is Reason.STORAGE_CORRUPTED
    assert columns == ["status", "wait_expire_time", "checksum"]


# -- deliveries ------------------------------------------------------------------------------------


async def test_a_delivery_is_found_by_id_and_by_payload_and_recorded_once(store: Store) -> None:
    """get_delivery by (definition, kind, id); delivery_by_payload the earliest with the body hash; a
    second record of the same (definition, kind, id) is refused; a signal and a start may share an id."""
    # Prepare
    start = _delivery("dlv_1", receive_time=7)
    signal = _delivery("dlv_1", kind=DeliveryKind.SIGNAL, signal_key="deploy", payload_sha256="a" * 64)
    earlier = _delivery("dlv_0", receive_time=6)
    await store.write(lambda tx: [tx.workflows.put_delivery(d) for d in (start, signal, earlier)])

    # Execute
    with pytest.raises(HubError):
        await store.write(lambda tx: tx.workflows.put_delivery(_delivery("dlv_1", payload_sha256="b" * 64)))
    found = await store.read(
        lambda tx: (
            tx.workflows.get_delivery("wf_a", DeliveryKind.START, "dlv_1"),
            tx.workflows.get_delivery("wf_a", DeliveryKind.SIGNAL, "dlv_1"),
            tx.workflows.get_delivery("wf_b", DeliveryKind.START, "dlv_1"),
            tx.workflows.delivery_by_payload("wf_a", DeliveryKind.START, "f" * 64),
            tx.workflows.delivery_by_payload("wf_a", DeliveryKind.START, "a" * 64),
            tx.workflows.delivery_by_payload("wf_a", DeliveryKind.SIGNAL, "a" * 64),
        )
    )

    # Assert
    assert found == (start, signal, None, earlier, None, signal)


async def test_deliveries_are_purged_once_expired_at_most_limit_at_a_time(store: Store) -> None:
    """purge_deliveries deletes deliveries expired at or before the cutoff, oldest first, up to ``limit``."""
    # Prepare
    await store.write(
        lambda tx: [
            tx.workflows.put_delivery(_delivery(f"dlv_{expire}", expire_time=expire)) for expire in (10, 20, 30, 40)
        ]
    )

    # Execute
    first = await store.write(lambda tx: tx.workflows.purge_deliveries(30, 2))
    second = await store.write(lambda tx: tx.workflows.purge_deliveries(30, 2))
    third = await store.write(lambda tx: tx.workflows.purge_deliveries(30, 2))

    # Assert
    assert (first, second, third) == (2, 1, 0)
    left = await store.read(
        lambda tx: [tx.workflows.get_delivery("wf_a", DeliveryKind.START, f"dlv_{e}") for e in (10, 20, 30, 40)]
    )
    assert [d is not None for d in left] == [False, False, False, True]


# -- steps -----------------------------------------------------------------------------------------


async def test_a_step_reads_back_and_is_recorded_once(store: Store) -> None:
    """put_step then get_step returns it; a second step of the run with the request id is refused and
    the first answer stays; another run may use the same request id."""
    # Prepare
    step = StoredStep("wfr_1", "req_1", "checkpoint", '{"status":"passed","é":1}', 5)
    await store.write(lambda tx: tx.workflows.put_step(step))

    # Execute
    with pytest.raises(HubError):
        await store.write(lambda tx: tx.workflows.put_step(dataclasses.replace(step, response="{}")))
    await store.write(lambda tx: tx.workflows.put_step(dataclasses.replace(step, run_id="wfr_2")))

    # Assert
    assert await store.read(lambda tx: tx.workflows.get_step("wfr_1", "req_1")) == step
    assert await store.read(lambda tx: tx.workflows.get_step("wfr_1", "req_2")) is None
    assert await store.read(lambda tx: tx.workflows.get_step("wfr_2", "req_1")) is not None


# -- notifications ---------------------------------------------------------------------------------


async def test_notifications_are_due_until_delivered_and_rescheduled_after_a_failure(store: Store) -> None:
    """due_notifications: undelivered ones due at or before now, by next time then id; a failed attempt
    moves one later with its count and error; a delivered one is never due again nor rescheduled."""
    # Prepare
    await store.write(
        lambda tx: [
            tx.workflows.enqueue_notification(n)
            for n in (
                _notification("ntf_b", next_time=10),
                _notification("ntf_a", next_time=10),
                _notification("ntf_c", next_time=50),
            )
        ]
    )

    # Execute
    due = await store.read(lambda tx: [n.id for n in tx.workflows.due_notifications(10, 10)])
    limited = await store.read(lambda tx: [n.id for n in tx.workflows.due_notifications(100, 1)])
    rescheduled = await store.write(
        lambda tx: tx.workflows.reschedule_notification("ntf_a", 60, 1, "503 from receiver")
    )
    delivered = await store.write(lambda tx: tx.workflows.mark_notification_delivered("ntf_b", 12))
    twice = await store.write(
        lambda tx: (
            tx.workflows.mark_notification_delivered("ntf_b", 13),
            tx.workflows.reschedule_notification("ntf_b", 70, 2, "x"),
            tx.workflows.mark_notification_delivered("ntf_none", 13),
        )
    )
    due_later = await store.read(lambda tx: [n.id for n in tx.workflows.due_notifications(60, 10)])

    # Assert
    assert due == ["ntf_a", "ntf_b"]
    assert limited == ["ntf_a"]
    assert (rescheduled, delivered, twice) == (True, True, (False, False, False))
    assert due_later == ["ntf_c", "ntf_a"]
    assert await store.read(lambda tx: tx.workflows.get_notification("ntf_a")) == dataclasses.replace(
        _notification("ntf_a"), next_time=60, attempts=1, last_error="503 from receiver"
    )
    assert await store.read(lambda tx: tx.workflows.get_notification("ntf_b")) == dataclasses.replace(
        _notification("ntf_b"), deliver_time=12
    )
    assert await store.read(lambda tx: tx.workflows.get_notification("ntf_none")) is None
