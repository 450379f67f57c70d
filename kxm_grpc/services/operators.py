"""Named operators: created and revoked by the bootstrap admin, each action of theirs audited.

An operator's token (``kxm_op_…``) is shown once and stored hashed, like every secret; it admits
what the admin token admits (``Access.OPERATOR`` and, naming a project, the project's RPCs) but
managing operators and reading the audit (``Access.ADMIN``). Revoking an operator stops its token at
once: the revocation bumps the credentials version (``auth.credentials_changed``) in its
transaction. Names are never reused (a revoked operator keeps its row), so the audit's operator
names stay unambiguous.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import structlog

from kxm_grpc.domain.audit import operator_target
from kxm_grpc.domain.caller import Caller, require_bootstrap_admin
from kxm_grpc.domain.operators import BOOTSTRAP_OPERATOR, Operator, operator_name
from kxm_grpc.domain.pagination import decode_page_token, encode_page_token, page_size
from kxm_grpc.domain.secrets import OPERATOR_TOKEN_PREFIX, hash_secret, new_secret
from kxm_grpc.errors import AlreadyExists, NotFound, Reason
from kxm_grpc.services import audit
from kxm_grpc.services.auth import credentials_changed
from kxm_grpc.store import Store, Tx

log = structlog.get_logger("kxm.operators")


@dataclass(frozen=True, slots=True)
class IssuedOperator:
    """An operator and the token just issued for it (shown once)."""

    operator: Operator
    token: str


async def create_operator(store: Store, caller: Caller, name: str, *, now: int) -> IssuedOperator:
    """Create a named operator and issue its token.

    Raises:
        InvalidArgument: the name is malformed.
        AlreadyExists: (OPERATOR_ALREADY_EXISTS) an operator has or had the name, or it is ``admin``.
        PermissionDenied: the caller is not the bootstrap admin.
    """
    require_bootstrap_admin(caller, "create operators")
    name = operator_name("name", name)
    token = new_secret(OPERATOR_TOKEN_PREFIX)

    def work(tx: Tx) -> Operator:
        if name == BOOTSTRAP_OPERATOR:
            raise AlreadyExists(
                f"{name} is the bootstrap admin's operator name",
                reason=Reason.OPERATOR_ALREADY_EXISTS,
                metadata={"operator": name},
            )
        existing = tx.operators.get(name)
        if existing is not None:
            state = "exists" if existing.active else "was revoked; operator names are never reused"
            raise AlreadyExists(
                f"an operator named {name} {state}", reason=Reason.OPERATOR_ALREADY_EXISTS, metadata={"operator": name}
            )
        operator = Operator(name=name, create_time=now)
        tx.operators.insert(operator, hash_secret(token))
        credentials_changed(tx)
        audit.record(tx, caller, "CreateOperator", operator_target(name), now=now)
        return operator

    operator = await store.write(work)
    log.info("operator_created", name=name, operator=caller.operator)
    return IssuedOperator(operator, token)


async def revoke_operator(store: Store, caller: Caller, name: str, *, now: int) -> Operator:
    """Revoke a named operator's token; it stops working at once. A revoked operator stays as it is.

    Raises:
        InvalidArgument: the name is malformed.
        NotFound: (OPERATOR_NOT_FOUND) no named operator has the name (``admin`` is not one).
        PermissionDenied: the caller is not the bootstrap admin.
    """
    require_bootstrap_admin(caller, "revoke operators")
    name = operator_name("name", name)

    def work(tx: Tx) -> tuple[Operator, bool]:
        current = tx.operators.get(name)
        if current is None:
            bootstrap = name == BOOTSTRAP_OPERATOR
            hint = "; the bootstrap admin is not a named operator: change --admin-token" if bootstrap else ""
            raise NotFound(
                f"no operator named {name}{hint}", reason=Reason.OPERATOR_NOT_FOUND, metadata={"operator": name}
            )
        if not current.active:
            return current, False
        tx.operators.revoke(name, now)
        credentials_changed(tx)
        audit.record(tx, caller, "RevokeOperator", operator_target(name), now=now)
        return replace(current, revoke_time=now), True

    operator, revoked = await store.write(work)
    if revoked:
        log.info("operator_revoked", name=name, operator=caller.operator)
    return operator


async def list_operators(store: Store, caller: Caller, size: int, token: str) -> tuple[list[Operator], str]:
    """Named operators by name (revoked ones too), one page at a time.

    Raises:
        InvalidArgument: negative page size or a bad page token.
        PermissionDenied: the caller is not the bootstrap admin.
    """
    require_bootstrap_admin(caller, "list operators")
    limit = page_size(size)
    after = decode_page_token(token, "operators")
    operators = await store.read(lambda tx: tx.operators.list_page(after, limit + 1))
    if len(operators) > limit:
        return operators[:limit], encode_page_token(operators[limit - 1].name, "operators")
    return operators, ""
