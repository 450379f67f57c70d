"""The admission pipeline driven directly, as an HTTP route or MCP would drive it: no gRPC at all.

Calls are plain ``IncomingCall``s made of a method name, ``(name, value)`` metadata pairs and a
peer host, against a real store; the pipeline authenticates, rate-limits by the RPC's class, renews
presence where the RPC's facts say so, binds the call and maps failures, the same as for gRPC.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import pytest_asyncio

from kxm_grpc._gen.kxm.v1 import message_service_pb2
from kxm_grpc.domain.agents import registration
from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.clock import ManualClock, seconds
from kxm_grpc.domain.secrets import hash_secret
from kxm_grpc.errors import Internal, PermissionDenied, Reason, ResourceExhausted, Unauthenticated
from kxm_grpc.server.admission import RPC_TOTAL, Admission, IncomingCall
from kxm_grpc.server.context import current_call
from kxm_grpc.server.ratelimit import RateLimiter
from kxm_grpc.server.servicers.messages import MessageServicer
from kxm_grpc.server.settings import Settings
from kxm_grpc.server.state import HubState
from kxm_grpc.services import agents, projects
from kxm_grpc.services.auth import CREDENTIALS_TOPIC
from kxm_grpc.store import Durability
from kxm_grpc.store.sqlite import SqliteStore

ADMIN_TOKEN = "plain-admin-token-0123456789"
LIST_INBOX = "/kxm.v1.MessageService/ListInbox"
HEARTBEAT = "/kxm.v1.AgentService/Heartbeat"
SUBSCRIBE = "/kxm.v1.MessageService/Subscribe"
LIST_AGENTS = "/kxm.v1.AgentService/ListAgents"
LIST_PROJECTS = "/kxm.v1.AdminService/ListProjects"
PEER = "http:192.0.2.7"


@dataclass
class World:
    """A hub's state on an in-memory store, one project ``p`` and one agent ``a`` of it."""

    hub: HubState
    clock: ManualClock
    admission: Admission
    token: str
    agent_id: str
    agent_key: str

    def agent_metadata(self, request_id: str = "plain-1") -> list[tuple[str, str]]:
        return [
            ("authorization", f"Bearer {self.token}"),
            ("x-kxm-agent-id", self.agent_id),
            ("x-kxm-agent-key", self.agent_key),
            ("x-request-id", request_id),
        ]


async def make_world(rate_limit: int) -> AsyncIterator[World]:
    store = SqliteStore(":memory:", durability=Durability.FULL)
    await store.start()
    clock = ManualClock()
    hub = HubState(
        settings=Settings(rate_limit=rate_limit, rate_window=60.0, stale_after=30.0),
        store=store,
        clock=clock,
        admin_token_hash=hash_secret(ADMIN_TOKEN),
        limiter=RateLimiter(rate_limit, 60.0),
    )
    issued = await projects.create_project(store, Caller(CredentialKind.ADMIN), "p", now=clock.now())
    project = Caller(CredentialKind.PROJECT, project="p")
    registered = await agents.register_agent(
        store, project, registration("a", "", "", ""), presented_key=None, now=clock.now()
    )
    try:
        yield World(hub, clock, Admission(hub), issued.token, registered.agent.id, registered.key)
    finally:
        await store.close()


@pytest_asyncio.fixture
async def world() -> AsyncIterator[World]:
    """A world with a generous rate limit."""
    async for made in make_world(rate_limit=1000):
        yield made


@pytest_asyncio.fixture
async def tight() -> AsyncIterator[World]:
    """A world whose rate budget is three tokens per minute."""
    async for made in make_world(rate_limit=3):
        yield made


async def last_seen(world: World) -> int:
    agent = await world.hub.store.read(lambda tx: tx.agents.get(world.agent_id))
    assert agent is not None
    return agent.last_seen_time


async def test_an_agent_call_from_plain_metadata_is_admitted_and_renews_presence(world: World) -> None:
    """Metadata pairs are enough: the caller is the agent, the request id is the presented one,
    and admission renewed the agent's presence (the RPC's facts: PRESENCE_RENEWAL_ADMISSION)."""
    registered_at = await last_seen(world)
    world.clock.advance(10)  # past a quarter of the 30 s presence window: renewal is due

    context = await world.admission.admit(IncomingCall(LIST_INBOX, world.agent_metadata(), PEER))

    assert context.caller.kind is CredentialKind.AGENT
    assert context.caller.agent_id == world.agent_id and context.caller.project == "p"
    assert context.request_id == "plain-1"
    assert current_call() is context
    assert context.agent is not None and context.agent.last_seen_time == world.clock.now()
    assert await last_seen(world) == registered_at + seconds(10)


