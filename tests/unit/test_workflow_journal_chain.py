"""The journal's tamper-evident chain: sealing, verification, every kind of tampering, key rotation.

Pure functions (kxm_grpc/domain/workflows/journal_chain.py).
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import itertools
import json

import pytest

from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.domain.workflows import journal, journal_chain
from kxm_grpc.domain.workflows.journal import (
    Category,
    JournalEntry,
    JournalRecord,
    Promotion,
    PromotionStatus,
    Severity,
)
from kxm_grpc.domain.workflows.journal_chain import ChainHead, ChainLink, Problem

RUN_ID = "run_" + "a" * 32
OTHER_RUN = "run_" + "b" * 32
K1 = b"1" * 32
K2 = b"2" * 32
ATTACKER = b"x" * 32
KEYS = Keyring({"k1": K1}, current="k1")
_ids = itertools.count(1)


def entry(summary: str = "noted", *, run_id: str = RUN_ID, category: Category = Category.OBSERVATION) -> JournalEntry:
    return JournalEntry(
        id=f"journal_{next(_ids):032x}",
        run_id=run_id,
        author="agt_coord",
        category=category,
        area="gates",
        severity=Severity.INFO,
        summary=summary,
        create_time=1_700_000_000_000_000 + next(_ids),
        evidence=("ci run 1",),
        stage_id="plan",
        attempt=1,
    )


def promotion(of: JournalEntry) -> Promotion:
    return Promotion(
        id=f"promotion_{next(_ids):032x}",
        run_id=of.run_id,
        entry_id=of.id,
        from_status=PromotionStatus.PROPOSED,
        to_status=PromotionStatus.APPROVED,
        evidence_refs=("measured",),
        decided_by="ops",
        reason="",
        decide_time=1_700_000_000_000_000,
    )


def journal_of(count: int = 5, keyring: Keyring = KEYS) -> list[ChainLink]:
    """``count`` records: entries, a skill candidate second, and its promotion last."""
    skill = entry("skill", category=Category.SKILL_CANDIDATE)
    records: list[JournalRecord] = [entry(f"entry {i}") for i in range(max(count - 2, 0))]
    records.insert(min(1, len(records)), skill)
    records.append(promotion(skill))
    return list(journal_chain.seal_all(records[:count], None, keyring))


def forged(record: JournalRecord, previous: bytes, sequence: int, key_id: str, secret: bytes) -> ChainLink:
    """A link an attacker computes with a secret of its own."""
    text = journal_chain.canonical(record, sequence=sequence, key_id=key_id)
    chain = hmac.new(secret, previous + text.encode(), hashlib.sha256).hexdigest()
    return ChainLink(record, sequence, key_id, chain)


def breach_of(links: list[ChainLink], keyring: Keyring = KEYS, **kwargs: object) -> journal_chain.Breach:
    verdict = journal_chain.verify(RUN_ID, links, keyring, **kwargs)  # type: ignore[arg-type]
    assert not verdict.intact and verdict.breach is not None
    return verdict.breach


# -- sealing --------------------------------------------------------------------------------------


def test_an_intact_journal_verifies() -> None:
    links = journal_of(5)
    verdict = journal_chain.verify(RUN_ID, links, KEYS)

    assert verdict.intact and verdict.breach is None
    assert verdict.verified == 5 and [link.sequence for link in links] == [0, 1, 2, 3, 4]
    assert verdict.head == ChainHead(4, links[-1].chain) == journal_chain.head(links)
    assert verdict.key_ids == ("k1",)
    assert isinstance(links[-1].record, Promotion)
    assert all(len(link.chain) == 64 and link.key_id == "k1" for link in links)


def test_an_empty_journal_is_intact() -> None:
    verdict = journal_chain.verify(RUN_ID, [], KEYS)
    assert verdict.intact and verdict.verified == 0 and verdict.head is None
    assert journal_chain.head([]) is None


def test_the_chain_is_the_hmac_of_the_predecessor_and_the_canonical_record() -> None:
    first, second = journal_of(2)
    genesis = hashlib.sha256(f"kxm.journal-chain.v1\n{RUN_ID}".encode()).digest()
    text = journal_chain.canonical(first.record, sequence=0, key_id="k1")

    assert journal_chain.genesis(RUN_ID) == genesis != journal_chain.genesis(OTHER_RUN)
    assert first.chain == hmac.new(K1, genesis + text.encode(), hashlib.sha256).hexdigest()
    following = journal_chain.canonical(second.record, sequence=1, key_id="k1").encode()
    assert second.chain == hmac.new(K1, bytes.fromhex(first.chain) + following, hashlib.sha256).hexdigest()


def test_the_canonical_form_is_every_field_but_the_chain_sorted_without_whitespace() -> None:
    record = dataclasses.replace(entry("é ünïcode"), create_time=5)
    text = journal_chain.canonical(record, sequence=3, key_id="k1")
    decoded = json.loads(text)

    assert decoded == {**journal.record_json(record), "sequence": 3, "keyId": "k1"}
    assert "chain" not in decoded
    assert text == json.dumps(decoded, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert text.startswith('{"area":"gates","attempt":1,"author":"agt_coord","category":"observation",')


def test_sealing_continues_from_a_head_and_refuses_another_runs_predecessor() -> None:
    links = journal_of(3)
    more = journal_chain.seal(entry("later"), journal_chain.head(links), KEYS)
    assert more.sequence == 3
    assert journal_chain.verify(RUN_ID, [*links, more], KEYS).intact
    with pytest.raises(ValueError, match="cannot follow"):
        journal_chain.seal(entry(run_id=OTHER_RUN), links[-1], KEYS)


# -- tampering ------------------------------------------------------------------------------------


ALTERATIONS = {
    "summary": lambda r: dataclasses.replace(r, summary="all good"),
    "evidence": lambda r: dataclasses.replace(r, evidence=()),
    "severity": lambda r: dataclasses.replace(r, severity=Severity.ERROR),
    "author": lambda r: dataclasses.replace(r, author="agt_mallory"),
    "create_time": lambda r: dataclasses.replace(r, create_time=r.create_time + 1),
    "attempt": lambda r: dataclasses.replace(r, attempt=None),
    "category": lambda r: dataclasses.replace(r, category=Category.LESSON),
}


@pytest.mark.parametrize("position", [0, 2, 3])
@pytest.mark.parametrize("change", sorted(ALTERATIONS))
def test_an_altered_entry_field_is_detected_at_that_record(change: str, position: int) -> None:
    links = journal_of(5)
    links[position] = dataclasses.replace(links[position], record=ALTERATIONS[change](links[position].record))
    breach = breach_of(links)
    assert (breach.position, breach.problem, breach.record_id) == (position, Problem.ALTERED, links[position].record.id)
    assert journal_chain.verify(RUN_ID, links, KEYS).verified == position


@pytest.mark.parametrize(
    "change",
    [
        lambda p: dataclasses.replace(p, to_status=PromotionStatus.REJECTED),
        lambda p: dataclasses.replace(p, decided_by="agt_coord"),
        lambda p: dataclasses.replace(p, evidence_refs=()),
    ],
)
def test_an_altered_promotion_record_is_detected(change: object) -> None:
    links = journal_of(5)
    links[4] = dataclasses.replace(links[4], record=change(links[4].record))  # type: ignore[operator]
    assert (breach_of(links).position, breach_of(links).problem) == (4, Problem.ALTERED)


def test_an_altered_chain_or_a_garbage_chain_is_detected_at_that_record() -> None:
    links = journal_of(4)
    flipped = links[2].chain[:-1] + ("0" if links[2].chain[-1] != "0" else "1")
    altered = [*links[:2], dataclasses.replace(links[2], chain=flipped), links[3]]
    garbage = [*links[:2], dataclasses.replace(links[2], chain="zz\udc80é"), links[3]]

    assert (breach_of(altered).position, breach_of(altered).problem) == (2, Problem.ALTERED)
    assert (breach_of(garbage).position, breach_of(garbage).problem) == (2, Problem.ALTERED)


def test_a_deleted_record_is_detected_where_it_is_missing() -> None:
    links = journal_of(5)
    middle = breach_of([*links[:2], *links[3:]])
    first = breach_of(links[1:])
    renumbered = [*links[:2], *(dataclasses.replace(link, sequence=link.sequence - 1) for link in links[3:])]

    assert (middle.position, middle.problem, middle.record_id) == (2, Problem.OUT_OF_SEQUENCE, links[3].record.id)
    assert (first.position, first.problem) == (0, Problem.OUT_OF_SEQUENCE)
    assert (breach_of(renumbered).position, breach_of(renumbered).problem) == (2, Problem.ALTERED)


def test_reordered_records_are_detected_at_the_first_moved() -> None:
    links = journal_of(5)
    swapped = [links[0], links[2], links[1], *links[3:]]
    renumbered = [
        links[0],
        dataclasses.replace(links[2], sequence=1),
        dataclasses.replace(links[1], sequence=2),
        *links[3:],
    ]

    assert (breach_of(swapped).position, breach_of(swapped).problem) == (1, Problem.OUT_OF_SEQUENCE)
    assert (breach_of(renumbered).position, breach_of(renumbered).problem) == (1, Problem.ALTERED)


def test_an_inserted_record_is_detected_where_it_was_inserted() -> None:
    links = journal_of(4)
    previous = bytes.fromhex(links[1].chain)
    intruder = forged(entry("approve everything"), previous, 2, "k1", ATTACKER)
    shifted = [dataclasses.replace(link, sequence=link.sequence + 1) for link in links[2:]]
    appended = forged(entry("tail"), bytes.fromhex(links[-1].chain), 4, "k1", ATTACKER)

    inserted = breach_of([*links[:2], intruder, *shifted])
    assert (inserted.position, inserted.problem, inserted.record_id) == (2, Problem.ALTERED, intruder.record.id)
    assert (breach_of([*links, appended]).position, breach_of([*links, appended]).problem) == (4, Problem.ALTERED)
    duplicated = breach_of([*links[:3], links[2], links[3]])
    assert (duplicated.position, duplicated.problem) == (3, Problem.OUT_OF_SEQUENCE)


def test_a_record_of_another_run_is_foreign() -> None:
    links = journal_of(3)
    other = list(journal_chain.seal_all([entry(run_id=OTHER_RUN)], None, KEYS))
    spliced = breach_of([*links[:1], other[0], *links[1:]])
    assert (spliced.position, spliced.problem) == (1, Problem.FOREIGN_RUN)
    # The same links under another run id: the genesis is bound to the run.
    assert journal_chain.verify(OTHER_RUN, links, KEYS).breach == journal_chain.Breach(
        0, Problem.FOREIGN_RUN, links[0].record.id, "k1"
    )
    moved = [dataclasses.replace(link, record=dataclasses.replace(link.record, run_id=OTHER_RUN)) for link in links]
    assert journal_chain.verify(OTHER_RUN, moved, KEYS).breach.problem is Problem.ALTERED  # type: ignore[union-attr]


def test_a_chain_recomputed_without_the_key_is_refused() -> None:
    links = journal_of(4)
    tampered = dataclasses.replace(links[1].record, summary="nothing happened")
    records = [links[0].record, tampered, links[2].record, links[3].record]
    same_key_id: list[ChainLink] = []
    own_key_id: list[ChainLink] = []
    for sequence, record in enumerate(records):
        before_same = bytes.fromhex(same_key_id[-1].chain) if same_key_id else journal_chain.genesis(RUN_ID)
        before_own = bytes.fromhex(own_key_id[-1].chain) if own_key_id else journal_chain.genesis(RUN_ID)
        same_key_id.append(forged(record, before_same, sequence, "k1", ATTACKER))
        own_key_id.append(forged(record, before_own, sequence, "mallory", ATTACKER))

    assert journal_chain.verify(RUN_ID, same_key_id, Keyring({"k1": ATTACKER}, "k1")).intact  # well formed
    assert (breach_of(same_key_id).position, breach_of(same_key_id).problem) == (0, Problem.ALTERED)
    unknown = breach_of(own_key_id)
    assert (unknown.position, unknown.problem, unknown.key_id) == (0, Problem.UNKNOWN_KEY, "mallory")


def test_relabelling_a_record_with_another_known_key_id_is_detected() -> None:
    both = Keyring({"k1": K1, "k2": K2}, current="k1")
    links = journal_of(3, both)
    relabelled = [links[0], dataclasses.replace(links[1], key_id="k2"), links[2]]
    assert (breach_of(relabelled, both).position, breach_of(relabelled, both).problem) == (1, Problem.ALTERED)


def test_key_rotation_old_records_verify_under_the_old_key_new_under_the_new() -> None:
    old = journal_of(3, Keyring({"k1": K1}, current="k1"))
    rotated = Keyring({"k1": K1, "k2": K2}, current="k2")
    new = journal_chain.seal_all([entry("after"), entry("rotation")], journal_chain.head(old), rotated)
    links = [*old, *new]
    verdict = journal_chain.verify(RUN_ID, links, rotated)

    assert verdict.intact and verdict.verified == 5 and verdict.key_ids == ("k1", "k2")
    assert [link.key_id for link in links] == ["k1", "k1", "k1", "k2", "k2"]
    retired = breach_of(links, Keyring({"k2": K2}, current="k2"))
    assert (retired.position, retired.problem, retired.key_id) == (0, Problem.UNKNOWN_KEY, "k1")
    stale = breach_of(links, Keyring({"k1": K1}, current="k1"))  # a replica not yet given k2
    assert (stale.position, stale.problem) == (3, Problem.UNKNOWN_KEY)


def test_a_replaced_secret_under_the_same_key_id_verifies_nothing() -> None:
    links = journal_of(2)
    assert breach_of(links, Keyring({"k1": K2}, current="k1")).problem is Problem.ALTERED


# -- the head: what the chain alone cannot prove --------------------------------------------------


def test_a_removed_tail_is_detected_only_against_a_head_kept_elsewhere() -> None:
    links = journal_of(5)
    kept = journal_chain.head(links)
    assert kept is not None

    assert journal_chain.verify(RUN_ID, links[:3], KEYS).intact  # the chain alone cannot tell
    truncated = breach_of(links[:3], expected_head=kept)
    assert (truncated.position, truncated.problem, truncated.record_id) == (4, Problem.TRUNCATED, None)
    assert breach_of([], expected_head=kept).problem is Problem.TRUNCATED
    grown = [*links, journal_chain.seal(entry("later"), links[-1], KEYS)]
    assert journal_chain.verify(RUN_ID, grown, KEYS, expected_head=kept).intact
    assert journal_chain.verify(RUN_ID, links, KEYS, expected_head=kept).intact


def test_a_journal_rebuilt_from_before_the_head_is_detected_at_the_head() -> None:
    links = journal_of(3)
    kept = journal_chain.head(links)
    assert kept is not None
    rebuilt = [*links[:2], journal_chain.seal(entry("another ending"), links[1], KEYS)]  # the hub's key: an insider
    breach = breach_of(rebuilt, expected_head=kept)
    assert (breach.position, breach.problem) == (2, Problem.ALTERED)


# -- the keyring and the comparisons --------------------------------------------------------------


@pytest.mark.parametrize(
    ("keys", "current", "message"),
    [
        ({"k1": b"short"}, "k1", "at least 32 bytes"),
        ({"bad id": K1}, "bad id", "must be 1-64"),
        ({"-k": K1}, "-k", "must be 1-64"),
        ({"k" * 65: K1}, "k" * 65, "must be 1-64"),
        ({"k1": K1}, "k2", "not in the keyring"),
        ({}, "k1", "not in the keyring"),
    ],
)
def test_a_bad_keyring_is_refused(keys: dict[str, bytes], current: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Keyring(keys, current)


def test_the_keyring_never_shows_its_secrets_and_keeps_its_own_copy() -> None:
    source = {"k1": K1}
    keyring = Keyring(source, current="k1")
    source["k1"] = K2
    assert "1111" not in repr(keyring) and "k1" in repr(keyring)
    assert keyring.secret("k1") == K1 and keyring.secret("k9") is None


def test_chains_are_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    links = journal_of(3)
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(journal_chain.hmac, "compare_digest", spy)
    assert journal_chain.verify(RUN_ID, links, KEYS, expected_head=journal_chain.head(links)).intact
    assert len(calls) == 4 and all(isinstance(a, bytes) and isinstance(b, bytes) for a, b in calls)
