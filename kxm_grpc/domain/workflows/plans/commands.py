"""Gate commands: the shape an ``argv`` must have (workflow-context.md §6.1) and the destructive
commands no gate may run (seed 000's checklist: force pushes, recursive forced removal, publishing).

Both are checked where a command is declared (a gate registry, an inline gate step), so a
definition the hub accepts never names a command its gate workers would refuse; the gate worker
checks again before it spawns (defence in depth: the worker may run an older registry's command).
Pure rules: no I/O.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Sequence

MAX_ARGV = 64
MAX_ARG_CHARS = 4_096
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "fish"})
_WRAPPERS = frozenset({"env", "sudo", "doas", "nice", "nohup", "timeout", "xargs", "exec", "command", "time"})


def argv_problem(argv: Sequence[str]) -> str | None:
    """Why ``argv`` is not a command a gate may declare, or None.

    1 to 64 arguments of 1 to 4,096 characters without NUL; ``argv[0]`` a bare executable name
    (found on the worker's PATH) or an absolute POSIX path, never a relative path.
    """
    if not 1 <= len(argv) <= MAX_ARGV:
        return f"must hold 1 to {MAX_ARGV} arguments"
    for index, argument in enumerate(argv):
        if not argument or len(argument) > MAX_ARG_CHARS:
            return f"argument {index} must be 1 to {MAX_ARG_CHARS} characters"
        if "\x00" in argument:
            return f"argument {index} must not contain NUL"
    program = argv[0]
    if "\\" in program or program in (".", ".."):
        return "argv[0] must be an executable name or an absolute POSIX path"
    if "/" in program and not posixpath.isabs(program):
        return "argv[0] must be an executable name or an absolute path, not a relative path"
    return None


def destructive(argv: Sequence[str]) -> str | None:
    """What destructive operation ``argv`` would run (``git push --force``, ``rm -rf``,
    ``npm publish``), looking through shells (``sh -c '…'``) and wrappers (``env``, ``sudo``…),
    or None."""
    return _destructive(list(argv), depth=0)


def _destructive(words: list[str], depth: int) -> str | None:
    if depth > 8 or not words:
        return None
    for command in _commands(words):
        found = _check(command, depth)
        if found is not None:
            return found
    return None


def _commands(words: list[str]) -> list[list[str]]:
    """``words`` split at shell command separators (a ``-c`` script's ``a && b; c | d``)."""
    commands: list[list[str]] = [[]]
    for word in words:
        if word in ("&&", "||", ";", "|", "&"):
            commands.append([])
        else:
            commands[-1].append(word)
    return [command for command in commands if command]


def _check(command: list[str], depth: int) -> str | None:
    program = posixpath.basename(command[0])
    rest = command[1:]
    if program in _SHELLS:
        for index, word in enumerate(rest):
            if word.startswith("-") and "c" in word[1:] and not word.startswith("--") and index + 1 < len(rest):
                return _destructive(_split(rest[index + 1]), depth + 1)
        return None
    if program in _WRAPPERS:
        # Which word starts the wrapped command depends on each wrapper's options (sudo -u root,
        # nice -n 5, timeout 60): every later word is tried, so none hides it.
        for index in range(len(rest)):
            found = _check(rest[index:], depth + 1)
            if found is not None:
                return found
        return None
    if program == "git" and "push" in rest:
        after = rest[rest.index("push") + 1 :]
        if any(word in ("--force", "-f", "--force-with-lease", "--mirror", "--delete", "-d") for word in after) or any(
            word.startswith("--force-with-lease=") or (word.startswith("+") and len(word) > 1) for word in after
        ):
            return "git push --force (rewrites a shared branch)"
        return None
    if program == "rm":
        recursive = force = False
        for word in rest:
            if word == "--":
                break
            if word in ("--recursive",):
                recursive = True
            elif word == "--force":
                force = True
            elif word.startswith("-") and not word.startswith("--"):
                recursive = recursive or "r" in word[1:] or "R" in word[1:]
                force = force or "f" in word[1:]
        if recursive and force:
            return "rm -rf (recursive forced removal)"
        return None
    if program in ("npm", "pnpm", "yarn") and rest[:1] == ["publish"]:
        return f"{program} publish (publishes a package)"
    return None


def _split(script: str) -> list[str]:
    """A ``-c`` script's words (separators kept as their own words); unparseable text is refused
    by reading it as one word (so it never passes as harmless by failing to split)."""
    for separator in ("&&", "||", ";", "|", "&"):
        script = script.replace(separator, f" {separator} ")
    script = script.replace(" &  & ", " && ").replace(" |  | ", " || ")
    try:
        return shlex.split(script)
    except ValueError:
        return script.split()
