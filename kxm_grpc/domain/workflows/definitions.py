"""Workflow definitions: what an operator declares, validated and normalised.

A definition is loaded from JSON (the original's shape, workflow-context.md §1) or YAML, one
definition or an array of them. Loading checks every rule of §1 and names, for each problem, the
origin (a file or ``rpc``), the definition and the field; it stops at nothing, so one pass lists
every problem. A loaded definition is immutable, and its ``hash`` covers everything but secrets,
so rotating a secret leaves runs' pinned hash unchanged.

Beyond the original: an eligible agent may be an object ``{agent, provider, model}`` (the
operator's declaration of who runs it) and a policy may ask for ``distinctBy: [provider, model]``;
a definition may name a ``notify`` URL; the signal secret is optional (no secret: no signed
signals) and never equal to the start secret (weakness §11.3). Loading also refuses what could
never run: a quorum the declared providers or models cannot reach, a plan or oracle key the stage
need not present, a ``requirePlanHash`` stage that could never see the hash.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import json
import math
import re
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from kxm_grpc.domain import messages, projects
from kxm_grpc.domain.messages import canonical_requirement_key
from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.domain.validation import js_lower, js_trim, utf16_length
from kxm_grpc.domain.workflows import diversity, documents
from kxm_grpc.domain.workflows.diversity import Dimension
from kxm_grpc.errors import FieldViolation, InvalidArgument, Reason

TERMINAL = "$terminal"
"""The transition target that completes the run."""


class Source(enum.Enum):
    """Who sends the definition's start webhooks (decides the accepted signature forms)."""

    GENERIC = "generic"
    GITHUB = "github"
    JIRA = "jira"


class PromptDelivery(enum.Enum):
    """How the coordinator's prompt is delivered (the message's delivery)."""

    FOLLOW_UP = "followUp"
    STEER = "steer"


@dataclass(frozen=True)
class Producer:
    """An agent eligible to produce peer evidence, as the operator declared it.

    ``selector`` is an agent name or id in the run's project (compared case-insensitively for
    names). ``provider`` and ``model`` are the operator's declaration, never the agent's claim.
    """

    selector: str
    provider: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class EvidencePolicy:
    """How a required evidence key is satisfied by verified peer replies (``kind: peer-reply``)."""

    key: str
    """The canonical requirement key (one of the stage's ``required_evidence``)."""
    min_producers: int
    eligible: tuple[Producer, ...]
    distinct_by: tuple[Dimension, ...] = ()
    """Each listed dimension pairwise distinct among the counted producers (empty: ids only)."""
    degraded_min_producers: int | None = None
    """The minimum an operator may approve instead (``degradation.minProducers``), below ``min_producers``."""


@dataclass(frozen=True)
class Edge:
    """A declared transition: checkpoint outcome → target stage id or ``TERMINAL``."""

    outcome: str
    target: str
    max_transitions: int | None = None
    """How often this edge (from, outcome, target) may be taken in a run."""


@dataclass(frozen=True)
class StageDefinition:
    id: str
    label: str
    instructions: str
    required_evidence: tuple[str, ...] = ()
    """Canonical keys, in declaration order."""
    max_attempts: int = 3
    auto_resume_limit: int | None = None
    area: str | None = None
    policies: Mapping[str, EvidencePolicy] = field(default_factory=dict)
    """By canonical requirement key."""
    edges: Mapping[str, Edge] = field(default_factory=dict)
    """By outcome (``passed``, ``warning``, ``failed`` or a custom outcome)."""
    max_transitions: int | None = None
    """How many transitions may leave this stage in a run."""


@dataclass(frozen=True)
class EvidenceHashConfig:
    """``planHash`` / ``reproOracle``: the stage whose passing evidence under ``evidence_key`` is hashed."""

    stage_id: str
    evidence_key: str


@dataclass(frozen=True)
class PayloadFilter:
    """Start only when the payload's value at the dotted ``path``, as a string, equals ``equals``."""

    path: str
    equals: str


@dataclass(frozen=True)
class Notify:
    """Where run state changes are POSTed, signed with ``kxm-webhook-v1`` (kind ``notify``)."""

    url: str
    secret: str
    secret_env: str | None = None


@dataclass(frozen=True)
class WorkflowDefinition:
    id: str
    project: str
    target: str
    """The coordinator agent's name or id in ``project``."""
    secret: str
    """The start secret, resolved (``secret``, or the variable ``secret_env`` names)."""
    prompt_template: str
    stages: tuple[StageDefinition, ...]
    source: Source = Source.GENERIC
    secret_env: str | None = None
    signal_secret: str | None = None
    """None: the definition accepts no signed signals (only an operator's Signal RPC)."""
    signal_secret_env: str | None = None
    event: str | None = None
    filter: PayloadFilter | None = None
    delivery: PromptDelivery = PromptDelivery.FOLLOW_UP
    ttl_ms: int | None = None
    """The prompt's time to live; None: the hub's message TTL."""
    max_transitions: int | None = None
    plan_hash: EvidenceHashConfig | None = None
    repro_oracle: EvidenceHashConfig | None = None
    require_plan_hash: tuple[str, ...] = ()
    """Stage ids (sorted, unique) that refuse any checkpoint until a plan hash was captured."""
    notify: Notify | None = None
    hash: str = ""
    """sha256 hex of the canonical JSON of the normalised definition without secrets."""

    def stage(self, stage_id: str) -> StageDefinition | None:
        return next((stage for stage in self.stages if stage.id == stage_id), None)

    def index(self, stage_id: str) -> int:
        """The stage's position; raises ``ValueError`` for an unknown id."""
        for position, stage in enumerate(self.stages):
            if stage.id == stage_id:
                return position
        raise ValueError(stage_id)


