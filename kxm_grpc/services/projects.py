"""Projects and their tokens; first-start bootstrap of a safe zero-configuration hub.

Creating a project and rotating its token are admin actions: each is audited (``services/audit.py``)
and bumps the credentials version (``auth.credentials_changed``) in the transaction of the change,
and its log line names the operator who made it (never a token).
"""

from __future__ import annotations

from dataclasses import dataclass

import structlog

from kxm_grpc.domain.audit import project_target
from kxm_grpc.domain.caller import Caller
from kxm_grpc.domain.pagination import decode_page_token, encode_page_token, page_size
from kxm_grpc.domain.projects import DEFAULT_PROJECT, Project, project_name
from kxm_grpc.domain.secrets import PROJECT_TOKEN_PREFIX, hash_secret, new_secret
from kxm_grpc.errors import AlreadyExists, NotFound, Reason, invalid_field
from kxm_grpc.services import audit
from kxm_grpc.services.auth import credentials_changed
from kxm_grpc.store import Store, Tx

log = structlog.get_logger("kxm.projects")


@dataclass(frozen=True, slots=True)
class IssuedProject:
    """A project and the token just issued for it (shown once)."""

    project: Project
    token: str


async def create_project(store: Store, caller: Caller, name: str, *, now: int) -> IssuedProject:
    """Create a project and issue its first token.

    Raises:
        InvalidArgument: the name is malformed.
        AlreadyExists: a project has this name.
    """
    name = project_name("name", name)
    token = new_secret(PROJECT_TOKEN_PREFIX)

    def work(tx: Tx) -> Project:
        if tx.projects.get(name) is not None:
            raise AlreadyExists(
                f"a project named {name} exists", reason=Reason.PROJECT_ALREADY_EXISTS, metadata={"project": name}
            )
        project = Project(name=name, create_time=now, token_rotate_time=now)
        tx.projects.put(project, hash_secret(token))
        credentials_changed(tx)
        audit.record(tx, caller, "CreateProject", project_target(name), now=now)
        return project

    project = await store.write(work)
    log.info("project_created", project=name, operator=caller.operator)
    return IssuedProject(project, token)


async def rotate_project_token(
    store: Store, caller: Caller, name: str, *, now: int, bootstrap: bool = False
) -> IssuedProject:
    """Issue a new token for a project; the old one stops working at once.

    ``bootstrap``: the hub's start reissues it for the local credentials file (said in the audit record).

    Raises:
        InvalidArgument: the name is malformed.
        NotFound: no project has this name.
    """
    name = project_name("name", name)
    token = new_secret(PROJECT_TOKEN_PREFIX)

    def work(tx: Tx) -> Project:
        current = tx.projects.get(name)
        if current is None:
            raise NotFound(f"no project named {name}", reason=Reason.PROJECT_NOT_FOUND, metadata={"project": name})
        project = Project(name=name, create_time=current.create_time, token_rotate_time=now)
        tx.projects.put(project, hash_secret(token))
        credentials_changed(tx)
        metadata = {"bootstrap": "true"} if bootstrap else None
        audit.record(tx, caller, "RotateProjectToken", project_target(name), now=now, metadata=metadata)
        return project

    project = await store.write(work)
    log.info("project_token_rotated", project=name, operator=caller.operator)
    return IssuedProject(project, token)


async def list_projects(store: Store, caller: Caller, size: int, token: str) -> tuple[list[Project], str]:
    """Projects by name, one page at a time.

    Raises:
        InvalidArgument: negative page size or a bad page token.
    """
    limit = page_size(size)
    after = decode_page_token(token, "projects")
    projects = await store.read(lambda tx: tx.projects.list_page(after, limit + 1))
    if len(projects) > limit:
        return projects[:limit], encode_page_token(projects[limit - 1].name, "projects")
    return projects, ""


async def ensure_default_project(store: Store, caller: Caller, *, now: int) -> IssuedProject | None:
    """Create the ``default`` project if the hub has no project at all; return it with its token.

    ``caller`` is the bootstrap admin, for whom the hub's first start creates it (audited so).
    """
    token = new_secret(PROJECT_TOKEN_PREFIX)

    def work(tx: Tx) -> Project | None:
        if tx.projects.list_page(None, 1):
            return None
        project = Project(name=DEFAULT_PROJECT, create_time=now, token_rotate_time=now)
        tx.projects.put(project, hash_secret(token))
        credentials_changed(tx)
        audit.record(tx, caller, "CreateProject", project_target(project.name), now=now, metadata={"bootstrap": "true"})
        return project

    project = await store.write(work)
    if project is None:
        return None
    log.info("project_created", project=project.name, bootstrap=True, operator=caller.operator)
    return IssuedProject(project, token)


def operator_project(caller: Caller, project: str) -> str:
    """The project an operator's call about one project acts in: the one the call names
    (``x-kxm-project``), else ``project``.

    Raises:
        InvalidArgument: ``project`` is malformed, missing when the call names none, or another than the call names.
    """
    if project:
        project = project_name("project", project)  # trimmed, as CreateProject keeps it
    if caller.project is not None:
        if project and project != caller.project:
            raise invalid_field("project", f"must be {caller.project}, the project this call names (x-kxm-project)")
        return caller.project
    if not project:
        raise invalid_field("project", "is required when the call names no project (x-kxm-project)")
    return project


def require_project(tx: Tx, project: str) -> None:
    """Raises: NotFound (PROJECT_NOT_FOUND) when no project has this name."""
    if tx.projects.get(project) is None:
        raise NotFound(f"no project named {project}", reason=Reason.PROJECT_NOT_FOUND, metadata={"project": project})
