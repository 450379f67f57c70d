"""What a gate may run: the argv rules of a command gate (spec §6.1) and the seatbelt (§6.3).

``validate_argv`` enforces the registry's argv shape. ``refusal`` finds a destructive command
before anything is spawned: a force push (``git push --force``, ``-f``, ``--force-with-lease``, a
``+refspec``), a recursive forced ``rm`` (``-rf``, ``-fr``, ``-r -f``, ``--recursive --force``, on any
path) and a package publish (``npm``/``pnpm``/``yarn publish``, ``npm unpublish``).

The check works on words, never on the joined text (so a commit message that mentions ``rm -rf`` is
not refused). Every word of the argv is a possible command start, so an unknown wrapper
(``sudo``, ``env X=1``, ``nice``, ``timeout 5``, ``xargs``) cannot hide one; the strings a shell or
``eval`` would run (``sh -c '…'``, ``bash -lc``, ``env -S '…'``, ``sudo -s '…'``) are split into shell
words (``shlex``) and checked the same way, recursively. A shell string that does not split
(unbalanced quotes) is refused: the seatbelt fails closed.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

MAX_ARGV = 64
MAX_ARG_CHARS = 4_096
MAX_NESTING = 8
"""How deep shell strings may nest (``sh -c "bash -c '…'"``) before the command is refused."""

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "busybox"})
_SHELL_OPTIONS_WITH_VALUE = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_SHELL_KEYWORDS = frozenset(
    {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "case", "esac", "!", "{", "}"}
)
_PUBLISHERS = frozenset({"npm", "pnpm", "yarn"})


class ArgvError(ValueError):
    """An argv the registry's rules refuse (§6.1); the message names the rule."""


@dataclass(frozen=True)
class Refusal:
    """Why the seatbelt refused a command: ``rule`` is a stable id, ``message`` says what was found."""

    rule: str
    message: str


def validate_argv(argv: Sequence[str]) -> tuple[str, ...]:
    """The argv as a tuple when it keeps §6.1's rules.

    1–64 entries, each a string of 1–4,096 characters without NUL; ``argv[0]`` a bare executable name
    or an absolute POSIX path (no ``\\``, not ``.`` or ``..``, no relative path with ``/``).

    Raises:
        ArgvError: a rule is broken.
    """
    if isinstance(argv, str | bytes):
        raise ArgvError("argv must be a list of words, not one string (a gate never runs a shell line)")
    words = tuple(argv)
    if not 1 <= len(words) <= MAX_ARGV:
        raise ArgvError(f"argv must have 1-{MAX_ARGV} entries, not {len(words)}")
    for index, word in enumerate(words):
        if not isinstance(word, str):
            raise ArgvError(f"argv[{index}] must be a string")
        if not 1 <= len(word) <= MAX_ARG_CHARS:
            raise ArgvError(f"argv[{index}] must be 1-{MAX_ARG_CHARS} characters")
        if "\0" in word:
            raise ArgvError(f"argv[{index}] contains NUL")
    program = words[0]
    if "\\" in program:
        raise ArgvError("argv[0] must not contain a backslash")
    if program in (".", ".."):
        raise ArgvError("argv[0] must not be . or ..")
    if "/" in program and not program.startswith("/"):
        raise ArgvError("argv[0] must be a bare executable name or an absolute path, not a relative path")
    if program.startswith("/") and any(part in (".", "..") for part in program.split("/")):
        raise ArgvError("argv[0] must not contain . or .. segments")
    return words


def refusal(argv: Sequence[str]) -> Refusal | None:
    """The first destructive command found in ``argv`` (or in the shell strings it carries), or None."""
    return _scan(list(argv), depth=0)


def _scan(words: list[str], *, depth: int) -> Refusal | None:
    if depth > MAX_NESTING:
        return Refusal("nesting-too-deep", f"shell strings nested more than {MAX_NESTING} deep")
    for start in range(len(words)):
        name = posixpath.basename(words[start])
        rest = words[start + 1 :]
        found = _destructive(name, rest)
        if found is not None:
            return found
        for script in _carried_scripts(name, rest):
            found = _scan_script(script, depth=depth + 1)
            if found is not None:
                return found
    return None


def _destructive(name: str, rest: list[str]) -> Refusal | None:
    if name == "rm" and _rm_is_recursive_and_forced(rest):
        return Refusal("rm-recursive-force", "rm with both a recursive and a force flag deletes without asking")
    if name == "git" and _git_force_push(rest):
        return Refusal("git-force-push", "git push with --force, -f, --force-with-lease or a +refspec")
    if name in _PUBLISHERS:
        command = _package_command(rest)
        if command in ("publish", "unpublish"):
            return Refusal("package-publish", f"{name} {command} publishes to a registry")
    return None