async def test_the_context_carries_the_credentials_notice_version_not_the_durable_one(world: World) -> None:
    """``credentials_notice_version`` is this process's notifier version of the credentials topic when
    the credentials were verified, which a bump by another process (durable, unnoticed here) leaves alone."""
    store = world.hub.store
    for _ in range(3):  # what another process's credential changes commit: no notice in this one
        await store.write(lambda tx: tx.credentials.bump())
    notice = store.notifier.version(CREDENTIALS_TOPIC)
    durable = await store.read(lambda tx: tx.credentials.version())

    context = await world.admission.admit(IncomingCall(LIST_INBOX, world.agent_metadata(), PEER))

    assert context.credentials_notice_version == notice != durable


async def test_the_context_carries_the_presented_agent_key_and_never_shows_it(world: World) -> None:
    """An agent's call context holds the key it presented (handlers never re-read the metadata), out of
    its repr; a call without an agent identity holds none."""
    project_call = [("authorization", f"Bearer {world.token}")]

    agent_context = await world.admission.admit(IncomingCall(LIST_INBOX, world.agent_metadata(), PEER))
    project_context = await world.admission.admit(IncomingCall(LIST_AGENTS, project_call, PEER))

    assert agent_context.agent_key == world.agent_key
    assert world.agent_key not in repr(agent_context)
    assert project_context.agent_key is None


async def test_subscribe_takes_the_agent_key_from_the_call_context_not_the_metadata(world: World) -> None:
    """The Subscribe servicer opens the stream with the key admission verified; it never reads the
    call's metadata again (here the servicer's context has none to give)."""

    class NoMetadata:
        def invocation_metadata(self) -> None:
            raise AssertionError("the servicer re-read the call's metadata")

        def time_remaining(self) -> None:
            return None

        async def abort_with_status(self, status: object) -> None:
            raise AssertionError(f"the stream was aborted: {status}")

    await world.admission.admit(IncomingCall(SUBSCRIBE, world.agent_metadata(), PEER))
    servicer = MessageServicer(world.hub)

    items = servicer.Subscribe(message_service_pb2.SubscribeRequest(), NoMetadata())  # type: ignore[arg-type]
    first = await anext(items)
    await items.aclose()

    assert first.WhichOneof("event") == "ready"
    assert first.ready.agent.id == world.agent_id


async def test_presence_renewal_refuses_a_key_revoked_since_it_was_authenticated(world: World) -> None:
    """The cache trusts the agent's key (nothing in this process noticed its revocation, as when another
    process revoked it moments ago); when the next call's renewal is due, admission re-checks the key
    as it renews: UNAUTHENTICATED (INVALID_AGENT_IDENTITY), and presence is not renewed."""
    registered_at = await last_seen(world)
    await world.admission.admit(IncomingCall(LIST_INBOX, world.agent_metadata(), PEER))  # cached
    await world.hub.store.write(lambda tx: tx.agents.revoke_key(world.agent_id))  # no notice, no bump
    world.clock.advance(10)  # renewal is due

    with pytest.raises(Unauthenticated) as caught:
        await world.admission.admit(IncomingCall(LIST_INBOX, world.agent_metadata(), PEER))

    assert caught.value.reason is Reason.INVALID_AGENT_IDENTITY
    assert await last_seen(world) == registered_at


async def test_heartbeat_renews_presence_itself_so_admission_does_not(world: World) -> None:
    """Heartbeat's facts say PRESENCE_RENEWAL_SELF: admission leaves presence to the RPC."""
    registered_at = await last_seen(world)
    world.clock.advance(10)

    await world.admission.admit(IncomingCall(HEARTBEAT, world.agent_metadata(), PEER))

    assert await last_seen(world) == registered_at


async def test_the_rate_limit_charges_the_rpcs_class(tight: World) -> None:
    """With three tokens, opening a stream (STREAM, 3 tokens) spends the whole budget: the next
    ordinary call is RATE_LIMITED with a retry delay, and ``fail`` maps it unchanged and counts it."""
    await tight.admission.admit(IncomingCall(SUBSCRIBE, tight.agent_metadata(), PEER))
    call = IncomingCall(LIST_INBOX, tight.agent_metadata(), PEER)
    refused = RPC_TOTAL.labels(LIST_INBOX, "RESOURCE_EXHAUSTED")
    before = refused._value.get()

    with pytest.raises(ResourceExhausted) as caught:
        await tight.admission.admit(call)

    assert caught.value.reason is Reason.RATE_LIMITED
    assert caught.value.retry_after is not None and caught.value.retry_after > 0
    assert tight.admission.fail(call, caught.value) is caught.value
    assert refused._value.get() == before + 1


async def test_admin_calls_have_a_budget_of_their_own(tight: World) -> None:
    """The admin spends its ordinary budget acting in a project; project management (ADMIN class)
    is still admitted."""
    in_project = [("authorization", f"Bearer {ADMIN_TOKEN}"), ("x-kxm-project", "p")]
    for _ in range(3):
        await tight.admission.admit(IncomingCall(LIST_AGENTS, in_project, PEER))
    with pytest.raises(ResourceExhausted):
        await tight.admission.admit(IncomingCall(LIST_AGENTS, in_project, PEER))

    context = await tight.admission.admit(IncomingCall(LIST_PROJECTS, [("authorization", f"Bearer {ADMIN_TOKEN}")]))

    assert context.caller.kind is CredentialKind.ADMIN