# -- loading ------------------------------------------------------------------------------------

MAX_DEFINITION_ID_CHARS = 64
MAX_PROJECT_CHARS = 128
MAX_TARGET_CHARS = messages.MAX_TARGET_CHARS
MAX_ENV_NAME_CHARS = 128
MIN_SECRET_CHARS = 16
MAX_SECRET_CHARS = 512
MAX_EVENT_CHARS = 128
MAX_FILTER_PATH_CHARS = 256
MAX_FILTER_EQUALS_CHARS = 512
MIN_TTL_MS = messages.MIN_TTL // 1_000
MAX_TTL_MS = messages.MAX_TTL // 1_000
MAX_TEMPLATE_CHARS = 20_000
MAX_RUN_TRANSITIONS = 200
MAX_STAGES = 32
MAX_STAGE_ID_CHARS = messages.MAX_STAGE_ID_CHARS
MAX_LABEL_CHARS = 128
MAX_INSTRUCTIONS_CHARS = 4_000
MAX_REQUIRED_EVIDENCE = 32
MAX_KEY_CHARS = messages.MAX_REQUIREMENT_KEY_CHARS
MAX_ATTEMPTS = messages.MAX_ATTEMPT
DEFAULT_MAX_ATTEMPTS = 3
MAX_AUTO_RESUME_LIMIT = 20
MAX_STAGE_TRANSITIONS = 100
MAX_EDGE_TRANSITIONS = 100
MAX_OUTCOME_CHARS = 64
MAX_PRODUCERS = 8
MAX_SELECTORS = 16
MAX_PROVIDER_CHARS = 128
MAX_MODEL_CHARS = 128
MAX_NOTIFY_URL_CHARS = 2_048
IMPROVEMENT_AREAS = ("harness", "gates", "implementation", "workflow", "documentation", "security", "other")
"""The journal's improvement areas (workflow-context.md §3.2), in report order."""
POLICY_KIND = "peer-reply"
ACCEPTED_STATUS = "replied"

# An id names the definition in URL paths (/v1/webhooks/{id}), in the prompt's sender name and in
# idempotency keys joined with ':' (<id>:<delivery>), so it keeps to characters none of them escape.
_DEFINITION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SURROGATE = re.compile("[\ud800-\udfff]")
_PLAIN_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*")
_POLICY_FIELDS = ("kind", "minProducers", "eligibleAgents", "acceptedStatuses", "degradation", "distinctBy")
_PRODUCER_FIELDS = ("agent", "provider", "model")
_SECRET_FIELDS = ("secret", "secretEnv", "signalSecret", "signalSecretEnv")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a definition: where it came from, which definition, which field.

    ``definition`` is the definition's id, or ``#<index>`` in its text when it has no valid id;
    ``field`` is a JSON path (``stages[1].evidencePolicies.review.minProducers``). Either is empty
    when the problem is the whole text (it does not parse).
    """

    origin: str
    definition: str
    field: str
    message: str

    def __str__(self) -> str:
        parts = [self.origin]
        if self.definition:
            parts.append(f"workflow {self.definition}")
        if self.field:
            parts.append(self.field)
        return ": ".join([*parts, self.message])


class DefinitionError(InvalidArgument):
    """Definitions that do not load: every problem found, one per line of the message."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        if not problems:
            raise ValueError("a DefinitionError needs at least one problem")
        first = problems[0]
        super().__init__(
            "\n".join(str(problem) for problem in problems),
            reason=Reason.WORKFLOW_DEFINITION_INVALID,
            metadata={
                "origin": first.origin,
                "definition": first.definition,
                "field": first.field,
                "problems": str(len(problems)),
            },
            field_violations=tuple(
                FieldViolation(problem.field, str(replace(problem, field=""))) for problem in problems
            ),
        )
        self.problems: tuple[Problem, ...] = tuple(problems)


Warn = Callable[[Problem], None]
"""Receives a definition's warnings: it loads, but an operator should know (a quorum of one)."""


def load_text(
    text: str,
    *,
    origin: str,
    env: Mapping[str, str] | None,
    format: str | None = None,
    warn: Warn | None = None,
) -> tuple[WorkflowDefinition, ...]:
    """Load every definition of a JSON or YAML text: one definition object or an array of them.

    ``format`` is ``"json"`` or ``"yaml"``; None decides by ``origin``'s suffix (``.yaml`` and
    ``.yml`` are YAML, anything else JSON) and reads a text that fails as JSON and does not look
    like JSON (``{`` or ``[`` first) as YAML. ``env`` resolves ``secretEnv`` names; None loads the
    structure only (a named secret reads ``""``: resolved where it is used, by the replica using it).

    Raises:
        DefinitionError: the text does not parse, holds no definition, or any definition breaks
            a rule; it lists every problem of every definition.
        ValueError: ``format`` is neither ``"json"`` nor ``"yaml"``.
    """
    document = _parse(text, origin, format)
    if isinstance(document, list):
        entries: list[object] = document
    elif isinstance(document, Mapping):
        entries = [document]
    elif document is None:  # an empty YAML document (or only comments)
        entries = []
    else:
        raise DefinitionError([Problem(origin, "", "", "must hold a definition object or an array of them")])
    if not entries:
        raise DefinitionError([Problem(origin, "", "", "holds no definitions")])
    problems: list[Problem] = []
    definitions: list[WorkflowDefinition] = []
    first_index: dict[str, int] = {}
    for index, entry in enumerate(entries):
        name = _name(entry, index)
        if name in first_index:
            problems.append(
                Problem(origin, name, "id", f"duplicate workflow id: definition #{first_index[name]} has it too")
            )
        first_index.setdefault(name, index)
        definition = _definition(entry, name, _Reader(origin, name, problems), env, warn)
        if definition is not None:
            definitions.append(definition)
    if problems:
        raise DefinitionError(problems)
    return tuple(definitions)


