"""Logs carry metadata, never message bodies, tokens or keys, even in tracebacks."""

from __future__ import annotations

import io
import json

import pytest

from kxm_grpc.errors import Internal, Reason
from kxm_grpc.services import messages
from tests.conftest import AgentFactory, Project


async def test_internal_error_logs_no_secret_or_body(
    log_lines: io.StringIO, make_agent: AgentFactory, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unexpected failure is INTERNAL with a fixed message; its logged traceback has no locals."""
    sender = await make_agent("sender")
    await make_agent("receiver")
    secret_body = "top-secret-message-body-7f3a"

    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(messages.rules, "outgoing", explode)

    with pytest.raises(Internal) as caught:
        await sender.send_message("receiver", secret_body)

    text = log_lines.getvalue()
    assert caught.value.reason is Reason.INTERNAL_ERROR
    assert caught.value.message == "internal error"
    assert "RuntimeError" in text  # the traceback was logged once
    for secret in (secret_body, project.token, sender.agent_key or "-"):
        assert secret not in text
    events = [json.loads(line)["event"] for line in text.splitlines()]
    assert "request_error" in events


async def test_messages_are_counted_and_not_logged_at_info(log_lines: io.StringIO, make_agent: AgentFactory) -> None:
    """At info no per-message line is written (decisions 28b); kxm_messages_total counts sends (not
    idempotent repeats), replies and cancels at every level."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")
    counts = {event: messages.MESSAGE_EVENTS.labels(event) for event in ("sent", "replied", "cancelled")}
    before = {event: child._value.get() for event, child in counts.items()}

    first = (await alice.send("bob", "q", idempotency_key="k")).message
    await alice.send("bob", "q", idempotency_key="k")  # an exact repeat: not a new message
    second = (await alice.send("bob", "r")).message
    await bob.reply(first.id, "a")
    await alice.cancel(second.id)

    events = {json.loads(line)["event"] for line in log_lines.getvalue().splitlines()}
    assert {event: child._value.get() - before[event] for event, child in counts.items()} == {
        "sent": 2,
        "replied": 1,
        "cancelled": 1,
    }
    assert "agent_registered" in events  # the buffer does receive the hub's info lines
    assert not events & {"message_sent", "message_replied", "message_cancelled"}
