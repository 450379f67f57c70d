"""Agent registration and presence (spec §5), with the original's identity takeover fixed.

A name is unique among the agents of a project that are not retired. Resuming an offline agent
(keeping its id, inbox and leases) needs proof that the caller is that agent: its last key while
that key is active, or an operator's token (the admin's or a named operator's). Keys rotate on
every registration and die on unregister: a revoked key proves nothing, so an unregistered agent
can be resumed only by an operator. A registration by an operator is audited. Anyone
with the project token may register the name again as a fresh agent (new id, empty inbox, no
leases); the unregistered agent is then retired and keeps its row for the messages naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace

import structlog

from kxm_grpc.domain import agents as rules
from kxm_grpc.domain.agents import Agent, Registration
from kxm_grpc.domain.audit import agent_target
from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.pagination import decode_page_token, encode_page_token, page_size
from kxm_grpc.domain.secrets import AGENT_KEY_PREFIX, hash_secret, hashes_match, new_id, new_secret, secret_matches
from kxm_grpc.errors import AlreadyExists, PermissionDenied, Reason
from kxm_grpc.services import audit, inbox
from kxm_grpc.services.auth import CREDENTIALS_TOPIC, credentials_changed, key_revoked
from kxm_grpc.store import Store, Tx

log = structlog.get_logger("kxm.agents")

_SWEEP_BATCH = 500


@dataclass(frozen=True, slots=True)
class RegisteredAgent:
    """The registered agent, its new key (shown once) and whether an offline agent was resumed."""

    agent: Agent
    key: str
    resumed: bool


PresenceReaction = Callable[[Tx, Agent, int], None]
_PRESENCE_REACTIONS: list[PresenceReaction] = []


def register_presence_reaction(reaction: PresenceReaction) -> None:
    """Call ``reaction(tx, agent, now)`` in every transaction that changes an agent's presence
    (once per process): the step engine supersedes the assignments of an agent gone offline."""
    if reaction not in _PRESENCE_REACTIONS:
        _PRESENCE_REACTIONS.append(reaction)


def presence_changed(tx: Tx, agent: Agent, now: int) -> None:
    """Record that ``agent``'s presence changed, in the transaction that changed it.

    Every other online agent of the project gets a presence event in its log (MessageService
    streams deliver it), and the registered reactions run.
    """
    tx.notify(f"presence:{agent.project}")
    tx.notify(CREDENTIALS_TOPIC)
    inbox.record_presence(tx, agent, now)
    for reaction in _PRESENCE_REACTIONS:
        reaction(tx, agent, now)


def key_changed(tx: Tx, agent_id: str) -> None:
    """Record that the agent's key was replaced or revoked, in the transaction that did it.

    Every cached authentication is dropped, and the agent's open streams wake (its log topic) to
    re-check their key: a stream of a replaced or revoked key ends with UNAUTHENTICATED.
    """
    credentials_changed(tx)
    tx.notify(inbox.agent_topic(agent_id))


async def register_agent(
    store: Store, caller: Caller, registration: Registration, *, presented_key: str | None, now: int
) -> RegisteredAgent:
    """Register a new agent, or resume the agent that had this name, with a fresh key.

    ``registration`` is as the request gave it; it is validated here (trimmed, bounded, the default
    purpose filled in). Validating a registration twice changes nothing.

    Raises:
        InvalidArgument: the name is empty, or a field is longer than its limit.
        AlreadyExists: a live agent has the name and the caller gave no proof of being it.
        PermissionDenied: the name belongs to an offline agent whose key is still active (it
            crashed or went stale) and no proof of it was given.
    """
    assert caller.project is not None
    registration = rules.registration(registration.name, registration.purpose, registration.model, registration.host)
    project = caller.project
    key = new_secret(AGENT_KEY_PREFIX)
    name_key = rules.name_key(registration.name)

    def fresh() -> Agent:
        return Agent(
            id=new_id("agt"),
            project=project,
            name=registration.name,
            purpose=registration.purpose,
            model=registration.model,
            host=registration.host,
            connect_time=now,
            last_seen_time=now,
            online=True,
        )

    def work(tx: Tx) -> tuple[Agent, bool, str | None]:
        existing = tx.agents.find_by_name(project, name_key)
        retired_id = None
        if existing is None:
            return _issue(tx, fresh(), False, None)
        stored = tx.agents.get_key(existing.id)
        key_hash, key_active = stored if stored is not None else (None, False)
        unregistered = key_hash is not None and not key_active
        if unregistered and not caller.is_operator:
            # Its key is dead, so nobody but an operator can prove to be it. The name is free for a
            # fresh agent, which inherits nothing.
            tx.agents.retire(existing.id, now)
            agent, resumed, retired_id = fresh(), False, existing.id
        else:
            proven = caller.is_operator or (
                presented_key is not None and key_hash is not None and secret_matches(presented_key, key_hash)
            )
            if not proven:
                if existing.online:
                    raise AlreadyExists(
                        f"agent name already active in project: {existing.name}",
                        reason=Reason.DUPLICATE_AGENT_NAME,
                        metadata={"name": existing.name, "agentId": existing.id},
                    )
                raise PermissionDenied(
                    f"the name {existing.name} belongs to an offline agent; present its last key "
                    "(x-kxm-agent-key) or an operator's token to resume it",
                    reason=Reason.AGENT_RECLAIM_FORBIDDEN,
                    metadata={"name": existing.name},
                )
            agent = replace(
                existing,
                name=registration.name,
                purpose=registration.purpose,
                model=registration.model,
                host=registration.host,
                connect_time=now,
                last_seen_time=now,
                online=True,
            )
            resumed = True
            key_changed(tx, agent.id)
        return _issue(tx, agent, resumed, retired_id)

    def _issue(tx: Tx, agent: Agent, resumed: bool, retired_id: str | None) -> tuple[Agent, bool, str | None]:
        """Store the agent online with the new key."""
        tx.agents.put(agent)
        tx.agents.set_key_hash(agent.id, hash_secret(key))
        if not resumed:
            credentials_changed(tx)  # a resumed agent's key change bumped it (key_changed)
        presence_changed(tx, agent, now)
        if caller.is_operator:
            metadata = {"name": agent.name, "resumed": str(resumed).lower()}
            if retired_id is not None:
                metadata["retiredAgentId"] = retired_id
            audit.record(tx, caller, "RegisterAgent", agent_target(project, agent.id), now=now, metadata=metadata)
        return agent, resumed, retired_id

    agent, resumed, retired_id = await store.write(work)
    if retired_id is not None:
        log.info("agent_retired", agent_id=retired_id, project=project, replaced_by=agent.id)
    log.info("agent_resumed" if resumed else "agent_registered", agent_id=agent.id, project=project)
    return RegisteredAgent(agent, key, resumed)


def _touch(tx: Tx, current: Agent, now: int) -> Agent:
    """Renew ``current``'s presence at ``now``; an agent the sweep retired comes back online."""
    renewed = current.seen(now)
    tx.agents.put(renewed)
    if not current.online:
        presence_changed(tx, renewed, now)
    return renewed


