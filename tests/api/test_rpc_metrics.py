"""The py-grpc-prometheus metrics of a real hub: started, handled by code (cancelled and timed-out
streams included), handling time, messages, in-flight calls, and the build info."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace

import grpc
import pytest
import pytest_asyncio
from prometheus_client import REGISTRY, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from kxm_grpc._gen.kxm.v1 import message_service_pb2 as mpb
from kxm_grpc._gen.kxm.v1 import message_service_pb2_grpc
from kxm_grpc.client import HubClient
from kxm_grpc.client.context import context_item
from kxm_grpc.errors import Unauthenticated
from kxm_grpc.server import census_metrics
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.rpc_metrics import COLLECTOR, MethodMetrics
from kxm_grpc.server.settings import Settings
from kxm_grpc.version import version
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub, sqlite_only
from tests.harness import eventually

SUBSCRIBE = {"grpc_type": "server_stream", "grpc_service": "kxm.v1.MessageService", "grpc_method": "Subscribe"}
LIST_AGENTS = {"grpc_type": "unary", "grpc_service": "kxm.v1.AgentService", "grpc_method": "ListAgents"}


@pytest.fixture
def hub_settings(hub_settings: Settings) -> Settings:
    """The hub of these tests serves metrics (on a free loopback port): per-call metrics are on."""
    return replace(hub_settings, metrics_port=0)


def sample(name: str, labels: dict[str, str]) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def handled(labels: dict[str, str], code: str) -> float:
    return sample("grpc_server_handled_total", {**labels, "grpc_code": code})


async def test_unary_calls_are_started_handled_by_code_timed_and_counted_as_messages(
    hub: Hub, make_agent: AgentFactory
) -> None:
    # Prepare
    agent = await make_agent("metered")
    before = {
        "started": sample("grpc_server_started_total", LIST_AGENTS),
        "ok": handled(LIST_AGENTS, "OK"),
        "unauthenticated": handled(LIST_AGENTS, "UNAUTHENTICATED"),
        "timed": sample("grpc_server_handling_seconds_count", LIST_AGENTS),
        "sent": sample("grpc_server_msg_sent_total", LIST_AGENTS),
    }
    # Execute
    await agent.agents.list()
    async with HubClient(hub.address, token="not-a-token") as stranger:
        with pytest.raises(Unauthenticated):
            await stranger.agents.list()
    # A refused call's status reaches the client before its handler's bookkeeping ends (the abort
    # is sent, then the wrapper's finally counts it): wait for the hub to have no unary call left.
    for _ in range(200):
        if sample("kxm_rpc_in_flight", {"grpc_type": "unary"}) == 0:
            break
        await asyncio.sleep(0.01)
    # Assert
    assert sample("grpc_server_started_total", LIST_AGENTS) - before["started"] == 2
    assert handled(LIST_AGENTS, "OK") - before["ok"] == 1
    assert handled(LIST_AGENTS, "UNAUTHENTICATED") - before["unauthenticated"] == 1
    assert sample("grpc_server_handling_seconds_count", LIST_AGENTS) - before["timed"] == 2
    assert sample("grpc_server_msg_sent_total", LIST_AGENTS) - before["sent"] == 1
    assert sample("kxm_rpc_in_flight", {"grpc_type": "unary"}) == 0


async def _subscribe(agent: HubClient, *, timeout: float | None) -> grpc.aio.UnaryStreamCall:  # type: ignore[type-arg]
    stub = message_service_pb2_grpc.MessageServiceStub(agent.channel)
    call = stub.Subscribe(mpb.SubscribeRequest(), metadata=agent.metadata, timeout=timeout)
    await call.read()  # the ready event: the stream is admitted and open
    return call


async def test_a_stream_the_client_cancels_is_handled_as_cancelled(hub: Hub, make_agent: AgentFactory) -> None:
    # Prepare
    agent = await make_agent("leaver")
    cancelled = handled(SUBSCRIBE, "CANCELLED")
    call = await _subscribe(agent, timeout=None)
    assert sample("kxm_rpc_in_flight", {"grpc_type": "server_stream"}) >= 1
    # Execute
    call.cancel()
    # Assert
    await eventually(lambda: handled(SUBSCRIBE, "CANCELLED") - cancelled == 1)


async def test_a_stream_past_its_deadline_is_handled_as_deadline_exceeded(hub: Hub, make_agent: AgentFactory) -> None:
    # Prepare
    agent = await make_agent("late")
    exceeded = handled(SUBSCRIBE, "DEADLINE_EXCEEDED")
    call = await _subscribe(agent, timeout=0.5)
    # Execute
    with pytest.raises(grpc.aio.AioRpcError) as error:
        while True:
            await asyncio.wait_for(call.read(), 10)
    # Assert
    assert error.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    await eventually(lambda: handled(SUBSCRIBE, "DEADLINE_EXCEEDED") - exceeded == 1)


def test_the_build_info_carries_the_version() -> None:
    # Execute
    values = [
        sample.labels["version"]
        for metric in REGISTRY.collect()
        if metric.name == "kxm_build_info"
        for sample in metric.samples
    ]
    # Assert
    assert values == [version()]


@pytest_asyncio.fixture
async def unmetered_hub(hub_settings: Settings) -> AsyncIterator[HubClient]:
    """An agent of a second hub, one without a metrics endpoint, in this process."""
    server = HubServer(replace(hub_settings, metrics_port=None, data_dir=hub_settings.data_dir.parent / "unmetered"))
    await server.start()
    try:
        async with HubClient(server.address, token=ADMIN_TOKEN) as admin:
            project = await admin.admin.create_project("quiet")
        async with HubClient(server.address, token=str(project.project_token)) as agent:
            await agent.agents.register("quiet")
            yield agent
    finally:
        await server.stop(0)


@sqlite_only
async def test_a_hub_without_a_metrics_endpoint_records_no_per_call_metrics(unmetered_hub: HubClient) -> None:
    # Prepare
    started = sample("grpc_server_started_total", LIST_AGENTS)
    # Execute
    await unmetered_hub.agents.list()
    # Assert
    assert sample("grpc_server_started_total", LIST_AGENTS) == started


async def test_store_commits_are_timed_on_either_backend(hub: Hub, make_agent: AgentFactory) -> None:
    # Prepare: the backend's commit histogram
    name = (
        "kxm_postgres_commit_seconds_count"
        if hub.database.startswith("postgres")
        else "kxm_sqlite_commit_seconds_count"
    )
    before = sample(name, {})
    # Execute: a registration is a write
    await make_agent("committed")
    # Assert
    assert sample(name, {}) > before


async def test_the_domain_gauges_count_what_the_database_holds(hub: Hub, make_agent: AgentFactory) -> None:
    # Prepare: two agents online, an open message, a held lease, a context item
    alice, bob = await make_agent("alice"), await make_agent("bob")
    await alice.messages.send("bob", "open")
    await bob.leases.acquire("deploy", ttl=60)
    await alice.context.put_items([context_item("k_note", "knowledge", "a note")])
    state = hub.server.hub
    assert state is not None
    # Execute
    refreshed = await census_metrics.refresh(state, interval=0)
    # Assert
    assert refreshed
    assert sample("kxm_agents_online", {}) == 2
    assert sample("kxm_messages_open", {}) == 1
    assert sample("kxm_leases_held", {}) == 1
    assert sample("kxm_context_items", {"kind": "knowledge"}) == 1
    assert await census_metrics.refresh(state) is False  # within the interval: no second census


def test_the_handling_histogram_is_cumulative_and_parses_as_prometheus_text() -> None:
    # Prepare: one method's counts (of a type of its own, taken out again: the counts are the
    # process's), two calls timed as if they started 3 ms and 400 s ago
    metrics = MethodMetrics.for_method("/kxm.test.Histogram/Observe", "test")
    labels = {"grpc_type": "test", "grpc_service": "kxm.test.Histogram", "grpc_method": "Observe"}
    try:
        # Execute
        metrics.finish(metrics.start() - 0.003, "OK")
        metrics.finish(metrics.start() - 400.0, "NOT_A_CODE")
        families = {
            family.name: family
            for family in text_string_to_metric_families(generate_latest(REGISTRY).decode())
            if family.name.startswith("grpc_server_handl")
        }
        in_flight = sample("kxm_rpc_in_flight", {"grpc_type": "test"})
        count, total = (sample(f"grpc_server_handling_seconds_{part}", labels) for part in ("count", "sum"))
        ok, unknown = handled(labels, "OK"), handled(labels, "UNKNOWN")
    finally:
        COLLECTOR.methods.pop(metrics.labels)
    # Assert: each bucket counts the calls at or under its bound; an unknown code counts as UNKNOWN
    buckets = {
        sample.labels["le"]: sample.value
        for sample in families["grpc_server_handling_seconds"].samples
        if sample.name.endswith("_bucket") and sample.labels["grpc_method"] == "Observe"
    }
    assert (buckets["0.0025"], buckets["0.005"], buckets["300.0"], buckets["+Inf"]) == (0, 1, 1, 2)
    assert count == 2
    assert total == pytest.approx(400.003, abs=0.5)
    assert (ok, unknown) == (1, 1)
    assert in_flight == 0
