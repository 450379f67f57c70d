"""The journal's reports: area report, ranked cross-run signals, retrospective (spec §3.6–§3.8).

Pure functions (kxm_grpc/domain/workflows/reports.py); spec pin 14 named where it applies. Every
order is checked against input shuffles: ties break on stated keys and code units (§11.15).
"""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from kxm_grpc.domain.clock import MICROS
from kxm_grpc.domain.workflows import reports
from kxm_grpc.domain.workflows.definitions import StageDefinition, WorkflowDefinition
from kxm_grpc.domain.workflows.diversity import Dimension
from kxm_grpc.domain.workflows.evidence import DegradationApproval, EligibleProducer, PeerEvidence, ResolvedPolicy
from kxm_grpc.domain.workflows.reports import ImprovementSignal, ReportEntry, RunFacts, js_round
from kxm_grpc.domain.workflows.runs import Run, RunStatus, StageState, StageStatus, Transition
from kxm_grpc.errors import FailedPrecondition, InvalidArgument

BASE = 1_767_225_600 * MICROS  # 2026-01-01T00:00:00Z


def rid(n: int) -> str:
    return f"run_{n:032x}"


def jid(n: int) -> str:
    return f"journal_{n:032x}"


def entry(
    n: int, run: int, category: str, area: str, summary: str, severity: str = "info", **fields: object
) -> ReportEntry:
    return ReportEntry(
        id=jid(n),
        run_id=rid(run),
        category=category,
        area=area,
        severity=severity,
        summary=summary,
        create_time=BASE + n * MICROS,
        **fields,  # type: ignore[arg-type]
    )


def shuffled(items: list[ReportEntry], seed: int) -> list[ReportEntry]:
    copy = list(items)
    random.Random(seed).shuffle(copy)
    return copy


# -- js_round ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "digits", "expected", "python"),
    [
        (0.5, 0, 1.0, 0),  # half toward +inf; Python rounds half to even
        (1.5, 0, 2.0, 2),
        (2.5, 0, 3.0, 2),
        (-0.5, 0, 0.0, 0),
        (-1.5, 0, -1.0, -2),
        (-2.5, 0, -2.0, -2),
        (0.0625, 3, 0.063, 0.062),  # 62.5 exactly
        (1.2345, 3, 1.235, 1.234),  # the scaled double is 1234.5
        (1.0005, 3, 1.001, 1.0),  # the scaled double is 1000.5; the decimal value is below half
        (8.3325, 3, 8.333, 8.332),
        (1.005, 3, 1.005, 1.005),  # the scaled double is 1004.9999999999999: no half at all
        (0.49999999999999994, 0, 0.0, 0),  # floor(x + 0.5) would give 1
        (17.499999999999996, 3, 17.5, 17.5),
        (2.0**53, 0, 2.0**53, 2**53),
        (123.0, 3, 123.0, 123.0),
    ],
)
def test_js_round_is_javascripts_math_round(value: float, digits: int, expected: float, python: float) -> None:
    assert js_round(value, digits) == expected
    assert round(value, digits) == python  # the cases where Python differs do differ


def test_js_round_keeps_the_sign_of_negative_zero_like_javascript() -> None:
    assert str(js_round(-0.4, 0)) in ("-0.0", "0.0")  # Math.round(-0.4) is -0; JSON writes 0 either way
    with pytest.raises(ValueError):
        js_round(float("nan"), 3)
    with pytest.raises(ValueError):
        js_round(float("inf"), 3)


# -- area report (§3.6) -------------------------------------------------------------------------------


def test_pin_14_area_report_has_only_areas_with_entries_gates_before_implementation_errors_first() -> None:
    entries = [
        entry(1, 1, "lesson", "implementation", "write the migration first", evidence=("doc:x",)),
        entry(2, 1, "error", "implementation", "build broke", severity="error"),
        entry(3, 1, "plan", "gates", "run the gates"),
        entry(4, 1, "lesson", "gates", "cache the lint step", "warning", evidence=("doc:y",)),
        entry(5, 1, "error", "gates", "lint failed", severity="error"),
        entry(6, 1, "contradiction", "gates", "two reviewers or three?", "warning"),
    ]
    for seed in range(5):
        report = reports.area_report(shuffled(entries, seed))
        assert [r.area for r in report] == ["gates", "implementation"]
        gates, implementation = report
        assert (gates.total, gates.errors, gates.contradictions, gates.lessons) == (4, 1, 1, 1)
        # The error entry first; the plan is no priority. Between the two warnings the category
        # order decides (contradiction before lesson), not the order they were written in.
        assert [e.id for e in gates.priorities] == [jid(5), jid(6), jid(4)]
        assert (implementation.total, implementation.errors, implementation.lessons) == (2, 1, 1)
        assert [e.id for e in implementation.priorities] == [jid(2), jid(1)]


def test_area_report_ties_break_on_category_then_time_then_id_code_units() -> None:
    same_time = BASE
    entries = [
        dataclasses.replace(entry(1, 1, "error", "workflow", "b"), id="journal_b", create_time=same_time),
        dataclasses.replace(entry(2, 1, "error", "workflow", "B"), id="journal_B", create_time=same_time),
        dataclasses.replace(entry(3, 1, "error", "workflow", "a"), id="journal_a", create_time=same_time - 1),
        entry(4, 1, "skill-candidate", "workflow", "cache", evidence=("x",)),
        entry(5, 1, "lesson", "workflow", "lesson", evidence=("x",)),
    ]
    for seed in range(8):
        (report,) = reports.area_report(shuffled(entries, seed))
        # All info: errors (oldest first, then "journal_B" < "journal_b" by code unit), lesson, skill candidate.
        assert [e.id for e in report.priorities] == ["journal_a", "journal_B", "journal_b", jid(5), jid(4)]


