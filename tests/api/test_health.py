"""Readiness tells the truth: grpc.health.v1 follows whether the database takes writes."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import sqlite3
import time
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from kxm_grpc.client import HubClient
from kxm_grpc.errors import HubError, Reason, ResourceExhausted, Unavailable
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from kxm_grpc.store import Tx
from kxm_grpc.store.sqlite import SqliteStore
from kxm_grpc.store.sqlite.engine import disk_free
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub, sqlite_only

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
NAMES = (
    "",
    "kxm.v1.AdminService",
    "kxm.v1.AgentService",
    "kxm.v1.MessageService",
    "kxm.v1.LeaseService",
    "kxm.v1.RuntimeService",
)


async def statuses(address: str) -> dict[str, int]:
    """What the hub's health service says for the whole hub and for each service."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        return {
            name: (await stub.Check(health_pb2.HealthCheckRequest(service=name), timeout=2)).status for name in NAMES
        }


async def until(address: str, status: int, timeout: float = 10.0) -> dict[str, int]:
    """Poll until every name reports ``status`` (or the timeout); return the last answer."""
    deadline = time.monotonic() + timeout
    while True:
        seen = await statuses(address)
        if set(seen.values()) == {status} or time.monotonic() > deadline:
            return seen
        await asyncio.sleep(0.05)


def _pragma(sql: str) -> Callable[[Tx], Any]:
    """A unit of work running a PRAGMA on the hub's writer connection (the test's way to fill it)."""

    def work(tx: Tx) -> Any:
        return tx.meta._conn.execute(sql).fetchone()  # type: ignore[attr-defined]

    return work


@sqlite_only
async def test_health_is_not_serving_while_the_database_refuses_writes(
    hub: Hub, make_agent: AgentFactory, log_lines: io.StringIO
) -> None:
    """A full database (SQLITE_FULL for real: max_page_count at the current size) refuses a send
    with RESOURCE_EXHAUSTED STORAGE_FULL and turns every health name NOT_SERVING; it stays so while
    the probe finds no room, and turns SERVING again once there is room, without client traffic.
    Both turns are logged (metadata only)."""
    alice = await make_agent("alice")
    await make_agent("bob")
    before = await statuses(hub.address)
    store = hub.server.store
    (pages,) = await store.write(_pragma("PRAGMA page_count"))
    await store.write(_pragma(f"PRAGMA max_page_count = {pages}"))

    with pytest.raises(ResourceExhausted) as caught:
        await alice.send("bob", "x" * 30_000)
    full = await until(hub.address, NOT_SERVING)
    await asyncio.sleep(1.5)  # a probe or more ran meanwhile: still no room
    still_full = await statuses(hub.address)
    await store.write(_pragma("PRAGMA max_page_count = 1073741823"))
    recovered = await until(hub.address, SERVING)
    sent = await alice.send("bob", "x" * 30_000)
    events = {line["event"]: line for line in map(json.loads, log_lines.getvalue().splitlines())}

    assert set(before.values()) == {SERVING}
    assert caught.value.reason is Reason.STORAGE_FULL
    assert full == dict.fromkeys(NAMES, NOT_SERVING)
    assert still_full == dict.fromkeys(NAMES, NOT_SERVING)
    assert recovered == dict.fromkeys(NAMES, SERVING)
    assert sent.message.id
    assert events["storage_unhealthy"]["reason"] == "ERROR_REASON_STORAGE_FULL"
    assert events["storage_unhealthy"]["sqlite_error"] == "SQLITE_FULL"
    assert events["storage_recovered"]["unhealthy_seconds"] >= 1.0
    assert "x" * 100 not in log_lines.getvalue()


