"""Role policies: the kinds each role receives, in priority order, and its budget (spec §5.4).

The newest documented policies (the stored ``arbiter.ts`` lacks the trailing ``evidence`` of
``repro`` and ``implementer``). ``journal_categories`` name the journal entries a role's pool
reads (used when journal entries join the pool).
"""

from __future__ import annotations

from dataclasses import dataclass

from kxm_grpc.domain.context.items import Kind

DEFAULT_BUDGET_TOKENS = 32_000
"""The budget of a role without a policy (``DEFAULT_CONTEXT_BUDGET_TOKENS``)."""


@dataclass(frozen=True, slots=True)
class RolePolicy:
    """What one role receives."""

    role: str
    label: str
    kinds: tuple[Kind, ...]
    """Item kinds in priority order (the fourth ordering key)."""
    journal_categories: tuple[str, ...]
    budget_tokens: int


_E, _S, _P, _K, _SK = Kind.EVIDENCE, Kind.STATE, Kind.EPISODE, Kind.KNOWLEDGE, Kind.SKILL

_REPRO = ("error", "lesson", "observation", "contradiction")
_PLANNER = ("plan", "decision", "contradiction", "observation", "hypothesis", "experiment")
_CRITIC = ("contradiction", "error", "lesson", "experiment")
_IMPLEMENTER = ("plan", "decision", "lesson", "state-change")
_VERIFIER = ("plan", "error", "lesson", "contradiction")

ROLE_POLICIES: tuple[RolePolicy, ...] = (
    RolePolicy("repro", "Reproduction specialist", (_P, _K, _E), _REPRO, 8_000),
    RolePolicy("planner", "Planner", (_S, _K, _E), _PLANNER, 16_000),
    RolePolicy("critic", "Independent critic", (_K, _E, _P), _CRITIC, 12_000),
    RolePolicy("implementer", "Implementer", (_K, _S, _SK, _P, _E), _IMPLEMENTER, 16_000),
    RolePolicy("verifier", "Verifier", (_E, _K, _P), _VERIFIER, 8_000),
)
_BY_ROLE = {policy.role: policy for policy in ROLE_POLICIES}


def role_policy(role: str) -> RolePolicy:
    """The policy of ``role``; any other role gets knowledge then evidence and 32,000 tokens."""
    policy = _BY_ROLE.get(role)
    if policy is not None:
        return policy
    return RolePolicy(role, role, (_K, _E), ("lesson", "observation"), DEFAULT_BUDGET_TOKENS)


def role_for_agent(agent_id: str) -> str:
    """The role an agent id implies (dispatch): a role's exact name, else the first role ``R`` in
    policy order such that the id starts with ``R-``, else the id itself."""
    if agent_id in _BY_ROLE:
        return agent_id
    for policy in ROLE_POLICIES:
        if agent_id.startswith(policy.role + "-"):
            return policy.role
    return agent_id