async def touch_agent(store: Store, agent: Agent, *, agent_key: str, now: int) -> Agent:
    """Renew an authenticated agent's presence; bring it back online if the sweep retired it.

    ``agent_key`` (the key the call presented) is checked again in the renewing transaction:
    authentication may have read it from a cache that trusts it for up to ``CREDENTIALS_RECHECK``
    (a revocation by another process), or the agent may have unregistered since. Without this, a
    call with a revoked key would bring the unregistered agent back online.

    Raises:
        Unauthenticated: (INVALID_AGENT_IDENTITY) the agent is gone, or ``agent_key`` is no longer
            its active key.
    """

    def work(tx: Tx) -> Agent:
        current = tx.agents.get(agent.id)
        stored = tx.agents.get_key(agent.id)
        if current is None or stored is None or not stored[1] or not secret_matches(agent_key, stored[0]):
            raise key_revoked()
        return _touch(tx, current, now)

    return await store.write(work)


async def touch_streaming_agents(store: Store, key_hashes: Mapping[str, Collection[str]], *, now: int) -> list[Agent]:
    """Renew the presence of agents holding open streams (``agent id -> their streams' key hashes``).

    An open stream is the agent listening, so it keeps the agent online like any call does. One
    transaction for all; an agent is renewed only while one of its streams' keys is still its
    active key, so a stream of a revoked or replaced key (about to end) never brings it back online.
    Returns the agents renewed.
    """

    def work(tx: Tx) -> list[Agent]:
        renewed = []
        for agent_id, hashes in key_hashes.items():
            current = tx.agents.get(agent_id)
            stored = tx.agents.get_key(agent_id)
            if current is None or stored is None or not stored[1]:
                continue
            if any(hashes_match(stored[0], key_hash) for key_hash in hashes):
                renewed.append(_touch(tx, current, now))
        return renewed

    return await store.write(work)


