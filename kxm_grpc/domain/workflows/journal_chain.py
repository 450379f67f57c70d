"""The journal's tamper-evident chain: each record of a run is sealed to its predecessor.

Every record (entry or promotion record) of a run is appended as a ``ChainLink``: its position
in the run's journal (``sequence``, from 0), the id of the key that sealed it and

    chain = HMAC-SHA256(key, previous || canonical(link))

where ``previous`` is the predecessor's chain (32 bytes), or for the first record a genesis value
bound to the run id, and ``canonical(link)`` is the canonical JSON (``sync_events.canonical_json``:
keys sorted by UTF-16 code unit, no whitespace) of the record with its sequence and key id, that
is every field but the chain itself.

The keys are the hub's configuration, shared by the replicas and never stored in the database
(``Keyring``, ``domain/keyring.py``: key id → secret, one current key that seals, older ones
that still verify), so a copy of the database alone can neither forge a record nor recompute the
chain after changing one. ``verify`` proves a run's journal intact or names the first record that is not.

What it does not prove: that no records were removed from the end of the journal (the last
records and their chains can be deleted together) unless the caller holds the head from
elsewhere (``expected_head``: for instance the one a retrospective exported when the run
ended), nor anything about a journal whose keys leaked. Record texts are checked when written,
not here.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.domain.workflows.journal import JournalRecord, record_json

CHAIN_SCHEMA = "kxm.journal-chain.v1"


@dataclass(frozen=True)
class ChainLink:
    """A record as the journal stores it: its position, its key id and its chain (64 hex)."""

    record: JournalRecord
    sequence: int
    key_id: str
    chain: str


@dataclass(frozen=True)
class ChainHead:
    """The last link of a journal (its sequence and chain): what the next record chains from."""

    sequence: int
    chain: str


def genesis(run_id: str) -> bytes:
    """What a run's first record chains from: fixed, and bound to the run id."""
    return hashlib.sha256(f"{CHAIN_SCHEMA}\n{run_id}".encode("utf-8", "surrogatepass")).digest()


def canonical(record: JournalRecord, *, sequence: int, key_id: str) -> str:
    """The canonical JSON of a link without its chain: what the chain's HMAC covers."""
    return canonical_json({**record_json(record), "sequence": sequence, "keyId": key_id})


def seal(record: JournalRecord, previous: ChainLink | ChainHead | None, keyring: Keyring) -> ChainLink:
    """Append ``record`` after ``previous`` (None: it is the run's first), sealed with the current key.

    Raises:
        ValueError: ``previous`` is a link of another run.
    """
    if isinstance(previous, ChainLink) and previous.record.run_id != record.run_id:
        raise ValueError(f"record of run {record.run_id} cannot follow one of run {previous.record.run_id}")
    sequence = 0 if previous is None else previous.sequence + 1
    prior = genesis(record.run_id) if previous is None else bytes.fromhex(previous.chain)
    secret = keyring.keys[keyring.current]
    chain = _mac(secret, prior, canonical(record, sequence=sequence, key_id=keyring.current))
    return ChainLink(record, sequence, keyring.current, chain)


def seal_all(
    records: Iterable[JournalRecord], previous: ChainLink | ChainHead | None, keyring: Keyring
) -> tuple[ChainLink, ...]:
    """Append ``records`` in order after ``previous`` (a step's hub entries, for instance)."""
    links: list[ChainLink] = []
    for item in records:
        link = seal(item, links[-1] if links else previous, keyring)
        links.append(link)
    return tuple(links)


def head(links: Sequence[ChainLink]) -> ChainHead | None:
    """The head of a journal (None when it is empty)."""
    return ChainHead(links[-1].sequence, links[-1].chain) if links else None


HEAD_SCHEMA = "kxm.journal-head.v1"


def seal_head(run_id: str, head: ChainHead | None, keyring: Keyring) -> tuple[str, str]:
    """(key id, HMAC-SHA256 hex) sealing a journal's head (None: empty) kept apart from it, such
    as the one a retrospective records when the run ends."""
    return keyring.current, _mac(keyring.keys[keyring.current], b"", _head_text(run_id, head))


def head_sealed(run_id: str, head: ChainHead | None, key_id: str, mac: str, keyring: Keyring) -> bool:
    """Whether ``mac`` is ``seal_head``'s for this head under ``key_id`` (compared in constant time)."""
    secret = keyring.secret(key_id)
    if secret is None:
        return False
    expected = _mac(secret, b"", _head_text(run_id, head))
    return hmac.compare_digest(expected.encode(), mac.encode("utf-8", "replace"))


