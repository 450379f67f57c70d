"""B14: storage faults on SQLite: a full disk, a locked database, a corrupted file, checkpoint starvation.

- B14a, disk full: ``PRAGMA max_page_count`` is per connection, so a foreign connection cannot make
  the hub's database full; the portable way is the hub's own writer connection, reached in an
  in-process hub through a unit of work run on its writer thread (what the health tests do). The
  limit is lowered to the current size under load (senders, a replier, readers) and raised again.
- B14b, locked database: a foreign process holds ``BEGIN IMMEDIATE`` on the hub's file while agents
  send, reply and renew a lease; the hub subprocess runs with ``--testing-busy-timeout 1``.
- B14c, corruption: copies of a populated database with the header overwritten, a b-tree page of
  ``messages`` zeroed, one content byte flipped (to another letter, and to a byte that is not
  UTF-8), and the WAL's tail cut mid-frame.
- B14d, checkpoint starvation: a slow stream held open while writes and overlapping reads go on;
  then a foreign read snapshot, which no checkpoint can get past, and what happens once it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import sqlite3
import struct
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from kxm_grpc.client import HubClient
from kxm_grpc.errors import HubError
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from kxm_grpc.store import Durability, Tx
from kxm_grpc.store.rows.messages import MESSAGES, message_values
from kxm_grpc.testing import ADMIN_TOKEN, HubProcess
from tests.reliability.battery import Battery
from tests.reliability.hubs import CrashHub, integrity_check
from tests.reliability.probes import spread

pytestmark = pytest.mark.timeout(600)

MiB = 1024 * 1024
SERVING = health_pb2.HealthCheckResponse.SERVING


# -- shared -------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """One call: when it was invoked and completed (monotonic), and its status (None: OK)."""

    op: str
    invoked: float
    completed: float
    code: str | None = None
    reason: str | None = None
    retry_after: float | None = None
    value: Any = None

    @property
    def seconds(self) -> float:
        return self.completed - self.invoked


async def attempt(op: str, call: Callable[[], Awaitable[Any]]) -> Outcome:
    """Run ``call`` and record its outcome; a HubError (the client's mirror of a status) is kept, not raised."""
    invoked = time.monotonic()
    try:
        value = await call()
    except HubError as error:
        return Outcome(op, invoked, time.monotonic(), error.status, str(error.reason), error.retry_after)
    return Outcome(op, invoked, time.monotonic(), value=value)


async def project(address: str) -> str:
    admin = HubClient(address, token=ADMIN_TOKEN)
    try:
        return str((await admin.admin.create_project("storage")).project_token)
    finally:
        await admin.close()


async def agents(address: str, token: str, *names: str, timeout: float = 10.0) -> list[HubClient]:
    clients = []
    for name in names:
        client = HubClient(address, token=token, timeout=timeout)
        await client.agents.register(name)
        clients.append(client)
    return clients


def again(client: HubClient, address: str, timeout: float = 10.0) -> HubClient:
    """The same agent (id and key) on another hub address."""
    return HubClient(address, token=client.token, agent_id=client.agent_id, agent_key=client.agent_key, timeout=timeout)


async def health(address: str) -> int:
    """The hub's overall health status (a HealthCheckResponse status), -1 when it does not answer."""
    async with grpc.aio.insecure_channel(address) as channel:
        try:
            response = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=2)
        except grpc.aio.AioRpcError:
            return -1
    return int(response.status)


async def until_serving(address: str, seconds: float) -> float | None:
    """Seconds until health says SERVING (polled), or None if it did not within ``seconds``."""
    began = time.monotonic()
    while time.monotonic() - began < seconds:
        if await health(address) == SERVING:
            return time.monotonic() - began
        await asyncio.sleep(0.05)
    return None


def _pragma(sql: str) -> Callable[[Tx], Any]:
    """A unit of work running one PRAGMA on the connection it runs on (the writer's, in a write)."""
    return lambda tx: tx.meta._conn.execute(sql).fetchone()  # type: ignore[attr-defined]


async def _on_writer(store: Any, sql: str, battery: Battery) -> Any:
    """Run a PRAGMA on the writer connection. Queued with the load's writes, it shares their batch:
    when one of them fills the database SQLite rolls the whole batch back and fails every job of
    it (this one too, though the PRAGMA took effect), so it is repeated until it is answered."""
    for _ in battery.bounded(200, 30.0):
        with contextlib.suppress(HubError):
            return await store.write(_pragma(sql))
    raise AssertionError(f"{sql}: refused 200 times")


def _codes(outcomes: list[Outcome]) -> Counter[str]:
    return Counter(f"{o.op}:{o.code}:{o.reason}" for o in outcomes if o.code is not None)


# -- B14a: disk full ----------------------------------------------------------------------------


