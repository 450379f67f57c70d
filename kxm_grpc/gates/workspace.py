"""A gate's workspace: an assignment's exact commit, checked out detached in a fresh directory.

``prepare`` makes ``<root>/<assignment id>`` (replacing one a crashed worker left), clones the
repository into it without a checkout (``git clone --no-checkout``, the branch's history when one is
given), makes sure the commit is there (fetching it by id when no branch was named, and requiring
it to be on the branch when one was), checks it out detached and verifies ``git rev-parse HEAD``
equals it. ``workspace`` does the same as an async context manager and removes the directory
afterwards unless asked to keep it. Every git call goes through ``runner.run_check`` (no shell,
its own process group, bounded by a timeout); git's output is never kept but for the 128 bytes
``rev-parse`` answers and a bounded stderr tail on a failure, for the operator's terminal only.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import structlog

from kxm_grpc.gates.runner import Command, Observation, Status, run_check, worker_environment

log = structlog.get_logger("kxm.gates")

GIT_TIMEOUT_MS = 600_000
"""How long one git call may take (a clone of a large repository included)."""
TAIL_BYTES = 2_048

_ASSIGNMENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_REF_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//")
# Transports that run commands (ext::) or read file descriptors (fd::) are never allowed.
_GIT_CONFIG = ("-c", "protocol.ext.allow=never", "-c", "protocol.fd.allow=never", "-c", "advice.detachedHead=false")


class WorkspaceError(Exception):
    """A workspace could not be prepared: ``step`` names what failed; ``observation`` is the git
    call's (None when the input was refused before any call); ``stderr_tail`` is the end of git's
    error output, for the operator's terminal only."""

    def __init__(
        self, message: str, *, step: str, observation: Observation | None = None, stderr_tail: bytes = b""
    ) -> None:
        super().__init__(message)
        self.step = step
        self.observation = observation
        self.stderr_tail = stderr_tail


@dataclass(frozen=True)
class Checkout:
    """What to check out: a repository URL or local path, the commit (full hex id) and its branch."""

    repository: str
    commit: str
    branch: str | None = None


@dataclass(frozen=True)
class Workspace:
    """A prepared workspace: ``path`` holds ``commit`` checked out detached."""

    path: Path
    commit: str

    async def remove(self) -> None:
        """Delete the directory (nothing when it is gone already)."""
        await asyncio.to_thread(shutil.rmtree, self.path, True)


