"""Hub-signed tool policy over a real hub: session tokens minted, listed, revoked, and enforced.

Operators mint session tokens (AdminService.MintSessionToken) for an agent; admission's tool-policy
step (kxm_grpc/server/admission.py, services/tokens.py) enforces the token's policy on every RPC
with a tool name, refuses every defective token with its reason, cannot be dodged by leaving the
token off, and admits the RPCs without a tool name under any policy. Attempt tokens (which the step
dispatcher will mint) are minted here with the hub's keyring, as it will.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import io
import json
from collections.abc import Iterable
from pathlib import Path

import grpc
import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.domain.clock import MICROS, ManualClock
from kxm_grpc.domain.tokens import mint_attempt_token
from kxm_grpc.domain.tool_policy import ALLOW_ALL, make_policy
from kxm_grpc.errors import InvalidArgument, NotFound, PermissionDenied, Reason, ResourceExhausted
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.methods import RPCS, RpcFacts
from kxm_grpc.server.settings import Settings
from kxm_grpc.services.auth import CREDENTIALS_RECHECK, Access
from kxm_grpc.store import tables
from kxm_grpc.store.protocols.step_runs import AssignmentState, StoredAssignment
from kxm_grpc.v1 import WorkerResult
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub, ProjectFactory
from tests.reliability import rpc_surface
from tests.test_cli import kxm
from tests.workflows import define, start_run

POLICY_REASONS = {
    str(Reason.TOOL_POLICY_DENIED),
    str(Reason.ATTEMPT_TOKEN_INVALID),
    str(Reason.ATTEMPT_TOKEN_SCOPE_VIOLATION),
    str(Reason.SESSION_TOKEN_INVALID),
    str(Reason.SESSION_TOKEN_REQUIRED),
}
TOOL_RPCS = sorted((f for f in RPCS.values() if f.tool_name), key=lambda f: f.method)
PLAIN_AGENT_RPCS = sorted(
    (
        f
        for f in RPCS.values()
        if not f.tool_name and f.access in (Access.AGENT, Access.PROJECT_TOKEN, Access.PROJECT, Access.ANY)
    ),
    key=lambda f: (f.name == "UnregisterAgent", f.method),  # unregistering last: it ends the identity
)


def operator(hub: Hub, project: str = "alpha") -> HubClient:
    """The bootstrap admin acting in ``project`` (x-kxm-project)."""
    return HubClient(hub.address, token=ADMIN_TOKEN, project=project)


async def raw(hub: Hub, facts: RpcFacts, metadata: Iterable[tuple[str, str]], body: bytes = b"") -> rpc_surface.Outcome:
    """Call ``facts``'s RPC with ``body`` as its request bytes, off the event loop (the hub runs on it)."""

    def call() -> rpc_surface.Outcome:
        with grpc.insecure_channel(hub.address) as channel:
            return rpc_surface.call(
                channel, facts.method, body, tuple(metadata), streaming=facts.server_streaming, timeout=10, idle=0.3
            )

    return await asyncio.to_thread(call)


def digest(hub: Hub) -> str:
    with tables.raw_connection(hub.database) as conn:
        return tables.digest(conn)


async def mint(hub: Hub, agent: HubClient, **policy: object) -> str:
    async with operator(hub) as ops:
        response = await ops.admin.mint_session_token(agent.agent_id or "", **policy)  # type: ignore[arg-type]
    return response.session_token


def with_session(agent: HubClient, token: str) -> tuple[tuple[str, str], ...]:
    return (*agent.metadata, ("x-kxm-session-token", token))