def load_definition(
    raw: Mapping[str, object], *, origin: str, env: Mapping[str, str] | None, warn: Warn | None = None
) -> WorkflowDefinition:
    """Load one definition object (the JSON shape of workflow-context.md §1, as ``to_json`` writes it).

    Raises:
        DefinitionError: it breaks any rule; every problem is listed.
    """
    problems: list[Problem] = []
    name = _name(raw, 0)
    definition = _definition(raw, name, _Reader(origin, name, problems), env, warn)
    if problems or definition is None:
        raise DefinitionError(problems)
    return definition


def to_json(definition: WorkflowDefinition, *, redacted: bool = False) -> dict[str, object]:
    """The normalised definition in the original's camelCase JSON shape, defaults filled in.

    A secret appears as its ``secretEnv`` name, or as the literal ``secret`` it was given
    (``"***"`` when ``redacted``). Fields whose default is "none" are left out. Loading the result
    again (with the same environment) gives an equal definition.
    """

    def secret(literal: str | None, env_name: str | None, key: str) -> dict[str, object]:
        if env_name is not None:
            return {f"{key}Env": env_name}
        if literal is not None:
            return {key: "***" if redacted else literal}
        return {}

    data: dict[str, object] = {
        "id": definition.id,
        "source": definition.source.value,
        "project": definition.project,
        "target": definition.target,
        **secret(definition.secret, definition.secret_env, "secret"),
        **secret(definition.signal_secret, definition.signal_secret_env, "signalSecret"),
    }
    if definition.event is not None:
        data["event"] = definition.event
    if definition.filter is not None:
        data["filter"] = {"path": definition.filter.path, "equals": definition.filter.equals}
    data["delivery"] = definition.delivery.value
    if definition.ttl_ms is not None:
        data["ttlMs"] = definition.ttl_ms
    data["promptTemplate"] = definition.prompt_template
    if definition.max_transitions is not None:
        data["maxTransitions"] = definition.max_transitions
    for key, config in (("planHash", definition.plan_hash), ("reproOracle", definition.repro_oracle)):
        if config is not None:
            data[key] = {"stageId": config.stage_id, "evidenceKey": config.evidence_key}
    if definition.require_plan_hash:
        data["requirePlanHash"] = list(definition.require_plan_hash)
    data["stages"] = [_stage_json(stage) for stage in definition.stages]
    if definition.notify is not None:
        notify = definition.notify
        data["notify"] = {"url": notify.url, **secret(notify.secret, notify.secret_env, "secret")}
    return data


def definition_hash(definition: WorkflowDefinition) -> str:
    """sha256 hex (bare) of the canonical JSON of ``to_json`` without any secret or secret name.

    Rotating a secret, or moving it between ``secret`` and ``secretEnv``, leaves it unchanged.
    """
    data = to_json(definition)
    for key in _SECRET_FIELDS:
        data.pop(key, None)
    if definition.notify is not None:
        data["notify"] = {"url": definition.notify.url}
    return hashlib.sha256(canonical_json(data).encode("utf-8")).hexdigest()


def _stage_json(stage: StageDefinition) -> dict[str, object]:
    data: dict[str, object] = {
        "id": stage.id,
        "label": stage.label,
        "instructions": stage.instructions,
        "requiredEvidence": list(stage.required_evidence),
        "maxAttempts": stage.max_attempts,
    }
    if stage.auto_resume_limit is not None:
        data["autoResumeLimit"] = stage.auto_resume_limit
    if stage.area is not None:
        data["area"] = stage.area
    if stage.policies:
        data["evidencePolicies"] = {key: _policy_json(policy) for key, policy in stage.policies.items()}
    if stage.edges:
        data["on"] = {
            outcome: edge.target
            if edge.max_transitions is None
            else {"target": edge.target, "maxTransitions": edge.max_transitions}
            for outcome, edge in stage.edges.items()
        }
    if stage.max_transitions is not None:
        data["maxTransitions"] = stage.max_transitions
    return data


def _policy_json(policy: EvidencePolicy) -> dict[str, object]:
    def producer(entry: Producer) -> object:
        if entry.provider is None and entry.model is None:
            return entry.selector
        declared = {"provider": entry.provider, "model": entry.model}
        return {"agent": entry.selector, **{key: value for key, value in declared.items() if value is not None}}

    data: dict[str, object] = {
        "kind": POLICY_KIND,
        "minProducers": policy.min_producers,
        "eligibleAgents": [producer(entry) for entry in policy.eligible],
        "acceptedStatuses": [ACCEPTED_STATUS],
    }
    if policy.distinct_by:
        data["distinctBy"] = [dimension.value for dimension in policy.distinct_by]
    if policy.degraded_min_producers is not None:
        data["degradation"] = {"minProducers": policy.degraded_min_producers}
    return data


# -- parsing ------------------------------------------------------------------------------------


def _parse(text: str, origin: str, format: str | None) -> object:
    try:
        return documents.decode(text, origin=origin, format=format)
    except documents.DocumentError as error:
        raise DefinitionError([Problem(origin, "", "", str(error))]) from None


