"""The gate registry (``kxm.gate-registry.v1``, workflow-context.md §6.1): the deterministic checks
gate steps name by id, loaded with every problem at once. Pure rules: no I/O.

A registry maps gate ids to definitions of two kinds:

- ``command``: checks run in order by a gate worker, fail-closed at the first failing one. Either
  one ``argv`` (with ``timeoutMs``), the check taking the gate's id as its name, or ``checks``,
  a list of ``{name, argv, timeoutMs}``. No shell: an ``argv`` is what is executed.
- ``artifacts-exist``: relative ``paths`` that must exist in the checked-out workspace.

Either kind may declare ``evaluates``: the skill evaluation kind its verdict is (``static-review``,
``sandbox``, ``functional``, ``safety``, ``optimization``; spec §5.12). A run started for a skill
candidate records the verdict of each such gate as an evaluation of that kind (decision 252).

The original's ``reserved`` kind (compiled, refused at drive time) and ``cwd: control`` are refused
here: nothing the hub accepts is refused later (§11.20). A definition's hash is ``sha256:`` of the
canonical JSON of ``{id, ...definition}``, the registry's of the registry's canonical JSON; runs pin
both, so a registry replaced later changes no run already started.
"""

from __future__ import annotations

import enum
import hashlib
import posixpath
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from kxm_grpc.domain.context.skills import EvaluationKind
from kxm_grpc.domain.sync_events import JsonValue, canonical_json
from kxm_grpc.domain.workflows.plans import commands
from kxm_grpc.domain.workflows.plans.model import MAX_NAME_CHARS, STEP_ID, WorkflowDefinitionError
from kxm_grpc.domain.workflows.plans.reader import COUNT_INVALID, Reader, path

REGISTRY_SCHEMA = "kxm.gate-registry.v1"
MAX_GATES = 256
MAX_CHECKS = 32
MAX_PATHS = 64
MAX_PATH_CHARS = 1_024
MAX_GATE_TIMEOUT_MS = 2_147_483_647
DEFAULT_INLINE_TIMEOUT_MS = 600_000
"""The timeout of an inline gate command (``command`` on a gate step) without ``timeoutMs``: 10 minutes."""

_REGISTRY_FIELDS = ("schema", "description", "gates")
_COMMAND_FIELDS = ("kind", "description", "argv", "timeoutMs", "checks", "evaluates")
_CHECK_FIELDS = ("name", "argv", "timeoutMs")
_ARTIFACT_FIELDS = ("kind", "description", "paths", "evaluates")


class GateKind(enum.Enum):
    COMMAND = "command"
    ARTIFACTS_EXIST = "artifacts-exist"


@dataclass(frozen=True)
class GateCheck:
    """One command of a gate: run without a shell, stopped after ``timeout_ms``."""

    name: str
    argv: tuple[str, ...]
    timeout_ms: int


@dataclass(frozen=True)
class GateDefinition:
    """A gate: its checks (``command``) or the paths that must exist (``artifacts-exist``)."""

    id: str
    kind: GateKind
    checks: tuple[GateCheck, ...] = ()
    paths: tuple[str, ...] = ()
    description: str | None = None
    evaluates: EvaluationKind | None = None
    """The skill evaluation kind the gate's verdict is, for a run started for a skill candidate."""

    @property
    def timeout_ms(self) -> int:
        """The longest the gate may run: its checks' timeouts summed (0 for ``artifacts-exist``)."""
        return sum(check.timeout_ms for check in self.checks)

    def to_json(self) -> dict[str, JsonValue]:
        data: dict[str, JsonValue] = {"id": self.id, "kind": self.kind.value}
        if self.description is not None:
            data["description"] = self.description
        if self.evaluates is not None:  # only when declared: the gates without it keep their hash
            data["evaluates"] = self.evaluates.value
        if self.kind is GateKind.COMMAND:
            data["checks"] = [
                {"name": check.name, "argv": list(check.argv), "timeoutMs": check.timeout_ms} for check in self.checks
            ]
        else:
            data["paths"] = list(self.paths)
        return data

    @property
    def hash(self) -> str:
        return _hash(self.to_json())


