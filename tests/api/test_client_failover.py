"""A client of several hub addresses against real hubs on loopback: it fails over, retries only the
calls that are safe to repeat, and resumes its inbox stream on the other address by cursor.

Two kinds of "second address": two separate hubs (they share no state, so only calls that need none
are compared), and one hub behind two loopback relays (``Relay``), which look to the client like two
replicas of one database: cutting a relay resets every connection through it, as a crashed replica
would, while the state behind both stays the same. Nothing here dials anything but 127.0.0.1 or ::1.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from kxm_grpc.client import HubClient, SyncHubClient
from kxm_grpc.errors import Unavailable
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from kxm_grpc.store import Durability
from kxm_grpc.v1 import ListProjectsResponse, MessageState
from tests.conftest import ADMIN_TOKEN, Hub, Project

ROOT = str(Path(__file__).resolve().parents[2])
DEADLINE = 10.0


async def until(condition: Callable[[], Awaitable[bool]], what: str, deadline: float = DEADLINE) -> None:
    """Wait until ``condition()`` holds, polling; fail naming ``what`` after ``deadline`` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline
    while not await condition():
        if loop.time() > end:
            pytest.fail(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


@contextlib.contextmanager
def dead_address() -> Iterator[str]:
    """A loopback address nothing answers: the port is bound (so nothing else takes it) but not
    listening, so a connection is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"127.0.0.1:{sock.getsockname()[1]}"


class Relay:
    """A loopback TCP relay to one hub: another address of the same hub.

    Its port is bound at once but refuses connections until ``open()``. ``cut()`` closes the
    listener and resets every connection through it (as a crashed replica would). ``connections``
    counts the connections it accepted; ``upstream_bytes`` what it passed on to the hub.
    """

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.connections = 0
        self.upstream_bytes = 0
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self._socket.getsockname()[1]}"
        self._server: asyncio.Server | None = None
        self._transports: list[asyncio.BaseTransport] = []
        self._tasks: set[asyncio.Task[None]] = set()

    async def open(self) -> None:
        """Start accepting (and relaying) connections."""
        self._server = await asyncio.start_server(self._accept, sock=self._socket)

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.get_running_loop().create_task(self._relay(reader, writer))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        host, _, port = self.upstream.rpartition(":")
        self.connections += 1
        self._transports.append(writer.transport)
        try:
            up_reader, up_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            writer.transport.abort()
            return
        self._transports.append(up_writer.transport)
        await asyncio.gather(self._pipe(reader, up_writer, upstream=True), self._pipe(up_reader, writer))

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, upstream: bool = False
    ) -> None:
        try:
            while data := await reader.read(65536):
                if upstream:
                    self.upstream_bytes += len(data)
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.transport.abort()

    async def cut(self) -> None:
        """Stop listening and reset every connection through the relay."""
        if self._server is None:
            self._socket.close()
            return
        self._server.close()
        await self._server.wait_closed()
        for transport in self._transports:
            transport.abort()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=DEADLINE)


@pytest_asyncio.fixture
async def relays(hub: Hub) -> AsyncIterator[tuple[Relay, Relay]]:
    """Two relays to the test hub: the first open, the second refusing until the test opens it.

    pick_first connects to the next address too when the first has not answered within 250 ms
    (happy eyeballs), so on a loaded machine a client could begin on the second; a test opens it
    once the client works through the first, which makes "the address in use" certain.
    """
    pair = (Relay(hub.address), Relay(hub.address))
    await pair[0].open()
    yield pair
    for relay in pair:
        await relay.cut()


@contextlib.asynccontextmanager
async def two_hubs(
    tmp_path: Path, database: str = "", **settings: object
) -> AsyncIterator[tuple[HubServer, HubServer]]:
    """Two hubs: each on a SQLite file of its own (sharing nothing), or replicas of one ``database``."""
    servers: list[HubServer] = []
    try:
        for name in ("first", "second"):
            server = HubServer(
                Settings(
                    port=0,
                    data_dir=tmp_path / name,
                    database=database,
                    admin_token=ADMIN_TOKEN,
                    durability=Durability.NORMAL,
                    rate_limit=100_000,
                    shutdown_grace=0.5,
                    **settings,  # type: ignore[arg-type]
                )
            )
            await server.start()
            servers.append(server)
        yield servers[0], servers[1]
    finally:
        for server in servers:
            await server.stop(0)


async def agent_identity(hub: Hub | HubServer, project: Project, name: str) -> tuple[str, str]:
    """Register an agent directly on ``hub``; its id and key."""
    async with HubClient(hub.address, token=project.token) as client:
        registered = await client.agents.register(name)
    return registered.agent.id, registered.agent_key


# -- (a) a dead address first -----------------------------------------------------------------------


async def test_a_dead_address_before_a_live_hub_is_passed_over(hub: Hub, project: Project) -> None:
    """[dead, live]: pick_first finds the live hub, for every kind of call, in both clients."""
    bob_id, bob_key = await agent_identity(hub, project, "bob")
    with dead_address() as dead:
        async with HubClient([dead, hub.address], token=project.token, timeout=5) as alice:
            await alice.agents.register("alice")
            sent = await alice.messages.send("bob", "hello")
            listed = await alice.agents.list()
            fetched = await alice.messages.get(sent.message.id)

        def blocking() -> list[str]:
            with SyncHubClient(f"{dead},{hub.address}", token=project.token, agent_id=bob_id, agent_key=bob_key) as bob:
                return [message.id for message in bob.messages.list_inbox().messages]

        inbox = await asyncio.to_thread(blocking)

    assert alice.failover and alice.target.target == f"ipv4:{dead},{hub.address}"
    assert sorted(agent.name for agent in listed.agents) == ["alice", "bob"]
    assert fetched.message.content == "hello"
    assert inbox == [sent.message.id]


async def test_one_dns_name_is_resolved_by_grpc(hub: Hub) -> None:
    """dns:///localhost:PORT (the hosts file's loopback name): gRPC's resolver finds the hub, and the
    channel is a failover one (retries, pick_first over every record)."""
    port = hub.address.rpartition(":")[2]
    async with HubClient(f"dns:///localhost:{port}", token=ADMIN_TOKEN, timeout=5) as client:
        listed = await client.admin.list_projects()

    assert client.failover and client.target.target == f"dns:///localhost:{port}"
    assert list(listed.projects) == []


async def test_every_address_dead_is_unavailable() -> None:
    """With nothing answering, a read fails with Unavailable once its retries (or deadline) run out."""
    with dead_address() as first, dead_address() as second:
        async with HubClient(f"{first},{second}", token=ADMIN_TOKEN, timeout=10) as client:
            with pytest.raises(Unavailable):
                await client.admin.list_projects()


# -- (b) the hub in use stops ----------------------------------------------------------------------


def in_use(listed: ListProjectsResponse, first: HubServer, second: HubServer) -> tuple[HubServer, HubServer]:
    """Which of two separate hubs answered (each has one project, named after it), and the other.

    pick_first uses the first address unless it was slower to answer than 250 ms (then whichever
    answers first), so the test asks rather than assumes.
    """
    (name,) = [project.name for project in listed.projects]
    return (first, second) if name == first.settings.data_dir.name else (second, first)


async def test_reads_move_to_the_other_hub_when_the_one_in_use_stops(tmp_path: Path) -> None:
    """Two separate hubs: once the one the client uses stops, the same client reads the other."""
    async with two_hubs(tmp_path) as (first, second):
        for server in (first, second):
            async with HubClient(server.address, token=ADMIN_TOKEN) as admin:
                await admin.admin.create_project(server.settings.data_dir.name)
        async with HubClient([first.address, second.address], token=ADMIN_TOKEN, timeout=5) as client:
            used, other = in_use(await client.admin.list_projects(), first, second)
            await used.stop(0.2)
            after = await client.admin.list_projects()
            again = await client.admin.list_projects()

    assert [p.name for p in after.projects] == [other.settings.data_dir.name]
    assert [p.name for p in again.projects] == [other.settings.data_dir.name]


async def test_reads_and_sends_continue_through_the_other_address(
    hub: Hub, project: Project, relays: tuple[Relay, Relay]
) -> None:
    """One hub behind two addresses: cutting the one in use, reads and sends go on through the other,
    and every send carries an idempotency key the client made (the retry policy may repeat it)."""
    first, second = relays
    await agent_identity(hub, project, "bob")
    alice = HubClient([first.address, second.address], token=project.token, timeout=5)
    try:
        await alice.agents.register("alice")
        await second.open()
        before = await alice.messages.send("bob", "one")
        keyed = await alice.messages.send("bob", "two", idempotency_key="mine")
        used_before = (first.connections, second.connections)
        await first.cut()
        after = await alice.messages.send("bob", "three")
        repeat = await alice.messages.send("bob", "two", idempotency_key="mine")
        got = await alice.messages.get(before.message.id)
        await alice.agents.heartbeat()
        await alice.messages.cancel(after.message.id)
    finally:
        await alice.close()

    assert used_before == (1, 0)  # pick_first: one connection, to the first address
    assert second.connections >= 1
    assert before.message.idempotency_key.startswith("auto:") and len(before.message.idempotency_key) == 37
    assert after.message.idempotency_key.startswith("auto:")
    assert after.message.idempotency_key != before.message.idempotency_key
    assert keyed.message.idempotency_key == "mine"
    assert repeat.repeated and repeat.message.id == keyed.message.id
    assert got.message.content == "one"


async def test_one_address_sends_no_key_of_its_own(hub: Hub, project: Project) -> None:
    """A client of one address is the client it always was: no retries, so no key is made up."""
    await agent_identity(hub, project, "bob")
    async with HubClient(hub.address, token=project.token) as alice:
        await alice.agents.register("alice")
        sent = await alice.messages.send("bob", "hello")

    assert not alice.failover and alice.target.target == hub.address
    assert sent.message.idempotency_key == ""


# -- calls in flight when the address is cut -------------------------------------------------------


async def sent_upstream(relay: Relay, since: int) -> None:
    """Wait until the relay passed a request's bytes on to the hub (more than an HTTP/2 ping's)."""

    async def passed() -> bool:
        return relay.upstream_bytes > since + 40

    await until(passed, "the request to reach the hub through the relay")


async def test_a_read_in_flight_is_retried_on_the_other_address(
    hub: Hub, project: Project, relays: tuple[Relay, Relay]
) -> None:
    """A WaitMessage cut off mid-wait is retried (UNAVAILABLE, a read) through the other address."""
    first, second = relays
    bob_id, bob_key = await agent_identity(hub, project, "bob")
    alice = HubClient([first.address, second.address], token=project.token, timeout=5)
    bob = HubClient(hub.address, token=project.token, agent_id=bob_id, agent_key=bob_key)
    try:
        await alice.agents.register("alice")
        await second.open()
        sent = await alice.messages.send("bob", "question")
        baseline = first.upstream_bytes
        waiting = asyncio.create_task(alice.messages.wait(sent.message.id, wait=30))
        await sent_upstream(first, baseline)
        await first.cut()
        await bob.messages.reply(sent.message.id, "answer")
        waited = await asyncio.wait_for(waiting, DEADLINE)
    finally:
        await alice.close()
        await bob.close()

    assert waited.terminal and waited.message.reply.content == "answer"
    assert second.connections >= 1


async def test_a_send_in_flight_is_retried_and_stored_once(
    hub: Hub, project: Project, relays: tuple[Relay, Relay]
) -> None:
    """A send (waiting for its reply) cut off after the hub stored it is retried with the key the
    client made: the hub answers the stored message (``repeated``), and bob has it once."""
    first, second = relays
    bob_id, bob_key = await agent_identity(hub, project, "bob")
    alice = HubClient(f"{first.address}, {second.address}", token=project.token, timeout=5)
    bob = HubClient(hub.address, token=project.token, agent_id=bob_id, agent_key=bob_key)
    try:
        await alice.agents.register("alice")
        await second.open()
        sending = asyncio.create_task(alice.messages.send("bob", "question", wait=30))

        async def stored() -> bool:
            return len((await bob.messages.list_inbox()).messages) == 1

        await until(stored, "the send to be stored")
        await first.cut()
        (message,) = (await bob.messages.list_inbox()).messages
        await bob.messages.reply(message.id, "answer")
        sent = await asyncio.wait_for(sending, DEADLINE)
        inbox = await bob.messages.list_inbox()
    finally:
        await alice.close()
        await bob.close()

    assert sent.repeated and sent.message.id == message.id
    assert sent.terminal and sent.message.state == MessageState.MESSAGE_STATE_REPLIED
    assert message.idempotency_key.startswith("auto:")
    assert list(inbox.messages) == []  # the one message was replied to; no second copy was stored


async def test_a_write_that_is_not_safe_to_repeat_is_not_retried(
    hub: Hub, project: Project, relays: tuple[Relay, Relay]
) -> None:
    """An AcquireLease cut off while it queues fails with Unavailable: repeating it is the caller's call."""
    first, second = relays
    bob_id, bob_key = await agent_identity(hub, project, "bob")
    alice = HubClient([first.address, second.address], token=project.token, timeout=5)
    bob = HubClient(hub.address, token=project.token, agent_id=bob_id, agent_key=bob_key)
    try:
        await alice.agents.register("alice")
        await second.open()
        held = await bob.leases.acquire("printer", ttl=60)
        baseline = first.upstream_bytes
        acquiring = asyncio.create_task(alice.leases.acquire("printer", ttl=60, wait=30))
        await sent_upstream(first, baseline)
        await first.cut()
        with pytest.raises(Unavailable):
            await asyncio.wait_for(acquiring, DEADLINE)
        lease = await alice.leases.get("printer")  # a read: through the other address
    finally:
        await alice.close()
        await bob.close()

    assert lease.lease.fencing_token == held.lease.fencing_token
    assert lease.lease.holder_agent_id == bob_id