async def test_a_bad_token_is_refused_with_the_mapped_error_and_spends_the_peers_budget(tight: World) -> None:
    """An unknown token is UNAUTHENTICATED (INVALID_AUTH), counted; guessing spends the peer's
    budget until the peer itself is RATE_LIMITED."""
    metadata = [("authorization", "Bearer kxm_proj_not-a-real-token")]
    call = IncomingCall(LIST_INBOX, metadata, PEER)
    refused = RPC_TOTAL.labels(LIST_INBOX, "UNAUTHENTICATED")
    before = refused._value.get()

    with pytest.raises(Unauthenticated) as caught:
        await tight.admission.admit(call)
    mapped = tight.admission.fail(call, caught.value)

    assert mapped.status == "UNAUTHENTICATED" and mapped.reason is Reason.INVALID_AUTH
    assert refused._value.get() == before + 1
    for _ in range(2):
        with pytest.raises(Unauthenticated):
            await tight.admission.admit(IncomingCall(LIST_INBOX, metadata, PEER))
    with pytest.raises(ResourceExhausted):
        await tight.admission.admit(IncomingCall(LIST_INBOX, metadata, PEER))
    # Another peer has its own budget.
    with pytest.raises(Unauthenticated):
        await tight.admission.admit(IncomingCall(LIST_INBOX, metadata, "http:192.0.2.8"))


async def test_an_unexpected_failure_is_mapped_to_internal(world: World) -> None:
    """Anything that is not a HubError becomes INTERNAL with a fixed message."""
    call = IncomingCall(LIST_INBOX, world.agent_metadata(), PEER)
    try:
        raise RuntimeError("boom: a secret that must not reach the caller")
    except RuntimeError as error:
        mapped = world.admission.fail(call, error)

    assert isinstance(mapped, Internal)
    assert mapped.message == "internal error" and mapped.reason is Reason.INTERNAL_ERROR


async def test_an_rpc_without_facts_admits_nobody(world: World) -> None:
    """Fail closed: a method the registry does not know is refused, whatever the credentials."""
    with pytest.raises(PermissionDenied) as caught:
        await world.admission.admit(IncomingCall("/kxm.v1.AgentService/Unknown", world.agent_metadata(), PEER))

    assert caught.value.reason is Reason.CREDENTIAL_KIND_DENIED


def test_the_request_id_is_the_presented_one_when_well_formed() -> None:
    """A well-formed ``x-request-id`` is kept; a missing or malformed one is replaced."""
    kept = IncomingCall(LIST_INBOX, [("x-request-id", "abc.DEF-1_2")])
    generated = IncomingCall(LIST_INBOX, [])
    malformed = IncomingCall(LIST_INBOX, [("x-request-id", "has spaces")])

    assert kept.request_id == "abc.DEF-1_2"
    for call in (generated, malformed):
        assert call.request_id.startswith("req_") and len(call.request_id) == 4 + 32


@pytest.mark.parametrize("kind", ["stream_unary"])
async def test_a_client_streaming_rpc_is_refused_at_registration(world: World, kind: str) -> None:
    """The gRPC adapter wraps unary, server-streaming and bidirectional RPCs (the agent channel);
    a client-streaming one would be served without admission, so registering one fails (closed)."""
    import grpc

    from kxm_grpc.server.interceptor import HubInterceptor

    async def behaviour(requests: object, context: object) -> None:
        return None

    make = grpc.stream_unary_rpc_method_handler if kind == "stream_unary" else grpc.stream_stream_rpc_method_handler
    with pytest.raises(TypeError, match="no admission wrapper"):
        HubInterceptor(world.admission).wrap("/kxm.v1.AgentService/ListAgents", make(behaviour))


async def test_operator_management_is_refused_to_a_named_operator_in_the_services(world: World) -> None:
    """Services check again what admission checks: only the bootstrap admin manages operators and reads
    the audit, whatever surface calls them."""
    from kxm_grpc.services import audit, operators

    named = Caller(CredentialKind.OPERATOR, operator_name="ops")
    store, now = world.hub.store, world.clock.now()
    calls = [
        operators.create_operator(store, named, "mallory", now=now),
        operators.revoke_operator(store, named, "ops", now=now),
        operators.list_operators(store, named, 0, ""),
        audit.list_audit_records(store, named, 0, ""),
    ]
    for call in calls:
        with pytest.raises(PermissionDenied) as caught:
            await call
        assert caught.value.reason is Reason.CREDENTIAL_KIND_DENIED
    admin = Caller(CredentialKind.ADMIN)
    assert [o.name for o in (await operators.list_operators(store, admin, 0, ""))[0]] == []