def _name(entry: object, index: int) -> str:
    """How problems name a definition: its id when that is valid, else its position."""
    if isinstance(entry, Mapping):
        raw = entry.get("id")
        if isinstance(raw, str) and _DEFINITION_ID.fullmatch(js_trim(raw)):
            return js_trim(raw)
    return f"#{index}"


def _path(parent: str, key: str) -> str:
    """The JSON path of ``key`` under ``parent``: ``a.b``, or ``a["odd key"]``."""
    if _PLAIN_KEY.fullmatch(key):
        return f"{parent}.{key}" if parent else key
    return f"{parent}[{json.dumps(key, ensure_ascii=False)}]"


def _utf16_key(value: str) -> bytes:
    """Sort key ordering strings by UTF-16 code units, as JavaScript's sort does."""
    return value.encode("utf-16-be", "surrogatepass")


class _Reader:
    """Reads one definition's raw values, recording a problem for each bad one instead of raising.

    Each reader returns None for a value that is absent (missing or null) or bad; a bad value
    has recorded its problem, so the definition is dropped at the end.
    """

    def __init__(self, origin: str, name: str, problems: list[Problem]) -> None:
        self.origin = origin
        self.name = name
        self.problems = problems

    def problem(self, field: str, message: str) -> None:
        self.problems.append(Problem(self.origin, self.name, field, message))

    def text(self, raw: object, field: str, limit: int, *, required: bool = True) -> str | None:
        """A string, trimmed, not empty, at most ``limit`` UTF-16 code units."""
        if raw is None:
            if required:
                self.problem(field, "is required")
            return None
        if not isinstance(raw, str):
            self.problem(field, "must be a string")
            return None
        value = js_trim(raw)
        if not value:
            self.problem(field, "must not be empty")
        elif "\x00" in value:
            self.problem(field, "must not contain NUL characters")
        elif _SURROGATE.search(value):
            self.problem(field, "must not contain unpaired surrogates")
        elif utf16_length(value) > limit:
            self.problem(field, f"exceeds {limit} characters")
        else:
            return value
        return None

    def choice(self, raw: object, field: str, choices: Sequence[str], *, required: bool = False) -> str | None:
        """One of ``choices`` (exactly, once trimmed)."""
        value = self.text(raw, field, MAX_KEY_CHARS, required=required)
        if value is not None and value not in choices:
            self.problem(field, f"must be one of {', '.join(choices)}")
            return None
        return value

    def integer(self, raw: object, field: str, minimum: int, maximum: int, *, required: bool = False) -> int | None:
        """An integer in range; like JavaScript's ``Number.isInteger``, ``3.0`` is one."""
        if raw is None:
            if required:
                self.problem(field, "is required")
            return None
        number = _as_integer(raw)
        if number is None or not minimum <= number <= maximum:
            self.problem(field, f"must be an integer between {minimum} and {maximum}")
            return None
        return number

    def mapping(self, raw: object, field: str, *, required: bool = False) -> dict[str, object] | None:
        if raw is None:
            if required:
                self.problem(field, "is required")
            return None
        if not isinstance(raw, Mapping):
            self.problem(field, "must be an object")
            return None
        result: dict[str, object] = {}
        for key, value in raw.items():
            if isinstance(key, str):
                result[key] = value
            else:  # only YAML can say this
                self.problem(f"{field}[{key!r}]", "keys must be strings")
        return result

    def array(self, raw: object, field: str, *, required: bool = False) -> list[object] | None:
        if raw is None:
            if required:
                self.problem(field, "is required")
            return None
        if not isinstance(raw, list):
            self.problem(field, "must be an array")
            return None
        return raw

    def only(self, value: Mapping[str, object], field: str, allowed: Sequence[str]) -> None:
        """Refuse every field of ``value`` not in ``allowed`` (inside evidence policies, where an
        unknown field may be a rule the operator believes is enforced)."""
        for key in value:
            if key not in allowed:
                self.problem(_path(field, key), f"is not a supported field (allowed: {', '.join(allowed)})")


def _as_integer(raw: object) -> int | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float) and math.isfinite(raw) and raw.is_integer():
        return int(raw)
    return None


