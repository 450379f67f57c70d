"""Which open assignments of an agent bind it to their attempt tokens (``requireAttemptTokens``).

Read with the agent's authentication (``services/auth.py``) and cached with it: a token-bound
assignment is a credential fact like a session token. So the engine calls ``credentials_changed``
whenever it opens or closes an assignment of a run whose plan requires tokens, and every process
re-reads within ``CREDENTIALS_RECHECK``.
"""

from __future__ import annotations

import functools
import json

from kxm_grpc.store import Tx

MAX_OPEN = 16
"""Open assignments looked at per agent (an agent holds a handful at most; more is a misconfiguration
the first ones already reveal)."""


@functools.lru_cache(maxsize=256)
def plan_requires_tokens(document: str) -> bool:
    """Whether a compiled plan's document sets ``requireAttemptTokens`` (cached by document)."""
    return json.loads(document).get("requireAttemptTokens") is True


def bound_assignments(tx: Tx, agent_id: str) -> tuple[str, ...]:
    """The ids of the agent's open assignments whose run's plan requires attempt tokens."""
    bound = []
    for assignment in tx.step_runs.open_assignments(agent_id=agent_id, limit=MAX_OPEN):
        run = tx.step_runs.get_run(assignment.run_id)
        document = tx.workflows.definition_version(run.plan_hash) if run is not None else None
        if document is not None and plan_requires_tokens(document):
            bound.append(assignment.id)
    return tuple(bound)
