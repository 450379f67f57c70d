"""What the hub writes to a run's coordinator: the rendered template and the run prompt.

``render_template`` fills a definition's ``promptTemplate`` from the start payload
(workflow-context.md §1.6): ``{{ path }}`` (letters, digits, ``_``, ``.``, ``-``, spaces inside
the braces allowed) becomes the value at that dotted path, looked up through plain objects only;
missing or null is empty, an object or array is its JSON as JavaScript's ``JSON.stringify`` writes
it, a scalar its JavaScript string form. ``coordinator_prompt`` is the whole first message of a
run (§2.2): the run and workflow, the rendered template, every stage with its evidence rules, and
fixed guidance on how to work the run through the hub.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping

from kxm_grpc.domain.sync_events import js_number
from kxm_grpc.domain.validation import JS_WHITESPACE, utf16_length
from kxm_grpc.domain.workflows.definitions import EvidencePolicy, Producer, StageDefinition, WorkflowDefinition
from kxm_grpc.errors import invalid_field

MAX_PROMPT_CHARS = 32_000
"""A prompt is a message: at most ``MAX_CONTENT_CHARS`` UTF-16 code units."""

# JavaScript's \s, not Python's: the two differ on a few characters (U+001C-U+001F, U+0085, U+FEFF).
_PLACEHOLDER = re.compile(f"\\{{\\{{[{JS_WHITESPACE}]*([A-Za-z0-9_.-]+)[{JS_WHITESPACE}]*\\}}\\}}")
_SURROGATE = re.compile("[\ud800-\udfff]")
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_INDENT = "   "


def render_template(template: str, payload: object) -> str:
    """``template`` with every ``{{ path }}`` replaced by the payload's value there (see the module)."""
    return _PLACEHOLDER.sub(lambda match: _text(_value_at(payload, match.group(1))), template)


def coordinator_prompt(definition: WorkflowDefinition, run_id: str, payload: object) -> str:
    """The prompt that starts run ``run_id`` of ``definition`` for its coordinator.

    Raises:
        InvalidArgument: the prompt exceeds ``MAX_PROMPT_CHARS`` (a payload too large for the
            template); the field is ``prompt``.
    """
    lines = [
        f"Durable workflow run: {run_id}",
        f"Workflow: {definition.id}",
        "",
        render_template(definition.prompt_template, payload),
        "",
        "Execute these stages in order:",
    ]
    for number, stage in enumerate(definition.stages, start=1):
        lines.extend(_stage_lines(number, stage))
    lines.append("")
    lines.extend(_integrity_lines(definition))
    lines.extend(_guidance(run_id))
    # A payload's NUL or unpaired surrogate (a JSON "\u0000" or "\ud800") cannot be stored as
    # text (PostgreSQL refuses NUL; UTF-8 has no surrogates): each becomes U+FFFD in the prompt.
    prompt = _UNSTORABLE.sub("\ufffd", "\n".join(lines))
    if utf16_length(prompt) > MAX_PROMPT_CHARS:
        raise invalid_field("prompt", f"exceeds {MAX_PROMPT_CHARS} characters once the payload is rendered")
    return prompt


def _stage_lines(number: int, stage: StageDefinition) -> list[str]:
    lines = [f"{number}. {stage.label} (stageId: {stage.id}, maxAttempts: {stage.max_attempts})"]
    lines.extend(_INDENT + line for line in stage.instructions.splitlines())
    lines.append(f"{_INDENT}Required evidence keys: {', '.join(stage.required_evidence) or 'none'}")
    lines.extend(_INDENT + _policy_line(policy) for policy in stage.policies.values())
    if stage.edges:
        edges = "; ".join(
            f"{edge.outcome} -> {edge.target}"
            + (f" (at most {edge.max_transitions} times)" if edge.max_transitions is not None else "")
            for edge in stage.edges.values()
        )
        lines.append(f"{_INDENT}Declared transitions: {edges}")
    return lines


def _policy_line(policy: EvidencePolicy) -> str:
    line = (
        f'Peer evidence "{policy.key}": replies from at least {policy.min_producers} distinct eligible'
        f" agents of {', '.join(map(_producer, policy.eligible))}"
    )
    if policy.distinct_by:
        line += f", each with a different {' and '.join(dimension.value for dimension in policy.distinct_by)}"
    if policy.degraded_min_producers is not None:
        line += f" (an operator may approve a quorum of {policy.degraded_min_producers})"
    return line + "."