def test_area_report_keeps_ten_priorities_and_ignores_unknown_areas() -> None:
    entries = [entry(n, 1, "error", "harness", f"e{n}", "warning" if n % 2 else "info") for n in range(1, 15)]
    entries.append(entry(20, 1, "error", "nowhere", "not an area", "error"))
    (report,) = reports.area_report(entries)
    assert report.area == "harness" and report.total == 14 and report.errors == 14
    assert [e.id for e in report.priorities] == [jid(n) for n in (1, 3, 5, 7, 9, 11, 13, 2, 4, 6)]
    assert reports.area_report([]) == ()


# -- normalisation and keys (§3.7 steps 3-4) ------------------------------------------------------------


@pytest.mark.parametrize(
    ("summary", "normalised"),
    [
        ("Timeout for msg_0123abcd4567ef89 at 2026-01-02T03:04:05.678Z", "timeout for <id> at <ts>"),
        ("at 2026-01-02T03:04Z and 2026-01-02t03:04:05+01:00", "at <ts> and <ts>"),
        ("commit 3fa9c01 vs deadbeef99", "commit <hex> vs <hex>"),
        ("worker 12 of 7", "worker # of #"),
        ("1800000 ms is seven hex digits", "<hex> ms is seven hex digits"),  # the spec's order: hex before digits
        ("run_0123abc is too short for an id", "run_#abc is too short for an id"),
        ("  many \n\t spaces\u00a0here  ", "many spaces here"),
        ("x" * 200, "x" * 160),
        ("é" * 159 + "😀", "é" * 159),  # 160 code units would split the pair: cut before it
        ("٣ arabic digits stay", "٣ arabic digits stay"),  # \d is ASCII, as in JavaScript
    ],
)
def test_normalise_summary_folds_in_the_spec_order(summary: str, normalised: str) -> None:
    assert reports.normalise_summary(summary) == normalised


def test_signal_key_prefers_class_then_stage_of_a_known_run_then_summary() -> None:
    runs = {rid(1): RunFacts(rid(1), "fix-bug", 3)}
    by_class = entry(1, 1, "error", "gates", "x", evidence=("note", "class:quorum_lost", "class:second"), stage_id="t")
    assert reports.signal_key(by_class, runs) == ("error|class:quorum_lost", "class", "quorum_lost")
    for evidence in (("class:unknown",), ("class:Bad-Class",), ("class:",), ("class:" + "a" * 65,)):
        stage_bound = entry(2, 1, "error", "gates", "x", evidence=evidence, stage_id="test")
        assert reports.signal_key(stage_bound, runs) == ("error|stage:fix-bug/test", "stage", None)
    unknown_run = entry(3, 9, "error", "gates", "Lint failed 3 times", stage_id="test")
    assert reports.signal_key(unknown_run, runs) == ("error|summary:lint failed # times", "summary", None)
    lesson = entry(4, 1, "lesson", "gates", "Lint failed 3 times", stage_id="test")
    assert reports.signal_key(lesson, runs)[1] == "summary"


# -- ranked signals (§3.7): the multi-run fixture ------------------------------------------------------

SECRET_A = "s3cr3t-alpha-0001"
SECRET_B = "another-secret-9999"
DEPLOY, BUILD = 5, 6
UNKNOWN_RUN = 7

RUNS = {
    rid(1): RunFacts(rid(1), "fix-bug", 3),
    rid(2): RunFacts(rid(2), "fix-bug", 5),
    rid(3): RunFacts(rid(3), "fix-bug", 2),
    rid(4): RunFacts(rid(4), "fix-bug", 4),
    rid(DEPLOY): RunFacts(rid(DEPLOY), "Deploy", 1),
    rid(BUILD): RunFacts(rid(BUILD), "build", 1),
    # run 7 is not known (its facts are gone): its entries count at cost 1 and never key by stage.
}


