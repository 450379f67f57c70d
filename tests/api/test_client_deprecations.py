"""The flat names of the first client still work for one release, and each one says what replaces it.

Every flat name (``hub.send_message``, the short ``hub.send``/``get``/``ack``/..., ``hub.hold_lease``)
emits DeprecationWarning naming the namespaced method, at the caller's line, and calls it; the ones
that took ``timeout=`` or ``reply_wait=`` for a wait length pass it on as ``wait=``.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Callable
from typing import Any

import pytest

from kxm_grpc.client import Admin, Agents, HubClient, Leases, Messages, Runtimes, SyncHubClient
from kxm_grpc.v1 import MessageState
from tests.conftest import AgentFactory, Hub, Project

# flat name -> (area, method, the flat call's arguments, the arguments the namespaced method gets).
# Arguments are (args, kwargs); None for the namespaced ones means "the same".
Call = tuple[tuple[Any, ...], dict[str, Any]]
FLAT: dict[str, tuple[str, str, Call, Call | None]] = {
    "register_agent": ("agents", "register", (("a",), {"remember": True}), None),
    "heartbeat": ("agents", "heartbeat", ((), {}), None),
    "unregister_agent": ("agents", "unregister", ((), {}), None),
    "list_agents": ("agents", "list", ((), {"include_offline": True}), None),
    "get_caller_identity": ("agents", "get_caller_identity", ((), {}), None),
    "caller_project": ("agents", "caller_project", ((), {}), None),
    "send_message": (
        "messages",
        "send",
        (("bob", "hi"), {"reply_wait": 3, "ttl": 9}),
        (("bob", "hi"), {"wait": 3, "ttl": 9}),
    ),
    "send": ("messages", "send", (("bob", "hi"), {"reply_wait": None}), (("bob", "hi"), {"wait": None})),
    "get_message": ("messages", "get", (("m",), {}), None),
    "get": ("messages", "get", (("m",), {}), None),
    "cancel_message": ("messages", "cancel", (("m",), {}), None),
    "cancel": ("messages", "cancel", (("m",), {}), None),
    "reply_to_message": ("messages", "reply", (("m", "ok"), {}), None),
    "reply": ("messages", "reply", (("m", "ok"), {}), None),
    "ack_messages": ("messages", "ack", ((["m", "n"],), {}), None),
    "ack": ("messages", "ack", (("m", "n"), {}), ((("m", "n"),), {})),
    "list_inbox": ("messages", "list_inbox", ((), {"page_size": 2}), None),
    "inbox": ("messages", "list_inbox", ((), {"page_size": 2}), None),
    # wait_message was one long poll: its timeout is capped at 60 s (one call), and None meant 60 s.
    "wait_message": ("messages", "wait", (("m",), {"timeout": 90}), (("m",), {"wait": 60.0})),
    "wait": ("messages", "wait", (("m",), {"timeout": 90}), (("m",), {"wait": 90})),
    "fanout_messages": ("messages", "fanout", ((["b"], "q"), {"timeout": 7}), None),
    "fanout": ("messages", "fanout", ((["b"], "q"), {"timeout": 7}), None),
    "subscribe": ("messages", "subscribe", ((5,), {"auto_ack": True}), None),
    "acquire_lease": ("leases", "acquire", (("l",), {"ttl": 5, "wait": 1}), None),
    "renew_lease": ("leases", "renew", (("l", 3), {"ttl": 5}), None),
    "release_lease": ("leases", "release", (("l", 3), {}), None),
    "get_lease": ("leases", "get", (("l",), {}), None),
    "list_leases": ("leases", "list", ((), {"include_lapsed": True}), None),
    "check_fence": ("leases", "check_fence", (("l", 3), {}), None),
    "hold_lease": ("leases", "hold", (("l",), {"ttl": 9}), None),
    "register_runtime": ("runtimes", "register", (("rtm_x",), {"adopt": True}), None),
    "runtime_heartbeat": ("runtimes", "heartbeat", ((), {"host": "h"}), None),
    "list_runtimes": ("runtimes", "list", ((), {}), None),
    "push_sync_events": ("runtimes", "push_sync_events", (([],), {}), None),
    "list_run_events": ("runtimes", "list_run_events", (("p", "r"), {"after_sequence": 1}), None),
    "reassign_sync_project": ("runtimes", "reassign_sync_project", (("p", "beta"), {}), None),
    "create_project": ("admin", "create_project", (("gamma",), {}), None),
    "list_projects": ("admin", "list_projects", ((), {}), None),
    "rotate_project_token": ("admin", "rotate_project_token", (("gamma",), {}), None),
}
# fanout's wait: the flat names' timeout= is the namespaced wait=.
FLAT["fanout_messages"] = (*FLAT["fanout_messages"][:3], ((["b"], "q"), {"wait": 7}))
FLAT["fanout"] = (*FLAT["fanout"][:3], ((["b"], "q"), {"wait": 7}))


AREAS: dict[str, type] = {
    "agents": Agents,
    "messages": Messages,
    "leases": Leases,
    "runtimes": Runtimes,
    "admin": Admin,
}


def _arguments(area: str, method: str, call: Call) -> dict[str, Any]:
    """Every argument a call gives the namespaced method, defaults included (to compare calls)."""
    bound = inspect.signature(getattr(AREAS[area], method)).bind(None, *call[0], **call[1])
    bound.apply_defaults()
    return dict(list(bound.arguments.items())[1:])


def _public_flat_names(cls: type) -> set[str]:
    """The names a flat tier defines (aliases and the methods that translate arguments)."""
    return {
        name
        for klass in cls.__mro__
        if klass.__name__ in ("FlatCalls", "_SyncFlatCalls")
        for name, value in vars(klass).items()
        if not name.startswith("_") and (callable(value) or hasattr(value, "__get__"))
    }


def test_the_table_covers_every_flat_name() -> None:
    """FLAT names every deprecated name of HubClient; SyncHubClient has the same ones but hold_lease."""
    assert _public_flat_names(HubClient) == set(FLAT)
    assert _public_flat_names(SyncHubClient) == set(FLAT) - {"hold_lease"}


def _recorder(calls: list[Call], *, is_async: bool) -> Callable[..., Any]:
    if is_async:

        async def record_async(*args: Any, **kwargs: Any) -> str:
            calls.append((args, kwargs))
            return "answer"

        return record_async

    def record(*args: Any, **kwargs: Any) -> str:
        calls.append((args, kwargs))
        return "answer"

    return record


@pytest.mark.parametrize("flat", sorted(FLAT))
async def test_a_flat_name_warns_and_calls_the_namespaced_method(flat: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The warning names both methods and points at the caller's line; the arguments arrive translated."""
    area, method, (args, kwargs), expected = FLAT[flat]
    calls: list[Call] = []
    async with HubClient("127.0.0.1:1", token="t") as client:
        monkeypatch.setattr(getattr(client, area), method, _recorder(calls, is_async=True))
        with pytest.warns(DeprecationWarning) as caught:
            result = getattr(client, flat)(*args, **kwargs)
            if inspect.isawaitable(result):
                result = await result

    assert result == "answer"
    assert [_arguments(area, method, c) for c in calls] == [_arguments(area, method, expected or (args, kwargs))]
    assert [str(w.message) for w in caught] == [
        f"HubClient.{flat} is deprecated and will be removed in the next release; use HubClient.{area}.{method}"
    ]
    assert caught[0].filename == __file__