async def test_an_operator_mints_lists_and_revokes_session_tokens_audited(hub: Hub, make_agent: AgentFactory) -> None:
    """The token is shown once (kxmst1.), its facts listed newest first without it, revocation is
    idempotent, and each mint and revocation is audited under the operator; logs hold no token."""
    worker = await make_agent("worker")
    async with operator(hub) as ops, hub.admin() as admin:
        first = await ops.admin.mint_session_token(worker.agent_id or "", preset="read-only", allow=["send"], ttl=3600)
        second = await ops.admin.mint_session_token(worker.agent_id or "")
        listed = await ops.admin.list_session_tokens(page_size=1)
        rest = await ops.admin.list_session_tokens(page_token=listed.next_page_token)
        revoked = await ops.admin.revoke_session_token(first.session.session_id)
        again = await ops.admin.revoke_session_token(first.session.session_id)
        audit = await admin.admin.list_audit_records()

    session = first.session
    assert first.session_token.startswith("kxmst1.") and session.session_id.startswith("ses_")
    assert (session.project, session.agent_id, session.agent_name, session.minted_by) == (
        "alpha",
        worker.agent_id,
        "worker",
        "admin",
    )
    assert (session.tool_policy.preset, list(session.tool_policy.allowed_tools)) == ("read-only", ["kxm_send"])
    assert session.expire_time.ToSeconds() - session.issue_time.ToSeconds() == 3600
    assert second.session.expire_time.ToSeconds() - second.session.issue_time.ToSeconds() == 24 * 3600
    assert [s.session_id for s in [*listed.sessions, *rest.sessions]] == [
        second.session.session_id,
        session.session_id,
    ]
    assert first.session_token not in str(listed) + str(rest)
    assert revoked.session.HasField("revoke_time") and again.session.revoke_time == revoked.session.revoke_time
    actions = [r.action for r in audit.audit_records]
    assert actions.count("MintSessionToken") == 2 and actions.count("RevokeSessionToken") == 1
    record = next(r for r in audit.audit_records if r.action == "MintSessionToken")
    assert record.target.startswith("projects/alpha/sessionTokens/ses_") and first.session_token not in str(record)


@pytest.mark.parametrize(
    ("kwargs", "error", "reason"),
    [
        ({"agent_id": "agt_nobody"}, NotFound, Reason.AGENT_NOT_FOUND),
        ({"ttl": 30}, InvalidArgument, Reason.PROTOCOL_ERROR),
        ({"ttl": 31 * 24 * 3600}, InvalidArgument, Reason.PROTOCOL_ERROR),
        ({"preset": "admin"}, InvalidArgument, Reason.PROTOCOL_ERROR),
        ({"allow": ["kxm send"]}, InvalidArgument, Reason.PROTOCOL_ERROR),
        ({"project": "beta"}, InvalidArgument, Reason.PROTOCOL_ERROR),
    ],
)
async def test_a_bad_mint_is_refused_naming_what(
    hub: Hub, make_agent: AgentFactory, kwargs: dict[str, object], error: type[Exception], reason: Reason
) -> None:
    worker = await make_agent("worker")
    arguments: dict[str, object] = {"agent_id": worker.agent_id, **kwargs}
    async with operator(hub) as ops:
        with pytest.raises(error) as refused:
            await ops.admin.mint_session_token(**arguments)  # type: ignore[arg-type]

    assert refused.value.reason is reason  # type: ignore[attr-defined]


async def test_an_agent_name_holds_at_most_16_sessions_in_force(hub: Hub, make_agent: AgentFactory) -> None:
    worker = await make_agent("worker")
    async with operator(hub) as ops:
        minted = [await ops.admin.mint_session_token(worker.agent_id or "") for _ in range(16)]
        with pytest.raises(ResourceExhausted) as refused:
            await ops.admin.mint_session_token(worker.agent_id or "")
        await ops.admin.revoke_session_token(minted[0].session.session_id)
        await ops.admin.mint_session_token(worker.agent_id or "")  # room again

    assert refused.value.reason is Reason.SESSION_TOKEN_LIMIT_REACHED