def fixture_entries() -> list[ReportEntry]:
    """Seven runs, 46 entries; recurring problems differ only in ids, timestamps, hex and secrets."""
    e: list[ReportEntry] = []

    def add(run: int, category: str, area: str, summary: str, severity: str = "info", **fields: object) -> ReportEntry:
        made = entry(len(e) + 1, run, category, area, summary, severity, **fields)
        e.append(made)
        return made

    # Noise: categories that never make a signal.
    for run in (1, 2, 3, 4, DEPLOY):
        add(run, "plan", "workflow", f"Plan for run {run}")
    add(1, "decision", "security", "Accepted a degraded quorum", "warning", evidence=("class:quorum_degraded_used",))
    add(2, "observation", "harness", "Runner was slow")
    add(3, "observation", "harness", "Runner was slow again")
    add(1, "state-change", "workflow", "plan -> fix", evidence=("requirement:plan",))
    add(2, "state-change", "workflow", "fix -> test")
    add(4, "state-change", "workflow", "test -> fix")
    add(3, "hypothesis", "implementation", "The flake is a race")
    # S1: a security class in two runs of other definitions.
    for run in (DEPLOY, BUILD):
        add(run, "error", "harness", f"Agent agt_{run:016x} refused", "warning", evidence=("class:invalid_auth",))
    # S2: a lesson in the security area; the secret differs between the runs.
    add(1, "lesson", "security", f"Rotate the webhook secret: KXM_FIX_BUG_SECRET={SECRET_A} was echoed in a log")
    add(UNKNOWN_RUN, "lesson", "security", f"Rotate the webhook secret: KXM_FIX_BUG_SECRET={SECRET_B} was echoed")
    e[-2] = dataclasses.replace(e[-2], evidence=("doc:rotation.md",))
    e[-1] = dataclasses.replace(e[-1], summary=e[-1].summary + " in a log")
    # S3: the hub's budget exhaustion (class wins over the stage).
    for run in (1, 2, 4):
        add(
            run,
            "error",
            "workflow",
            f"Budget exhausted in run_{run:032x}",
            "error",
            evidence=("class:transition_budget_exhausted", "stage:test"),
            stage_id="test",
        )
    # S4: failing test stage of fix-bug, no class: keyed by the stage.
    add(1, "error", "gates", "lint: 3 errors", "warning", stage_id="test", evidence=("lint: failed",))
    add(2, "error", "implementation", "build broke", "error", stage_id="test", evidence=("build: failed",))
    add(2, "error", "gates", "lint again", "warning", stage_id="test")
    add(3, "error", "implementation", "tests red", "warning", stage_id="test")
    add(4, "error", "workflow", "flaky", "warning", stage_id="test", evidence=("test: flaky",))
    # S5: the same timeout, with ids and timestamps; run 7's entry has a stage but its run is unknown.
    add(
        1,
        "error",
        "harness",
        "Timeout waiting for reply to msg_" + "1a" * 16 + " at 2026-01-02T03:04:05.678Z (attempt 2)",
        "error",
    )
    add(
        3,
        "error",
        "harness",
        "Timeout waiting for reply to msg_" + "2b" * 16 + " at 2026-01-05T11:00:00Z (attempt 1)",
        "error",
        evidence=("message:msg_" + "2b" * 16,),
    )
    add(
        UNKNOWN_RUN,
        "error",
        "harness",
        "Timeout waiting for reply to msg_" + "3c" * 16 + " at 2026-02-01T00:00:00.000Z (attempt 3)",
        "error",
        stage_id="test",
    )
    # S6: a lesson differing in a hex build id.
    add(2, "lesson", "implementation", "Clear the build cache 3fa9c01 before re-running lint", evidence=("ci:1",))
    add(4, "lesson", "implementation", "Clear the build cache 0b77e2d4a1 before re-running lint", evidence=("ci:2",))
    # S7, S8: one stage error each in "Deploy" and "build": equal priority and frequency; the key's
    # code units decide ("D" < "b"; localeCompare would put build first).
    add(BUILD, "error", "other", "ship failed", "warning", stage_id="ship", evidence=("ship: failed",))
    add(DEPLOY, "error", "other", "ship failed", "warning", stage_id="ship", evidence=("ship: failed",))
    # S9: an open contradiction (priority 2.0, frequency 1, like S7 and S8).
    add(3, "contradiction", "workflow", "Plan says 2 reviewers, policy needs 3", "warning")
    # A contradiction resolved by a decision of its run is dropped; the same contradiction in run 4
    # stays open: run 2's lesson relates to it, but a relation resolves only within its own run.
    resolved = add(
        2,
        "contradiction",
        "documentation",
        "Docs say the wait timeout is 30 minutes but the hub uses 1800000 ms",
        "warning",
    )
    add(2, "decision", "documentation", "Follow the hub", related_entry_ids=(resolved.id,))
    open_one = add(
        4,
        "contradiction",
        "documentation",
        "Docs say the wait timeout is 45 minutes but the hub uses 2700000 ms",
        "warning",
    )
    add(
        2,
        "lesson",
        "documentation",
        "Document the wait timeout in minutes",
        evidence=("doc:waits.md",),
        related_entry_ids=(open_one.id,),
    )
    # S10: skill candidates: only the one still proposed counts.
    add(1, "skill-candidate", "harness", "Cache pip wheels between attempts", evidence=("bench:1",))
    add(
        2,
        "skill-candidate",
        "harness",
        "Cache pip wheels between attempts",
        evidence=("bench:2",),
        promotion_state="approved",
    )
    add(
        3,
        "skill-candidate",
        "harness",
        "Cache pip wheels between attempts",
        evidence=("bench:3",),
        promotion_state="rejected",
    )
    # S11: classes that are not valid classes fall through to the stage key.
    add(2, "error", "gates", "review refused", "error", stage_id="review", evidence=("class:unknown",))
    add(3, "error", "gates", "review refused", "warning", stage_id="review", evidence=("class:Bad-Class",))
    add(3, "error", "gates", "review refused again", "warning", stage_id="review")
    # S12: the first class: evidence names the class.
    for run in (4, BUILD):
        add(
            run,
            "error",
            "gates",
            "quorum lost",
            "warning",
            stage_id="plan",
            evidence=("stage:plan", "class:quorum_degraded", "class:ignored_second"),
        )
    # S13: frequency 2 at priority 2.0 ranks before the frequency-1 signals at 2.0.
    add(DEPLOY, "error", "implementation", "Lint cache miss in worker 12", evidence=("lint: miss",))
    add(BUILD, "error", "implementation", "Lint cache miss in worker 7", evidence=("lint: miss",))
    return e


