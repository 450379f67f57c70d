"""Rows of ``session_tokens`` (a session's facts; the policy as its JSON)."""

from __future__ import annotations

import json
from collections.abc import Callable

from kxm_grpc.domain.tokens import SessionRecord
from kxm_grpc.domain.tool_policy import policy_from_json, policy_json
from kxm_grpc.store.rows import Columns, Row

SESSION_TOKENS = Columns(
    "session_tokens",
    "session_id",
    "project",
    "agent_id",
    "agent_name",
    "policy",
    "issue_time",
    "expire_time",
    "revoke_time",
    "minted_by",
    "key_id",
)


def session_values(record: SessionRecord) -> tuple[object, ...]:
    """The insert parameters of ``record`` in ``SESSION_TOKENS`` order."""
    return SESSION_TOKENS.values(
        {
            "session_id": record.session_id,
            "project": record.project,
            "agent_id": record.agent_id,
            "agent_name": record.agent_name,
            "policy": json.dumps(policy_json(record.tool_policy), sort_keys=True, separators=(",", ":")),
            "issue_time": record.issue_time,
            "expire_time": record.expire_time,
            "revoke_time": record.revoke_time,
            "minted_by": record.minted_by,
            "key_id": record.key_id,
        }
    )


def _decoder(columns: Columns) -> Callable[[Row], SessionRecord]:
    at = columns.positions(*SESSION_TOKENS.names)
    (session_id, project, agent_id, agent_name, policy, issue_time, expire_time, revoke_time, minted_by, key_id) = at

    def session_from_row(row: Row) -> SessionRecord:
        """The session in a row selecting ``SESSION_TOKENS``."""
        return SessionRecord(
            session_id=row[session_id],
            project=row[project],
            agent_id=row[agent_id],
            agent_name=row[agent_name],
            tool_policy=policy_from_json(json.loads(row[policy])),
            issue_time=row[issue_time],
            expire_time=row[expire_time],
            revoke_time=row[revoke_time],
            minted_by=row[minted_by],
            key_id=row[key_id],
        )

    return session_from_row


session_from_row = _decoder(SESSION_TOKENS)