@pytest.mark.battery("B14a", "a full database refuses writes with RESOURCE_EXHAUSTED, keeps reads, and recovers")
async def test_a_full_database_refuses_writes_keeps_reads_and_recovers(battery: Battery) -> None:
    settings = Settings(
        port=0,
        data_dir=battery.dir / "data",
        admin_token=ADMIN_TOKEN,
        durability=Durability.FULL,
        rate_limit=100_000_000,
        stale_after=2.0,  # presence renewals due every 0.5 s: reads renew too, and must not fail for it
        shutdown_grace=0.5,
    )
    server = HubServer(settings)
    await server.start()
    store = server.store
    address = server.address
    token = await project(address)
    senders = await agents(address, token, *(f"sender-{i}" for i in range(4)))
    (receiver,) = await agents(address, token, "receiver")
    writes: list[Outcome] = []
    reads: list[Outcome] = []
    acked: dict[str, HubClient] = {}  # acknowledged message id -> its sender
    replied: set[str] = set()
    stop = asyncio.Event()

    async def send(sender: HubClient) -> None:
        while not stop.is_set():
            body = "m" * battery.random.randint(500, 3_000)
            outcome = await attempt("send", lambda b=body: sender.messages.send("receiver", b, allow_offline=True))
            writes.append(outcome)
            if outcome.code is None:
                acked[outcome.value.message.id] = sender

    async def respond() -> None:  # replies (a row grows) and acks (updated in place): read-modify-write
        while not stop.is_set():
            pending = [m for m in acked if m not in replied][:20]
            for message_id in pending:
                replied.add(message_id)
                if battery.random.random() < 0.5:
                    writes.append(await attempt("reply", lambda m=message_id: receiver.messages.reply(m, "r" * 800)))
                else:
                    writes.append(await attempt("ack", lambda m=message_id: receiver.messages.ack([m])))
            await asyncio.sleep(0.01)

    async def read() -> None:
        while not stop.is_set():
            if acked:
                message_id, sender = battery.random.choice(list(acked.items()))
                reads.append(await attempt("get", lambda s=sender, m=message_id: s.messages.get(m)))
            reads.append(await attempt("list_inbox", lambda: receiver.messages.list_inbox(page_size=50)))
            await asyncio.sleep(0.005)

    load = [asyncio.create_task(send(s)) for s in senders] + [
        asyncio.create_task(respond()),
        asyncio.create_task(read()),
    ]
    try:
        await asyncio.sleep(battery.size(pr=1.0, long=5.0))
        (pages,) = await _on_writer(store, "PRAGMA page_count", battery)
        await _on_writer(store, f"PRAGMA max_page_count = {pages}", battery)
        lowered = time.monotonic()
        refused = 0
        for _ in battery.bounded(10_000, battery.size(pr=10.0, long=30.0)):
            refused = sum(1 for o in writes if o.code is not None and o.invoked >= lowered)
            if refused >= battery.size(pr=30, long=300) and time.monotonic() - lowered >= battery.size(
                pr=2.0, long=10.0
            ):
                break
            await asyncio.sleep(0.05)
        integrity_full = integrity_check(Path(settings.database_path))
        health_full = await health(address)
        await _on_writer(store, "PRAGMA max_page_count = 1073741823", battery)
        raised = time.monotonic()  # after: a write invoked from now on is queued after the raise
        serving_again = asyncio.create_task(until_serving(address, 15.0))
        await asyncio.sleep(battery.size(pr=1.5, long=5.0))
    finally:
        stop.set()
        await asyncio.gather(*load)
    after = [
        await attempt("send", lambda: senders[0].messages.send("receiver", "after " + "a" * 2000, allow_offline=True))
        for _ in range(50)
    ]
    writes += after
    for outcome in after:
        if outcome.code is None:
            acked[outcome.value.message.id] = senders[0]
    back = await serving_again
    serving_at_end = health_pb2.HealthCheckResponse.ServingStatus.Name(await health(address))
    for client in (*senders, receiver):
        await client.close()
    await server.stop(0.5)
    with contextlib.closing(sqlite3.connect(settings.database_path)) as conn:
        stored = {row[0] for row in conn.execute("SELECT id FROM messages")}
    integrity_end = integrity_check(Path(settings.database_path))

    during = [o for o in writes if lowered <= o.invoked < raised]
    refusals = [o for o in during if o.code is not None]
    failures = [o for o in writes if o.code is not None]
    other = _codes([o for o in failures if (o.code, o.reason) != ("RESOURCE_EXHAUSTED", "ERROR_REASON_STORAGE_FULL")])
    battery.figure("pages_at_the_limit", pages)
    battery.figure("writes", len(writes))
    battery.figure("writes_while_full", len(during))
    battery.figure("writes_refused_while_full", len(refusals))
    battery.figure("writes_ok_while_full", len(during) - len(refusals))
    battery.figure("reads", len(reads))
    battery.figure("health_while_full", health_pb2.HealthCheckResponse.ServingStatus.Name(health_full))
    battery.figure("seconds_to_serving_after_raise", None if back is None else round(back, 2))
    battery.figure("messages_acknowledged", len(acked))
    battery.invariant("write failures other than RESOURCE_EXHAUSTED STORAGE_FULL (never UNKNOWN)", dict(other), {})
    battery.at_least("writes refused while full", len(refusals), battery.size(pr=30, long=300))
    battery.invariant("read failures", _codes(reads).total(), 0)
    battery.invariant("integrity_check while full", integrity_full, "ok")
    battery.invariant(
        "writes invoked after the limit was raised that failed",
        sum(o.code is not None for o in writes if o.invoked > raised),
        0,
    )
    battery.invariant("health SERVING again after the limit was raised", serving_at_end, "SERVING")
    battery.invariant("acknowledged messages lost", set(acked) - stored, set())
    battery.invariant("integrity_check at the end", integrity_end, "ok")