# -- the inbox stream ------------------------------------------------------------------------------


async def test_the_stream_resumes_on_the_other_address_by_cursor(
    hub: Hub, project: Project, relays: tuple[Relay, Relay]
) -> None:
    """bob's subscribe() loses its address; it opens again through the other one after the last seq
    it yielded: the acknowledged message is not redelivered, the next one arrives."""
    first, second = relays
    bob_id, bob_key = await agent_identity(hub, project, "bob")
    alice = HubClient(hub.address, token=project.token)
    bob = HubClient([first.address, second.address], token=project.token, agent_id=bob_id, agent_key=bob_key)
    events = bob.messages.subscribe(auto_ack=True, initial_backoff=0.05)
    try:
        await alice.agents.register("alice")

        async def next_event(kind: str) -> object:
            while True:
                event = await asyncio.wait_for(anext(events), DEADLINE)
                if event.WhichOneof("event") == kind:
                    return event

        await next_event("ready")
        await second.open()
        one = await alice.messages.send("bob", "one")
        got_one = await next_event("message")
        await first.cut()
        two = await alice.messages.send("bob", "two")
        ready = await next_event("ready")
        got_two = await next_event("message")
    finally:
        await events.aclose()
        await alice.close()
        await bob.close()

    assert got_one.message.id == one.message.id  # type: ignore[attr-defined]
    assert ready.ready.after_seq == got_one.seq  # type: ignore[attr-defined]
    assert got_two.message.id == two.message.id and not got_two.redelivered  # type: ignore[attr-defined]
    assert first.connections == 1 and second.connections >= 1