def _producer(producer: Producer) -> str:
    declared = [value for value in (producer.provider, producer.model) if value is not None]
    return f"{producer.selector} ({', '.join(declared)})" if declared else producer.selector


def _integrity_lines(definition: WorkflowDefinition) -> list[str]:
    lines = []
    if definition.plan_hash is not None:
        plan = definition.plan_hash
        line = (
            f"When stage {plan.stage_id} passes, its evidence {plan.evidence_key} becomes the approved plan"
            " (the hub keeps its hash)."
        )
        if definition.require_plan_hash:
            line += f" Stages {', '.join(definition.require_plan_hash)} cannot checkpoint before that."
        lines.append(line)
    if definition.repro_oracle is not None:
        oracle = definition.repro_oracle
        lines.append(
            f"When stage {oracle.stage_id} passes, its evidence {oracle.evidence_key} becomes the reproduction"
            f" oracle: no later checkpoint may change it, so a confirmed reproduction cannot be weakened."
        )
    if definition.max_transitions is not None:
        lines.append(f"The run may take at most {definition.max_transitions} declared transitions.")
    return [*lines, ""] if lines else []


def _guidance(run_id: str) -> list[str]:
    return [
        "Record every material plan, decision, contradiction, error and lesson with the journal as you work;"
        " a lesson cites its evidence.",
        "Keep repository-local configuration in .kxm/config, logs in .kxm/logs and durable workflow artifacts in"
        " .kxm/assets; never commit runtime logs, state or secrets.",
        "Finish each stage with a checkpoint for its stageId: passed, warning or failed, a summary, and evidence"
        " keyed exactly by the stage's required evidence keys (other keys never count). A warning or a failure"
        " must be corrected and checkpointed again, until the stage passes or its attempts run out.",
        f"For a peer evidence requirement, send review requests with a workflow context: run {run_id}, the exact"
        " stageId, the requirement key and the stage's current attempt (1-based). Only replies from eligible"
        " agents count, each agent once; cite the message ids the hub returned as the requirement's evidence"
        " references when you checkpoint, and no others.",
        "When external work must finish asynchronously, wait for it with a stable signal key and end your turn;"
        " a signed signal resumes the run and you will be prompted again.",
        "For multi-agent planning, ask the peers for independent proposals, compare them, record the"
        " contradictions, and synthesise the plan the evidence supports best.",
        "Do not claim the workflow is complete until a checkpoint reports completed.",
    ]


def _value_at(payload: object, path: str) -> object:
    """The value at a dotted path, through plain objects only (arrays and scalars end the walk)."""
    current = payload
    for part in path.split("."):
        if not isinstance(current, Mapping):
            return None
        current = current.get(part)
    return current


def _text(value: object) -> str:
    """JavaScript's rendering of a payload value in a template."""
    if value is None:
        return ""
    if isinstance(value, Mapping | list | tuple):
        return _stringify(value)
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        return js_number(value)
    return str(value)


def _stringify(value: object) -> str:
    """``JSON.stringify(value)``: compact, array-index keys first in ascending order then the
    others in insertion order (how JavaScript orders an object's keys), non-finite numbers null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number(value) if not isinstance(value, float) or math.isfinite(value) else "null"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Mapping):
        keys = [str(key) for key in value]
        indices = sorted((key for key in keys if _is_array_index(key)), key=int)
        ordered = indices + [key for key in keys if not _is_array_index(key)]
        items = {str(key): item for key, item in value.items()}
        return "{" + ",".join(f"{_string(key)}:{_stringify(items[key])}" for key in ordered) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(_stringify(item) for item in value) + "]"
    return _string(str(value))


def _is_array_index(key: str) -> bool:
    return bool(_ARRAY_INDEX.fullmatch(key)) and int(key) < 2**32 - 1


def _string(value: str) -> str:
    # json.dumps escapes what JSON.stringify does (quote, backslash, control characters), except
    # that JavaScript writes a lone surrogate as \udxxx where Python leaves it raw.
    text = json.dumps(value, ensure_ascii=False)
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def payload_text(payload: object, path: str) -> str:
    """The text ``payload`` holds at the dotted ``path``, as a ``{{path}}`` placeholder renders it
    (what a definition's ``filter.equals`` is compared with)."""
    return _text(_value_at(payload, path))