def _definition(
    entry: object, name: str, r: _Reader, env: Mapping[str, str] | None, warn: Warn | None
) -> WorkflowDefinition | None:
    start = len(r.problems)
    value = r.mapping(entry, "", required=True)
    if value is None:
        return None

    definition_id = r.text(value.get("id"), "id", MAX_DEFINITION_ID_CHARS)
    if definition_id is not None and not _DEFINITION_ID.fullmatch(definition_id):
        r.problem("id", "must be letters, digits, '.', '_' or '-', starting with a letter or digit")
    source = r.choice(value.get("source"), "source", [member.value for member in Source])
    project = r.text(value.get("project"), "project", MAX_PROJECT_CHARS)
    if project is not None:
        try:
            projects.project_name("project", project)
        except InvalidArgument as error:
            r.problem("project", error.field_violations[0].description)
    target = r.text(value.get("target"), "target", MAX_TARGET_CHARS)
    secret, secret_env = _secret(r, value, "secret", "", env, required=True)
    signal_secret, signal_secret_env = _secret(r, value, "signalSecret", "", env, required=False)
    if secret and signal_secret and hmac.compare_digest(secret.encode(), signal_secret.encode()):
        r.problem(
            "signalSecretEnv" if signal_secret_env else "signalSecret",
            "must differ from the start secret (whoever may start a run must not be able to signal it)",
        )
    event = r.text(value.get("event"), "event", MAX_EVENT_CHARS, required=False)
    payload_filter = _filter(r, value.get("filter"))
    delivery = r.choice(value.get("delivery"), "delivery", [member.value for member in PromptDelivery])
    ttl_ms = r.integer(value.get("ttlMs"), "ttlMs", MIN_TTL_MS, MAX_TTL_MS)
    template = r.text(value.get("promptTemplate"), "promptTemplate", MAX_TEMPLATE_CHARS)
    max_transitions = r.integer(value.get("maxTransitions"), "maxTransitions", 1, MAX_RUN_TRANSITIONS)

    stages: list[StageDefinition | None] = []
    stage_ids: list[str | None] = []
    edges: list[list[tuple[Edge, str]]] = []
    raw_stages = r.array(value.get("stages"), "stages", required=True)
    if raw_stages is not None and not 1 <= len(raw_stages) <= MAX_STAGES:
        r.problem("stages", f"must hold 1 to {MAX_STAGES} stages")
    first_position: dict[str, int] = {}
    for position, raw_stage in enumerate(raw_stages or []):
        stage_id, stage, stage_edges = _stage(r, raw_stage, position, target, warn)
        if stage_id is not None and stage_id in first_position:
            r.problem(f"stages[{position}].id", f"duplicate stage id {stage_id} (stages[{first_position[stage_id]}])")
            stage_id = None
        if stage_id is not None:
            first_position[stage_id] = position
        stages.append(stage)
        stage_ids.append(stage_id)
        edges.append(stage_edges)
    _check_edges(r, stage_ids, edges, max_transitions, value.get("maxTransitions"))

    known = [stage for stage in stages if stage is not None]
    plan_hash = _hash_config(r, value.get("planHash"), "planHash", first_position, known)
    repro_oracle = _hash_config(r, value.get("reproOracle"), "reproOracle", first_position, known)
    require_plan_hash = _require_plan_hash(
        r, value.get("requirePlanHash"), first_position, plan_hash, value.get("planHash") is not None
    )
    notify = _notify(r, value.get("notify"), env)

    if len(r.problems) > start:
        return None
    assert definition_id and project and target and secret is not None and template  # all checked above
    definition = WorkflowDefinition(
        id=definition_id,
        project=project,
        target=target,
        secret=secret,
        prompt_template=template,
        stages=tuple(known),
        source=Source(source or Source.GENERIC.value),
        secret_env=secret_env,
        signal_secret=signal_secret,
        signal_secret_env=signal_secret_env,
        event=event,
        filter=payload_filter,
        delivery=PromptDelivery(delivery or PromptDelivery.FOLLOW_UP.value),
        ttl_ms=ttl_ms,
        max_transitions=max_transitions,
        plan_hash=plan_hash,
        repro_oracle=repro_oracle,
        require_plan_hash=require_plan_hash,
        notify=notify,
    )
    return replace(definition, hash=definition_hash(definition))


def _secret(
    r: _Reader, value: Mapping[str, object], key: str, at: str, env: Mapping[str, str] | None, *, required: bool
) -> tuple[str | None, str | None]:
    """A secret given literally (``key``) or by the name of an environment variable (``keyEnv``):
    at most one of them, and the secret 16 to 512 characters once trimmed. Returns the secret
    and the variable's name; with ``env`` None a named secret is not resolved (``""``)."""
    env_key = f"{key}Env"
    literal, named = value.get(key), value.get(env_key)
    if literal is not None and named is not None:
        r.problem(at + key, f"set only one of {key} and {env_key}")
        return None, None
    if named is not None:
        field = at + env_key
        name = r.text(named, field, MAX_ENV_NAME_CHARS)
        if name is None:
            return None, None
        if not _ENV_NAME.fullmatch(name):
            r.problem(field, "must be an environment variable name (letters, digits and '_', no digit first)")
            return None, None
        if env is None:
            return "", name  # the structure only: the secret is resolved where it is used
        resolved = env.get(name)
        if resolved is None:
            # The original's words ("workflow.signalSecret must be a string"), with the cause.
            r.problem(field, f"environment variable {name} is not set (workflow.{at}{key} must be a string)")
            return None, name
        secret, where = js_trim(resolved), f"the value of {name} "
    elif literal is not None:
        field = at + key
        if not isinstance(literal, str):
            r.problem(field, "must be a string")
            return None, None
        secret, where, name = js_trim(literal), "", None
    else:
        if required:
            r.problem(at + key, f"is required (set {key} or {env_key})")
        return None, None
    if "\x00" in secret or _SURROGATE.search(secret):
        r.problem(field, f"{where}must not contain NUL characters or unpaired surrogates")
        return None, name
    if not MIN_SECRET_CHARS <= utf16_length(secret) <= MAX_SECRET_CHARS:
        r.problem(field, f"{where}must be between {MIN_SECRET_CHARS} and {MAX_SECRET_CHARS} characters")
        return None, name
    return secret, name


def _filter(r: _Reader, raw: object) -> PayloadFilter | None:
    value = r.mapping(raw, "filter")
    if value is None:
        return None
    path = r.text(value.get("path"), "filter.path", MAX_FILTER_PATH_CHARS)
    equals = r.text(value.get("equals"), "filter.equals", MAX_FILTER_EQUALS_CHARS)
    return PayloadFilter(path, equals) if path is not None and equals is not None else None