async def test_replicas_of_one_database_carry_on_when_the_first_stops(postgres_database: str, tmp_path: Path) -> None:
    """Two replicas on one PostgreSQL database (issue 12): alice and bob use the first; it stops;
    alice's next send, her reads and bob's inbox stream carry on on the second, the stream resuming
    after the last sequence it yielded."""
    async with two_hubs(tmp_path, postgres_database) as (first, second):
        async with HubClient(first.address, token=ADMIN_TOKEN) as admin:
            project = Project("alpha", (await admin.admin.create_project("alpha")).project_token)
        bob_id, bob_key = await agent_identity(first, project, "bob")
        # The second replica is reached through a relay opened once both clients work through the
        # first, so that both certainly begin there (see ``relays``).
        relay = Relay(second.address)
        both = [first.address, relay.address]
        alice = HubClient(both, token=project.token, timeout=5)
        bob = HubClient(both, token=project.token, agent_id=bob_id, agent_key=bob_key)
        events = bob.messages.subscribe(auto_ack=True, initial_backoff=0.05)
        try:
            await alice.agents.register("alice")

            async def next_event(kind: str) -> Any:
                while True:
                    event = await asyncio.wait_for(anext(events), DEADLINE)
                    if event.WhichOneof("event") == kind:
                        return event

            await next_event("ready")
            await relay.open()
            one = await alice.messages.send("bob", "one")
            got_one = await next_event("message")
            await first.stop(0.2)
            two = await alice.messages.send("bob", "two")
            fetched = await alice.messages.get(one.message.id)
            ready = await next_event("ready")
            got_two = await next_event("message")
        finally:
            await events.aclose()
            await alice.close()
            await bob.close()
            await relay.cut()

    assert got_one.message.id == one.message.id
    assert fetched.message.content == "one"
    assert ready.ready.after_seq == got_one.seq
    assert got_two.message.id == two.message.id and not got_two.redelivered


