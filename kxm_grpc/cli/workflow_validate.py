"""``kxm workflow validate FILE...``: check definition files without a hub.

Each file is read as the hub would read it (JSON or YAML, by suffix or ``--format``) and holds one
of three kinds of document, told apart by its ``schema``:

- a stage workflow (the original's webhook-workflow shape, no ``schema``), or an array of them:
  ``secretEnv`` names are resolved from this process's environment;
- a step workflow (``schema: kxm.workflow.v1``): loaded and compiled; its gate steps are checked
  against the gate registry given with ``--gates`` (the project's ``kxm.gate-registry.v1``), and
  its plan hash printed; without ``--gates``, registry references are not checked and a workflow
  naming a registry gate has no plan hash (the plan pins the gates it runs);
- a gate registry (``schema: kxm.gate-registry.v1``): every gate is checked.

It prints each file's definitions (id, stages or steps, hash) or every problem, each naming the
file, the definition and the field. Ids must be unique across the files given, as they must be
across a ``--workflows`` directory. Exit status: 0 when every file loads, 1 when any has a problem,
2 on a usage error or a file that cannot be read (missing, unreadable, not UTF-8).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from kxm_grpc.cli.common import EXIT_ERROR, EXIT_OK, EXIT_UNREACHABLE
from kxm_grpc.domain.workflows import documents
from kxm_grpc.domain.workflows import plans as steps
from kxm_grpc.domain.workflows.definitions import DefinitionError, Problem, load_text
from kxm_grpc.domain.workflows.plans.gates import REGISTRY_SCHEMA, GateRegistry, load_gate_registry

EXIT_USAGE = EXIT_UNREACHABLE
"""2: argparse's status for a usage error, and ours for a file that cannot be read."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="a definition file (.json, .yaml or .yml)")
    parser.add_argument(
        "--format", choices=documents.FORMATS, help="read every FILE as this (default: by suffix, JSON else)"
    )
    parser.add_argument(
        "--gates", metavar="FILE", help="the project's gate registry (kxm.gate-registry.v1) step workflows run"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")


@dataclass
class Loaded:
    """One definition a file holds, as printed."""

    id: str
    kind: str
    """``stages``, ``steps`` or ``gates``."""
    parts: list[str]
    """Its stage ids, step ids or gate ids, in order."""
    hash: str | None
    project: str | None = None
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "kind": self.kind, self.kind: self.parts, "hash": self.hash}
        data["project"] = self.project
        if self.note is not None:
            data["note"] = self.note
        return data


@dataclass
class Checked:
    """What validating one file found."""

    path: str
    definitions: list[Loaded] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    error: str | None = None
    """Why the file could not be read."""

    @property
    def ok(self) -> bool:
        return self.error is None and not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "ok": self.ok,
            "error": self.error,
            "definitions": [definition.to_dict() for definition in self.definitions],
            "problems": [asdict(problem) for problem in self.problems],
            "warnings": [asdict(warning) for warning in self.warnings],
        }


def read_text(path: str) -> tuple[str | None, str | None]:
    """The file's text (a byte-order mark dropped) and None, or None and why it cannot be read."""
    try:
        with open(path, "rb") as file:
            data = file.read()
        return data.decode("utf-8-sig"), None
    except OSError as error:
        return None, error.strerror or str(error)
    except UnicodeDecodeError as error:
        return None, f"not UTF-8 text ({error.reason} at byte {error.start})"


def schema_of(text: str, path: str, format: str | None) -> tuple[object, str | None]:
    """The decoded document and its ``schema`` (None for a stage workflow or an array of them).

    Raises:
        DefinitionError: the text does not decode.
    """
    try:
        value = documents.decode(text, origin=path, format=format)
    except documents.DocumentError as error:
        raise DefinitionError([Problem(path, "", "", str(error))]) from None
    schema = value.get("schema") if isinstance(value, Mapping) else None
    return value, schema if isinstance(schema, str) else None


def _step_problems(path: str, name: str, error: steps.WorkflowDefinitionError) -> list[Problem]:
    return [Problem(path, name, problem.field, f"{problem.message} ({problem.code})") for problem in error.problems]


