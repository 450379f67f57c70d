"""``kxm_grpc.gates.workspace`` against a real git repository made in the test."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from kxm_grpc.gates.workspace import Checkout, WorkspaceError, prepare, validate, workspace

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@dataclass
class Repo:
    path: Path
    first: str
    tip: str
    feature: str


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    """main: two commits (``first``, ``tip``); feature: one more (``feature``), not on main."""
    path = tmp_path / "origin"
    path.mkdir()
    git(path, "init", "--quiet", "--initial-branch", "main")
    (path / "file.txt").write_text("one\n")
    git(path, "add", "file.txt")
    git(path, "commit", "--quiet", "-m", "one")
    first = git(path, "rev-parse", "HEAD")
    (path / "file.txt").write_text("two\n")
    git(path, "commit", "--quiet", "-am", "two")
    tip = git(path, "rev-parse", "HEAD")
    git(path, "checkout", "--quiet", "-b", "feature")
    (path / "file.txt").write_text("feature\n")
    git(path, "commit", "--quiet", "-am", "feature")
    feature = git(path, "rev-parse", "HEAD")
    git(path, "checkout", "--quiet", "main")
    return Repo(path, first, tip, feature)


async def test_the_exact_commit_is_checked_out_detached_then_removed(repo: Repo, tmp_path: Path) -> None:
    root = tmp_path / "workers"

    async with workspace(root, "asg_1", Checkout(str(repo.path), repo.first, "main")) as prepared:
        assert prepared.path.resolve() == (root / "asg_1").resolve() and prepared.commit == repo.first
        assert (prepared.path / "file.txt").read_text() == "one\n"
        assert git(prepared.path, "rev-parse", "HEAD") == repo.first
        assert git(prepared.path, "status", "--porcelain") == ""
        with pytest.raises(subprocess.CalledProcessError):
            git(prepared.path, "symbolic-ref", "-q", "HEAD")  # detached

    assert not (root / "asg_1").exists()


async def test_keep_leaves_the_workspace_and_a_stale_one_is_replaced(repo: Repo, tmp_path: Path) -> None:
    root = tmp_path / "workers"
    stale = root / "asg_2"
    stale.mkdir(parents=True)
    (stale / "left-over").write_text("x")

    async with workspace(root, "asg_2", Checkout(repo.path.as_uri(), repo.feature.upper(), "feature"), keep=True) as ws:
        pass

    assert not (stale / "left-over").exists()
    assert (ws.path / "file.txt").read_text() == "feature\n" and ws.commit == repo.feature
    await ws.remove()
    assert not ws.path.exists()


async def test_a_commit_without_a_branch_is_fetched_by_id(repo: Repo, tmp_path: Path) -> None:
    prepared = await prepare(tmp_path / "w", "asg_3", Checkout(str(repo.path), repo.feature))

    assert git(prepared.path, "rev-parse", "HEAD") == repo.feature
    await prepared.remove()


@pytest.mark.parametrize(
    ("commit", "branch", "step"),
    [
        ("feature", "main", "verify-branch"),  # on another branch
        ("0" * 40, "main", "verify-branch"),  # not in the repository
        ("0" * 40, None, "fetch"),
        ("tip", "nope", "clone"),  # no such branch
    ],
)
async def test_a_checkout_that_cannot_be_verified_is_refused_and_removed(
    repo: Repo, tmp_path: Path, commit: str, branch: str | None, step: str
) -> None:
    commit = getattr(repo, commit, commit)
    root = tmp_path / "w"

    with pytest.raises(WorkspaceError) as refused:
        await prepare(root, "asg_4", Checkout(str(repo.path), commit, branch))

    assert refused.value.step == step
    assert not (root / "asg_4").exists()


async def test_a_missing_repository_fails_the_clone(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError) as refused:
        await prepare(tmp_path / "w", "asg_5", Checkout(str(tmp_path / "missing"), "a" * 40))

    assert refused.value.step == "clone"
    assert refused.value.observation is not None and refused.value.observation.exit_code != 0
    assert refused.value.stderr_tail  # for the operator's terminal; never in str()
    assert str(refused.value).startswith("git clone failed: exit ")


@pytest.mark.parametrize(
    ("assignment_id", "checkout", "message"),
    [
        ("../x", Checkout("/r", "a" * 40), "assignment id"),
        (".hidden", Checkout("/r", "a" * 40), "assignment id"),
        ("a/b", Checkout("/r", "a" * 40), "assignment id"),
        ("ok", Checkout("/r", "HEAD"), "full object id"),
        ("ok", Checkout("/r", "a" * 39), "full object id"),
        ("ok", Checkout("/r", "a" * 40, "-x"), "plain branch name"),
        ("ok", Checkout("/r", "a" * 40, "a..b"), "plain branch name"),
        ("ok", Checkout("/r", "a" * 40, "a b"), "plain branch name"),
        ("ok", Checkout("/r", "a" * 40, "x.lock"), "plain branch name"),
        ("ok", Checkout("/r", "a" * 40, ""), "plain branch name"),
        ("ok", Checkout("--upload-pack=touch /tmp/x", "a" * 40), "not an option"),
        ("ok", Checkout("ext::sh -c touch% /tmp/x", "a" * 40), "transports"),
    ],
)
def test_inputs_are_validated_before_any_git_call(assignment_id: str, checkout: Checkout, message: str) -> None:
    with pytest.raises(WorkspaceError, match=message) as refused:
        validate(assignment_id, checkout)

    assert refused.value.step == "validate" and refused.value.observation is None


def test_valid_inputs() -> None:
    assert validate("asg_1.a-b", Checkout("https://x/y.git", "A" * 64, "feature/x-1")) == Checkout(
        "https://x/y.git", "a" * 64, "feature/x-1"
    )
