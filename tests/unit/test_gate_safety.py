"""``kxm_grpc.gates.safety``: the argv rules (spec §6.1) and the seatbelt, table-driven."""

from __future__ import annotations

import re
import shlex

import pytest

from kxm_grpc.domain.workflows.plans.commands import ArgvError, refusal, validate_argv

REFUSED = [
    # git force pushes, however spelled
    (["git", "push", "--force"], "git-force-push"),
    (["git", "push", "-f", "origin", "main"], "git-force-push"),
    (["git", "push", "origin", "main", "-f"], "git-force-push"),
    (["git", "push", "-uf", "origin", "main"], "git-force-push"),
    (["git", "push", "--force-with-lease"], "git-force-push"),
    (["git", "push", "--force-with-lease=main:abc123", "origin"], "git-force-push"),
    (["git", "push", "--force-if-includes", "--force-with-lease"], "git-force-push"),
    (["git", "push", "--forc"], "git-force-push"),
    (["git", "push", "--mirror", "backup"], "git-force-push"),
    (["git", "push", "origin", "+main"], "git-force-push"),
    (["git", "-C", "/repo", "push", "--force"], "git-force-push"),
    (["git", "-c", "user.name=x", "--no-pager", "push", "-f"], "git-force-push"),
    (["/usr/bin/git", "push", "--force"], "git-force-push"),
    # rm recursive and forced, any order, any path
    (["rm", "-rf", "/"], "rm-recursive-force"),
    (["rm", "-fr", "build"], "rm-recursive-force"),
    (["rm", "-Rf", "."], "rm-recursive-force"),
    (["rm", "-r", "-f", "dist"], "rm-recursive-force"),
    (["rm", "-f", "-r", "dist"], "rm-recursive-force"),
    (["rm", "-rfv", "x"], "rm-recursive-force"),
    (["rm", "--recursive", "--force", "x"], "rm-recursive-force"),
    (["rm", "--force", "-r", "x"], "rm-recursive-force"),
    (["rm", "--rec", "--f", "x"], "rm-recursive-force"),
    (["rm", "x", "-rf"], "rm-recursive-force"),
    (["/bin/rm", "-rf", "/tmp/x"], "rm-recursive-force"),
    # package publishes
    (["npm", "publish"], "package-publish"),
    (["npm", "publish", "--access", "public"], "package-publish"),
    (["npm", "--registry", "https://registry.example", "publish"], "package-publish"),
    (["npm", "--registry=https://registry.example", "publish"], "package-publish"),
    (["npm", "unpublish", "pkg@1.0.0"], "package-publish"),
    (["pnpm", "publish"], "package-publish"),
    (["yarn", "npm", "publish"], "package-publish"),
    # wrappers that hide them
    (["sudo", "rm", "-rf", "/"], "rm-recursive-force"),
    (["sudo", "-u", "root", "git", "push", "-f"], "git-force-push"),
    (["env", "FOO=1", "npm", "publish"], "package-publish"),
    (["env", "-i", "PATH=/bin", "rm", "-rf", "x"], "rm-recursive-force"),
    (["env", "-S", "rm -rf x"], "rm-recursive-force"),
    (["env", "--split-string=git push --force"], "git-force-push"),
    (["nice", "-n", "10", "rm", "-rf", "x"], "rm-recursive-force"),
    (["timeout", "5", "npm", "publish"], "package-publish"),
    (["xargs", "rm", "-rf"], "rm-recursive-force"),
    (["sh", "-c", "rm -rf /"], "rm-recursive-force"),
    (["bash", "-c", "npm test && npm publish"], "package-publish"),
    (["bash", "-lc", "cd x; git push --force"], "git-force-push"),
    (["bash", "-e", "-o", "pipefail", "-c", "make | tee log; rm -fr out"], "rm-recursive-force"),
    (["/bin/sh", "-c", "FOO=1 rm -rf x"], "rm-recursive-force"),
    (["sh", "-c", "if true; then rm -rf x; fi"], "rm-recursive-force"),
    (["sh", "-c", "echo $(rm -rf x)"], "rm-recursive-force"),
    (["sh", "-c", "echo `git push -f`"], "git-force-push"),
    (["sh", "-c", "ls\nnpm publish"], "package-publish"),
    (["sh", "-c", "bash -c 'sudo rm -rf /'"], "rm-recursive-force"),
    (["sh", "-c", "eval 'npm publish'"], "package-publish"),
    (["sudo", "-s", "rm -rf /"], "rm-recursive-force"),
    (["busybox", "sh", "-c", "rm -rf x"], "rm-recursive-force"),
    (["sh", "-c", "echo 'unbalanced"], "unparsable-shell"),
]

ALLOWED = [
    ["git", "push"],
    ["git", "push", "origin", "main"],
    ["git", "push", "--follow-tags", "-u", "origin", "main"],
    ["git", "push", "--no-force-with-lease"],
    ["git", "push", "-o", "ci.skip"],
    ["git", "push", "-of"],  # -o takes the rest as its value: the push option "f"
    ["git", "fetch", "--force"],
    ["git", "commit", "-m", "rm -rf the build directory"],
    ["git", "log", "--format=%H", "-f"],
    ["rm", "-r", "build"],
    ["rm", "-f", "out.txt"],
    ["rm", "--", "-rf"],
    ["npm", "test"],
    ["npm", "run", "build"],
    ["npm", "run", "verify"],
    ["npm", "pack"],
    ["sh", "script-that-publishes.sh"],
    ["bash", "-c", "npm test && npm run lint"],
    ["sh", "-c", "echo publish"],
    ["python", "-m", "pytest", "-k", "rm"],
    ["env", "FOO=1", "npm", "test"],
    ["grep", "-rn", "force", "."],
]


@pytest.mark.parametrize(("argv", "rule"), REFUSED)
def test_destructive_commands_are_refused(argv: list[str], rule: str) -> None:
    found = refusal(argv)

    assert found is not None and (found.rule, bool(found.message)) == (rule, True)


@pytest.mark.parametrize("argv", ALLOWED)
def test_ordinary_commands_pass(argv: list[str]) -> None:
    assert refusal(argv) is None


def test_shell_strings_nested_too_deep_are_refused() -> None:
    script = "true"
    for _ in range(10):
        script = "sh -c " + shlex.quote(script)

    found = refusal(["sh", "-c", script])

    assert found is not None and found.rule == "nesting-too-deep"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "1-64 entries"),
        (["x"] * 65, "1-64 entries"),
        ("npm test", "list of words"),
        ([""], "1-4096 characters"),
        (["echo", "x" * 4097], "argv[1] must be 1-4096 characters"),
        (["echo", "a\0b"], "NUL"),
        ([".", "x"], "not be . or .."),
        ([".."], "not be . or .."),
        (["./run.sh"], "relative path"),
        (["bin/run"], "relative path"),
        (["C:\\tools\\x.exe"], "backslash"),
        (["/usr/../bin/rm"], ". or .. segments"),
        (["echo", 3], "must be a string"),
    ],
)
def test_argv_rules(argv: list[str], message: str) -> None:
    with pytest.raises(ArgvError, match=re.escape(message)):
        validate_argv(argv)


@pytest.mark.parametrize("argv", [["npm"], ["/usr/bin/npm", "test"], ["x"] * 64, ["echo", "x" * 4096]])
def test_argv_that_keeps_the_rules(argv: list[str]) -> None:
    assert validate_argv(argv) == tuple(argv)