def check(
    path: str, format: str | None, env: dict[str, str], seen: dict[str, str], gates: GateRegistry | None
) -> Checked:
    """Validate one file (see the module docstring)."""
    checked = Checked(path)
    text, checked.error = read_text(path)
    if text is None:
        return checked
    try:
        value, schema = schema_of(text, path, format)
        if schema == steps.SCHEMA:
            checked.definitions = [_step_workflow(path, value, gates)]
        elif schema == REGISTRY_SCHEMA:
            checked.definitions = [_registry(path, value)]
        else:
            loaded = load_text(text, origin=path, env=env, format=format, warn=checked.warnings.append)
            checked.definitions = [
                Loaded(d.id, "stages", [stage.id for stage in d.stages], d.hash, d.project) for d in loaded
            ]
    except DefinitionError as error:
        checked.problems = list(error.problems)
    for definition in checked.definitions:
        if definition.kind == "gates":
            continue
        if definition.id in seen:
            message = f"duplicate workflow id: {seen[definition.id]} defines it too"
            checked.problems.append(Problem(path, definition.id, "id", message))
        else:
            seen[definition.id] = path
    if checked.problems:
        checked.definitions = []
    return checked


def _step_workflow(path: str, value: object, gates: GateRegistry | None) -> Loaded:
    raw_id = value.get("id") if isinstance(value, Mapping) else None
    name = raw_id if isinstance(raw_id, str) else "#0"
    try:
        workflow = steps.load_workflow(value, gates=gates)
    except steps.WorkflowDefinitionError as error:
        raise DefinitionError(_step_problems(path, name, error)) from None
    ids = [step.id for step in workflow.steps]
    try:
        plan = steps.compile_workflow(workflow, gates=gates)
    except ValueError:
        note = "names registry gates: give --gates to check them and compute its plan hash"
        return Loaded(workflow.id, "steps", ids, None, workflow.project, note)
    return Loaded(workflow.id, "steps", ids, steps.plan_hash(plan), workflow.project)


def _registry(path: str, value: object) -> Loaded:
    try:
        registry = load_gate_registry(value)
    except steps.WorkflowDefinitionError as error:
        raise DefinitionError(_step_problems(path, "gates", error)) from None
    return Loaded("gates", "gates", sorted(registry.gates), registry.hash)


def load_gates(path: str, format: str | None) -> tuple[GateRegistry | None, Checked]:
    """The registry ``--gates`` names, or None and what is wrong with it."""
    checked = Checked(path)
    text, checked.error = read_text(path)
    if text is None:
        return None, checked
    try:
        value, schema = schema_of(text, path, format)
        if schema != REGISTRY_SCHEMA:
            raise DefinitionError([Problem(path, "", "schema", f"--gates must name a {REGISTRY_SCHEMA} document")])
        registry = load_gate_registry(value)
    except DefinitionError as error:
        checked.problems = list(error.problems)
        return None, checked
    except steps.WorkflowDefinitionError as error:
        checked.problems = _step_problems(path, "gates", error)
        return None, checked
    checked.definitions = [Loaded("gates", "gates", sorted(registry.gates), registry.hash)]
    return registry, checked


def print_text(results: list[Checked]) -> None:
    for checked in results:
        if checked.error is not None:
            print(f"error: cannot read {checked.path}: {checked.error}", file=sys.stderr)
            continue
        if checked.problems:
            count = len(checked.problems)
            print(f"{checked.path}: {count} problem{'s' if count != 1 else ''}")
            for problem in checked.problems:
                print(f"  {problem}")
        else:
            count = len(checked.definitions)
            print(f"{checked.path}: {count} definition{'s' if count != 1 else ''}")
            for definition in checked.definitions:
                line = f"  {definition.id}\t{definition.kind}: {', '.join(definition.parts)}"
                line += f"\thash {definition.hash}" if definition.hash is not None else ""
                print(line + (f"\t({definition.note})" if definition.note else ""))
        for warning in checked.warnings:
            print(f"  warning: {warning}")


def validate(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    seen: dict[str, str] = {}
    results: list[Checked] = []
    gates = None
    if args.gates is not None:
        gates, checked_gates = load_gates(args.gates, args.format)
        if gates is None:
            results.append(checked_gates)
    results.extend(check(path, args.format, env, seen, gates) for path in args.files)
    if args.json:
        payload = {"ok": all(checked.ok for checked in results), "files": [c.to_dict() for c in results]}
        print(json.dumps(payload, indent=2, sort_keys=True))
    else:
        print_text(results)
    if any(checked.error is not None for checked in results):
        return EXIT_USAGE
    return EXIT_OK if all(checked.ok for checked in results) else EXIT_ERROR