# (key, override tier, frequency, severity, area, workflow cost, confidence, priority), best first.
EXPECTED_SIGNALS = [
    (
        "lesson|summary:rotate the webhook secret: kxm_fix_bug_secret=<redacted:secret> was echoed in a log",
        "security",
        2,
        "info",
        "security",
        3.0,
        0.75,
        4.5,
    ),
    ("error|class:invalid_auth", "security", 2, "warning", "harness", 1.0, 1.0, 4.0),
    ("error|class:transition_budget_exhausted", None, 3, "error", "workflow", 4.0, 1.0, 36.0),
    ("error|stage:fix-bug/test", None, 4, "error", "gates", 3.5, 0.8, 33.6),
    ("error|stage:fix-bug/review", None, 2, "error", "gates", 3.5, 0.8333333333333333, 17.5),
    (
        "error|summary:timeout waiting for reply to <id> at <ts> (attempt #)",
        None,
        3,
        "error",
        "harness",
        2.5,
        0.6666666666666666,
        15.0,
    ),
    ("error|class:quorum_degraded", None, 2, "warning", "gates", 2.5, 1.0, 10.0),
    (
        "lesson|summary:clear the build cache <hex> before re-running lint",
        None,
        2,
        "info",
        "implementation",
        4.5,
        1.0,
        9.0,
    ),
    ("lesson|summary:document the wait timeout in minutes", None, 1, "info", "documentation", 5.0, 1.0, 5.0),
    (
        "contradiction|summary:docs say the wait timeout is # minutes but the hub uses <hex> ms",
        None,
        1,
        "warning",
        "documentation",
        4.0,
        0.5,
        4.0,
    ),
    ("skill-candidate|summary:cache pip wheels between attempts", None, 1, "info", "harness", 3.0, 1.0, 3.0),
    ("error|summary:lint cache miss in worker #", None, 2, "info", "implementation", 1.0, 1.0, 2.0),
    ("contradiction|summary:plan says # reviewers, policy needs #", None, 1, "warning", "workflow", 2.0, 0.5, 2.0),
    ("error|stage:Deploy/ship", None, 1, "warning", "other", 1.0, 1.0, 2.0),
    ("error|stage:build/ship", None, 1, "warning", "other", 1.0, 1.0, 2.0),
]


def summary_of(signal: ImprovementSignal) -> tuple[object, ...]:
    return (
        signal.key,
        signal.override_tier,
        signal.frequency,
        signal.severity,
        signal.area,
        signal.workflow_cost,
        signal.confidence,
        signal.priority,
    )


def test_signals_on_the_multi_run_fixture_in_the_exact_expected_order() -> None:
    entries = fixture_entries()
    assert len(entries) == 46 and len({e.run_id for e in entries}) == 7
    signals = reports.rank_signals(entries, RUNS)
    assert [summary_of(s) for s in signals] == EXPECTED_SIGNALS

    by_key = {s.key: s for s in signals}
    timeout = by_key["error|summary:timeout waiting for reply to <id> at <ts> (attempt #)"]
    assert timeout.basis == "summary" and timeout.cost_basis == "run-attempts"
    assert timeout.run_ids == (rid(1), rid(3), rid(UNKNOWN_RUN))
    assert timeout.summary.startswith("Timeout waiting for reply to msg_3c3c")  # the latest entry's, as written
    stage = by_key["error|stage:fix-bug/test"]
    assert stage.basis == "stage" and stage.run_ids == (rid(1), rid(2), rid(3), rid(4))
    assert stage.entry_ids == tuple(sorted(stage.entry_ids)) and len(stage.entry_ids) == 5
    assert stage.summary == "flaky"
    budget = by_key["error|class:transition_budget_exhausted"]
    assert (budget.basis, budget.category, budget.severity_weight) == ("class", "error", 3)
    # Entries of the unknown run alone have no cost.
    assert all(s.cost_basis == "run-attempts" for s in signals)


def test_signals_do_not_depend_on_the_input_order() -> None:
    entries = fixture_entries()
    expected = reports.rank_signals(entries, RUNS)
    for seed in range(20):
        rng = random.Random(seed)
        runs = dict(sorted(RUNS.items(), key=lambda _: rng.random()))
        assert reports.rank_signals(shuffled(entries, seed), runs) == expected
    assert reports.rank_signals(list(reversed(entries)), RUNS) == expected


def test_the_security_tier_overrides_priority() -> None:
    signals = reports.rank_signals(fixture_entries(), RUNS)
    tiers = [s.override_tier for s in signals]
    assert tiers == ["security", "security"] + [None] * (len(signals) - 2)
    assert signals[1].priority < signals[2].priority  # 4.0 ranks before 36.0
    # Each security class, and the area, put a signal in the tier whatever its priority.
    for name in ("invalid_auth", "invalid_identity", "signal_mismatch"):
        low = entry(1, 1, "error", "other", "x", evidence=(f"class:{name}",))
        high = entry(2, 2, "error", "gates", "big", "error", evidence=("class:huge",))
        ranked = reports.rank_signals([high, low], {})
        assert [s.key for s in ranked] == [f"error|class:{name}", "error|class:huge"]
        assert ranked[0].priority < ranked[1].priority
    area = entry(1, 1, "lesson", "security", "keep keys out of logs", evidence=("doc:1",))
    assert reports.rank_signals([area, entry(2, 2, "error", "gates", "x", "error")], {})[0].override_tier == "security"