@sqlite_only
async def test_health_stays_not_serving_on_a_nearly_full_disk_though_small_sends_succeed(
    hub: Hub, make_agent: AgentFactory
) -> None:
    """The reviewer's nearly full tmpfs, with the filesystem's free space faked (24 KiB): after a
    refused send, small sends commit again, yet every health name stays NOT_SERVING (the probe
    wants a MiB of real free space, not only a tiny commit), and turns SERVING once space is back."""
    alice = await make_agent("alice")
    await make_agent("bob")
    store = hub.server.store
    assert isinstance(store, SqliteStore)
    store.free_space = lambda _directory: 24 * 1024
    (pages,) = await store.write(_pragma("PRAGMA page_count"))
    await store.write(_pragma(f"PRAGMA max_page_count = {pages}"))

    with pytest.raises(ResourceExhausted):
        await alice.send("bob", "x" * 30_000)
    full = await until(hub.address, NOT_SERVING)
    await store.write(_pragma("PRAGMA max_page_count = 1073741823"))  # only the disk is short now
    small = [await alice.send("bob", f"hi {i}") for i in range(3)]
    await asyncio.sleep(1.5)  # a probe or more ran meanwhile, each refused
    still_full = await statuses(hub.address)
    store.free_space = disk_free
    recovered = await until(hub.address, SERVING)

    assert full == dict.fromkeys(NAMES, NOT_SERVING)
    assert all(sent.message.id for sent in small)
    assert still_full == dict.fromkeys(NAMES, NOT_SERVING)
    assert recovered == dict.fromkeys(NAMES, SERVING)
    assert (await alice.send("bob", "x" * 30_000)).message.id


async def test_errors_of_the_caller_leave_health_serving(hub: Hub, make_agent: AgentFactory) -> None:
    """Refusals that are the caller's fault (an unknown target, a taken name) are not storage failures."""
    alice = await make_agent("alice")

    with pytest.raises(HubError):
        await alice.send("nobody", "hello")
    with pytest.raises(HubError):
        await make_agent("ALICE")
    await asyncio.sleep(0.1)

    assert hub.server.store.healthy is True
    assert set((await statuses(hub.address)).values()) == {SERVING}


@sqlite_only
async def test_reads_keep_working_while_another_process_holds_the_write_lock_even_when_presence_is_due(
    hub_settings: Settings,
) -> None:
    """A read-only call renews its agent's presence when due; while another process holds the
    database's write lock that renewal cannot commit, and the read is served anyway, unrenewed, its
    key checked through a read (before, every read of an agent whose renewal was due failed with
    UNAVAILABLE until the lock went: after stale_after / 4, all of them). Writes still wait and fail."""
    settings = dataclasses.replace(hub_settings, stale_after=1.0, testing_busy_timeout=0.2)
    server = HubServer(settings)
    await server.start()
    try:
        admin = HubClient(server.address, token=ADMIN_TOKEN)
        token = (await admin.admin.create_project("locked")).project_token
        alice, bob = HubClient(server.address, token=token), HubClient(server.address, token=token)
        await alice.agents.register("alice")
        await bob.agents.register("bob")
        sent = (await alice.messages.send("bob", "before the lock")).message.id
        foreign = sqlite3.connect(settings.database_path, isolation_level=None)
        foreign.execute("BEGIN IMMEDIATE")
        try:
            await asyncio.sleep(0.3)  # past stale_after / 4: every call of theirs is due a renewal
            reads = [
                (await alice.messages.get(sent)).message.id,
                len((await bob.messages.list_inbox()).messages),
                len((await alice.agents.list()).agents),
            ]
            with pytest.raises(Unavailable) as refused:
                await alice.messages.send("bob", "during the lock")
        finally:
            foreign.execute("ROLLBACK")
            foreign.close()
        after = (await alice.messages.send("bob", "after the lock", allow_offline=True)).message.id
        for client in (admin, alice, bob):
            await client.close()
    finally:
        await server.stop(0.2)

    assert reads == [sent, 1, 2]
    assert refused.value.reason is Reason.STORAGE_UNAVAILABLE
    assert after