def _head_text(run_id: str, head: ChainHead | None) -> str:
    sequence, chain = (head.sequence, head.chain) if head is not None else (-1, "")
    return canonical_json({"schema": HEAD_SCHEMA, "runId": run_id, "sequence": sequence, "chain": chain})


def _mac(secret: bytes, previous: bytes, text: str) -> str:
    return hmac.new(secret, previous + text.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


# -- verification ---------------------------------------------------------------------------------


class Problem(enum.Enum):
    """Why a record does not verify."""

    FOREIGN_RUN = "foreign_run"
    """The record belongs to another run (copied in)."""
    OUT_OF_SEQUENCE = "out_of_sequence"
    """Its sequence is not its position: a record before it was deleted, or it was inserted or moved."""
    UNKNOWN_KEY = "unknown_key"
    """Its key id is not in the keyring (a retired key, or a chain made with a key the hub never had)."""
    ALTERED = "altered"
    """Its chain does not match: a field was changed, a predecessor replaced, or the chain was
    recomputed with another key."""
    TRUNCATED = "truncated"
    """The journal ends before the expected head: records were removed from its end."""
    HEAD_UNVERIFIED = "head_unverified"
    """The head recorded when the run ended is missing or its seal does not verify, so records cut
    from the end could not be told (set by the service, which keeps the head)."""


@dataclass(frozen=True)
class Breach:
    """The first record that does not verify."""

    position: int
    """Its index in the journal as read (for ``TRUNCATED``: the expected head's sequence)."""
    problem: Problem
    record_id: str | None
    """None for ``TRUNCATED`` (the record is missing)."""
    key_id: str | None = None


@dataclass(frozen=True)
class Verdict:
    """Whether a run's journal is intact; if not, the first record that is not."""

    run_id: str
    verified: int
    """How many records verified, from the first (all of them when intact)."""
    breach: Breach | None = None
    head: ChainHead | None = None
    """The last verified link."""
    key_ids: tuple[str, ...] = ()
    """The key ids of the verified records, in order of first use."""

    @property
    def intact(self) -> bool:
        return self.breach is None


def verify(
    run_id: str, links: Iterable[ChainLink], keyring: Keyring, *, expected_head: ChainHead | None = None
) -> Verdict:
    """Verify a run's journal (its links in sequence order) against ``keyring``.

    Each record must belong to the run, sit at the position its sequence says, name a known key
    and carry the chain that key computes from its predecessor's (the genesis for the first).
    With ``expected_head``, the journal must also hold that head: a record at its sequence with
    its chain (records after it are the journal growing). Chains are compared in constant time.
    """
    previous = genesis(run_id)
    last: ChainHead | None = None
    used: list[str] = []
    count = 0
    for position, link in enumerate(links):
        problem = _check(run_id, position, link, previous, keyring)
        if problem is not None:
            breach = Breach(position, problem, link.record.id, link.key_id)
            return Verdict(run_id, count, breach, last, tuple(used))
        if expected_head is not None and position == expected_head.sequence and not _same(link.chain, expected_head):
            # A verified journal that does not hold the head it once had was rebuilt from there.
            breach = Breach(position, Problem.ALTERED, link.record.id, link.key_id)
            return Verdict(run_id, count, breach, last, tuple(used))
        previous = bytes.fromhex(link.chain)
        last = ChainHead(link.sequence, link.chain)
        if link.key_id not in used:
            used.append(link.key_id)
        count += 1
    if expected_head is not None and count <= expected_head.sequence:
        breach = Breach(expected_head.sequence, Problem.TRUNCATED, None)
        return Verdict(run_id, count, breach, last, tuple(used))
    return Verdict(run_id, count, None, last, tuple(used))


def _check(run_id: str, position: int, link: ChainLink, previous: bytes, keyring: Keyring) -> Problem | None:
    if link.record.run_id != run_id:
        return Problem.FOREIGN_RUN
    if link.sequence != position:
        return Problem.OUT_OF_SEQUENCE
    secret = keyring.secret(link.key_id)
    if secret is None:
        return Problem.UNKNOWN_KEY
    expected = _mac(secret, previous, canonical(link.record, sequence=link.sequence, key_id=link.key_id))
    # Bytes, not str: compare_digest refuses non-ASCII text, and a stored chain may hold anything.
    if not hmac.compare_digest(expected.encode(), link.chain.encode("utf-8", "replace")):
        return Problem.ALTERED
    return None


def _same(chain: str, expected: ChainHead) -> bool:
    return hmac.compare_digest(chain.encode(), expected.chain.encode("utf-8", "replace"))