def validate(assignment_id: str, checkout: Checkout) -> Checkout:
    """``checkout`` with its commit in lowercase, when every field is safe to hand to git.

    Raises:
        WorkspaceError: (step ``validate``) the assignment id is not a plain directory name, the
            commit is not a full hex object id, the branch is not a plain branch name, or the
            repository looks like an option or a command transport.
    """

    def refuse(message: str) -> WorkspaceError:
        return WorkspaceError(message, step="validate")

    if not _ASSIGNMENT_ID.fullmatch(assignment_id):
        raise refuse(
            "the assignment id must be 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    commit = checkout.commit.lower()
    if not _COMMIT.fullmatch(commit):
        raise refuse("the commit must be a full object id (40 or 64 hex digits), not a ref")
    branch = checkout.branch
    if branch is not None and (
        not branch
        or branch.startswith(("-", "/"))
        or branch.endswith(("/", ".", ".lock"))
        or _REF_FORBIDDEN.search(branch)
    ):
        raise refuse(f"{branch!r} is not a plain branch name")
    repository = checkout.repository
    if not repository or repository.startswith("-") or "\0" in repository:
        raise refuse("the repository must be a URL or a path, not an option")
    if re.match(r"(ext|fd)::", repository):
        raise refuse("the ext:: and fd:: transports run commands: not allowed")
    return Checkout(repository, commit, branch)


async def prepare(
    root: str | Path, assignment_id: str, checkout: Checkout, *, timeout_ms: int = GIT_TIMEOUT_MS
) -> Workspace:
    """Check ``checkout`` out into a fresh ``<root>/<assignment_id>``; on any failure the directory is removed.

    Raises:
        WorkspaceError: an input refused (``validate``), or a git step failed, did not end, or
            HEAD is not the commit (step ``clone``, ``fetch``, ``verify-branch``, ``checkout``,
            ``rev-parse``).
    """
    checkout = validate(assignment_id, checkout)
    path = await asyncio.to_thread(_directory, Path(root), assignment_id)
    workspace = Workspace(path, checkout.commit)
    await workspace.remove()  # a directory a crashed worker left: fresh means fresh
    try:
        await _check_out(path, checkout, timeout_ms)
    except BaseException:
        await asyncio.shield(workspace.remove())
        raise
    log.info("gate_workspace_prepared", assignment_id=assignment_id, commit=checkout.commit)
    return workspace


@asynccontextmanager
async def workspace(
    root: str | Path, assignment_id: str, checkout: Checkout, *, keep: bool = False, timeout_ms: int = GIT_TIMEOUT_MS
) -> AsyncIterator[Workspace]:
    """``prepare``, then remove the workspace on the way out unless ``keep``.

    Raises:
        WorkspaceError: as ``prepare``.
    """
    prepared = await prepare(root, assignment_id, checkout, timeout_ms=timeout_ms)
    try:
        yield prepared
    finally:
        if not keep:
            await asyncio.shield(prepared.remove())


async def _check_out(path: Path, checkout: Checkout, timeout_ms: int) -> None:
    commit = checkout.commit
    branch = ["--branch", checkout.branch] if checkout.branch else []
    await _git(
        "clone", ["clone", "--no-checkout", "--quiet", *branch, "--", checkout.repository, str(path)], timeout_ms
    )
    inside = ["-C", str(path)]
    if not await _git_ok([*inside, "cat-file", "-e", f"{commit}^{{commit}}"], timeout_ms):
        if checkout.branch:
            raise WorkspaceError(f"commit {commit} is not on branch {checkout.branch}", step="verify-branch")
        await _git("fetch", [*inside, "fetch", "--quiet", "origin", commit], timeout_ms)
    if checkout.branch and not await _git_ok(
        [*inside, "merge-base", "--is-ancestor", commit, f"refs/remotes/origin/{checkout.branch}"], timeout_ms
    ):
        raise WorkspaceError(f"commit {commit} is not on branch {checkout.branch}", step="verify-branch")
    await _git("checkout", [*inside, "checkout", "--quiet", "--detach", commit, "--"], timeout_ms)
    head = await _git("rev-parse", [*inside, "rev-parse", "HEAD"], timeout_ms, keep_tail=128)
    seen = head.stdout.tail.decode("ascii", "replace").strip()
    if seen != commit:
        raise WorkspaceError(f"HEAD is {seen or 'unknown'}, not {commit}", step="rev-parse", observation=head)


def _directory(root: Path, assignment_id: str) -> Path:
    """``<root>/<assignment_id>``, absolute, with ``root`` made when missing."""
    root.mkdir(parents=True, exist_ok=True)
    return root.resolve() / assignment_id


def _command(args: list[str], timeout_ms: int) -> Command:
    env = worker_environment() | {"GIT_TERMINAL_PROMPT": "0"}  # never wait for a password prompt
    return Command(["git", *_GIT_CONFIG, *args], env=env, timeout_ms=timeout_ms)


async def _git(step: str, args: list[str], timeout_ms: int, *, keep_tail: int = TAIL_BYTES) -> Observation:
    observed = await run_check(_command(args, timeout_ms), keep_tail=keep_tail)
    if observed.status is Status.COMPLETE and observed.exit_code == 0:
        return observed
    how = f"exit {observed.exit_code}" if observed.complete else f"{observed.status.value} ({observed.reason})"
    log.warning("gate_workspace_git_failed", step=step, status=observed.status.value, exit_code=observed.exit_code)
    raise WorkspaceError(f"git {step} failed: {how}", step=step, observation=observed, stderr_tail=observed.stderr.tail)


async def _git_ok(args: list[str], timeout_ms: int) -> bool:
    """Whether a git query exits 0 (1 is its "no"); a query that does not complete is an error.

    Raises:
        WorkspaceError: the query did not complete.
    """
    observed = await run_check(_command(args, timeout_ms))
    if observed.status is not Status.COMPLETE:
        raise WorkspaceError(f"git {args[2]} did not complete ({observed.reason})", step=args[2], observation=observed)
    return observed.exit_code == 0