# -- TLS and IPv6 ----------------------------------------------------------------------------------


async def test_tls_hubs_on_ip_addresses_fail_over(pki: Path, tmp_path: Path) -> None:
    """With TLS the channel's authority is the first address, which both certificates name
    (IP:127.0.0.1): the second hub passes the name check after the first stops."""
    ca = (pki / "ca.pem").read_bytes()
    async with two_hubs(tmp_path, tls_cert=pki / "server.pem", tls_key=pki / "server.key") as (first, second):
        for server in (first, second):
            async with HubClient(server.address, token=ADMIN_TOKEN, root_certificates=ca) as admin:
                await admin.admin.create_project(server.settings.data_dir.name)
        async with HubClient([first.address, second.address], token=ADMIN_TOKEN, root_certificates=ca) as client:
            used, other = in_use(await client.admin.list_projects(), first, second)
            await used.stop(0.2)
            after = await client.admin.list_projects()

    assert client.target.authority == first.address
    assert [p.name for p in after.projects] == [other.settings.data_dir.name]


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
async def test_ipv6_literals_in_brackets(tmp_path: Path) -> None:
    """[dead v6, live v6] in brackets: an ipv6: target, and the live hub answers."""
    async with two_hubs(tmp_path, host="[::1]") as (first, _):
        with socket.socket(socket.AF_INET6) as dead:
            dead.bind(("::1", 0))
            dead_address = f"[::1]:{dead.getsockname()[1]}"
            async with HubClient(f"{dead_address}, {first.address}", token=ADMIN_TOKEN, timeout=5) as client:
                listed = await client.admin.list_projects()

    assert client.target.target == f"ipv6:{dead_address},{first.address}"
    assert list(listed.projects) == []