async def test_deny_all_refuses_every_tool_rpc_before_any_side_effect(hub: Hub, make_agent: AgentFactory) -> None:
    """Every RPC of the registry with a tool name, called with its agent's deny-all session token:
    PERMISSION_DENIED TOOL_POLICY_DENIED naming the tool, and the database unchanged (not even presence)."""
    worker = await make_agent("worker")
    token = await mint(hub, worker, deny=["*"])
    before = digest(hub)

    outcomes = [await raw(hub, facts, with_session(worker, token)) for facts in TOOL_RPCS]

    assert [(o.method, o.name, o.reason) for o in outcomes] == [
        (f.method, "PERMISSION_DENIED", str(Reason.TOOL_POLICY_DENIED)) for f in TOOL_RPCS
    ]
    assert [o.error_metadata["tool"] for o in outcomes] == [f.tool_name for f in TOOL_RPCS]
    assert all(o.error_metadata["token"] == "session" and o.error_metadata["rule"] == "deny_list" for o in outcomes)
    assert digest(hub) == before
    assert token not in "".join(o.details for o in outcomes)


async def test_allow_all_refuses_no_tool_rpc_by_policy(hub: Hub, make_agent: AgentFactory) -> None:
    """The same calls under an allow-all session token reach their handlers (whatever those answer)."""
    worker = await make_agent("worker")
    token = await mint(hub, worker, allow=["*"])

    outcomes = [await raw(hub, facts, with_session(worker, token)) for facts in TOOL_RPCS]

    assert [str(o) for o in outcomes if o.reason in POLICY_REASONS] == []


async def test_rpcs_without_a_tool_name_are_admitted_under_deny_all(hub: Hub, make_agent: AgentFactory) -> None:
    """Heartbeat, AckMessages, Subscribe, RegisterAgent, ... are not tools: no policy refuses them,
    and an agent owing its session token need not present it there."""
    worker = await make_agent("worker")
    token = await mint(hub, worker, deny=["*"])

    with_token = [await raw(hub, facts, with_session(worker, token)) for facts in PLAIN_AGENT_RPCS[:-1]]
    without = [await raw(hub, facts, worker.metadata) for facts in PLAIN_AGENT_RPCS]

    assert [str(o) for o in [*with_token, *without] if o.reason in POLICY_REASONS] == []
    assert {f.name for f in PLAIN_AGENT_RPCS} >= {"Heartbeat", "AckMessages", "Subscribe", "UnregisterAgent"}


async def test_a_session_cannot_be_dodged_by_leaving_the_token_off(
    hub: Hub, make_agent: AgentFactory, make_project: ProjectFactory
) -> None:
    """An agent whose name holds a session must present it on every tool call (SESSION_TOKEN_REQUIRED);
    registering the name again does not shed it; other agents are untouched; a revocation lifts it."""
    worker = await make_agent("worker")
    other = await make_agent("other")
    token = await mint(hub, worker, preset="read-only")
    worker.use_tokens(session_token=token)

    listed = await worker.agents.list()  # read-only allows kxm_list_agents
    worker.use_tokens()
    with pytest.raises(PermissionDenied) as required:
        await worker.agents.list()
    await other.agents.list()
    await other.messages.send("worker", "hello")
    worker.use_tokens(session_token=token)
    with pytest.raises(PermissionDenied) as denied:
        await worker.messages.send("other", "hello")  # read-only denies kxm_send

    # The name registered again (a new id): the session still binds it, and the old token is not its.
    await worker.agents.unregister()
    reborn = await make_agent("worker")
    with pytest.raises(PermissionDenied) as still_required:
        await reborn.agents.list()
    reborn.use_tokens(session_token=token)
    with pytest.raises(PermissionDenied) as not_its:
        await reborn.agents.list()

    assert listed.agents
    assert (required.value.reason, required.value.metadata["tool"]) == (
        Reason.SESSION_TOKEN_REQUIRED,
        "kxm_list_agents",
    )
    assert (denied.value.reason, denied.value.metadata["rule"]) == (Reason.TOOL_POLICY_DENIED, "preset")
    assert still_required.value.reason is Reason.SESSION_TOKEN_REQUIRED
    assert (not_its.value.reason, not_its.value.metadata["defect"]) == (Reason.SESSION_TOKEN_INVALID, "other_agent")