def _carried_scripts(name: str, rest: list[str]) -> Iterator[str]:
    """The shell strings ``name rest…`` would hand to a shell."""
    if name in SHELLS:
        script = _shell_command_string(rest)
        if script is not None:
            yield script
    elif name == "eval" and rest:
        yield " ".join(rest)
    elif name == "env":
        for index, word in enumerate(rest):
            if word in ("-S", "--split-string") and index + 1 < len(rest):
                yield rest[index + 1]
            elif word.startswith("--split-string="):
                yield word.partition("=")[2]
            elif word.startswith("-S") and len(word) > 2:
                yield word[2:]
    elif name in ("sudo", "doas") and any(word in ("-s", "-i", "--shell", "--login") for word in rest):
        # sudo -s CMD… runs CMD through the user's shell: the words joined are a shell string.
        words = [word for word in rest if not word.startswith("-")]
        if words:
            yield " ".join(words)


def _shell_command_string(rest: list[str]) -> str | None:
    """The string of ``sh [options] -c STRING``: the first operand once a ``c`` flag was seen."""
    has_c = False
    skip = False
    for word in rest:
        if skip:
            skip = False
            continue
        if word in _SHELL_OPTIONS_WITH_VALUE:
            skip = True
        elif word == "--":
            continue
        elif (word.startswith("-") or word.startswith("+")) and not word.startswith("--") and len(word) > 1:
            has_c = has_c or "c" in word[1:]
        elif word.startswith("--"):
            continue
        else:
            return word if has_c else None  # without -c the operand is a script file: not ours to read
    return None


def _scan_script(script: str, *, depth: int) -> Refusal | None:
    # Backticks and newlines separate commands as ; does; treating them so can only add refusals.
    text = script.replace("`", " ; ").replace("\n", " ; ")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""  # a "# …" comment is checked too: refusing more is the safe side
    try:
        tokens = list(lexer)
    except ValueError as error:
        return Refusal("unparsable-shell", f"a shell string does not split into words ({error})")
    for command in _commands(tokens):
        found = _scan(command, depth=depth)
        if found is not None:
            return found
    return None


def _commands(tokens: list[str]) -> Iterator[list[str]]:
    """Split shell tokens at operators (``;``, ``&&``, ``|``, ``(``, …), dropping leading keywords and
    ``NAME=value`` assignments so each list starts at its command word."""
    command: list[str] = []
    for token in [*tokens, ";"]:
        if token and all(char in "();<>|&" for char in token):
            if command:
                yield command
            command = []
            continue
        if not command and (token in _SHELL_KEYWORDS or _is_assignment(token) or token == "$"):
            continue
        command.append(token)


def _is_assignment(word: str) -> bool:
    name, separator, _ = word.partition("=")
    return bool(separator) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def _rm_is_recursive_and_forced(rest: list[str]) -> bool:
    recursive = forced = False
    for word in rest:
        if word == "--":
            break  # GNU rm reads options after operands too, but not after --
        if word.startswith("--") and len(word) > 2:
            # GNU options may be abbreviated to any unique prefix: --rec, --f.
            recursive = recursive or "--recursive".startswith(word)
            forced = forced or "--force".startswith(word)
        elif word.startswith("-") and len(word) > 1:
            letters = word[1:]
            recursive = recursive or "r" in letters or "R" in letters
            forced = forced or "f" in letters
    return recursive and forced


_GIT_OPTIONS_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix"})


def _git_force_push(rest: list[str]) -> bool:
    index = 0
    while index < len(rest) and rest[index].startswith("-"):
        index += 2 if rest[index] in _GIT_OPTIONS_WITH_VALUE else 1
    if index >= len(rest) or rest[index] != "push":
        return False
    for word in rest[index + 1 :]:
        option = word.partition("=")[0]
        # --force, --force-with-lease[=…], --force-if-includes and their unique prefixes (--forc);
        # --mirror force-updates and deletes remote refs.
        if option.startswith("--forc") or (len(option) > 2 and "--mirror".startswith(option)):
            return True
        if word.startswith("-") and not word.startswith("--") and "f" in _short_flags_before_value(word[1:]):
            return True
        if word.startswith("+") and len(word) > 1:
            return True  # a +refspec forces that ref
    return False


def _short_flags_before_value(letters: str) -> str:
    # git push -o VALUE takes the rest of the cluster as its value: "-of" is the push option "f".
    return letters.partition("o")[0]


def _package_command(rest: list[str]) -> str | None:
    """The subcommand of ``npm``/``pnpm``/``yarn``: its first operand, or the second when the first may be
    the value of an option given without ``=`` (``npm --registry URL publish``)."""
    operands: list[str] = []
    previous_was_bare_option = False
    for word in rest:
        if word == "--":
            break
        if word.startswith("-"):
            previous_was_bare_option = word.startswith("--") and "=" not in word
            continue
        operands.append(word)
        if not previous_was_bare_option or len(operands) == 2:
            break
        previous_was_bare_option = False
    if not operands:
        return None
    return operands[-1] if operands[-1] in ("publish", "unpublish") else operands[0]
