"""Workflows: definitions and their pinned versions, runs, replay protection, steps, outbound notifications.

A run is stored whole (``Run`` as one JSON document, checksummed) beside the columns its lookups
need; the services read it, apply a rule and save it in one transaction with whatever else the
step wrote (a step record, a delivery, a notification, messages). Documents of definitions and
step responses are text the store keeps without reading.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol

from kxm_grpc.domain.workflows.kinds import DefinitionKind
from kxm_grpc.domain.workflows.runs import Run, RunStatus


@dataclass(frozen=True, slots=True)
class StoredDefinition:
    """A definition's current version: its normalised JSON (``document``), its hash, and the document
    of the version runs pin (``pinned_document``).

    A step workflow (``kind`` STEPS) stores its source as canonical JSON in ``document`` and its
    compiled plan (``kxm.compiled-workflow.v1``) as ``pinned_document``, ``hash`` being the plan
    hash (``sha256:`` + hex): its runs pin the plan as stage runs pin a definition version."""

    id: str
    """Global: the webhook route names a definition without its project."""
    project: str
    hash: str
    document: str
    """The current definition as registered, a literal ``secret:`` included (verifying signatures
    needs it): kept in ``workflow_definitions`` only, replaced (and gone) when the definition is."""
    pinned_document: str
    """The version's document with its literal secrets redacted (each ``***``): what the version of
    ``hash`` holds, which runs pin and keep after the definition changed or went. A run never needs
    a secret of its pinned version, so no version keeps a literal secret once it is rotated."""
    register_time: int
    update_time: int
    registered_by: str
    """Who registered it (an operator's name, or ``import`` for ``--workflows``)."""
    kind: DefinitionKind = DefinitionKind.STAGES
    """Never changes for an id (the services refuse it): what pinned to a stage definition stays one."""


class DeliveryKind(enum.Enum):
    """What a signed request asked for."""

    START = "start"
    SIGNAL = "signal"


@dataclass(frozen=True, slots=True)
class StoredDelivery:
    """A start or signal the hub accepted, kept until ``expire_time`` (the replay horizon) to refuse its replay."""

    definition_id: str
    kind: DeliveryKind
    delivery_id: str
    payload_sha256: str
    run_id: str
    signal_key: str
    """The signal's key; empty for a start."""
    receive_time: int
    expire_time: int


@dataclass(frozen=True, slots=True)
class StoredStep:
    """A step a run applied once (a checkpoint, a wait, a signal, …) and the answer it gave.

    A request retried with the same ``request_id`` gets ``response`` back and applies nothing again.
    """

    run_id: str
    request_id: str
    kind: str
    response: str
    """Opaque to the store (the service's encoding of its answer)."""
    create_time: int


@dataclass(frozen=True, slots=True)
class StoredNotification:
    """An outbound POST of a run's state change, delivered at least once.

    Due at ``next_time`` until delivered (``deliver_time`` set); each failed attempt reschedules it.
    """

    id: str
    """Also the delivery id the receiver de-duplicates by."""
    definition_id: str
    run_id: str
    event: str
    body: str
    create_time: int
    next_time: int
    attempts: int = 0
    deliver_time: int | None = None
    last_error: str = ""


class WorkflowRepository(Protocol):
    """Workflow definitions, runs, deliveries (replay protection), steps and notifications."""

    # -- definitions ---------------------------------------------------------------------------------

    def put_definition(self, definition: StoredDefinition) -> None:
        """Insert or replace the definition's current version; keep its version (by hash) for runs to pin.

        The version holds ``pinned_document`` (never ``document``), replacing what a version of the
        same hash held: a hash leaves out secrets, so a rotated secret is the same version. The
        definition's other versions that no run pins are deleted.
        """

    def get_definition(self, definition_id: str) -> StoredDefinition | None:
        """The definition's current version (with its version's ``pinned_document``), or None."""

    def definition_version(self, definition_hash: str) -> str | None:
        """The ``pinned_document`` of the version with this hash (current, or pinned by a run), or None."""

    def list_definitions(
        self, project: str | None, after: str | None, limit: int, *, kind: DefinitionKind | None = None
    ) -> list[StoredDefinition]:
        """Definitions (of ``project``, or all; of ``kind``, or both) ordered by id, after ``after``."""

    def delete_definition(self, definition_id: str) -> bool:
        """Delete the definition and its versions no run pins; whether it existed. Its runs stay."""

    # -- runs ----------------------------------------------------------------------------------------

    def insert_run(self, run: Run, *, payload: str | None = None) -> None:
        """Store a new run and its start payload (the JSON a rerun starts from, purged with the run).

        Raises:
            HubError: (the store's integrity error) a run with its id, or with its
                (definition, delivery id), exists.
        """

    def run_project(self, run_id: str) -> str | None:
        """The run's project (its column only: nothing decoded or checksum-checked), or None."""

    def run_payload(self, run_id: str) -> str | None:
        """The run's start payload, or None (purged, or stored without one)."""

    def save_run(self, run: Run) -> None:
        """Replace the stored run with ``run`` (read and saved in one transaction).

        Raises:
            LookupError: no run with its id is stored (insert it first).
            ValueError: ``run`` differs from the stored run in what is set at its start (its
                definition and hash, project, coordinator, start delivery, payload hash, create time).
        """

    def get_run(self, run_id: str) -> Run | None:
        """The run (of any project), or None.

        Raises:
            DataLoss: (STORAGE_CORRUPTED) the stored row fails its checksum.
        """

    def run_by_delivery(self, definition_id: str, delivery_id: str) -> Run | None:
        """The run the definition's start delivery ``delivery_id`` started, or None."""

    def list_runs(
        self,
        *,
        project: str | None = None,
        coordinator_id: str | None = None,
        status: RunStatus | None = None,
        definition_id: str | None = None,
        before: tuple[int, str] | None = None,
        limit: int,
    ) -> list[Run]:
        """Runs matching every filter given, newest first by (create_time, id), strictly before ``before``."""

    def count_runs(self, project: str) -> int:
        """How many stage runs the project has (every status)."""

    def due_waits(self, now: int, limit: int) -> list[str]:
        """Ids of waiting runs whose wait expired at or before ``now``, earliest first."""

    def ended_before(self, cutoff: int, limit: int) -> list[str]:
        """Ids of runs that ended at or before ``cutoff``, oldest first."""

    def purge_run(self, run_id: str) -> bool:
        """Delete the run, its steps, its notifications and its journal; whether it existed.

        Then delete its definition's versions that no run pins and that are no definition's
        current version. Deliveries stay until their own horizon (``purge_deliveries``).
        """

    # -- deliveries ----------------------------------------------------------------------------------

    def get_delivery(self, definition_id: str, kind: DeliveryKind, delivery_id: str) -> StoredDelivery | None:
        """The definition's accepted delivery of ``kind`` with this id, or None."""

    def delivery_by_payload(self, definition_id: str, kind: DeliveryKind, payload_sha256: str) -> StoredDelivery | None:
        """The earliest accepted delivery of ``kind`` whose body had this hash (a provider's replay), or None."""

    def put_delivery(self, delivery: StoredDelivery) -> None:
        """Record an accepted delivery.

        Raises:
            HubError: (the store's integrity error) the (definition, kind, delivery id) is recorded.
        """

    def purge_deliveries(self, cutoff: int, limit: int) -> int:
        """Delete up to ``limit`` deliveries that expired at or before ``cutoff``; return how many."""

    # -- steps ---------------------------------------------------------------------------------------

    def get_step(self, run_id: str, request_id: str) -> StoredStep | None:
        """The run's step with this request id, or None."""

    def put_step(self, step: StoredStep) -> None:
        """Record a step.

        Raises:
            HubError: (the store's integrity error) the run has a step with this request id.
        """

    # -- notifications -------------------------------------------------------------------------------

    def enqueue_notification(self, notification: StoredNotification) -> None:
        """Queue a notification."""

    def get_notification(self, notification_id: str) -> StoredNotification | None:
        """The notification, or None."""

    def due_notifications(self, now: int, limit: int) -> list[StoredNotification]:
        """Undelivered notifications due at or before ``now``, earliest first (ties by id)."""

    def mark_notification_delivered(self, notification_id: str, now: int) -> bool:
        """Record the notification delivered at ``now``; whether it was undelivered."""

    def reschedule_notification(self, notification_id: str, next_time: int, attempts: int, error: str) -> bool:
        """Record a failed attempt: due again at ``next_time``; whether it was undelivered."""