# -- B14b: a locked database --------------------------------------------------------------------

_LOCKER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("BEGIN IMMEDIATE")
print("held", time.time(), flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("ROLLBACK")
print("released", time.time(), flush=True)
"""


@pytest.mark.battery(
    "B14b", "a foreign write lock makes writes wait the busy timeout, then UNAVAILABLE; recovery at release"
)
async def test_a_foreign_write_lock_gives_bounded_waits_and_retryable_refusals(battery: Battery) -> None:
    busy = 1.0
    hold = battery.size(pr=5.0, long=10.0)
    # Presence renewals are due every 0.5 s (stale-after 2): the reads' renewals meet the lock too.
    hub = CrashHub(battery.dir / "data", extra_args=("--testing-busy-timeout", str(busy), "--stale-after", "2"))
    hub.start()
    token = await project(hub.address)
    senders = await agents(hub.address, token, *(f"sender-{i}" for i in range(4)))
    receiver, holder = await agents(hub.address, token, "receiver", "holder")
    writes: list[Outcome] = []
    reads: list[Outcome] = []
    health_seen: list[tuple[float, int]] = []
    acked: list[str] = []
    stop = asyncio.Event()

    async def send(sender: HubClient) -> None:
        while not stop.is_set():
            outcome = await attempt(
                "send", lambda: sender.messages.send("receiver", "locked? " + "x" * 200, allow_offline=True)
            )
            writes.append(outcome)
            if outcome.code is None:
                acked.append(outcome.value.message.id)

    async def reply() -> None:
        done = 0
        while not stop.is_set():
            if done < len(acked):
                message_id = acked[done]
                done += 1
                writes.append(await attempt("reply", lambda m=message_id: receiver.messages.reply(m, "yes")))
            else:
                await asyncio.sleep(0.01)

    async def lease() -> None:  # acquire-or-extend: a read-modify-write in one transaction
        while not stop.is_set():
            writes.append(await attempt("lease", lambda: holder.leases.acquire("shared", ttl=60)))
            await asyncio.sleep(0.02)

    async def read() -> None:
        while not stop.is_set():
            reads.append(await attempt("list_inbox", lambda: receiver.messages.list_inbox(page_size=20)))
            if acked:
                reads.append(await attempt("get", lambda: receiver.messages.get(acked[-1])))
            await asyncio.sleep(0.01)

    async def watch() -> None:
        while not stop.is_set():
            health_seen.append((time.monotonic(), await health(hub.address)))
            await asyncio.sleep(0.1)

    load = [asyncio.create_task(send(s)) for s in senders]
    load += [asyncio.create_task(t()) for t in (reply, lease, read, watch)]
    locker = None
    try:
        await asyncio.sleep(1.0)
        locker = await asyncio.create_subprocess_exec(
            sys.executable, "-c", _LOCKER, str(hub.db_path), str(hold), stdout=asyncio.subprocess.PIPE
        )
        assert locker.stdout is not None
        held_line = (await asyncio.wait_for(locker.stdout.readline(), 30)).decode().split()
        held = time.monotonic() - (time.time() - float(held_line[1]))
        released_line = (await asyncio.wait_for(locker.stdout.readline(), hold + 30)).decode().split()
        released = time.monotonic() - (time.time() - float(released_line[1]))
        await locker.wait()
        await asyncio.sleep(2.0)
    finally:
        stop.set()
        await asyncio.gather(*load)
        if locker is not None and locker.returncode is None:
            locker.kill()
    back = await until_serving(hub.address, 15.0)
    for client in (*senders, receiver, holder):
        await client.close()
    hub.stop()
    integrity = integrity_check(hub.db_path)

    refused = [o for o in writes if o.code is not None]
    during = [o for o in writes if o.invoked < released and o.completed > held]
    unavailable = [o for o in refused if (o.code, o.reason) == ("UNAVAILABLE", "ERROR_REASON_STORAGE_UNAVAILABLE")]
    fast = [o for o in unavailable if o.seconds < 0.9 * busy]
    after = [o for o in writes if o.invoked > released]
    recovered = [o.completed - released for o in writes if o.code is None and o.completed > released]
    first_ok_per_op = {}
    for o in sorted(writes, key=lambda o: o.completed):
        if o.code is None and o.completed > released:
            first_ok_per_op.setdefault(o.op, o.completed - released)
    not_serving = [t for t, status in health_seen if held < t < released and status != SERVING]
    battery.figure("busy_timeout_s", busy)
    battery.figure("lock_held_s", round(released - held, 2))
    battery.figure("writes", len(writes))
    battery.figure("writes_during_the_hold", len(during))
    battery.figure("writes_refused", len(refused))
    battery.figure("refused_wait_ms", spread([o.seconds for o in unavailable]))
    battery.figure(
        "refused_wait_max_ms_by_op",
        {op: round(1000 * max(o.seconds for o in unavailable if o.op == op)) for op in {o.op for o in unavailable}},
    )
    battery.figure("refusals_with_retry_info", sum(o.retry_after is not None for o in unavailable))
    battery.figure("reads_during_the_hold", sum(1 for o in reads if held < o.invoked < released))
    battery.figure("recovery_first_write_s", round(min(recovered), 3) if recovered else None)
    battery.figure("recovery_by_op_s", {k: round(v, 3) for k, v in first_ok_per_op.items()})
    battery.figure("health_not_serving_samples_during_hold", len(not_serving))
    battery.figure("seconds_to_serving_at_end", None if back is None else round(back, 2))
    battery.at_least("writes refused while the lock was held", len(unavailable), 1)
    battery.invariant(
        "write refusals other than UNAVAILABLE STORAGE_UNAVAILABLE",
        dict(_codes([o for o in refused if o not in unavailable])),
        {},
    )
    battery.invariant("refusals without RetryInfo", sum(o.retry_after is None for o in unavailable), 0)
    battery.invariant("refusals faster than the busy timeout (SQLITE_BUSY from a deferred upgrade)", len(fast), 0)
    battery.invariant(
        "writes invoked after the release that failed", _codes([o for o in after if o.code is not None]).total(), 0
    )
    battery.invariant("read failures", _codes(reads).total(), 0)
    battery.invariant("health SERVING after the release", back is not None, True)
    battery.invariant("integrity_check", integrity, "ok")


# -- B14c: corruption ---------------------------------------------------------------------------


def _wal_commit_ends(wal: bytes) -> list[int]:
    """The end offsets of the commit frames of a WAL's current generation (its header's salts), in order."""
    if len(wal) < 32:
        return []
    page_size = struct.unpack(">I", wal[8:12])[0]
    salts = wal[16:24]
    frame = 24 + page_size
    ends, offset = [], 32
    while offset + frame <= len(wal) and wal[offset + 8 : offset + 16] == salts:
        if struct.unpack(">I", wal[offset + 4 : offset + 8])[0]:  # "database size after commit": a commit frame
            ends.append(offset + frame)
        offset += frame
    return ends


def _table_pages(data: bytes, page_size: int, root: int) -> list[tuple[int, bool]]:
    """(page number, is a leaf) of every page of the table b-tree rooted at ``root``."""
    pages, todo = [], [root]
    while todo:
        number = todo.pop()
        base = (number - 1) * page_size
        header = base + (100 if number == 1 else 0)
        kind = data[header]
        if kind == 0x0D:
            pages.append((number, True))
            continue
        assert kind == 0x05, f"page {number} is not a table b-tree page ({kind:#x})"
        pages.append((number, False))
        cells = struct.unpack(">H", data[header + 3 : header + 5])[0]
        todo.append(struct.unpack(">I", data[header + 8 : header + 12])[0])
        for cell in range(cells):
            pointer = struct.unpack(">H", data[header + 12 + 2 * cell : header + 14 + 2 * cell])[0]
            todo.append(struct.unpack(">I", data[base + pointer : base + pointer + 4])[0])
    return pages


def _vacuum_copy(source: Path, target: Path) -> Path:
    """A compact consistent copy (``VACUUM INTO``: no stale row images in free space)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.closing(sqlite3.connect(source, timeout=10)) as conn:
        conn.execute("VACUUM INTO ?", (str(target),))
    return target