async def test_a_revoked_token_is_refused_and_the_requirement_ends(hub: Hub, make_agent: AgentFactory) -> None:
    worker = await make_agent("worker")
    async with operator(hub) as ops:
        minted = await ops.admin.mint_session_token(worker.agent_id or "", allow=["*"])
        worker.use_tokens(session_token=minted.session_token)
        await worker.agents.list()
        await ops.admin.revoke_session_token(minted.session.session_id)

    with pytest.raises(PermissionDenied) as revoked:
        await worker.agents.list()
    worker.use_tokens()
    await worker.agents.list()  # no session in force: nothing owed

    assert (revoked.value.reason, revoked.value.metadata["defect"]) == (Reason.SESSION_TOKEN_INVALID, "revoked")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _widened(payload: str) -> bytes:
    """The payload's bytes with its allow list widened to everything (the MAC left as it was)."""
    raw = base64.urlsafe_b64decode(payload + "==")
    assert b'"allow":["kxm_list_agents"]' in raw
    return raw.replace(b'"allow":["kxm_list_agents"]', b'"allow":["*"]')


def _reforged(token: str, secret: bytes, **claims: object) -> str:
    """The token with claims changed and re-signed under ``secret`` (the same key id)."""
    head, payload, _ = token.rsplit(".", 2)
    document = json.loads(base64.urlsafe_b64decode(payload + "=="))
    document.update(claims)
    body = json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
    mac = hmac.new(secret, b"kxm.session-token.v1\x00" + body, hashlib.sha256).digest()
    return f"{head}.{_b64(body)}.{_b64(mac)}"


async def test_every_defective_token_is_refused_with_its_reason(
    hub: Hub, make_agent: AgentFactory, make_project: ProjectFactory
) -> None:
    """Forged, altered, another key's, another agent's, another project's, malformed, and a token of
    the other kind: each refused with PERMISSION_DENIED, its reason and defect; never echoed."""
    worker = await make_agent("worker")
    other = await make_agent("other")
    beta = await make_project("beta")
    stranger = await make_agent("stranger", in_project=beta)
    token = await mint(hub, worker, allow=["kxm_list_agents"])
    other_token = await mint(hub, other)
    async with operator(hub, "beta") as ops:
        beta_token = (await ops.admin.mint_session_token(stranger.agent_id or "")).session_token
    keys = hub.server.hub.token_keys  # type: ignore[union-attr]
    secret = keys.keys[keys.current]
    head, payload, mac = token.rsplit(".", 2)
    attempt, _ = mint_attempt_token(
        keys,
        project="alpha",
        run_id="wfr_x",
        step_id="s",
        step_attempt=1,
        assignment_id="asg_1",
        attempt_id="att_1",
        agent_id=worker.agent_id or "",
        tool_policy=ALLOW_ALL,
        now=hub.server.hub.now(),  # type: ignore[union-attr]
        ttl=3600 * MICROS,
    )
    cases = {
        "forged": (_reforged(token, b"x" * 32, toolPolicy={"allow": ["*"]}), "session", "bad_signature"),
        "altered": (
            f"{head}.{_b64(_widened(payload))}.{mac}",
            "session",
            "bad_signature",
        ),
        "widened": (_reforged(token, b"y" * 32, toolPolicy={}), "session", "bad_signature"),
        "unknown key": (token.replace(f"kxmst1.{keys.current}.", "kxmst1.retired-key."), "session", "unknown_key"),
        "other agent": (other_token, "session", "other_agent"),
        "other project": (beta_token, "session", "other_project"),
        "malformed": ("not-a-token", "session", "malformed"),
        "truncated": (token[:-5], "session", "bad_signature"),
        "attempt as session": (attempt, "session", "wrong_schema"),
        "session as attempt": (token, "attempt", "wrong_schema"),
        "attempt of another agent": (
            mint_attempt_token(
                keys,
                project="alpha",
                run_id="wfr_x",
                step_id="s",
                step_attempt=1,
                assignment_id="asg_1",
                attempt_id="att_1",
                agent_id=other.agent_id or "",
                tool_policy=ALLOW_ALL,
                now=hub.server.hub.now(),  # type: ignore[union-attr]
                ttl=3600 * MICROS,
            )[0],
            "attempt",
            "other_agent",
        ),
    }
    assert secret  # the hub's own key re-signs nothing here: every forgery uses another secret
    list_agents = RPCS["/kxm.v1.AgentService/ListAgents"]

    outcomes = {
        name: await raw(hub, list_agents, (*worker.metadata, (f"x-kxm-{kind}-token", value)))
        for name, (value, kind, _) in cases.items()
    }

    expected = {
        name: (
            "PERMISSION_DENIED",
            str(Reason.SESSION_TOKEN_INVALID if kind == "session" else Reason.ATTEMPT_TOKEN_INVALID),
            defect,
        )
        for name, (_, kind, defect) in cases.items()
    }
    assert {name: (o.name, o.reason, o.error_metadata.get("defect")) for name, o in outcomes.items()} == expected
    for name, outcome in outcomes.items():
        assert cases[name][0] not in outcome.details and outcome.error_metadata["nextAction"]