@dataclass(frozen=True)
class GateRegistry:
    gates: Mapping[str, GateDefinition]
    description: str | None = None

    def to_json(self) -> dict[str, JsonValue]:
        data: dict[str, JsonValue] = {
            "schema": REGISTRY_SCHEMA,
            "gates": {gate_id: gate.to_json() for gate_id, gate in sorted(self.gates.items())},
        }
        if self.description is not None:
            data["description"] = self.description
        return data

    @property
    def hash(self) -> str:
        return _hash(self.to_json())


def _hash(value: Mapping[str, JsonValue]) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(dict(value)).encode("utf-8")).hexdigest()


def load_gate_registry(raw: object) -> GateRegistry:
    """Load a decoded ``kxm.gate-registry.v1`` document.

    Raises:
        WorkflowDefinitionError: (INVALID_ARGUMENT, WORKFLOW_DEFINITION_INVALID) listing every
            problem with its field path and code.
    """
    r = Reader()
    value = r.mapping(raw, "", required=True)
    gates: dict[str, GateDefinition] = {}
    description = None
    if value is not None:
        r.only(value, "", _REGISTRY_FIELDS)
        if value.get("schema") != REGISTRY_SCHEMA:
            r.problem("schema", "gate_registry_schema_unsupported", f"must be {REGISTRY_SCHEMA}")
        description = r.text(value.get("description"), "description", 2_000)
        entries = r.mapping(value.get("gates"), "gates", required=True) or {}
        if len(entries) > MAX_GATES:
            r.problem("gates", COUNT_INVALID, f"must hold at most {MAX_GATES} gates")
        for gate_id, entry in entries.items():
            gate = read_gate(r, gate_id, entry, path("gates", gate_id))
            if gate is not None:
                gates[gate_id] = gate
    if r.problems:
        raise WorkflowDefinitionError(tuple(r.problems))
    return GateRegistry(gates, description)


def read_gate(r: Reader, gate_id: str, raw: object, at: str) -> GateDefinition | None:
    """One registry entry (a problem recorded for each bad value)."""
    start = r.mark()
    if not STEP_ID.fullmatch(gate_id) or len(gate_id) > MAX_NAME_CHARS:
        r.problem(at, "gate_id_invalid", f"a gate id must match {STEP_ID.pattern}")
    value = r.mapping(raw, at, required=True)
    if value is None:
        return None
    kind_name = r.choice(
        value.get("kind"), f"{at}.kind", [k.value for k in GateKind], "gate_kind_unknown", required=True
    )
    description = r.text(value.get("description"), f"{at}.description", 2_000)
    evaluates_name = r.choice(
        value.get("evaluates"), f"{at}.evaluates", [k.value for k in EvaluationKind], "gate_evaluates_invalid"
    )
    evaluates = EvaluationKind(evaluates_name) if evaluates_name is not None else None
    if kind_name is None:
        return None
    kind = GateKind(kind_name)
    if kind is GateKind.ARTIFACTS_EXIST:
        r.only(value, at, _ARTIFACT_FIELDS)
        paths = _paths(r, value.get("paths"), f"{at}.paths")
        if not r.clean_since(start):
            return None
        return GateDefinition(gate_id, kind, paths=paths, description=description, evaluates=evaluates)
    r.only(value, at, _COMMAND_FIELDS)
    checks: list[GateCheck] = []
    if value.get("checks") is not None:
        if value.get("argv") is not None or value.get("timeoutMs") is not None:
            r.problem(f"{at}.checks", "gate_command_invalid", "give either argv (with timeoutMs) or checks, not both")
        items = r.array(value.get("checks"), f"{at}.checks") or []
        if not 1 <= len(items) <= MAX_CHECKS:
            r.problem(f"{at}.checks", COUNT_INVALID, f"must hold 1 to {MAX_CHECKS} checks")
        names: set[str] = set()
        for index, item in enumerate(items):
            field = f"{at}.checks[{index}]"
            entry = r.mapping(item, field, required=True)
            if entry is None:
                continue
            r.only(entry, field, _CHECK_FIELDS)
            name = r.text(entry.get("name"), f"{field}.name", MAX_NAME_CHARS, required=True)
            if name is not None and name in names:
                r.problem(f"{field}.name", "gate_check_duplicate", f"another check is named {name}")
            check = _check(r, name, entry.get("argv"), entry.get("timeoutMs"), field, timeout_required=True)
            if name is not None:
                names.add(name)
            if check is not None:
                checks.append(check)
    else:
        check = _check(r, gate_id, value.get("argv"), value.get("timeoutMs"), at, timeout_required=True)
        if check is not None:
            checks.append(check)
    if not r.clean_since(start):
        return None
    return GateDefinition(gate_id, kind, checks=tuple(checks), description=description, evaluates=evaluates)


