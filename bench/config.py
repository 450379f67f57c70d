"""How big a run is: the full scale of issue 6, and a tiny one for the smoke test."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Config:
    """Scales, repetitions and time boxes of one run."""

    reps: int
    warmup: float
    """Seconds of load before each measured window."""
    duration: float
    """Seconds of each measured window."""
    pairs: tuple[int, ...]
    """Concurrent pairs (or callers) of the closed-loop scenarios."""
    subscribers: tuple[int, ...]
    delivery_events: int
    """Events delivered in one delivery repetition, split evenly over the subscribers."""
    delivery_reps: int
    """Repetitions of each delivery scale, alternating raw push and hub (each is short, so more of them)."""
    payload_size: int
    """Bytes of content in every message, event and echo."""
    paced_rate: float
    paced_duration: float
    paced_pairs: int
    idle_streams: int
    idle_channels: int
    """Client channels the idle streams are spread over."""
    probe_workers: int
    """Concurrent unary callers measuring p99 while the idle streams are open."""
    sqlite_duration: float
    headline_pairs: int
    """The scale the targets are judged at (8 pairs)."""
    checkpoint_runs: int
    """Concurrent workflow runs (each its own coordinator and two reviewers) and concurrent senders."""
    checkpoint_scales: tuple[tuple[int, int], ...]
    """(stages per run, runs per coordinator per repetition): one measured checkpoint per stage and run;
    a stage's phase checkpoints each coordinator's runs back to back. 32 stages is the most a definition holds."""
    checkpoint_reps: int
    """Repetitions of each checkpoint row (send, refs, plain alternating)."""
    journal_workers: int
    """Concurrent RecordJournal callers (each into a run of its own) and concurrent durable senders."""
    journal_runs: int
    """Runs of the improvement report's project (issue 15: 1,000)."""
    journal_entries_per_run: int
    """Entries recorded into each of those runs (issue 15: 20)."""
    journal_report_calls: int
    """Measured GetImprovementReport calls, one at a time, after one unmeasured call."""
    steps_runs: int
    """Step runs in flight (one project: its maxConcurrentRuns, 8 by default, admits them), concurrent
    senders of the send round trip, and concurrent callers of the token rows."""
    steps_chain: int
    """Agent steps in each run's chain (issue 16: 10-20)."""
    steps_phases: int
    """Phases per repetition: each starts ``steps_runs`` runs and drives them to their end."""
    steps_reps: int
    """Repetitions of the step rows (send round trip and steps alternating)."""
    token_verify_calls: int
    """In-process attempt-token verifications timed per repetition."""
    context_sizes: tuple[int, ...]
    """Items in the context bench's project, one pool per size (issue 17: 1,000 to 100,000)."""
    context_calls: int
    """Packets and recalls timed per row, one at a time."""
    context_brute_calls: int
    """Brute-force packets and recalls timed per row above 10,000 items (each takes seconds)."""


FULL = Config(
    reps=3,
    warmup=0.4,
    duration=2.0,
    pairs=(1, 8, 32),
    subscribers=(1, 10, 100),
    delivery_events=6_000,
    delivery_reps=5,
    payload_size=128,
    paced_rate=1_000.0,
    paced_duration=3.0,
    paced_pairs=8,
    idle_streams=10_000,
    idle_channels=20,
    probe_workers=8,
    sqlite_duration=1.0,
    headline_pairs=8,
    checkpoint_runs=8,
    checkpoint_scales=((4, 16), (32, 4)),
    checkpoint_reps=3,
    journal_workers=8,
    journal_runs=1_000,
    journal_entries_per_run=20,
    journal_report_calls=5,
    steps_runs=8,
    steps_chain=16,
    steps_phases=4,
    steps_reps=3,
    token_verify_calls=20_000,
    context_sizes=(1_000, 10_000, 100_000),
    context_calls=40,
    context_brute_calls=3,
)

QUICK = Config(
    reps=1,
    warmup=0.05,
    duration=0.25,
    pairs=(1, 2),
    subscribers=(1, 3),
    delivery_events=60,
    delivery_reps=1,
    payload_size=128,
    paced_rate=100.0,
    paced_duration=0.3,
    paced_pairs=2,
    idle_streams=40,
    idle_channels=2,
    probe_workers=2,
    sqlite_duration=0.1,
    headline_pairs=2,
    checkpoint_runs=2,
    checkpoint_scales=((4, 16),),
    checkpoint_reps=1,
    journal_workers=2,
    journal_runs=50,
    journal_entries_per_run=20,
    journal_report_calls=2,
    steps_runs=2,
    steps_chain=4,
    steps_phases=4,
    steps_reps=1,
    token_verify_calls=400,
    context_sizes=(300,),
    context_calls=3,
    context_brute_calls=2,
)