async def test_an_expired_session_token_is_refused_and_no_longer_owed(
    clocked_hub: tuple[Hub, ManualClock],
) -> None:
    """Expiry is exact on the hub's clock: valid a microsecond before, refused from then on; an
    expired session no longer binds the agent."""
    hub, clock = clocked_hub
    async with hub.admin() as admin:
        token = (await admin.admin.create_project("alpha")).project_token
    worker = HubClient(hub.address, token=token)
    await worker.agents.register("worker")
    async with operator(hub) as ops:
        session = await ops.admin.mint_session_token(worker.agent_id or "", ttl=60)
    worker.use_tokens(session_token=session.session_token)

    clock.advance(59.999)
    await worker.agents.list()
    clock.advance(0.001)
    with pytest.raises(PermissionDenied) as expired:
        await worker.agents.list()
    worker.use_tokens()
    await worker.agents.list()
    await worker.close()

    assert (expired.value.reason, expired.value.metadata["defect"]) == (Reason.SESSION_TOKEN_INVALID, "expired")


async def test_an_attempt_token_and_a_session_token_both_bound_the_call_and_the_attempt_its_run(
    hub: Hub, make_agent: AgentFactory
) -> None:
    """With both tokens, both policies must allow the tool; an attempt token never stands in for a
    session in force (SESSION_TOKEN_REQUIRED); a request naming another run or assignment than the
    attempt token's is ATTEMPT_TOKEN_SCOPE_VIOLATION, the token's own run is served."""
    coordinator = await make_agent("coordinator")
    run = await start_run(hub, define())
    session = await mint(hub, coordinator, deny=["kxm_list_agents"])
    state = hub.server.hub
    assert state is not None

    def attempt_token(run_id: str, **policy: object) -> str:
        return mint_attempt_token(
            state.token_keys,
            project="alpha",
            run_id=run_id,
            step_id="review",
            step_attempt=1,
            assignment_id="asg_1",
            attempt_id="att_1",
            agent_id=coordinator.agent_id or "",
            tool_policy=make_policy(**policy),  # type: ignore[arg-type]
            now=state.now(),
            ttl=3600 * MICROS,
        )[0]

    # The token's assignment, open (an attempt token is honoured only while its assignment is).
    open_assignment = StoredAssignment(
        id="asg_1",
        run_id=run.id,
        project="alpha",
        step_id="review",
        step_attempt=1,
        agent_id=coordinator.agent_id or "",
        state=AssignmentState.OPEN,
        create_time=state.now(),
        deadline=None,
        message_id="msg_1",
    )
    await state.store.write(lambda tx: tx.step_runs.put_assignment(open_assignment))
    coordinator.use_tokens(attempt_token=attempt_token(run.id, allow=["kxm_workflow_*"]), session_token=session)
    got = await coordinator.workflows.get_run(run.id)
    with pytest.raises(PermissionDenied) as scope:
        await coordinator.workflows.get_run("wfr_someone_elses")
    with pytest.raises(PermissionDenied) as denied:
        await coordinator.agents.list()  # the attempt token allows only kxm_workflow_*
    coordinator.use_tokens(attempt_token=attempt_token(run.id, allow=["*"]), session_token=session)
    with pytest.raises(PermissionDenied) as other_assignment:
        await coordinator.workflows.complete_assignment("asg_2", WorkerResult(outcome="passed"))
    with pytest.raises(PermissionDenied) as session_denied:
        await coordinator.agents.list()  # the attempt allows it, the session does not
    coordinator.use_tokens(attempt_token=attempt_token(run.id, deny=["kxm_workflow_run"]), session_token=session)
    with pytest.raises(PermissionDenied) as attempt_denied:
        await coordinator.workflows.get_run(run.id)
    coordinator.use_tokens(attempt_token=attempt_token(run.id, allow=["*"]))
    with pytest.raises(PermissionDenied) as session_required:
        await coordinator.workflows.get_run(run.id)  # the session binds the agent: no attempt lifts it

    coordinator.use_tokens(attempt_token=attempt_token(run.id), session_token=session)
    await state.store.write(
        lambda tx: tx.step_runs.close_assignment("asg_1", AssignmentState.SUPERSEDED, end_time=state.now())
    )
    with pytest.raises(PermissionDenied) as closed:
        await coordinator.workflows.get_run(run.id)  # superseded: its token is no longer honoured
    with pytest.raises(NotFound) as late:
        # Completing still reaches the service, which judges the late result itself (here: no step
        # run holds this hand-made assignment).
        await coordinator.workflows.complete_assignment("asg_1", WorkerResult(outcome="passed"))

    assert got.run.id == run.id
    assert (closed.value.reason, closed.value.metadata["defect"]) == (Reason.ATTEMPT_TOKEN_INVALID, "assignment_closed")
    assert late.value.reason == Reason.ASSIGNMENT_NOT_FOUND
    assert (scope.value.reason, scope.value.metadata["tokenRunId"]) == (Reason.ATTEMPT_TOKEN_SCOPE_VIOLATION, run.id)
    assert (denied.value.reason, denied.value.metadata["token"]) == (Reason.TOOL_POLICY_DENIED, "attempt")
    assert attempt_denied.value.metadata["rule"] == "deny_list"
    assert (session_denied.value.reason, session_denied.value.metadata["token"]) == (
        Reason.TOOL_POLICY_DENIED,
        "session",
    )
    assert session_required.value.reason == Reason.SESSION_TOKEN_REQUIRED
    assert (other_assignment.value.reason, other_assignment.value.metadata["tokenAssignmentId"]) == (
        Reason.ATTEMPT_TOKEN_SCOPE_VIOLATION,
        "asg_1",
    )