def _stage(
    r: _Reader, raw: object, position: int, target: str | None, warn: Warn | None
) -> tuple[str | None, StageDefinition | None, list[tuple[Edge, str]]]:
    """One stage; returns its id (when valid), the stage (when all of it is) and its edges with
    their fields (targets are checked once every stage id is known)."""
    at = f"stages[{position}]"
    start = len(r.problems)
    value = r.mapping(raw, at, required=True)
    if value is None:
        return None, None, []
    stage_id = r.text(value.get("id"), f"{at}.id", MAX_STAGE_ID_CHARS)
    label = r.text(value.get("label"), f"{at}.label", MAX_LABEL_CHARS, required=False)
    instructions = r.text(value.get("instructions"), f"{at}.instructions", MAX_INSTRUCTIONS_CHARS)
    required = _required_evidence(r, value.get("requiredEvidence"), f"{at}.requiredEvidence")
    max_attempts = r.integer(value.get("maxAttempts"), f"{at}.maxAttempts", 1, MAX_ATTEMPTS)
    auto_resume = r.integer(value.get("autoResumeLimit"), f"{at}.autoResumeLimit", 1, MAX_AUTO_RESUME_LIMIT)
    area = r.choice(value.get("area"), f"{at}.area", IMPROVEMENT_AREAS)
    policies = _policies(r, value.get("evidencePolicies"), f"{at}.evidencePolicies", required, target, warn)
    edges = _edges(r, value.get("on"), f"{at}.on")
    max_transitions = r.integer(value.get("maxTransitions"), f"{at}.maxTransitions", 1, MAX_STAGE_TRANSITIONS)
    if len(r.problems) > start or stage_id is None or instructions is None:
        return stage_id, None, edges
    stage = StageDefinition(
        id=stage_id,
        label=label or stage_id,
        instructions=instructions,
        required_evidence=required,
        max_attempts=max_attempts or DEFAULT_MAX_ATTEMPTS,
        auto_resume_limit=auto_resume,
        area=area,
        policies=policies,
        edges={edge.outcome: edge for edge, _ in edges},
        max_transitions=max_transitions,
    )
    return stage_id, stage, edges


def _required_evidence(r: _Reader, raw: object, at: str) -> tuple[str, ...]:
    items = r.array(raw, at)
    if items is None:
        return ()
    if len(items) > MAX_REQUIRED_EVIDENCE:
        r.problem(at, f"must hold at most {MAX_REQUIRED_EVIDENCE} keys")
    keys: list[str] = []
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        text = r.text(item, f"{at}[{index}]", MAX_KEY_CHARS)
        if text is None:
            continue
        key = canonical_requirement_key(text)
        if key in first:
            r.problem(f"{at}[{index}]", f"duplicates {at}[{first[key]}]: both are {key!r} once canonicalised")
            continue
        first[key] = index
        keys.append(key)
    return tuple(keys)


def _policies(
    r: _Reader, raw: object, at: str, required: tuple[str, ...], target: str | None, warn: Warn | None
) -> dict[str, EvidencePolicy]:
    value = r.mapping(raw, at)
    if value is None:
        return {}
    policies: dict[str, EvidencePolicy] = {}
    first: dict[str, str] = {}
    for raw_key, raw_policy in value.items():
        field = _path(at, raw_key)
        text = r.text(raw_key, field, MAX_KEY_CHARS)
        key = canonical_requirement_key(text) if text is not None else None
        if key is not None and key not in required:
            r.problem(field, f"{key!r} is not one of the stage's requiredEvidence")
        elif key is not None and key in first:
            r.problem(field, f"duplicates {first[key]}: both are {key!r} once canonicalised")
            key = None
        if key is not None:
            first[key] = field
        policy = _policy(r, raw_policy, field, key or "", target, warn)
        if policy is not None and key is not None:
            policies[key] = policy
    return policies


def _policy(r: _Reader, raw: object, at: str, key: str, target: str | None, warn: Warn | None) -> EvidencePolicy | None:
    start = len(r.problems)
    value = r.mapping(raw, at, required=True)
    if value is None:
        return None
    r.only(value, at, _POLICY_FIELDS)
    kind = value.get("kind")
    if kind is None:
        r.problem(f"{at}.kind", f'is required ("{POLICY_KIND}")')
    elif not isinstance(kind, str) or js_trim(kind) != POLICY_KIND:
        r.problem(f"{at}.kind", f'must be "{POLICY_KIND}"')
    minimum = r.integer(value.get("minProducers"), f"{at}.minProducers", 1, MAX_PRODUCERS, required=True)
    eligible = _producers(r, value.get("eligibleAgents"), f"{at}.eligibleAgents", target)
    distinct_by = _distinct_by(r, value.get("distinctBy"), f"{at}.distinctBy")
    statuses = value.get("acceptedStatuses")
    if statuses is not None and not (
        isinstance(statuses, list)
        and len(statuses) == 1
        and isinstance(statuses[0], str)
        and js_trim(statuses[0]) == ACCEPTED_STATUS
    ):
        r.problem(f"{at}.acceptedStatuses", f'must be ["{ACCEPTED_STATUS}"] (the only status peer evidence may have)')
    degraded = _degradation(r, value.get("degradation"), f"{at}.degradation", minimum)

    if minimum is not None and eligible is not None:
        if minimum > len(eligible):
            r.problem(f"{at}.minProducers", f"exceeds the number of eligibleAgents ({len(eligible)})")
        elif distinct_by and _declared(r, eligible, distinct_by, f"{at}.eligibleAgents"):
            reachable = _max_distinct(eligible, distinct_by)
            if reachable < minimum:
                dimensions = " and ".join(dimension.value for dimension in distinct_by)
                r.problem(
                    f"{at}.minProducers",
                    f"cannot be met: at most {reachable} eligible agents differ pairwise by {dimensions}",
                )
    if len(r.problems) > start or minimum is None or eligible is None:
        return None
    if degraded is not None and degraded < 2 and warn is not None:
        warn(
            Problem(
                r.origin,
                r.name,
                f"{at}.degradation.minProducers",
                f"is {degraded}: a single producer can satisfy the degraded quorum",
            )
        )
    return EvidencePolicy(key, minimum, eligible, distinct_by, degraded)