async def heartbeat(store: Store, caller: Caller, agent: Agent, *, agent_key: str, now: int) -> Agent:
    """Renew the calling agent's presence lease (``agent_key``: the key it presented).

    Raises:
        Unauthenticated: (INVALID_AGENT_IDENTITY) the key was revoked or replaced since authentication.
    """
    return await touch_agent(store, agent, agent_key=agent_key, now=now)


async def unregister_agent(store: Store, caller: Caller, *, now: int) -> Agent:
    """Mark the calling agent offline and revoke its key."""
    assert caller.agent_id is not None
    agent_id = caller.agent_id

    def work(tx: Tx) -> Agent:
        current = tx.agents.get(agent_id)
        assert current is not None  # authentication just found it
        offline = replace(current, online=False, last_seen_time=now)
        tx.agents.put(offline)
        tx.agents.revoke_key(agent_id)
        key_changed(tx, agent_id)
        presence_changed(tx, offline, now)
        return offline

    agent = await store.write(work)
    log.info("agent_unregistered", agent_id=agent_id, project=agent.project)
    return agent


async def list_agents(
    store: Store, caller: Caller, size: int, token: str, *, include_offline: bool
) -> tuple[list[Agent], str]:
    """The caller's project's agents by id, one page at a time.

    Raises:
        InvalidArgument: negative page size or a bad page token.
    """
    assert caller.project is not None
    project = caller.project
    limit = page_size(size)
    query = f"agents:{project}:{include_offline}"
    after = decode_page_token(token, query)
    agents = await store.read(
        lambda tx: tx.agents.list_page(project, after, limit + 1, include_offline=include_offline)
    )
    if len(agents) > limit:
        return agents[:limit], encode_page_token(agents[limit - 1].id, query)
    return agents, ""


async def sweep_stale_agents(store: Store, *, now: int, stale_after: int) -> list[Agent]:
    """Turn off agents whose presence lease lapsed; return the agents retired."""
    cutoff = now - stale_after

    def work(tx: Tx) -> list[Agent]:
        retired = []
        for agent in tx.agents.list_online_seen_before(cutoff, _SWEEP_BATCH):
            offline = replace(agent, online=False)
            tx.agents.put(offline)
            presence_changed(tx, offline, now)
            retired.append(offline)
        return retired

    retired = await store.write(work)
    for agent in retired:
        log.info("agent_stale", agent_id=agent.id, project=agent.project)
    return retired


async def mark_all_offline(store: Store) -> int:
    """At start: presence never survives a restart."""
    return await store.write(lambda tx: tx.agents.mark_all_offline())