async def test_session_ids_of_another_project_read_as_not_found(
    hub: Hub, make_agent: AgentFactory, make_project: ProjectFactory
) -> None:
    worker = await make_agent("worker")
    await make_project("beta")
    token = await mint(hub, worker)
    async with operator(hub) as alpha, operator(hub, "beta") as beta:
        session_id = (await alpha.admin.list_session_tokens()).sessions[0].session_id
        with pytest.raises(NotFound) as revoke:
            await beta.admin.revoke_session_token(session_id)
        listed = await beta.admin.list_session_tokens()
        with pytest.raises(InvalidArgument):
            await beta.admin.list_session_tokens(project="alpha")

    assert revoke.value.reason is Reason.SESSION_TOKEN_NOT_FOUND and list(listed.sessions) == []
    assert token


async def test_the_token_keys_rotate(tmp_path: Path) -> None:
    """--token-key-file: a token signed by k1 still verifies once k2 signs (k2 first, k1 kept), and is
    refused as unknown_key once k1 is dropped; new tokens name k2."""
    keys = tmp_path / "token-keys"
    keys.write_text(f"k1 {'11' * 32}\n")
    keys.chmod(0o600)
    settings = Settings(
        port=0, data_dir=tmp_path / "kxm", admin_token=ADMIN_TOKEN, shutdown_grace=0.5, token_key_file=keys
    )

    async def life(text: str) -> tuple[HubServer, HubClient]:
        keys.write_text(text)
        server = HubServer(settings)
        await server.start()
        return server, HubClient(server.address, token=ADMIN_TOKEN, project="alpha")

    server, ops = await life(f"k1 {'11' * 32}\n")
    async with HubClient(server.address, token=ADMIN_TOKEN) as admin:
        project_token = (await admin.admin.create_project("alpha")).project_token
    worker = HubClient(server.address, token=project_token)
    registered = await worker.agents.register("worker")
    old = await ops.admin.mint_session_token(registered.agent.id, allow=["*"])
    for client in (ops, worker):
        await client.close()
    await server.stop(0.2)

    server, ops = await life(f"k2 {'22' * 32}\nk1 {'11' * 32}\n")
    worker = HubClient(
        server.address, token=project_token, agent_id=registered.agent.id, agent_key=registered.agent_key
    )
    worker.use_tokens(session_token=old.session_token)
    await worker.agents.list()
    new = await ops.admin.mint_session_token(registered.agent.id, allow=["*"])
    for client in (ops, worker):
        await client.close()
    await server.stop(0.2)

    server, ops = await life(f"k2 {'22' * 32}\n")
    worker = HubClient(
        server.address, token=project_token, agent_id=registered.agent.id, agent_key=registered.agent_key
    )
    worker.use_tokens(session_token=old.session_token)
    with pytest.raises(PermissionDenied) as dropped:
        await worker.agents.list()
    worker.use_tokens(session_token=new.session_token)
    await worker.agents.list()
    for client in (ops, worker):
        await client.close()
    await server.stop(0.2)

    assert (old.session.key_id, new.session.key_id) == ("k1", "k2")
    assert dropped.value.metadata["defect"] == "unknown_key"