def test_redaction_runs_before_normalisation_so_a_secret_neither_splits_a_group_nor_leaks() -> None:
    signals = reports.rank_signals(fixture_entries(), RUNS)
    rotate = signals[0]
    assert rotate.frequency == 2 and rotate.run_ids == (rid(1), rid(UNKNOWN_RUN))
    assert rotate.summary == "Rotate the webhook secret: KXM_FIX_BUG_SECRET=<redacted:secret> was echoed in a log"
    text = json.dumps([dataclasses.asdict(s) for s in signals])
    for secret in (SECRET_A, SECRET_B, "s#cr#t", "alpha-#", "secret-#"):
        assert secret not in text
    # Normalising first would have folded the secrets' digits and split them into two groups.
    assert reports.normalise_summary(SECRET_A) != reports.normalise_summary(SECRET_B)


def test_signals_count_only_open_contradictions_and_proposed_candidates() -> None:
    keys = {s.key for s in reports.rank_signals(fixture_entries(), RUNS)}
    assert not any(k.startswith(("plan|", "decision|", "observation|", "state-change|", "hypothesis|")) for k in keys)
    docs = next(
        s
        for s in reports.rank_signals(fixture_entries(), RUNS)
        if s.category == "contradiction" and s.area == "documentation"
    )
    assert docs.run_ids == (rid(4),)
    candidate = next(s for s in reports.rank_signals(fixture_entries(), RUNS) if s.category == "skill-candidate")
    assert candidate.run_ids == (rid(1),) and candidate.frequency == 1


def test_signals_unknown_runs_cost_one_and_say_so() -> None:
    entries = [entry(1, 8, "error", "gates", "boom", "error"), entry(2, 9, "error", "gates", "boom", "error")]
    (signal,) = reports.rank_signals(entries, {})
    assert (signal.workflow_cost, signal.cost_basis, signal.frequency, signal.priority) == (None, "unknown", 2, 3.0)


def test_signals_truncate_ids_to_sixteen_but_count_every_run() -> None:
    entries = [entry(n, n, "error", "gates", "same failure", "warning", evidence=("x",)) for n in range(1, 21)]
    (signal,) = reports.rank_signals(entries, {})
    assert signal.frequency == 20 and signal.priority == 40.0
    assert signal.run_ids == tuple(rid(n) for n in range(1, 17))
    assert signal.entry_ids == tuple(jid(n) for n in range(1, 17))


def test_signals_modal_area_ties_follow_the_area_order_then_unknown_areas_by_name() -> None:
    def areas(*names: str) -> str:
        group = [entry(n, n, "error", name, "same", "error") for n, name in enumerate(names, 1)]
        return reports.rank_signals(group, {})[0].area

    assert areas("implementation", "gates") == "gates"
    assert areas("other", "documentation", "other") == "other"
    assert areas("zeta", "other") == "other"
    assert areas("zeta", "Alpha") == "Alpha"


def test_signals_limit() -> None:
    entries = fixture_entries()
    assert [s.key for s in reports.rank_signals(entries, RUNS, limit=3)] == [k[0] for k in EXPECTED_SIGNALS[:3]]
    many = [entry(n, n, "error", "gates", f"problem {chr(97 + n % 26)}{n // 26}x", "error") for n in range(1, 60)]
    assert len(reports.rank_signals(many, {})) == reports.DEFAULT_SIGNAL_LIMIT == 20
    with pytest.raises(InvalidArgument):
        reports.rank_signals(entries, RUNS, limit=0)


def test_run_facts_cost_counts_attempts_and_transitions() -> None:
    run = retro_run()
    assert reports.run_facts(run) == RunFacts(run.id, "fix-bug", 2 + 1 + 1 + 1)
    idle = dataclasses.replace(run, stages=[StageState(id="a")], transitions=[])
    assert reports.run_facts(idle).cost == 1


# -- retrospective (§3.8) -------------------------------------------------------------------------------

RUN_ID = "run_" + "ab" * 16
HASH = "d" * 64


def retro_definition() -> WorkflowDefinition:
    def stage(stage_id: str, area: str | None) -> StageDefinition:
        return StageDefinition(id=stage_id, label=stage_id, instructions=f"do {stage_id}", area=area)

    return WorkflowDefinition(
        id="fix-bug",
        project="alpha",
        target="coordinator",
        secret="s" * 16,
        prompt_template="Fix it",
        stages=(stage("reproduce", "gates"), stage("review", None), stage("fix", "implementation")),
        hash=HASH,
    )


def at(seconds: int) -> int:
    return BASE + seconds * MICROS