@pytest.mark.parametrize("flat", sorted(set(FLAT) - {"hold_lease"}))
def test_a_flat_name_of_the_sync_client_warns_too(flat: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """SyncHubClient's flat names warn in the caller's thread, at the caller's line, and block."""
    area, method, (args, kwargs), expected = FLAT[flat]
    calls: list[Call] = []
    with SyncHubClient("127.0.0.1:1", token="t") as client:
        monkeypatch.setattr(getattr(client, area), method, _recorder(calls, is_async=False))
        with pytest.warns(
            DeprecationWarning, match=rf"^SyncHubClient\.{flat} is deprecated .* use SyncHubClient\.{area}\.{method}$"
        ) as caught:
            result = getattr(client, flat)(*args, **kwargs)

    assert result == "answer"
    assert [_arguments(area, method, c) for c in calls] == [_arguments(area, method, expected or (args, kwargs))]
    assert caught[0].filename == __file__


async def test_flat_calls_still_reach_the_hub(make_agent: AgentFactory) -> None:
    """End to end, the old spellings behave as before: reply_wait, wait_message(timeout=), ack(*ids)."""
    alice = await make_agent("alice")
    bob = await make_agent("bob")

    with pytest.warns(DeprecationWarning, match=re.escape("use HubClient.messages.send")):
        sent = (await alice.send_message("bob", "q", reply_wait=0.1)).message
    with pytest.warns(DeprecationWarning, match=re.escape("use HubClient.messages.ack")):
        await bob.ack(sent.id)
    with pytest.warns(DeprecationWarning, match=re.escape("use HubClient.messages.reply")):
        await bob.reply(sent.id, "a")
    with pytest.warns(DeprecationWarning, match=re.escape("use HubClient.messages.wait")):
        waited = await alice.wait_message(sent.id, timeout=5)

    assert (waited.terminal, waited.message.state) == (True, MessageState.MESSAGE_STATE_REPLIED)


async def test_flat_calls_of_the_sync_client_reach_the_hub(hub: Hub, project: Project) -> None:
    """The sync client's flat names too (on a thread: the hub serves on this test's loop)."""

    def blocking() -> str:
        with SyncHubClient(hub.address, token=project.token) as client:
            with pytest.warns(DeprecationWarning, match=re.escape("use SyncHubClient.agents.register")):
                client.register_agent("planner")
            with pytest.warns(DeprecationWarning, match=re.escape("use SyncHubClient.agents.list")):
                return client.list_agents().agents[0].name

    assert await asyncio.to_thread(blocking) == "planner"
