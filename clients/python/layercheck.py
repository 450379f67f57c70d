"""Layer check (Python, the reference): what the thin client layer of each language must do, as
facts (docs/clients.md, "The thin layers"; tests/test_client_layers.py).

Clients built with no arguments (``KXM_ADDR``/``KXM_TOKEN`` or a credentials file), the decoded
errors, the default deadline, and a subscription that resumes by itself across a hub restart: it
prints ``{"waiting": "restart"}``, then waits for a line ``restarted`` on stdin (the test kills the
hub and starts it again meanwhile). Prints one JSON transcript line; exits 1 when a step failed.
Environment: what the client reads, and ``KXM_NAME_PREFIX``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from typing import Any

from kxm_grpc.client import HubClient
from kxm_grpc.errors import HubError, Unavailable
from kxm_grpc.v1 import agent_service_pb2 as apb
from kxm_grpc.v1 import message_service_pb2 as mpb

MISSING_MESSAGE_ID = "msg_" + "0" * 32
EVENT_WAIT = 30.0
RETRY_FOR = 20.0
DEFAULT_DEADLINE = 3.0  # the short client's default deadline (the wait it bounds is 10 s)


class Failed(Exception):
    """A step did not get what it waited for."""


def error_facts(error: HubError) -> dict[str, Any]:
    return {"code": error.status, "reason": str(error.reason or "")}


async def next_message(events: Any, seen: dict[str, Any]) -> mpb.SubscribeResponse:
    """The next message event of a subscription (counting ready events and the highest seq)."""
    while True:
        event = await asyncio.wait_for(anext(events), EVENT_WAIT)
        if event.HasField("ready"):
            seen["readies"] += 1
            # The cursor a reconnection resumed from: the highest seq seen before it (events that
            # reached the old stream before the hub died count; other agents' presence among them).
            seen["after_seq_is_cursor"] = event.ready.after_seq == seen["seq"]
        else:
            seen["seq"] = max(seen["seq"], event.seq)
        if event.HasField("message"):
            return event


async def run(steps: list[dict[str, Any]], prefix: str) -> None:
    async with HubClient() as a, HubClient() as b, HubClient() as c:
        await a.agents.register(f"{prefix}-a", purpose="layer check")
        await b.agents.register(f"{prefix}-b", purpose="layer check")
        identity = await a.agents.get_caller_identity()
        steps.append(
            {
                "step": "register",
                "credential_kind": apb.CredentialKind.Name(identity.credential_kind),
                "name_equal": identity.agent_name == f"{prefix}-a",
            }
        )

        try:
            await a.messages.get(MISSING_MESSAGE_ID)
            steps.append({"step": "not_found", "code": "OK"})
        except HubError as error:
            steps.append({"step": "not_found", **error_facts(error), "domain": error.domain, "layer_error": True})

        try:
            await c.agents.register("")
            steps.append({"step": "invalid", "code": "OK"})
        except HubError as error:
            fields = [violation.field for violation in error.field_violations]
            steps.append({"step": "invalid", **error_facts(error), "fields": fields})

        probe = await a.messages.send(f"{prefix}-b", "deadline probe")
        async with HubClient(agent_id=a.agent_id, agent_key=a.agent_key, timeout=DEFAULT_DEADLINE) as short:
            await short.agents.get_caller_identity()  # the connection is up before the timing starts
            # The hub ends a wait before the call's deadline: the 3 s default bounds a 10 s wait
            # (OK and not terminal; DEADLINE_EXCEEDED when the answer loses the race on a busy machine).
            request = mpb.WaitMessageRequest(message_id=probe.message.id, wait={"seconds": 10})
            started = time.monotonic()
            try:
                waited = await short.invoke("/kxm.v1.MessageService/WaitMessage", request, mpb.WaitMessageResponse)
                early = not waited.terminal
            except HubError as error:
                early = error.status == "DEADLINE_EXCEEDED"
            steps.append({"step": "deadline", "ended_before_wait": early and time.monotonic() - started < 8})

        events = b.messages.subscribe(0)
        seen = {"readies": 0, "after_seq_is_cursor": False, "seq": 0}
        first = await asyncio.wait_for(anext(events), EVENT_WAIT)
        seen["readies"] += 1
        steps.append({"step": "subscribe", "first": first.WhichOneof("event")})
        probed = await next_message(events, seen)
        await b.messages.ack([probed.message.id])

        print(json.dumps({"waiting": "restart"}), flush=True)
        line = await asyncio.to_thread(sys.stdin.readline)
        if line.strip() != "restarted":
            raise Failed(f"expected 'restarted' on stdin, got {line!r}")
        deadline = asyncio.get_running_loop().time() + RETRY_FOR
        while True:
            try:
                # allow_offline: the restarted hub counts b offline until its stream is back.
                await a.messages.send(
                    f"{prefix}-b", "after restart", idempotency_key=f"{prefix}-after-restart", allow_offline=True
                )
                break
            except Unavailable:
                if asyncio.get_running_loop().time() > deadline:
                    raise
                await asyncio.sleep(0.2)
        event = await next_message(events, seen)
        while event.message.content != "after restart":
            event = await next_message(events, seen)
        steps.append(
            {
                "step": "resume",
                "readies": seen["readies"],
                "after_seq_is_cursor": seen["after_seq_is_cursor"],
                "received": True,
                "redelivered": event.redelivered,
            }
        )
        await events.aclose()
    steps.append({"step": "closed"})


async def main() -> int:
    prefix = os.environ.get("KXM_NAME_PREFIX", "layercheck")
    out: dict[str, Any] = {"language": "python", "ok": True, "steps": []}
    try:
        await run(out["steps"], prefix)
    except (HubError, Failed, TimeoutError) as error:
        out.update(ok=False, error=f"{type(error).__name__}: {error}")
    print(json.dumps(out), flush=True)
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
