"""Waits' deadlines and the prompts' reactions: what ends a run while nobody calls.

Waits expire exactly, by a durable timer (``WAIT_TIMER``, fired by one replica at a time), with
a timeout notice to the coordinator. Hub-written prompts react to their messages
(``PromptReactions``): the coordinator replying to the current prompt while the run is running
settled too early, and the current prompt expiring while it runs leaves no one working on it;
both fail the run.
"""

from __future__ import annotations

from dataclasses import dataclass

import structlog

from kxm_grpc.domain.messages import Delivery, Message, hub_sender_run
from kxm_grpc.domain.workflows import waits
from kxm_grpc.domain.workflows.outcomes import Step
from kxm_grpc.domain.workflows.runs import Run, RunStatus
from kxm_grpc.services import timers
from kxm_grpc.services.limits import Limits
from kxm_grpc.services.messages import register_hub_message_reactions, send_from_hub
from kxm_grpc.services.workflows.events import log_events
from kxm_grpc.services.workflows.runs import (
    WAIT_TIMER,
    pinned,
    prompt_ttl,
)
from kxm_grpc.services.workflows.steps import store_step
from kxm_grpc.store import Store, Timer, Tx

log = structlog.get_logger("kxm.workflows")


def _expire(tx: Tx, run: Run, *, limits: Limits, now: int) -> Step | None:
    step = waits.expire_wait(run, now=now)
    if step is None:
        return None
    definition = pinned(tx, run)
    waiting = run.wait
    assert waiting is not None
    coordinator = tx.agents.get(run.coordinator_id)
    if coordinator is not None:
        ttl = prompt_ttl(definition, limits)
        send_from_hub(
            tx,
            run_id=run.id,
            sender_name=f"timeout:{definition.id}",
            target=coordinator,
            content=(
                f"Durable workflow run: {run.id}\nWorkflow: {definition.id}\n"
                f"The wait for signal {waiting.signal_key} on stage {waiting.stage_id} timed out; the run failed."
            ),
            delivery=Delivery.FOLLOW_UP,
            idempotency_key=f"{definition.id}:timeout:{waiting.signal_key}:{waiting.expire_time}",
            ttl=ttl,
            now=now,
        )
    store_step(tx, definition, run, step, now)
    return step


async def expire_if_due(store: Store, run_id: str, *, limits: Limits, now: int) -> bool:
    """Expire the run's wait now if it is overdue (before a signal is handled). Returns whether it did."""

    def work(tx: Tx) -> Step | None:
        run = tx.workflows.get_run(run_id)
        return None if run is None else _expire(tx, run, limits=limits, now=now)

    step = await store.write(work)
    if step is not None:
        log_events(step.run, step.events)
    return step is not None


@dataclass
class WaitTimers:
    """The handler of ``WAIT_TIMER`` (it needs the hub's limits for the timeout notice's TTL)."""

    limits: Limits

    def fire(self, tx: Tx, timer: Timer, now: int) -> Step | None:
        run = tx.workflows.get_run(timer.key)
        if run is None or run.wait is None:
            return None
        if run.wait.expire_time > now:  # moved later meanwhile: fire at the new deadline
            timers.schedule(tx, WAIT_TIMER, run.id, run.wait.expire_time)
            return None
        return _expire(tx, run, limits=self.limits, now=now)

    @staticmethod
    def fired(steps: list[Step | None]) -> None:
        """After the firing transactions committed: log what they did."""
        for step in steps:
            if step is not None:
                log.info("workflow_wait_expired", run_id=step.run.id)
                log_events(step.run, step.events)


def register(kinds: timers.TimerKinds, limits: Limits) -> None:
    """Register what happens at a run's wait deadline with the hub's scheduler, and the prompts'
    reactions to replies and expiries with messaging (once per process)."""
    handler = WaitTimers(limits)
    kinds.register(WAIT_TIMER, handler.fire, fired=handler.fired)
    register_hub_message_reactions(PROMPTS)


class PromptReactions:
    """A reply to, or the expiry of, a run's current prompt while the run is running fails it."""

    def replied(self, tx: Tx, message: Message, now: int) -> None:
        self._settled(
            tx, message, now, "the coordinator replied before every required checkpoint passed", "early_reply"
        )

    def expired(self, tx: Tx, message: Message, now: int) -> None:
        self._settled(tx, message, now, "the coordinator's prompt expired before the run ended", "prompt_expired")

    def _settled(self, tx: Tx, message: Message, now: int, reason: str, kind: str) -> None:
        run_id = hub_sender_run(message.from_agent_id)
        run = tx.workflows.get_run(run_id) if run_id else None
        if run is None or run.status is not RunStatus.RUNNING or run.prompt_message_id != message.id:
            return  # a reply after a wait (or to an older prompt) is expected
        definition = pinned(tx, run)
        step = waits.fail(run, reason, now=now, evidence=(f"message:{message.id}", f"class:{kind}"))
        store_step(tx, definition, run, step, now)
        # Inside the reply's or expiry's transaction (messaging offers no after-commit hook): a
        # rolled-back reply would leave this line behind, which the run's state then contradicts.
        log_events(step.run, step.events)


PROMPTS = PromptReactions()