def _producers(r: _Reader, raw: object, at: str, target: str | None) -> tuple[Producer, ...] | None:
    items = r.array(raw, at, required=True)
    if items is None:
        return None
    start = len(r.problems)
    if not 1 <= len(items) <= MAX_SELECTORS:
        r.problem(at, f"must hold 1 to {MAX_SELECTORS} agents")
    producers: list[Producer] = []
    first: dict[str, int] = {}
    target_key = js_lower(target) if target is not None else None
    for index, item in enumerate(items):
        field = f"{at}[{index}]"
        provider = model = None
        if isinstance(item, Mapping):
            entry = r.mapping(item, field) or {}
            r.only(entry, field, _PRODUCER_FIELDS)
            selector = r.text(entry.get("agent"), f"{field}.agent", MAX_TARGET_CHARS)
            provider = r.text(entry.get("provider"), f"{field}.provider", MAX_PROVIDER_CHARS, required=False)
            model = r.text(entry.get("model"), f"{field}.model", MAX_MODEL_CHARS, required=False)
        elif isinstance(item, str) or item is None:
            selector = r.text(item, field, MAX_TARGET_CHARS)
        else:
            r.problem(field, "must be an agent name or id, or an object {agent, provider, model}")
            continue
        if selector is None:
            continue
        lowered = js_lower(selector)
        if lowered in first:
            r.problem(field, f"duplicates {at}[{first[lowered]}] (agents are compared case-insensitively)")
            continue
        first[lowered] = index
        if lowered == target_key:
            r.problem(field, f"must not be the workflow target {target}: it cannot produce evidence for its own run")
            continue
        producers.append(Producer(selector, provider, model))
    return tuple(producers) if len(r.problems) == start else None


def _distinct_by(r: _Reader, raw: object, at: str) -> tuple[Dimension, ...]:
    items = r.array(raw, at)
    if items is None:
        return ()
    names = [member.value for member in Dimension]
    chosen: set[Dimension] = set()
    for index, item in enumerate(items):
        name = r.choice(item, f"{at}[{index}]", names, required=True)
        if name is None:
            continue
        if Dimension(name) in chosen:
            r.problem(f"{at}[{index}]", f"lists {name} twice")
        chosen.add(Dimension(name))
    # Declaration order means nothing: the canonical order keeps the hash of equal policies equal.
    return tuple(member for member in Dimension if member in chosen)


def _degradation(r: _Reader, raw: object, at: str, minimum: int | None) -> int | None:
    value = r.mapping(raw, at)
    if value is None:
        return None
    r.only(value, at, ("minProducers",))
    field = f"{at}.minProducers"
    raw_min = value.get("minProducers")
    number = _as_integer(raw_min)
    if raw_min is None:
        r.problem(field, "is required")
    elif number is None or number < 1 or (minimum is not None and number >= minimum):
        bound = f" ({minimum})" if minimum is not None else ""
        r.problem(field, f"must be an integer of at least 1 and lower than minProducers{bound}")
    else:
        return number
    return None


def _declared(r: _Reader, eligible: tuple[Producer, ...], dimensions: tuple[Dimension, ...], at: str) -> bool:
    """Whether every eligible agent declares each dimension the quorum must differ in; records
    a problem for each that does not (an undeclared provider could be anyone's)."""
    complete = True
    for index, producer in enumerate(eligible):
        for dimension in dimensions:
            if _dimension(producer, dimension) is None:
                r.problem(f"{at}[{index}]", f"must declare its {dimension.value} (distinctBy lists {dimension.value})")
                complete = False
    return complete


def _dimension(producer: Producer, dimension: Dimension) -> str | None:
    return diversity.declared((producer.provider, producer.model), dimension)


def _max_distinct(eligible: tuple[Producer, ...], dimensions: tuple[Dimension, ...]) -> int:
    """The most eligible agents that differ pairwise in every dimension (``diversity``)."""
    return diversity.distinct_count(((producer.provider, producer.model) for producer in eligible), dimensions)


def _edges(r: _Reader, raw: object, at: str) -> list[tuple[Edge, str]]:
    value = r.mapping(raw, at)
    if value is None:
        return []
    edges: list[tuple[Edge, str]] = []
    seen: set[str] = set()
    for raw_outcome, raw_target in value.items():
        field = _path(at, raw_outcome)
        outcome = r.text(raw_outcome, field, MAX_OUTCOME_CHARS)
        if outcome is not None and outcome in seen:
            r.problem(field, f"duplicates the outcome {outcome!r} (outcome keys are trimmed)")
            outcome = None
        if isinstance(raw_target, Mapping):
            rule = r.mapping(raw_target, field) or {}
            target_field = f"{field}.target"
            target = r.text(rule.get("target"), target_field, MAX_STAGE_ID_CHARS)
            budget = r.integer(rule.get("maxTransitions"), f"{field}.maxTransitions", 1, MAX_EDGE_TRANSITIONS)
            if rule.get("maxTransitions") is not None and budget is None:
                continue
        elif isinstance(raw_target, str) or raw_target is None:
            target_field = field
            target = r.text(raw_target, field, MAX_STAGE_ID_CHARS)
            budget = None
        else:
            r.problem(field, f'must be a stage id, "{TERMINAL}", or {{target, maxTransitions}}')
            continue
        if outcome is not None and target is not None:
            seen.add(outcome)
            edges.append((Edge(outcome, target, budget), target_field))
    return edges


