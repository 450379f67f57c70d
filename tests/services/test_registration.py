"""Registration rules applied by the services themselves, on a real store and without gRPC: agents
(names, fields, the default purpose) and runtimes (ids, hosts), refused before anything is stored."""

from __future__ import annotations

import pytest

from kxm_grpc.domain.agents import DEFAULT_PURPOSE, Registration
from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.clock import ManualClock
from kxm_grpc.errors import InvalidArgument, Reason
from kxm_grpc.services import agents, runtimes
from kxm_grpc.store.sqlite import SqliteStore

PROJECT = Caller(CredentialKind.PROJECT, project="p")


async def test_an_agent_registration_is_validated_by_the_service(store: SqliteStore) -> None:
    """The service trims the fields and fills in the default purpose; an empty name or a field over its
    limit is INVALID_ARGUMENT naming it, and no agent is stored."""
    # Prepare
    now = ManualClock().now()

    # Execute
    made = await agents.register_agent(
        store, PROJECT, Registration("  builder  ", "", " gpt ", " host-1 "), presented_key=None, now=now
    )
    fields = []
    for registration in (
        Registration("   ", "", "", ""),
        Registration("n" * 65, "", "", ""),
        Registration("x", "p" * 257, "", ""),
        Registration("x", "", "m" * 129, ""),
        Registration("x", "", "", "h" * 65),
    ):
        with pytest.raises(InvalidArgument) as caught:
            await agents.register_agent(store, PROJECT, registration, presented_key=None, now=now)
        fields.append(caught.value.metadata["field"])
    listed, _ = await agents.list_agents(store, PROJECT, 0, "", include_offline=True)

    # Assert
    assert (made.agent.name, made.agent.purpose, made.agent.model, made.agent.host) == (
        "builder",
        DEFAULT_PURPOSE,
        "gpt",
        "host-1",
    )
    assert fields == ["name", "name", "purpose", "model", "host"]
    assert [agent.name for agent in listed] == ["builder"]


async def test_a_runtime_registration_is_validated_by_the_service(store: SqliteStore) -> None:
    """A runtime id that is not an opaque id is INVALID_RUNTIME_ID, a host over 64 characters names host;
    the host is trimmed."""
    # Prepare
    now = ManualClock().now()

    # Execute
    made = await runtimes.register_runtime(store, PROJECT, "rtm_0123456789ab", "  box  ", now=now)
    with pytest.raises(InvalidArgument) as bad_id:
        await runtimes.register_runtime(store, PROJECT, "not an id", "", now=now)
    with pytest.raises(InvalidArgument) as long_host:
        await runtimes.register_runtime(store, PROJECT, "rtm_0123456789ac", "h" * 65, now=now)

    # Assert
    assert made.runtime.host == "box"
    assert bad_id.value.reason is Reason.INVALID_RUNTIME_ID
    assert long_host.value.metadata["field"] == "host"
    assert await store.read(lambda tx: tx.runtimes.get("p", "rtm_0123456789ac")) is None