def _read(path: Path) -> bytes:
    return path.read_bytes()


def _refused_start(data_dir: Path) -> tuple[int | None, str]:
    """Start a hub on ``data_dir`` that must refuse: its exit status and the lines it wrote."""
    process = HubProcess(data_dir)
    with contextlib.suppress(RuntimeError, TimeoutError):
        process.start(timeout=30)
    status = process.process.returncode if process.process is not None else None
    if process.process is not None and status is None:
        process.kill()  # it started: the test fails on the status
    return status, process.log_path.read_text(errors="replace")


def _log_events(path: Path, event: str) -> list[dict[str, Any]]:
    found = []
    for line in path.read_text(errors="replace").splitlines():
        if f'"{event}"' in line:
            with contextlib.suppress(json.JSONDecodeError):
                found.append(json.loads(line))
    return found


@pytest.mark.battery(
    "B14c", "a damaged database is refused at start; a flipped byte is DATA_LOSS; a cut WAL loses only its tail"
)
async def test_corrupted_copies_are_refused_or_detected_and_a_cut_wal_loses_only_its_tail(battery: Battery) -> None:
    sends = battery.size(pr=150, long=1_500)
    tail = 20
    source = CrashHub(battery.dir / "source", extra_args=("--stale-after", "3600"))
    source.start()
    token = await project(source.address)
    alice, bob = await agents(source.address, token, "alice", "bob")
    letters = "abcdefghijklmnopqrstuvwxyz"
    contents: list[str] = []
    ids: list[str] = []
    for index in range(sends + tail):
        if index == sends:
            # A clean WAL, from outside (a checkpoint is any connection's to run): the last `tail`
            # sends are then all the WAL holds, one commit each.
            with contextlib.closing(sqlite3.connect(source.db_path, timeout=10)) as conn:
                for _ in range(100):
                    if conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0:
                        break
                    await asyncio.sleep(0.02)
        body = f"payload-{index:05d}-" + "".join(
            battery.random.choice(letters) for _ in range(battery.random.randint(60, 400))
        )
        sent = await alice.messages.send("bob", body)
        contents.append(body)
        ids.append(sent.message.id)
        if index < sends and index % 3 == 0:
            await bob.messages.reply(sent.message.id, f"reply-{index:05d}")
    # SIGKILL, and the files copied before anything opens them again: the last connection to close
    # (CrashHub.kill's integrity check, say) would checkpoint the WAL into the database and delete it.
    os.kill(source.pid, signal.SIGKILL)
    await asyncio.to_thread(source._process.process.wait, 10)  # type: ignore[union-attr]
    cut_dir = battery.dir / "cut"
    cut_dir.mkdir()
    shutil.copy(source.db_path, cut_dir / "hub.db")
    wal_bytes = _read(Path(f"{source.db_path}-wal"))
    source.kill()  # reaps it and checks the source's integrity

    # 1. The WAL cut inside the frames of one of its last commits.
    ends = _wal_commit_ends(wal_bytes)
    cut_commits = battery.random.randint(1, min(5, len(ends) - 1))
    low, high = ends[-cut_commits - 1], ends[-cut_commits]
    cut_at = battery.random.randrange(low + 1, high)  # mid-frame: the commit frame is torn
    (cut_dir / "hub.db-wal").write_bytes(wal_bytes[:cut_at])
    cut_hub = CrashHub(cut_dir, extra_args=("--stale-after", "3600"))
    cut_hub.start()
    alice_cut, bob_cut = again(alice, cut_hub.address), again(bob, cut_hub.address)
    present_by_rpc = [
        (await attempt("get", lambda m=m: alice_cut.messages.get(m))).code is None for m in ids[-tail - 5 :]
    ]
    for client in (alice_cut, bob_cut):
        await client.close()
    cut_hub.stop()
    cut_integrity = integrity_check(cut_dir / "hub.db")
    with contextlib.closing(sqlite3.connect(cut_dir / "hub.db")) as conn:
        kept = {row[0] for row in conn.execute("SELECT id FROM messages")}
        entries = conn.execute(
            "SELECT count(*), max(seq) FROM inbox_entries WHERE owner = ? AND kind = 'message'", (bob.agent_id,)
        ).fetchone()
        head = conn.execute(
            "SELECT head_seq FROM log_heads WHERE log = 'inbox' AND owner = ?", (bob.agent_id,)
        ).fetchone()
    present = [m in kept for m in ids]
    prefix = present.index(False) if False in present else len(present)

    # 2. One byte of two messages' content flipped in a compact copy: to another letter, and to a
    # byte that is not UTF-8. quick_check passes both; the checksums and the decoder catch them.
    flip_dir = battery.dir / "flip"
    flipped = _vacuum_copy(source.db_path, flip_dir / "hub.db")
    data = bytearray(flipped.read_bytes())
    letter, broken = battery.random.sample(range(1, sends, 3), 2)  # replied ones: the reply is read too
    for index, mask in ((letter, 0x01), (broken, 0x80)):
        marker = contents[index].encode()
        where = data.find(marker)
        assert where >= 0 and data.find(marker, where + 1) < 0, "each content is stored once in a compact copy"
        position = where + battery.random.randrange(len(f"payload-{index:05d}-"), len(marker))
        data[position] ^= mask
    flipped.write_bytes(bytes(data))
    with contextlib.closing(sqlite3.connect(flipped)) as conn:
        flip_quick_check = conn.execute("PRAGMA quick_check").fetchone()[0]
    flip_hub = CrashHub(flip_dir, extra_args=("--stale-after", "3600"))
    flip_hub.start()
    alice_f, bob_f = again(alice, flip_hub.address), again(bob, flip_hub.address)
    observed: dict[str, tuple[str | None, str | None]] = {}
    for name, target in (("letter", ids[letter]), ("not_utf8", ids[broken])):
        for op, call in (
            ("get_by_sender", lambda t=target: alice_f.messages.get(t)),
            ("get_by_recipient", lambda t=target: bob_f.messages.get(t)),
            ("wait", lambda t=target: alice_f.messages.wait(t, wait=1)),
            ("cancel", lambda t=target: alice_f.messages.cancel(t)),
        ):
            outcome = await attempt(op, call)
            observed[f"{name}:{op}"] = (outcome.code, outcome.reason)
    inbox = await attempt("list_inbox", lambda: bob_f.messages.list_inbox(page_size=1000))
    streamed = await attempt("subscribe", lambda: asyncio.wait_for(_replay(bob_f), 15))
    others = [await attempt("get", lambda m=m: alice_f.messages.get(m)) for m in battery.random.sample(ids[:sends], 20)]
    intact = sum(1 for o in others if o.code is None and o.value.message.content in contents) + sum(
        1 for o in others if o.code == "DATA_LOSS"
    )
    flip_health = health_pb2.HealthCheckResponse.ServingStatus.Name(await health(flip_hub.address))
    for client in (alice_f, bob_f):
        await client.close()
    flip_hub.stop()
    mismatches = _log_events(flip_hub.log_path, "message_checksum_mismatch")
    undecodable = _log_events(flip_hub.log_path, "stored_text_undecodable")
    log_text = flip_hub.log_path.read_text(errors="replace")
    bodies_logged = sum(contents[i][20:60] in log_text for i in (letter, broken))

    # 3. The header overwritten; 4. a b-tree page of messages zeroed: the hub must refuse to start.
    header_dir = battery.dir / "header"
    header = _vacuum_copy(source.db_path, header_dir / "hub.db")
    raw = bytearray(header.read_bytes())
    raw[0:100] = bytes(battery.random.randrange(256) for _ in range(100))
    header.write_bytes(bytes(raw))
    header_status, header_log = _refused_start(header_dir)

    page_dir = battery.dir / "page"
    paged = _vacuum_copy(source.db_path, page_dir / "hub.db")
    with contextlib.closing(sqlite3.connect(paged)) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = 'messages'").fetchone()[
            0
        ]
    raw = bytearray(paged.read_bytes())
    leaves = [number for number, leaf in _table_pages(bytes(raw), page_size, root) if leaf]
    zeroed = battery.random.choice(leaves)
    raw[(zeroed - 1) * page_size : zeroed * page_size] = bytes(page_size)
    paged.write_bytes(bytes(raw))
    page_status, page_log = _refused_start(page_dir)

    # 5. What the start-up quick_check costs on a larger database (raw rows, valid checksums).
    big_dir = battery.dir / "big"
    big = _vacuum_copy(source.db_path, big_dir / "hub.db")
    target_bytes = battery.size(pr=16, long=100) * MiB
    with contextlib.closing(sqlite3.connect(big, isolation_level=None)) as conn:
        now = time.time_ns() // 1000
        insert = f"INSERT INTO messages ({MESSAGES.select}) VALUES ({', '.join('?' * MESSAGES.width)})"
        conn.execute("BEGIN")
        conn.executemany(insert, _filler_rows(alice.agent_id or "", bob.agent_id or "", now, target_bytes))
        conn.execute("COMMIT")
    big_hub = CrashHub(big_dir, extra_args=("--stale-after", "3600"))
    began = time.monotonic()
    big_hub.start()
    big_ready = time.monotonic() - began
    big_hub.stop()
    checked = _log_events(big_hub.log_path, "database_checked")

    await alice.close()
    await bob.close()
    battery.figure("source_integrity", source.integrity)
    battery.figure("messages_sent", len(ids))
    battery.figure("wal_commits_in_copy", len(ends))
    battery.figure("wal_commits_cut", cut_commits)
    battery.figure("wal_cut_at_byte", cut_at)
    battery.figure("messages_lost_to_the_cut", len(ids) - sum(present))
    battery.figure("quick_check_on_flipped_copy", flip_quick_check)
    battery.figure("zeroed_page", zeroed)
    battery.figure("header_refusal", _hub_line(header_log))
    battery.figure("page_refusal", _hub_line(page_log))
    battery.figure("big_database_mib", round(big.stat().st_size / MiB, 1))
    battery.figure("big_database_quick_check_s", checked[-1]["seconds"] if checked else None)
    battery.figure("big_database_start_to_serving_s", round(big_ready, 2))
    # The cut WAL: the hub starts, the database is sound, exactly the cut commits are gone, and what
    # is left is a prefix of the acknowledged sends with its inbox entries and head (no torn commit).
    battery.invariant("cut WAL: integrity_check", cut_integrity, "ok")
    battery.invariant("cut WAL: messages lost", len(ids) - sum(present), cut_commits)
    battery.invariant("cut WAL: the messages kept are a prefix of the acknowledged ones", prefix, sum(present))
    battery.invariant(
        "cut WAL: inbox entries and head of the recipient", (entries[0], entries[1], head[0]), (prefix, prefix, prefix)
    )
    battery.invariant("cut WAL: kept messages readable by RPC", present_by_rpc, present[-tail - 5 :])
    # The flipped bytes: every read or write touching them is DATA_LOSS, never the wrong content.
    expected = ("DATA_LOSS", "ERROR_REASON_STORAGE_CORRUPTED")
    battery.invariant("flipped content: every call touching it", observed, dict.fromkeys(observed, expected))
    battery.invariant("flipped content: the inbox listing", (inbox.code, inbox.reason), expected)
    battery.invariant("flipped content: the inbox stream's replay ends", (streamed.code, streamed.reason), expected)
    battery.invariant("flipped content: other messages read back intact (or refused, never wrong)", intact, len(others))
    battery.invariant("flipped content: health stays SERVING", flip_health, "SERVING")
    battery.at_least("message_checksum_mismatch events logged", len(mismatches), 1)
    battery.invariant("checksum events name the message", {e.get("message_id") for e in mismatches}, {ids[letter]})
    battery.at_least("stored_text_undecodable events logged", len(undecodable), 1)
    battery.invariant("message bodies in the hub's log", bodies_logged, 0)
    # Header and page damage: the hub refuses to start, with a clear message and a non-zero status.
    battery.invariant("overwritten header: exit status", header_status, 3)
    battery.invariant("overwritten header: message", "file is not a database" in _hub_line(header_log), True)
    battery.invariant("zeroed page: exit status", page_status, 3)
    battery.invariant(
        "zeroed page: message",
        ("failed its integrity check" in _hub_line(page_log), "restore a backup" in _hub_line(page_log)),
        (True, True),
    )