def _check_edges(
    r: _Reader,
    stage_ids: list[str | None],
    edges: list[list[tuple[Edge, str]]],
    max_transitions: int | None,
    raw_max_transitions: object,
) -> None:
    """Targets exist; a forward edge goes to the next stage only (so no stage, with its approvals
    and gates, is bypassed); a back-edge (to the stage itself or an earlier one) needs the run
    budget ``maxTransitions``."""
    position = {stage_id: index for index, stage_id in enumerate(stage_ids) if stage_id is not None}
    back_edges: list[str] = []
    for source, stage_edges in enumerate(edges):
        for edge, at in stage_edges:
            if edge.target == TERMINAL:
                continue
            target = position.get(edge.target)
            if target is None:
                r.problem(at, f"targets unknown stage {edge.target}")
            elif target > source + 1:
                following = stage_ids[source + 1] or f"stages[{source + 1}]"
                r.problem(
                    at,
                    f"skips intermediate stages by targeting {edge.target}: a forward transition may only"
                    f" target the next stage ({following}), so no approval or gate is bypassed",
                )
            elif target <= source:
                back_edges.append(at)
    if back_edges and max_transitions is None and raw_max_transitions is None:
        r.problem(
            "maxTransitions",
            f"is required: {back_edges[0]} is a back-edge, and a cycle needs a run budget (1 to {MAX_RUN_TRANSITIONS})",
        )


def _hash_config(
    r: _Reader, raw: object, at: str, positions: Mapping[str, int], stages: Sequence[StageDefinition]
) -> EvidenceHashConfig | None:
    """``planHash`` / ``reproOracle``: an existing stage and one of its plain required keys.

    The key must be one the stage requires as evidence strings (not a peer-policy key): only
    then does the stage's pass guarantee the value exists to capture.
    """
    value = r.mapping(raw, at)
    if value is None:
        return None
    stage_id = r.text(value.get("stageId"), f"{at}.stageId", MAX_STAGE_ID_CHARS)
    text = r.text(value.get("evidenceKey"), f"{at}.evidenceKey", MAX_KEY_CHARS)
    key = canonical_requirement_key(text) if text is not None else None
    if stage_id is not None and stage_id not in positions:
        r.problem(f"{at}.stageId", f"names no stage of this definition ({stage_id})")
        return None
    if stage_id is None or key is None:
        return None
    stage = next((candidate for candidate in stages if candidate.id == stage_id), None)
    if stage is not None and key not in stage.required_evidence:
        r.problem(f"{at}.evidenceKey", f"{key!r} is not one of stage {stage_id}'s requiredEvidence")
    elif stage is not None and key in stage.policies:
        r.problem(f"{at}.evidenceKey", f"{key!r} is a peer evidence requirement: it has no values to hash")
    return EvidenceHashConfig(stage_id, key)


def _require_plan_hash(
    r: _Reader,
    raw: object,
    positions: Mapping[str, int],
    plan_hash: EvidenceHashConfig | None,
    plan_hash_given: bool,
) -> tuple[str, ...]:
    """Stage ids that need the plan hash, unique and sorted by code unit.

    Each must come after the ``planHash`` stage: a stage before it, or the stage itself, could
    never checkpoint (the hash is captured only when the plan stage passes).
    """
    items = r.array(raw, "requirePlanHash")
    if items is None:
        return ()
    if items and plan_hash is None and not plan_hash_given:
        r.problem("requirePlanHash", "needs planHash: without it no plan hash is ever captured")
    chosen: set[str] = set()
    for index, item in enumerate(items):
        field = f"requirePlanHash[{index}]"
        stage_id = r.text(item, field, MAX_STAGE_ID_CHARS)
        if stage_id is None:
            continue
        if stage_id not in positions:
            r.problem(field, f"names no stage of this definition ({stage_id})")
        elif plan_hash is not None and positions[stage_id] <= positions.get(plan_hash.stage_id, -1):
            r.problem(field, f"stage {stage_id} does not come after the planHash stage {plan_hash.stage_id}")
        chosen.add(stage_id)
    return tuple(sorted(chosen, key=_utf16_key))


def _notify(r: _Reader, raw: object, env: Mapping[str, str] | None) -> Notify | None:
    value = r.mapping(raw, "notify")
    if value is None:
        return None
    url = r.text(value.get("url"), "notify.url", MAX_NOTIFY_URL_CHARS)
    if url is not None:
        try:
            parts = urllib.parse.urlsplit(url)
            host = parts.hostname
        except ValueError:
            parts, host = None, None
        if parts is None or parts.scheme.lower() not in ("http", "https") or not host:
            r.problem("notify.url", "must be an http or https URL with a host")
            url = None
        elif parts.username is not None or parts.password is not None:
            r.problem("notify.url", "must not carry credentials (requests are signed with the notify secret)")
            url = None
        elif re.search(r"\s", url):
            r.problem("notify.url", "must not contain whitespace")
            url = None
    secret, secret_env = _secret(r, value, "secret", "notify.", env, required=True)
    if url is None or secret is None:
        return None
    return Notify(url, secret, secret_env)
