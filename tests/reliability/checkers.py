"""Pure checkers over a history and a final read of the database (no I/O, no hub).

- ``total_queue``: Jepsen's total-queue checker in the hub's terms, failing on duplicates too,
  because a recipient's acknowledgement retires a message for good.
- ``watch``: etcd's watch validators over the events each subscription session saw: Ordered,
  Unique, Reliable (no gaps against what the database holds) and Resumable (a new session starts
  right after the last acked message, redelivering only unacked ones).
- ``fencing``: tokens strictly increasing per lease across restarts, at most one holder at a time,
  and every write carrying a superseded token refused.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field


@dataclass
class QueueVerdict:
    attempted: int
    acknowledged: int
    delivered: int
    lost: set[str]
    """Acknowledged sends their recipient never received."""
    unexpected: set[str]
    """Delivered messages no one sent."""
    duplicated: set[str]
    """Messages delivered again after their recipient's acknowledgement was answered OK (a retired
    message came back). A redelivery after an acknowledgement that failed or was cut is at least once."""
    recovered: set[str]
    """Indeterminate sends that landed (reported, not a failure)."""
    stored_duplicates: int = 0
    """Keys stored more than once in the database (from the final read)."""

    @property
    def valid(self) -> bool:
        return not self.lost and not self.unexpected and not self.duplicated and self.stored_duplicates == 0


def total_queue(
    sent: Iterable[tuple[str, str]],
    delivered: Iterable[str],
    redelivered_after_ack: Iterable[str] = (),
    stored_keys: Iterable[str] = (),
) -> QueueVerdict:
    """Check a queue history (Jepsen's total queue, failing on duplicates too).

    ``sent``: (idempotency key, ``ok``|``fail``|``info``) for every send attempt; ``delivered``:
    the keys of messages their recipients received (repeats allowed); ``redelivered_after_ack``:
    keys received again after an acknowledgement answered OK; ``stored_keys``: every message row's
    key from the final read of the database (a key stored twice is a duplicate the retries made).
    """
    attempts: Counter[str] = Counter()
    acked: set[str] = set()
    for key, kind in sent:
        attempts[key] += 1
        if kind == "ok":
            acked.add(key)
    got = set(delivered)
    stored = Counter(stored_keys)
    unexpected = got - set(attempts)
    return QueueVerdict(
        attempted=len(attempts),
        acknowledged=len(acked),
        delivered=len(got),
        lost=acked - got,
        unexpected=unexpected,
        duplicated=set(redelivered_after_ack),
        recovered=got - acked - unexpected,
        stored_duplicates=sum(n - 1 for n in stored.values() if n > 1),
    )


@dataclass
class Session:
    """One subscription session of one recipient: what it received, in order, and what it acked."""

    recipient: str
    received: list[int] = field(default_factory=list)
    """Each delivered message's per-recipient sequence (its place in the recipient's inbox)."""
    acked: list[int] = field(default_factory=list)
    resumed_after: int = 0
    """The sequence the session asked to start after (0: from the oldest unacked)."""


@dataclass
class WatchVerdict:
    sessions: int
    events: int
    out_of_order: list[tuple[str, int, int]]
    """(recipient, previous, next) where a session's sequences went backwards or repeated."""
    duplicates_in_session: int
    gaps: list[tuple[str, int]]
    """(recipient, sequence) the database holds as unacked at a session's start but it skipped."""
    redelivered_after_ack: list[tuple[str, int]]
    """(recipient, sequence) delivered again after an earlier session acked it."""
    never_delivered: list[tuple[str, int]]
    """(recipient, sequence) stored for the recipient and never delivered in any session."""

    @property
    def valid(self) -> bool:
        return not (
            self.out_of_order
            or self.duplicates_in_session
            or self.gaps
            or self.redelivered_after_ack
            or self.never_delivered
        )