async def test_the_cli_mints_lists_and_revokes_and_passes_the_env_token(
    hub: Hub, make_agent: AgentFactory, tmp_path: Path
) -> None:
    """kxm token mint|list|revoke --json; a kxm command given KXM_SESSION_TOKEN presents it."""
    worker = await make_agent("worker")
    common = ("--addr", hub.address, "--token", ADMIN_TOKEN, "--project", "alpha", "--json")

    minted = await kxm(
        "token", "mint", worker.agent_id or "", "--preset", "read-only", "--ttl", "600", *common, cwd=tmp_path
    )
    listed = await kxm("token", "list", *common, cwd=tmp_path)
    minted_json = json.loads(minted[1])
    token, session_id = minted_json["sessionToken"], minted_json["session"]["sessionId"]
    peer = ("--addr", hub.address, "--token", worker.token or "", "--json")
    agent_env = {"KXM_AGENT_ID": worker.agent_id or "", "KXM_AGENT_KEY": worker.agent_key or ""}
    owed = await kxm("peer", "list", *peer, cwd=tmp_path, env=agent_env)
    presented = await kxm("peer", "list", *peer, cwd=tmp_path, env={**agent_env, "KXM_SESSION_TOKEN": token})
    revoked = await kxm("token", "revoke", session_id, *common, cwd=tmp_path)

    assert minted[0] == 0 and token.startswith("kxmst1.")
    assert minted_json["session"]["toolPolicy"] == {"preset": "read-only"}
    assert listed[0] == 0 and [s["sessionId"] for s in json.loads(listed[1])["sessions"]] == [session_id]
    assert token not in listed[1]
    assert owed[0] == 1 and "ERROR_REASON_SESSION_TOKEN_REQUIRED" in owed[2], owed
    assert presented[0] == 0, presented
    assert revoked[0] == 0 and json.loads(revoked[1])["session"]["revokeTime"]