def retro_run() -> Run:
    snapshot = PeerEvidence(
        message_id="msg_" + "0" * 31 + "1",
        producer_id="agt_bob",
        producer_name="bob",
        run_id=RUN_ID,
        stage_id="review",
        requirement_key="peer review",
        visit=1,
        attempt=1,
        request_sha256="1" * 64,
        reply_sha256="2" * 64,
        create_time=at(100),
        deliver_time=at(101),
        reply_time=at(150),
        verify_time=at(160),
    )
    policy = ResolvedPolicy(
        key="peer review",
        min_producers=2,
        eligible=(
            EligibleProducer("agt_carol", "carol", provider="openai"),
            EligibleProducer("agt_bob", "bob", provider="anthropic", model="claude"),
        ),
        distinct_by=(Dimension.PROVIDER,),
        degraded_min_producers=1,
    )
    approval = DegradationApproval(
        id="approval_1",
        stage_id="review",
        requirement_key="peer review",
        visit=1,
        attempt=1,
        policy_min_producers=2,
        approved_min_producers=1,
        approved_by="kxm-admin",
        reason="carol is\non leave",
        approve_time=at(140),
    )
    return Run(
        id=RUN_ID,
        definition_id="fix-bug",
        definition_hash=HASH,
        project="alpha",
        coordinator_id="agt_coord",
        coordinator_name="coordinator",
        delivery_id="delivery-1",
        payload_sha256="e" * 64,
        prompt_message_id="msg_prompt",
        stages=[
            StageState(
                id="reproduce",
                status=StageStatus.PASSED,
                attempts=2,
                visit=1,
                summary="Reproduced with AKIAIOSFODNN7EXAMPLE in the env",
                start_time=at(0),
                complete_time=at(90),
                update_time=at(90),
            ),
            StageState(
                id="review",
                status=StageStatus.PASSED,
                attempts=1,
                visit=1,
                summary="Approved by bob",
                peer_evidence={"peer review": (snapshot,)},
                degraded_requirements=("peer review",),
                start_time=at(95),
                complete_time=at(170),
                update_time=at(170),
            ),
            StageState(
                id="fix",
                status=StageStatus.FAILED,
                attempts=1,
                visit=2,
                summary="Gave up",
                start_time=at(300),
                complete_time=at(400),
                update_time=at(400),
            ),
        ],
        policies={"review": {"peer review": policy}},
        create_time=at(0),
        update_time=at(400),
        status=RunStatus.FAILED,
        transitions=[Transition("trans_1", "fix", "fix", "failed", 1, ("tests",), at(250))],
        approvals=[approval],
        end_time=at(400),
        end_reason="fix failed after 1 attempt",
    )


def retro_journal() -> list[ReportEntry]:
    def e(n: int, category: str, area: str, summary: str, severity: str = "info", **fields: object) -> ReportEntry:
        return ReportEntry(
            id=f"journal_{n:02d}",
            run_id=RUN_ID,
            category=category,
            area=area,
            severity=severity,
            summary=summary,
            create_time=at(n * 10),
            author=fields.pop("author", "agt_coord"),  # type: ignore[arg-type]
            **fields,  # type: ignore[arg-type]
        )

    return [
        e(1, "plan", "workflow", "Reproduce, review, fix"),
        e(
            2,
            "error",
            "gates",
            "Repro failed:\nmissing fixture",
            "warning",
            stage_id="reproduce",
            attempt=1,
            evidence=("repro: missing fixture",),
            author="kxm-hub",
        ),
        e(3, "contradiction", "workflow", "Issue says v2, repo is on v3", "warning"),
        e(4, "contradiction", "documentation", "README says # Heading", "warning"),
        e(
            5,
            "lesson",
            "gates",
            "Pin the fixture version",
            stage_id="reproduce",
            attempt=2,
            evidence=("doc:fixtures.md", "token=abcdefgh12345678"),
            related_entry_ids=("journal_03",),
        ),
        e(
            14,
            "decision",
            "security",
            "Accepted one reviewer",
            "warning",
            stage_id="review",
            attempt=1,
            evidence=("class:workflow_quorum_degradation_approved", "approval:approval_1"),
            author="kxm-admin",
        ),
        e(
            25,
            "state-change",
            "workflow",
            "fix -> fix on failed",
            stage_id="fix",
            attempt=1,
            evidence=("requirement:tests",),
            author="kxm-hub",
        ),
        e(
            30,
            "skill-candidate",
            "implementation",
            "Bisect before patching",
            evidence=("bench:1",),
            promotion_state="approved",
        ),
        e(
            35,
            "error",
            "implementation",
            "Tests still red",
            "error",
            stage_id="fix",
            attempt=1,
            evidence=("class:transition_budget_exhausted", "stage:fix"),
            author="kxm-hub",
        ),
        ReportEntry(
            id="journal_other",
            run_id=rid(1),
            category="error",
            area="gates",
            severity="error",
            summary="another run",
            create_time=at(1),
        ),
    ]