async def _replay(client: HubClient) -> int:
    """Replay the agent's inbox stream from the start; return how many messages came (it must end in an error)."""
    count = 0
    async for event in client.messages.subscribe(0, reconnect=False):
        count += event.HasField("message")
    return count


def _hub_line(log: str) -> str:
    """The hub's own refusal line (``kxm hub: ...``) in its output."""
    lines = [line for line in log.splitlines() if line.startswith("kxm hub:")]
    return lines[-1][:300] if lines else ""


def _filler_rows(sender: str, recipient: str, now: int, total: int) -> Any:
    """Ended messages of about 1 KiB each, ``total`` bytes of them, as insert parameters."""
    from kxm_grpc.domain.messages import MessageState
    from tests.store.contract.conftest import message  # the contract suite's message builder

    count = total // 1_200
    for index in range(count):
        yield message_values(
            message(
                f"msg_filler_{index:08d}",
                from_agent_id=sender,
                to=recipient,
                seq=1_000_000 + index,
                content="f" * 900 + str(index),
                state=MessageState.REPLIED,
                reply_content="done",
                create_time=now,
                expire_time=now + 10**12,
                end_time=now,
                reply_time=now,
            )
        )


# -- B14d: checkpoint starvation ----------------------------------------------------------------

_READER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("BEGIN")
conn.execute("SELECT count(*) FROM messages").fetchone()
print("held", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
print("released", flush=True)
"""


HELD_SENDS = 2_500
"""Sends while the slow stream is held: about 90 MiB of WAL behind a held snapshot (~37 KiB each)."""


@dataclass
class WalWatch:
    """Samples a WAL file's size."""

    path: Path
    samples: list[tuple[float, int]] = field(default_factory=list)

    def size(self) -> int:
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            self.samples.append((time.monotonic(), self.size()))
            await asyncio.sleep(0.05)

    def peak(self, since: float, until: float) -> int:
        return max((size for at, size in self.samples if since <= at <= until), default=0)


async def _next_message(stream: Any) -> bool:
    """Whether the stream goes on to deliver a message (a stream cut as too slow raises instead)."""
    async for event in stream:
        if event.HasField("message"):
            return True
    return False


async def _until_small(watch: WalWatch, seconds: float) -> float | None:
    began = time.monotonic()
    while time.monotonic() - began < seconds:
        if watch.size() <= 4 * MiB:
            return time.monotonic() - began
        await asyncio.sleep(0.05)
    return None


@pytest.mark.battery("B14d", "the WAL stays bounded behind a slow stream, and shrinks once a foreign snapshot ends")
async def test_the_wal_stays_bounded_and_shrinks_back_after_a_long_reader(battery: Battery) -> None:
    hold = battery.size(pr=20.0, long=60.0)
    foreign_hold = battery.size(pr=4.0, long=20.0)
    hub = CrashHub(battery.dir / "data", extra_args=("--stale-after", "3600"))
    hub.start()
    token = await project(hub.address)
    senders = await agents(hub.address, token, *(f"sender-{i}" for i in range(4)))
    slow, sink, reader = await agents(hub.address, token, "slow", "sink", "reader")
    watch = WalWatch(Path(f"{hub.db_path}-wal"))
    sent = Counter[str]()
    rate: list[float | None] = [None]  # sends per second per sender; None: as fast as they go
    stop_all, stop_writes, stop_reads = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def send(sender: HubClient) -> None:
        while not stop_all.is_set():
            if stop_writes.is_set():
                await asyncio.sleep(0.02)
                continue
            target = "slow" if battery.random.random() < 0.02 else "sink"  # the slow stream stays under its queue
            await sender.messages.send(target, "w" * battery.random.randint(100, 1_000))
            sent[target] += 1
            if rate[0]:
                await asyncio.sleep(1 / rate[0])

    async def read() -> None:  # overlapping short reads: inbox pages of the sink, single gets
        while not stop_reads.is_set():
            with contextlib.suppress(HubError):
                await sink.messages.list_inbox(page_size=50)
                await reader.messages.list_inbox(page_size=10)
            await asyncio.sleep(0.002)

    watcher = asyncio.create_task(watch.run(stop_all))
    load = [asyncio.create_task(send(s)) for s in senders] + [asyncio.create_task(read()) for _ in range(3)]
    stream = slow.messages.subscribe(0, reconnect=False)
    try:
        first = await asyncio.wait_for(anext(stream), 10)  # the ready event; then nothing is read
        began = time.monotonic()
        # At least `hold` seconds, and until enough was written for a held snapshot to have taken
        # the WAL past 64 MiB (so the bound below could fail), within a wall-clock cap.
        for _ in battery.bounded(100_000, 3 * hold):
            if time.monotonic() - began >= hold and sent.total() >= HELD_SENDS:
                break
            await asyncio.sleep(0.1)
        held_until = time.monotonic()
        internal_peak = watch.peak(began, held_until)
        internal_sends = sent.total()
        slow_alive = await asyncio.wait_for(_next_message(stream), 10)  # it was slow, not cut
        await stream.aclose()
        stop_reads.set()

        # A foreign snapshot at a bounded write rate, released once the writes have stopped (idle hub).
        rate[0] = 50.0
        foreign = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            _READER,
            str(hub.db_path),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        assert foreign.stdin is not None and foreign.stdout is not None
        assert (await asyncio.wait_for(foreign.stdout.readline(), 30)).strip() == b"held"
        foreign_began = time.monotonic()
        before_foreign = sent.total()
        await asyncio.sleep(foreign_hold)
        stop_writes.set()
        await asyncio.sleep(0.2)
        foreign_peak = watch.peak(foreign_began, time.monotonic())
        foreign_sends = sent.total() - before_foreign
        foreign.stdin.write(b"\n")
        await foreign.stdin.drain()
        assert (await asyncio.wait_for(foreign.stdout.readline(), 30)).strip() == b"released"
        await foreign.wait()
        idle_back = await _until_small(watch, 10.0)

        # The same with writes going on through the release, at full rate.
        rate[0] = None
        stop_writes.clear()
        foreign = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            _READER,
            str(hub.db_path),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        assert foreign.stdin is not None and foreign.stdout is not None
        assert (await asyncio.wait_for(foreign.stdout.readline(), 30)).strip() == b"held"
        second_began = time.monotonic()
        await asyncio.sleep(battery.size(pr=2.0, long=5.0))
        second_peak = watch.peak(second_began, time.monotonic())
        foreign.stdin.write(b"\n")
        await foreign.stdin.drain()
        assert (await asyncio.wait_for(foreign.stdout.readline(), 30)).strip() == b"released"
        await foreign.wait()
        busy_back = await _until_small(watch, 10.0)
    finally:
        stop_all.set()
        stop_reads.set()
        await asyncio.gather(*load, watcher, return_exceptions=True)
    for client in (*senders, slow, sink, reader):
        await client.close()
    hub.stop()
    checkpoints = _log_events(hub.log_path, "wal_checkpointed")
    blocked = _log_events(hub.log_path, "wal_checkpoint_blocked")
    integrity = integrity_check(hub.db_path)

    battery.figure("slow_stream_held_s", round(held_until - began, 1))
    battery.figure("sends_while_the_slow_stream_was_held", internal_sends)
    battery.figure("sends_per_second_while_held", round(internal_sends / (held_until - began), 1))
    battery.figure("wal_peak_mib_behind_the_slow_stream", round(internal_peak / MiB, 2))
    battery.figure("foreign_snapshot_held_s", foreign_hold)
    battery.figure("sends_behind_the_foreign_snapshot", foreign_sends)
    battery.figure("wal_peak_mib_behind_the_foreign_snapshot", round(foreign_peak / MiB, 2))
    battery.figure("wal_kib_per_send_behind_a_snapshot", round(foreign_peak / 1024 / max(1, foreign_sends), 1))
    battery.figure("seconds_to_4mib_after_release_idle", None if idle_back is None else round(idle_back, 2))
    battery.figure("wal_peak_mib_second_snapshot_full_rate", round(second_peak / MiB, 2))
    battery.figure("seconds_to_4mib_after_release_under_writes", None if busy_back is None else round(busy_back, 2))
    battery.figure("forced_checkpoints_logged", len(checkpoints))
    battery.figure("forced_checkpoint_ms", spread([e["seconds"] for e in checkpoints]))
    battery.figure("blocked_checkpoint_warnings", len(blocked))
    battery.invariant(
        "slow stream open through the hold (slow, not cut)", (first.HasField("ready"), slow_alive), (True, True)
    )
    battery.at_least("sends while the slow stream was held", internal_sends, HELD_SENDS)
    battery.at_least(
        "MiB those sends would have grown a WAL held by a snapshot (at the rate measured behind one)",
        round(internal_sends * foreign_peak / max(1, foreign_sends) / MiB, 1),
        64,
    )
    battery.invariant("WAL <= 64 MiB behind the slow stream and overlapping reads", internal_peak <= 64 * MiB, True)
    battery.invariant(
        "the foreign snapshot made the WAL grow past 4 MiB (the case is exercised)", foreign_peak > 4 * MiB, True
    )
    battery.invariant("WAL <= 4 MiB within 10 s of the snapshot's end, idle hub", idle_back is not None, True)
    battery.invariant("WAL <= 4 MiB within 10 s of the snapshot's end, under writes", busy_back is not None, True)
    battery.at_least("forced TRUNCATE checkpoints", len(checkpoints), 1)
    battery.invariant("integrity_check", integrity, "ok")