async def test_the_logs_name_sessions_and_refusals_never_tokens(
    hub: Hub, make_agent: AgentFactory, log_lines: io.StringIO
) -> None:
    """session_token_minted / _revoked and the refusals' request_error lines carry ids and reasons only."""
    worker = await make_agent("worker")
    async with operator(hub) as ops:
        minted = await ops.admin.mint_session_token(worker.agent_id or "", deny=["*"])
        worker.use_tokens(session_token=minted.session_token)
        with pytest.raises(PermissionDenied):
            await worker.agents.list()
        worker.use_tokens(session_token=minted.session_token[:-3] + "AAA")
        with pytest.raises(PermissionDenied):
            await worker.agents.list()
        await ops.admin.revoke_session_token(minted.session.session_id)

    lines = [json.loads(line) for line in log_lines.getvalue().splitlines()]
    events = [line["event"] for line in lines]
    assert "session_token_minted" in events and "session_token_revoked" in events
    refusals = [line for line in lines if line["event"] == "request_error"]
    assert {line["reason"] for line in refusals} >= {str(Reason.TOOL_POLICY_DENIED), str(Reason.SESSION_TOKEN_INVALID)}
    text = log_lines.getvalue()
    assert minted.session_token not in text and minted.session_token.rsplit(".", 1)[-1] not in text
    assert minted.session_token.rsplit(".", 2)[1] not in text  # not even the payload


async def test_a_revocation_and_a_mint_by_another_replica_take_effect_within_the_recheck(
    hub: Hub, make_agent: AgentFactory
) -> None:
    """Another process (here a raw connection doing what a replica's RevokeSessionToken commits: the
    revocation and the credentials version's bump) stops this hub accepting the token within
    CREDENTIALS_RECHECK; a session it minted binds the agent within the same bound."""
    worker = await make_agent("worker")
    other = await make_agent("other")
    async with operator(hub) as ops:
        minted = await ops.admin.mint_session_token(worker.agent_id or "", allow=["*"])
    worker.use_tokens(session_token=minted.session_token)
    await worker.agents.list()  # its authentication, with the session, is now cached
    await other.agents.list()

    def elsewhere(statement: str, *args: object) -> None:
        with tables.raw_connection(hub.database) as conn:
            conn.execute("BEGIN")
            conn.execute(statement, args)
            conn.execute("UPDATE credentials_version SET version = version + 1")
            conn.execute("COMMIT")

    elsewhere("UPDATE session_tokens SET revoke_time = 1 WHERE session_id = ?", minted.session.session_id)
    # A session of the other agent, as another replica's MintSessionToken would store it.
    elsewhere(
        "INSERT INTO session_tokens (session_id, project, agent_id, agent_name, policy, issue_time, expire_time, "
        "revoke_time, minted_by, key_id) VALUES ('ses_elsewhere', 'alpha', ?, 'other', '{}', 1, ?, NULL, 'ops', 'k')",
        other.agent_id,
        2**62,
    )
    deadline = asyncio.get_running_loop().time() + CREDENTIALS_RECHECK + 2
    refused: list[Reason | str | None] = []
    while asyncio.get_running_loop().time() < deadline and len(refused) < 2:
        refused = []
        for client in (worker, other):
            try:
                await client.agents.list()
            except PermissionDenied as error:
                refused.append(error.reason)
        await asyncio.sleep(0.05)

    assert refused == [Reason.SESSION_TOKEN_INVALID, Reason.SESSION_TOKEN_REQUIRED]