EXPECTED_MARKDOWN = """\
# Workflow retrospective run_abababababababababababababababab

- Schema: kxm.retrospective.v1
- Definition: fix-bug (dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd)
- Status: failed
- Started: 2026-01-01T00:00:00.000000Z
- Ended: 2026-01-01T00:06:40.000000Z
- End reason: fix failed after 1 attempt
- Exported: 2026-01-01T01:00:00.000000Z
- Review decision: proposed
- Degraded stages: review

## Stages

### reproduce

- Area: gates
- Status: passed
- Attempts: 2
- Started: 2026-01-01T00:00:00.000000Z
- Completed: 2026-01-01T00:01:30.000000Z
- Duration: 90000 ms
- Summary: Reproduced with <redacted:aws-key> in the env

Journal:

- journal_02 [error/gates/warning, stage reproduce, attempt 1]: Repro failed: missing fixture; by kxm-hub; \
evidence: repro: missing fixture
- journal_05 [lesson/gates/info, stage reproduce, attempt 2]: Pin the fixture version; by agt_coord; \
related: journal_03; evidence: doc:fixtures.md, token=<redacted:secret>

### review

- Status: passed
- Attempts: 1
- Started: 2026-01-01T00:01:35.000000Z
- Completed: 2026-01-01T00:02:50.000000Z
- Duration: 75000 ms
- Summary: Approved by bob

Journal:

- journal_14 [decision/security/warning, stage review, attempt 1]: Accepted one reviewer; by kxm-admin; \
evidence: class:workflow_quorum_degradation_approved, approval:approval_1

### fix

- Area: implementation
- Status: failed
- Attempts: 1
- Started: 2026-01-01T00:05:00.000000Z
- Completed: 2026-01-01T00:06:40.000000Z
- Duration: 100000 ms
- Summary: Gave up

Journal:

- journal_25 [state-change/workflow/info, stage fix, attempt 1]: fix -> fix on failed; by kxm-hub; \
evidence: requirement:tests
- journal_35 [error/implementation/error, stage fix, attempt 1]: Tests still red; by kxm-hub; \
evidence: class:transition_budget_exhausted, stage:fix

## Transitions

- trans_1: fix -> fix on failed (attempt 1, 2026-01-01T00:04:10.000000Z); evidence keys: tests

## Errors

- journal_02 [error/gates/warning, stage reproduce, attempt 1]: Repro failed: missing fixture; by kxm-hub; \
evidence: repro: missing fixture
- journal_35 [error/implementation/error, stage fix, attempt 1]: Tests still red; by kxm-hub; \
evidence: class:transition_budget_exhausted, stage:fix

## Lessons

- journal_05 [lesson/gates/info, stage reproduce, attempt 2]: Pin the fixture version; by agt_coord; \
related: journal_03; evidence: doc:fixtures.md, token=<redacted:secret>

## Decisions

- journal_14 (security): Accepted one reviewer

## Open contradictions

- journal_04 (documentation): README says # Heading

## Recurring error classes

- unknown: 7
- transition_budget_exhausted: 1
- workflow_quorum_degradation_approved: 1

## Peer-evidence audit

Provenance metadata and content hashes only; request and reply bodies are never exported.

- review / peer review / visit 1, attempt 1: 1/1 producers counted; policy minimum 2; degraded: yes
  - eligible: bob (agt_bob), carol (agt_carol)
  - msg_00000000000000000000000000000001: producer bob (agt_bob), attempt 1, \
request 1111111111111111111111111111111111111111111111111111111111111111, \
reply 2222222222222222222222222222222222222222222222222222222222222222, \
replied 2026-01-01T00:02:30.000000Z, verified 2026-01-01T00:02:40.000000Z
  - approval approval_1: 2 -> 1 producers by kxm-admin at 2026-01-01T00:02:20.000000Z; reason: carol is on leave

## Journal

- journal_01 [plan/workflow/info]: Reproduce, review, fix; by agt_coord
- journal_02 [error/gates/warning, stage reproduce, attempt 1]: Repro failed: missing fixture; by kxm-hub; \
evidence: repro: missing fixture
- journal_03 [contradiction/workflow/warning]: Issue says v2, repo is on v3; by agt_coord
- journal_04 [contradiction/documentation/warning]: README says # Heading; by agt_coord
- journal_05 [lesson/gates/info, stage reproduce, attempt 2]: Pin the fixture version; by agt_coord; \
related: journal_03; evidence: doc:fixtures.md, token=<redacted:secret>
- journal_14 [decision/security/warning, stage review, attempt 1]: Accepted one reviewer; by kxm-admin; \
evidence: class:workflow_quorum_degradation_approved, approval:approval_1
- journal_25 [state-change/workflow/info, stage fix, attempt 1]: fix -> fix on failed; by kxm-hub; \
evidence: requirement:tests
- journal_30 [skill-candidate/implementation/info]: Bisect before patching; by agt_coord; promotion: approved; \
evidence: bench:1
- journal_35 [error/implementation/error, stage fix, attempt 1]: Tests still red; by kxm-hub; \
evidence: class:transition_budget_exhausted, stage:fix

## Proposed improvements

- [proposed] (gates) Repro failed: missing fixture (from journal_02; success: reduce recurrence of this class \
in the next comparable run)
- [proposed] (gates) Pin the fixture version (from journal_05; success: reduce recurrence of this class in the \
next comparable run)
- [proposed] (implementation) Tests still red (from journal_35; success: reduce recurrence of this class in the \
next comparable run)

Proposed improvements are evidence, not policy: apply none before an explicit review decision.
"""


def test_retrospective_markdown_of_a_fixture_run() -> None:
    retrospective = reports.build_retrospective(
        retro_run(), retro_definition(), shuffled(retro_journal(), 3), exported_at=at(3600)
    )
    assert reports.to_markdown(retrospective) == EXPECTED_MARKDOWN