def inline_gate(r: Reader, step_id: str, raw: object, timeout_ms: int | None, at: str) -> GateDefinition | None:
    """The gate of a gate step's inline ``command`` (seed 000's ``command: "npm run verify"``): a
    string split into words as a POSIX shell would (never run by one), or an argv list; one check
    named after the step, timing out after the step's ``timeoutMs`` (default 10 minutes)."""
    argv: object = raw
    if isinstance(raw, str):
        try:
            argv = _shell_words(raw)
        except ValueError as error:
            r.problem(at, "gate_command_invalid", f"cannot be split into words: {error}")
            return None
    start = r.mark()
    check = _check(r, step_id, argv, timeout_ms or DEFAULT_INLINE_TIMEOUT_MS, at, timeout_required=False, inline=True)
    if check is None or not r.clean_since(start):
        return None
    return GateDefinition(f"step:{step_id}", GateKind.COMMAND, checks=(check,))


def _shell_words(text: str) -> list[str]:
    words = shlex.split(text)
    if any(word in ("&&", "||", ";", "|", ">", "<", ">>", "&") for word in words):
        raise ValueError("shell operators are not run (no shell): give one command, or a registry gate with checks")
    return words


def _check(
    r: Reader,
    name: str | None,
    raw_argv: object,
    raw_timeout: object,
    at: str,
    *,
    timeout_required: bool,
    inline: bool = False,
) -> GateCheck | None:
    """One check; an inline command's problems name the step's ``command`` field itself."""
    argv_field = at if inline else f"{at}.argv"
    items = r.array(raw_argv, argv_field, required=True)
    timeout = r.integer(
        raw_timeout, f"{at}.timeoutMs", 1, MAX_GATE_TIMEOUT_MS, required=timeout_required, code="duration_invalid"
    )
    if items is None:
        return None
    if not all(isinstance(item, str) for item in items):
        r.problem(argv_field, "gate_command_invalid", "must be an array of strings")
        return None
    try:
        argv = commands.validate_argv([str(item) for item in items])
    except commands.ArgvError as error:
        r.problem(argv_field, "gate_command_invalid", str(error))
        return None
    refused = commands.refusal(argv)
    if refused is not None:
        r.problem(argv_field, "gate_command_destructive", f"{refused.message}: no gate may run it")
        return None
    if name is None or timeout is None:
        return None
    return GateCheck(name, argv, timeout)


def _paths(r: Reader, raw: object, at: str) -> tuple[str, ...]:
    items = r.array(raw, at, required=True) or []
    if raw is not None and not 1 <= len(items) <= MAX_PATHS:
        r.problem(at, COUNT_INVALID, f"must hold 1 to {MAX_PATHS} paths")
    paths: list[str] = []
    for index, item in enumerate(items):
        field = f"{at}[{index}]"
        text = r.text(item, field, MAX_PATH_CHARS, required=True)
        if text is None:
            continue
        if text.startswith("/") or "\\" in text or _PARENT.search(text) or posixpath.normpath(text) in (".", ".."):
            r.problem(field, "gate_path_invalid", "must be a relative POSIX path inside the workspace (no .., no \\)")
        elif text in paths:
            r.problem(field, "gate_path_duplicate", f"lists {text} twice")
        else:
            paths.append(text)
    return tuple(paths)


_PARENT = re.compile(r"(?:^|/)\.\.(?:/|$)")