def watch(sessions: Sequence[Session], stored: Mapping[str, Sequence[int]]) -> WatchVerdict:
    """Check subscription sessions, in the order each recipient opened them, against the database.

    ``stored``: each recipient's message sequences in its inbox, from the final read.

    Ordered: within a session, sequences strictly increase. Unique: no sequence twice in a session.
    Reliable: a session that started after sequence ``a`` receives every stored sequence above ``a``
    that no earlier session acked, with none missing between its first and last delivery.
    Resumable: nothing acked in an earlier session is delivered again.
    """
    out_of_order: list[tuple[str, int, int]] = []
    duplicates = 0
    gaps: list[tuple[str, int]] = []
    redelivered: list[tuple[str, int]] = []
    acked_by: dict[str, set[int]] = defaultdict(set)
    seen_by: dict[str, set[int]] = defaultdict(set)
    events = 0
    for session in sessions:
        who = session.recipient
        events += len(session.received)
        counts = Counter(session.received)
        duplicates += sum(n - 1 for n in counts.values() if n > 1)
        for before, after in zip(session.received, session.received[1:], strict=False):
            if after <= before:
                out_of_order.append((who, before, after))
        redelivered += [(who, s) for s in session.received if s in acked_by[who]]
        if session.received:
            first, last = min(session.received), max(session.received)
            expected = {
                s
                for s in stored.get(who, ())
                if session.resumed_after < s <= last and s not in acked_by[who] and s >= first
            }
            gaps += [(who, s) for s in sorted(expected - set(session.received))]
        seen_by[who].update(session.received)
        acked_by[who].update(session.acked)
    never = [(who, s) for who, seqs in stored.items() for s in seqs if s not in seen_by[who]]
    return WatchVerdict(len(sessions), events, out_of_order, duplicates, gaps, redelivered, never)


@dataclass
class Grant:
    lease: str
    token: int
    holder: str
    t: float
    """When the grant was acknowledged (monotonic seconds)."""
    ttl: float


@dataclass
class FencedWrite:
    lease: str
    token: int
    accepted: bool
    stale: bool
    """The writer knew a newer grant existed (its holder was paused past its TTL)."""


@dataclass
class FencingVerdict:
    grants: int
    writes: int
    stale_attempts: int
    stale_accepted: list[FencedWrite]
    token_regressions: list[tuple[str, int, int]]
    """(lease, previous token, next token) where a later grant did not get a larger token."""
    overlapping_holders: list[tuple[str, str, str]]
    """(lease, holder, next holder) where a new holder was granted before the old grant could lapse."""
    current_refused: int
    """Writes with the newest token refused (not a safety failure; reported)."""

    @property
    def valid(self) -> bool:
        return not self.stale_accepted and not self.token_regressions and not self.overlapping_holders


def fencing(
    grants: Sequence[Grant], writes: Sequence[FencedWrite], *, renewals: Mapping[tuple[str, int], float]
) -> FencingVerdict:
    """Check grants (each at its acknowledgement time) and fenced writes.

    ``renewals``: (lease, token) → when the last successful renewal of that grant was *invoked*
    (monotonic seconds). A renewal invoked after a newer grant of the same lease was acknowledged,
    and still answered OK, means the hub let two holders hold it at once: an overlap.
    """
    regressions: list[tuple[str, int, int]] = []
    overlaps: list[tuple[str, str, str]] = []
    by_lease: dict[str, list[Grant]] = defaultdict(list)
    for grant in grants:
        by_lease[grant.lease].append(grant)
    for lease, ordered in by_lease.items():
        ordered.sort(key=lambda g: g.t)
        for previous, grant in itertools.pairwise(ordered):
            if grant.token < previous.token or (grant.token == previous.token and grant.holder != previous.holder):
                regressions.append((lease, previous.token, grant.token))
        for older in ordered:
            renewed = renewals.get((lease, older.token))
            if renewed is None:
                continue
            for newer in ordered:
                if newer.token > older.token and newer.holder != older.holder and newer.t < renewed:
                    overlaps.append((lease, older.holder, newer.holder))
                    break
    stale = [w for w in writes if w.stale]
    newest: dict[str, int] = {}
    for grant in grants:
        newest[grant.lease] = max(newest.get(grant.lease, 0), grant.token)
    return FencingVerdict(
        grants=len(grants),
        writes=len(writes),
        stale_attempts=len(stale),
        stale_accepted=[w for w in stale if w.accepted],
        token_regressions=regressions,
        overlapping_holders=overlaps,
        current_refused=sum(1 for w in writes if not w.stale and not w.accepted and w.token == newest.get(w.lease)),
    )