def test_retrospective_document() -> None:
    retrospective = reports.build_retrospective(retro_run(), retro_definition(), retro_journal(), exported_at=at(3600))
    assert retrospective["schema"] == "kxm.retrospective.v1"
    assert (retrospective["runId"], retrospective["status"], retrospective["reviewDecision"]) == (
        RUN_ID,
        "failed",
        "proposed",
    )
    assert retrospective["exportedAt"] == "2026-01-01T01:00:00.000000Z"
    assert [e["id"] for e in retrospective["entries"]] == [
        "journal_01",
        "journal_02",
        "journal_03",
        "journal_04",
        "journal_05",
        "journal_14",
        "journal_25",
        "journal_30",
        "journal_35",
    ]
    assert retrospective["stages"][0] == {
        "id": "reproduce",
        "area": "gates",
        "status": "passed",
        "attempts": 2,
        "startedAt": "2026-01-01T00:00:00.000000Z",
        "completedAt": "2026-01-01T00:01:30.000000Z",
        "durationMs": 90000,
        "updatedAt": "2026-01-01T00:01:30.000000Z",
        "summary": "Reproduced with <redacted:aws-key> in the env",
    }
    assert "area" not in retrospective["stages"][1]
    assert retrospective["counts"] == {
        "byCategory": {
            "plan": 1,
            "decision": 1,
            "contradiction": 2,
            "error": 2,
            "lesson": 1,
            "state-change": 1,
            "skill-candidate": 1,
        },
        "byArea": {"gates": 2, "implementation": 2, "workflow": 3, "documentation": 1, "security": 1},
        "byClass": {"transition_budget_exhausted": 1, "unknown": 7, "workflow_quorum_degradation_approved": 1},
    }
    assert retrospective["openContradictions"] == [
        {"id": "journal_04", "summary": "README says # Heading", "area": "documentation"}
    ]
    assert retrospective["decisions"] == [{"id": "journal_14", "summary": "Accepted one reviewer", "area": "security"}]
    entries = {e["id"]: e for e in retrospective["entries"]}
    assert entries["journal_30"]["promotionState"] == "approved"
    assert "promotionState" not in entries["journal_35"]
    assert entries["journal_05"]["evidence"] == ["doc:fixtures.md", "token=<redacted:secret>"]
    assert [i["entryId"] for i in retrospective["proposedImprovements"]] == ["journal_02", "journal_05", "journal_35"]
    (audit,) = retrospective["evidenceAudit"]
    assert audit["policy"] == {
        "minProducers": 2,
        "effectiveMinProducers": 1,
        "degradedMinProducers": 1,
        "distinctBy": ["provider"],
    }
    assert audit["verifiedProducerIds"] == ["agt_bob"] and audit["degraded"] is True
    assert audit["degradationApprovals"][0]["reason"] == "carol is on leave"
    assert retrospective["degradedStageIds"] == ["review"]
    assert retrospective["transitions"] == [
        {
            "id": "trans_1",
            "fromStage": "fix",
            "toStage": "fix",
            "outcome": "failed",
            "attempt": 1,
            "evidenceKeys": ["tests"],
            "at": "2026-01-01T00:04:10.000000Z",
        }
    ]
    text = json.dumps(retrospective)  # plain JSON values throughout
    assert "AKIAIOSFODNN7EXAMPLE" not in text and "abcdefgh12345678" not in text and "another run" not in text


def test_retrospective_is_the_same_for_any_journal_order() -> None:
    expected = reports.build_retrospective(retro_run(), retro_definition(), retro_journal(), exported_at=at(3600))
    for seed in range(10):
        got = reports.build_retrospective(
            retro_run(), retro_definition(), shuffled(retro_journal(), seed), exported_at=at(3600)
        )
        assert got == expected
        assert reports.to_markdown(got) == reports.to_markdown(expected)


def test_retrospective_bounds_and_optional_parts() -> None:
    run = dataclasses.replace(
        retro_run(),
        policies={},
        approvals=[],
        stages=[dataclasses.replace(s, degraded_requirements=()) for s in retro_run().stages],
    )
    journal = [
        ReportEntry(
            id=f"journal_{n:04d}",
            run_id=RUN_ID,
            category="lesson",
            area="gates",
            severity="info",
            summary=f"lesson {n}",
            create_time=at(n),
            evidence=tuple(f"e{i}" for i in range(40)),
        )
        for n in range(520)
    ]
    retrospective = reports.build_retrospective(run, None, journal, exported_at=at(9999))
    assert "evidenceAudit" not in retrospective and "degradedStageIds" not in retrospective
    assert all("area" not in stage for stage in retrospective["stages"])
    assert len(retrospective["entries"]) == 500 and retrospective["entries"][0]["id"] == "journal_0020"
    assert len(retrospective["entries"][0]["evidence"]) == 32
    assert len(retrospective["proposedImprovements"]) == 12
    assert "## Peer-evidence audit" not in reports.to_markdown(retrospective)


def test_retrospective_needs_an_ended_run() -> None:
    running = dataclasses.replace(retro_run(), status=RunStatus.RUNNING, end_time=None)
    with pytest.raises(FailedPrecondition):
        reports.build_retrospective(running, retro_definition(), [], exported_at=at(1))
    cancelled = dataclasses.replace(retro_run(), status=RunStatus.CANCELLED)
    assert reports.build_retrospective(cancelled, retro_definition(), [], exported_at=at(1))["status"] == "cancelled"


def test_retrospective_markdown_of_an_empty_journal_says_none() -> None:
    run = dataclasses.replace(retro_run(), transitions=[], policies={}, approvals=[])
    text = reports.to_markdown(reports.build_retrospective(run, retro_definition(), [], exported_at=at(1)))
    for heading in (
        "## Transitions",
        "## Errors",
        "## Lessons",
        "## Decisions",
        "## Open contradictions",
        "## Recurring error classes",
        "## Journal",
        "## Proposed improvements",
    ):
        assert f"{heading}\n\n- none\n" in text
