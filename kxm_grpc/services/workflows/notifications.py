"""Outbound notifications of run state changes: claimed, sent, marked; at least once.

A step that makes a run wait or end queues a notification in its own transaction
(``events.publish``). A sender (``kxm_grpc/server/notifications.py``) claims a batch of due ones
(``claim``: each is moved ``CLAIM_FOR`` later in the claiming transaction, so another replica's
sender leaves it alone while this one tries), POSTs each signed with ``kxm-webhook-v1`` (kind
``notify``, the notification id as the delivery id the receiver de-duplicates by), and marks it
delivered or reschedules it with exponential backoff (``retry_delay``). A failing receiver never
blocks a run: only its queue waits. A notification is kept, retried, until its run is purged; a
replica that cannot resolve the notify secret reschedules it the same way (another replica, or
this one once its environment is fixed, sends it). It is dropped (marked delivered unsent) only
when its definition was deleted or no longer has ``notify``.
"""

from __future__ import annotations

from dataclasses import dataclass

from kxm_grpc.domain.clock import seconds
from kxm_grpc.domain.workflows.kinds import DefinitionKind
from kxm_grpc.store import Store, Tx
from kxm_grpc.store.protocols.workflows import StoredNotification

CLAIM_FOR = seconds(60)
"""How long a claimed notification is left to its claimer before another sender may try it."""
RETRY_FIRST = seconds(1)
RETRY_MAX = seconds(3_600)
MAX_ERROR_CHARS = 500


@dataclass(frozen=True, slots=True)
class Claimed:
    """A notification to send now, with the definition that says where to and names the secret to
    sign with (the sender resolves only that one: ``webhooks.resolve_secret``, ``Secret.NOTIFY``)."""

    notification: StoredNotification
    definition_document: str | None
    """The definition's current document (its ``notify`` URL and secret), None if it was deleted."""


def retry_delay(attempts: int) -> int:
    """The wait before the next try after ``attempts`` failures: 1 s doubling, at most 1 h."""
    return int(min(RETRY_MAX, RETRY_FIRST * 2 ** max(0, attempts - 1)))


async def claim(store: Store, *, now: int, limit: int) -> list[Claimed]:
    """Claim up to ``limit`` due notifications (moved ``CLAIM_FOR`` later as they are claimed)."""

    def work(tx: Tx) -> list[Claimed]:
        claimed = []
        for due in tx.workflows.due_notifications(now, limit):
            tx.workflows.reschedule_notification(due.id, now + CLAIM_FOR, due.attempts, due.last_error)
            stored = tx.workflows.get_definition(due.definition_id)
            # The run's project must still own the definition id (deleted and taken by another
            # project since): never POST one project's run to another project's receiver.
            owner = tx.workflows.run_project(due.run_id) if stored is not None else None
            same = stored is not None and owner == stored.project
            # A step workflow notifies nothing of a stage run (an id keeps its kind, so only a
            # deleted and re-registered id gets here): dropped as for a deleted definition.
            stage = stored is not None and stored.kind is DefinitionKind.STAGES
            claimed.append(Claimed(due, stored.document if stored is not None and same and stage else None))
        return claimed

    return await store.write(work)


async def delivered(store: Store, notification_id: str, *, now: int) -> None:
    await store.write(lambda tx: tx.workflows.mark_notification_delivered(notification_id, now))


async def failed(store: Store, notification: StoredNotification, error: str, *, now: int) -> int:
    """Reschedule after a failed try; returns when it is due again."""
    attempts = notification.attempts + 1
    due = now + retry_delay(attempts)
    await store.write(
        lambda tx: tx.workflows.reschedule_notification(notification.id, due, attempts, error[:MAX_ERROR_CHARS])
    )
    return due