# -- (d) the CLI -----------------------------------------------------------------------------------


async def kxm(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run ``python -m kxm_grpc.cli ARGS`` without blocking the hub's event loop."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "kxm_grpc.cli",
        *args,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": ROOT, "KXM_DATA_DIR": str(cwd / "state"), **(env or {})},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_the_cli_takes_several_addresses(hub: Hub, project: Project, tmp_path: Path) -> None:
    """``--addr`` and ``KXM_ADDR`` take a list (a dead address first); a bad list is a usage error."""
    await agent_identity(hub, project, "bob")
    with dead_address() as dead:
        several = f"{dead}, {hub.address}"
        health = await kxm("health", "--addr", several, cwd=tmp_path)
        listed = await kxm("agent", "list", "--addr", several, "--token", project.token, "--json", cwd=tmp_path)
        from_env = await kxm(
            "admin",
            "project",
            "list",
            "--json",
            cwd=tmp_path,
            env={"KXM_ADDR": several, "KXM_ADMIN_TOKEN": ADMIN_TOKEN},
        )
        debug = await kxm(
            "debug", "call", "kxm.v1.AdminService/ListProjects", "--addr", several, "--token", ADMIN_TOKEN, cwd=tmp_path
        )
        with dead_address() as other:
            unreachable = await kxm("health", "--addr", f"{dead},{other}", "--timeout", "1", cwd=tmp_path)
    bad_flag = await kxm("agent", "list", "--addr", f"{hub.address},,{hub.address}", cwd=tmp_path)
    bad_env = await kxm(
        "agent", "list", "--token", project.token, cwd=tmp_path, env={"KXM_ADDR": "hub-a:7331,hub-b:7331"}
    )

    assert health[:2] == (0, "SERVING\n")
    assert listed[0] == 0 and "bob" in listed[1]
    assert from_env[0] == 0 and "alpha" in from_env[1]
    assert debug[0] == 0 and "alpha" in debug[1]
    assert unreachable[0] == 2
    assert bad_flag[0] == 2 and "empty entry" in bad_flag[2]
    assert bad_env[0] == 1 and "KXM_ADDR" in bad_env[2] and "names hosts by name" in bad_env[2]
