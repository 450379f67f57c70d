"""The packet request (spec §5.2): project, role, task, budget and kinds, validated.

``workflow_run_id`` and ``stage_id`` are echoed in the audit only; they filter nothing. Text
follows the items' rule (``items.check_text``). Unlike the original, a request may not name
``_shared`` as its project: that project holds the defaults every project sees, and it has no
packet of its own; ``include_kinds`` may not name a kind twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from kxm_grpc.domain.context.items import MAX_PROJECT_CHARS, SHARED_PROJECT, Kind, check_text
from kxm_grpc.errors import Reason, invalid_field

MAX_ROLE_CHARS = 64
MAX_TASK_CHARS = 2_000
MAX_RUN_ID_CHARS = 128
MAX_STAGE_ID_CHARS = 128
MIN_BUDGET_TOKENS = 512
MAX_BUDGET_TOKENS = 200_000


@dataclass(frozen=True, slots=True)
class ContextRequest:
    """A request for a role's packet (``kxm.context-request.v1``)."""

    project: str
    role: str
    task: str
    workflow_run_id: str | None = None
    stage_id: str | None = None
    budget_tokens: int | None = None
    """None: the role's budget."""
    include_kinds: tuple[Kind, ...] | None = None
    """None: the role's kinds; else these, replacing them, in priority order."""


def check_request(request: ContextRequest) -> ContextRequest:
    """Return ``request`` with its strings trimmed, once every rule of §5.2 holds.

    Raises:
        InvalidArgument: (INVALID_CONTEXT_REQUEST) naming the field.
    """
    project = _text("project", request.project, MAX_PROJECT_CHARS)
    if project == SHARED_PROJECT:
        raise _invalid("project", f"{SHARED_PROJECT} holds shared defaults; name the project they serve")
    budget = request.budget_tokens
    if budget is not None and (
        isinstance(budget, bool) or not isinstance(budget, int) or not MIN_BUDGET_TOKENS <= budget <= MAX_BUDGET_TOKENS
    ):
        raise _invalid("budgetTokens", f"must be an integer between {MIN_BUDGET_TOKENS} and {MAX_BUDGET_TOKENS}")
    kinds = request.include_kinds
    if kinds is not None:
        if not 1 <= len(kinds) <= len(Kind):
            raise _invalid("includeKinds", "must be a non-empty array of item kinds")
        if len(set(kinds)) != len(kinds):
            raise _invalid("includeKinds", "must not name a kind twice")
    return ContextRequest(
        project=project,
        role=_text("role", request.role, MAX_ROLE_CHARS),
        task=_text("task", request.task, MAX_TASK_CHARS),
        workflow_run_id=_optional("workflowRunId", request.workflow_run_id, MAX_RUN_ID_CHARS),
        stage_id=_optional("stageId", request.stage_id, MAX_STAGE_ID_CHARS),
        budget_tokens=budget,
        include_kinds=kinds,
    )


def _text(field: str, value: str, max_chars: int) -> str:
    return check_text(field, value, max_chars, reason=Reason.INVALID_CONTEXT_REQUEST)


def _optional(field: str, value: str | None, max_chars: int) -> str | None:
    return None if value is None else _text(field, value, max_chars)


def _invalid(field: str, description: str) -> Exception:
    return invalid_field(field, description, reason=Reason.INVALID_CONTEXT_REQUEST)
