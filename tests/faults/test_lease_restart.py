"""A kill -9 restart gives back the time of grants that were live when the hub died, and only theirs.

The hub clock is this machine's wall clock and keeps running while the hub is down; at start the
hub extends by the downtime every grant that was live at its last alive mark. A grant that lapsed
while the hub was alive must stay lapsed: once the hub has told anyone so (a refused renewal, a
CheckFence verdict), a restart that revived it would let a paused holder commit after a rival was
told it may take over.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.errors import FailedPrecondition, Reason
from tests.harness import ADMIN_TOKEN, HubProcess

pytestmark = pytest.mark.slow

TTL = 1.0


@pytest.fixture
def hub_process(tmp_path: Path) -> Iterator[HubProcess]:
    """A hub whose minimum lease TTL is lowered and whose sweeps are 20 s apart (so they mark nothing)."""
    process = HubProcess(tmp_path / "data", extra_args=("--testing-lease-min-ttl", "0.1", "--stale-after", "60"))
    process.start()
    yield process
    process.kill()


async def _agents(address: str, *names: str) -> tuple[str, list[HubClient]]:
    admin = HubClient(address, token=ADMIN_TOKEN)
    token = (await admin.create_project("alpha")).project_token
    await admin.close()
    clients = [HubClient(address, token=token) for _ in names]
    for client, name in zip(clients, names, strict=True):
        await client.register_agent(name)
    return token, clients


async def _lapse_marked(database: Path, expire_time: int, within: float = 10.0) -> None:
    """Wait (up to ``within`` seconds) until the hub's durable alive mark is at or after ``expire_time``."""
    deadline = time.monotonic() + within
    while True:
        with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'leases.alive_time'").fetchone()
        if row is not None and int(row[0]) >= expire_time:
            return
        assert time.monotonic() < deadline, f"the lapse timer never marked {expire_time} (mark: {row})"
        await asyncio.sleep(0.05)


def _again(client: HubClient, address: str, token: str) -> HubClient:
    """The same agent (id and key) on a channel to the restarted hub."""
    return HubClient(address, token=token, agent_id=client.agent_id, agent_key=client.agent_key)


async def test_a_renewal_refused_as_lapsed_stays_refused_after_a_restart(hub_process: HubProcess) -> None:
    """TTL 1 s; renew at +1.2 s is LEASE_EXPIRED; kill -9; restart 2 s later: the renewal is still refused
    and a rival gets the lease with the next token, while a grant live at the kill was extended."""
    token, (holder, rival) = await _agents(hub_process.address, "holder", "rival")
    lapsed = (await holder.acquire_lease("lapsed", ttl=TTL)).lease
    live = (await holder.acquire_lease("live", ttl=30)).lease
    await asyncio.sleep(TTL + 0.2)
    with pytest.raises(FailedPrecondition) as before:
        await holder.renew_lease("lapsed", lapsed.fencing_token, ttl=TTL)
    await holder.close()
    await rival.close()

    hub_process.kill()
    await asyncio.sleep(2.0)
    address = await asyncio.to_thread(hub_process.start)
    holder, rival = _again(holder, address, token), _again(rival, address, token)
    with pytest.raises(FailedPrecondition) as after:
        await holder.renew_lease("lapsed", lapsed.fencing_token, ttl=TTL)
    taken = (await rival.acquire_lease("lapsed", ttl=TTL)).lease
    kept = (await holder.renew_lease("live", live.fencing_token, ttl=30)).lease

    assert before.value.reason is after.value.reason is Reason.LEASE_EXPIRED
    assert taken.fencing_token == lapsed.fencing_token + 1
    assert kept.fencing_token == live.fencing_token
    await holder.close()
    await rival.close()


async def test_a_grant_that_lapsed_untouched_stays_lapsed_after_a_restart(hub_process: HubProcess) -> None:
    """Nobody renews or reads a 1 s grant; a resource's CheckFence at +1.5 s says LEASE_EXPIRED; after a
    kill -9 and restart the verdict is the same: the lapse timer recorded that the hub saw it lapse."""
    token, (holder, resource) = await _agents(hub_process.address, "holder", "resource")
    lease = (await holder.acquire_lease("quiet", ttl=TTL)).lease
    await asyncio.sleep(TTL + 0.5)
    with pytest.raises(FailedPrecondition) as before:
        await resource.check_fence("quiet", lease.fencing_token)
    await holder.close()
    await resource.close()
    # The guarantee starts once the lapse timer's mark is durable (docs/leases.md): wait for it, so a
    # slow machine cannot kill the hub inside the window the docs leave open.
    await _lapse_marked(hub_process.data_dir / "hub.db", lease.expire_time.ToMicroseconds())

    hub_process.kill()
    await asyncio.sleep(2.0)
    address = await asyncio.to_thread(hub_process.start)
    resource = _again(resource, address, token)
    with pytest.raises(FailedPrecondition) as after:
        await resource.check_fence("quiet", lease.fencing_token)

    assert before.value.reason is after.value.reason is Reason.LEASE_EXPIRED
    await resource.close()
