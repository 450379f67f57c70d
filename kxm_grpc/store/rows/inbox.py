"""Rows of ``inbox_entries``, read joined with the message or the agent each entry reports."""

from __future__ import annotations

from collections.abc import Callable

from kxm_grpc.domain.agents import Agent
from kxm_grpc.domain.messages import Event, EventKind
from kxm_grpc.store.rows import Columns, Row
from kxm_grpc.store.rows.messages import MESSAGES, MessageDecoder, message_from_row

INBOX_ENTRIES = Columns("inbox_entries", "seq", "kind", "event_time", "subject_online", "subject_seen")
"""What an entry itself holds for a reader. A presence entry keeps its subject's presence as it was
then (``subject_online``, ``subject_seen``); the rest of the subject is read from ``agents``."""

SUBJECTS = Columns("agents", "id", "project", "name", "purpose", "model", "host", "connect_time")
"""The subject agent's columns a presence entry reports."""

INBOX_READ = (INBOX_ENTRIES, SUBJECTS, MESSAGES)
"""A read selects these in this order (entry, subject, message; the last two NULL when absent)."""

_KIND = {k.value: k for k in EventKind}


def _decoder(entries: Columns, subjects: Columns, messages: Columns, message: MessageDecoder) -> Callable[[Row], Event]:
    seq, kind, event_time, subject_online, subject_seen = entries.positions(
        "seq", "kind", "event_time", "subject_online", "subject_seen"
    )
    base = entries.width
    id_, project, name, purpose, model, host, connect_time = (
        base + position
        for position in subjects.positions("id", "project", "name", "purpose", "model", "host", "connect_time")
    )
    at_message = base + subjects.width
    (message_id,) = messages.positions("id")

    def event_from_row(row: Row) -> Event:
        """The entry in a row selecting ``INBOX_READ``, with its message or subject as they are now."""
        subject = None
        if row[id_] is not None:
            subject = Agent(
                id=row[id_],
                project=row[project],
                name=row[name],
                purpose=row[purpose],
                model=row[model],
                host=row[host],
                connect_time=row[connect_time],
                last_seen_time=row[subject_seen],
                online=bool(row[subject_online]),
            )
        reported = None if row[at_message + message_id] is None else message(row, at_message)
        return Event(seq=row[seq], kind=_KIND[row[kind]], event_time=row[event_time], message=reported, subject=subject)

    return event_from_row


event_from_row = _decoder(INBOX_ENTRIES, SUBJECTS, MESSAGES, message_from_row)
