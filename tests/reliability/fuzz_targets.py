"""B11's fuzzers: request strategies from the descriptors, a hub world to aim them at, and the atheris target.

- ``request_bodies(descriptor, pool)``: a hypothesis strategy of request bytes for one RPC, built from
  its request descriptor: every field set or not; strings from the world's real ids and names, from
  text with NUL, control and astral characters, and huge ones; integers over their type's whole range
  and its edges; enums by any number; repeated fields of 0 to 120 items; nested messages; Struct
  payloads of any JSON; Durations and Timestamps out of range; unknown fields; and one body in five
  plain random bytes (most do not decode).
- ``FuzzWorld`` / ``build_world(invoke)``: a project with a calling agent, a quiet listener, two
  responders (which reply to everything, so fanouts and waits end), leases, a runtime with sync
  events, a decoy project and an operator for the admin RPCs to spend themselves on; each RPC's
  credential (the kind it admits); and the pool of real strings.
- ``InProcessHub``: decode + validate + handler without a network: the hub's own admission
  wrapper around its own servicers (``HubInterceptor.wrap``), called with a fake
  ``ServicerContext`` on a real store (a temporary SQLite file), the bytes decoded by the
  wrapper's tolerant deserializer. ``check(outcome)`` is B11's verdict on one answer.
- ``python -m tests.reliability.fuzz_targets DIR [libFuzzer flags]``: atheris, coverage-guided over
  kxm_grpc, every input one RPC (its first byte) and its request bytes, through ``InProcessHub``;
  a verdict that fails raises, which atheris reports as a crash with the input saved. It writes
  ``DIR/stats.json`` (executions per RPC, codes) as it goes.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from hypothesis import strategies as st

from kxm_grpc._gen.kxm.v1 import (
    admin_service_pb2,
    agent_service_pb2,
    lease_service_pb2,
    message_service_pb2,
    runtime_service_pb2,
)
from kxm_grpc.errors import DOMAIN
from kxm_grpc.server.methods import RPCS
from kxm_grpc.services.auth import Access

Metadata = tuple[tuple[str, str], ...]

MAX_REQUEST_BYTES = 256 * 1024
"""The hub's ``grpc.max_receive_message_length`` (``kxm_grpc/server/app.py``)."""

METHODS: tuple[str, ...] = tuple(RPCS)
"""Every RPC, in the registry's order (an atheris input's first byte picks one)."""

STREAMING = {method for method, facts in RPCS.items() if facts.server_streaming}

# -- strategies -------------------------------------------------------------------------------------------

_INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_ENUM: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}

_WAIT_FIELDS = frozenset({"wait", "timeout", "reply_wait"})
"""Duration fields that make the hub wait: drawn short, negative or out of range, never long and
valid (a long wait is answered at the call's deadline: B16's subject, not this one's)."""

_SPECIAL_TEXT = (
    "",
    " ",
    "\x00",
    "a\x00b",
    "\t\n\r",
    "/",
    "../../etc/passwd",
    "' OR '1'='1' --",
    "%s%n%x",
    "\u202e\u200f",  # bidi overrides
    "e\u0301\u0301\u0301",  # combining marks
    "\U0001f600" * 3,  # astral plane
    "\ufeff",
    "\uffff",
    "NaN",
    "-1",
    "9" * 40,
    "sha256:" + "0" * 64,
    "kxm_proj_",
    "agt_",
    "msg_",
)


def _text(pool: Sequence[str], *, small: bool = False) -> st.SearchStrategy[str]:
    """Strings: real ones from the pool, special ones, any text; huge ones unless ``small``."""
    if small:
        variants: list[st.SearchStrategy[str]] = [st.text(max_size=8), st.sampled_from(_SPECIAL_TEXT[:8])]
        return st.one_of(*variants, st.sampled_from(list(pool))) if pool else st.one_of(*variants)
    huge = st.tuples(st.sampled_from(("x", "é", "\U0001f600", "\x00")), st.integers(300, 20_000)).map(
        lambda pair: pair[0] * pair[1]
    )
    variants = [
        st.text(max_size=40),
        st.text(st.characters(codec="utf-8"), max_size=200),
        st.sampled_from(_SPECIAL_TEXT),
        huge,
    ]
    if pool:
        real = st.sampled_from(list(pool))
        variants += [real, real, st.tuples(real, st.sampled_from(("", " ", "x", "\x00", "\U0001f600"))).map("".join)]
    return st.one_of(*variants)


def _integers(low: int, high: int) -> st.SearchStrategy[int]:
    edges = sorted(e for e in {low, high, 0, 1, -1, 2**31 - 1, 2**31, 2**53, 2**53 + 1, 2**63 - 1} if low <= e <= high)
    small = st.integers(max(low, -1000), min(high, 1000))
    return st.one_of(small, st.sampled_from(edges), st.integers(low, high))


def _plausible_scalar(fd: FieldDescriptor, pool: Sequence[str]) -> st.SearchStrategy[Any]:
    """A value a well-behaved client might send: real names, small numbers, defined enum values."""
    kind = fd.type
    if kind == FieldDescriptor.TYPE_ENUM:
        assert fd.enum_type is not None
        return st.sampled_from([v.number for v in fd.enum_type.values])
    if kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]
        return st.integers(max(low, 0), min(high, 12))
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return st.floats(0, 100)
    if kind == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=16)
    ids = st.from_regex(r"[a-z]{3}_[a-z0-9]{6,12}", fullmatch=True)
    words = st.text("abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=12)
    return st.one_of(st.sampled_from(list(pool)), st.sampled_from(list(pool)), ids, words) if pool else words


def _scalar(fd: FieldDescriptor, pool: Sequence[str], *, small: bool = False) -> st.SearchStrategy[Any]:
    kind = fd.type
    if kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]
        if kind == FieldDescriptor.TYPE_ENUM:
            assert fd.enum_type is not None
            return st.one_of(st.sampled_from([v.number for v in fd.enum_type.values]), _integers(low, high))
        return _integers(low, high)
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return st.floats(width=64 if kind == FieldDescriptor.TYPE_DOUBLE else 32)
    if kind == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=8 if small else 300)
    assert kind == FieldDescriptor.TYPE_STRING, fd.full_name
    return _text(pool, small=small)


_json = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers(-(2**60), 2**60) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=24,
)


def _duration(fd: FieldDescriptor) -> st.SearchStrategy[tuple[int, int]]:
    if fd.name in _WAIT_FIELDS:
        return st.one_of(
            st.tuples(st.just(0), st.integers(0, 300_000_000)),  # up to 0.3 s
            st.tuples(st.integers(-(2**63), -1), st.integers(-(10**9), 0)),
            st.tuples(st.integers(315_576_000_001, 2**63 - 1), st.integers(0, 10**9)),  # beyond the Duration range
            st.tuples(st.integers(0, 1), st.sampled_from([-1, 10**9, -(10**9), 2**31 - 1])),  # bad nanos or signs
        )
    return st.tuples(_integers(-(2**63), 2**63 - 1), _integers(-(2**31), 2**31 - 1))


@st.composite
def plausible_messages(draw: st.DrawFn, descriptor: Descriptor, pool: Sequence[str], depth: int = 0) -> Message:
    """A message much like a real client's (so validation passes and the handlers' own paths run):
    each field set or not, to a real name, a small number, a short valid duration, a plain payload."""
    message = message_factory.GetMessageClass(descriptor)()
    if descriptor.full_name == "google.protobuf.Struct":
        message.update(draw(st.sampled_from(({"status": "running"}, {"status": "done", "stepAttempt": 1}, {}))))  # type: ignore[attr-defined]
        return message
    for fd in descriptor.fields:
        if not draw(st.booleans()):
            continue
        repeated = fd.is_repeated
        if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
            continue
        if fd.message_type is not None:
            if depth >= 4:
                continue
            for _ in range(draw(st.integers(0, 3)) if repeated else 1):
                target = getattr(message, fd.name).add() if repeated else getattr(message, fd.name)
                if fd.message_type.full_name in ("google.protobuf.Duration", "google.protobuf.Timestamp"):
                    if fd.message_type.full_name == "google.protobuf.Timestamp":
                        target.seconds = draw(st.integers(1_700_000_000, 1_800_000_000))
                    else:
                        target.seconds = draw(st.integers(0, 1 if fd.name in _WAIT_FIELDS else 700))
                        target.nanos = draw(st.integers(0, 300_000_000 if fd.name in _WAIT_FIELDS else 999_999_999))
                        if fd.name in _WAIT_FIELDS:
                            target.seconds = 0
                else:
                    target.CopyFrom(draw(plausible_messages(fd.message_type, pool, depth + 1)))
            continue
        value = _plausible_scalar(fd, pool)
        if repeated:
            getattr(message, fd.name).extend(draw(st.lists(value, max_size=3)))
        else:
            setattr(message, fd.name, draw(value))
    return message


@st.composite
def messages(
    draw: st.DrawFn, descriptor: Descriptor, pool: Sequence[str], depth: int = 0, small: bool = False
) -> Message:
    """A message of ``descriptor`` with each field set or not, to any value its type admits.

    Sizes are bounded so a request stays near the hub's 256 KiB limit: only the top level repeats
    a message up to 120 times (its items then ``small``: no huge strings, nothing repeated more than
    twice), a long repeated scalar field has short items, nesting stops at depth 4.
    """
    cls = message_factory.GetMessageClass(descriptor)
    message = cls()
    if descriptor.full_name == "google.protobuf.Struct":
        message.update(draw(st.dictionaries(st.text(max_size=16), _json, max_size=6)))  # type: ignore[attr-defined]
        return message
    for fd in descriptor.fields:
        if not draw(st.booleans()):
            continue
        repeated = fd.is_repeated
        if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
            key_fd, value_fd = fd.message_type.fields_by_name["key"], fd.message_type.fields_by_name["value"]
            target = getattr(message, fd.name)
            for key in draw(st.lists(_scalar(key_fd, pool, small=True), max_size=4)):
                if value_fd.message_type is None:
                    target[key] = draw(_scalar(value_fd, pool, small=small))
                elif depth < 4:
                    target[key].CopyFrom(draw(messages(value_fd.message_type, pool, depth + 1, small)))
            continue
        if fd.message_type is not None:
            if depth >= 4:
                continue
            if fd.message_type.full_name in ("google.protobuf.Duration", "google.protobuf.Timestamp"):
                values = [draw(_duration(fd)) for _ in range(draw(st.integers(0, 3)) if repeated else 1)]
                for seconds, nanos in values:
                    target = getattr(message, fd.name).add() if repeated else getattr(message, fd.name)
                    target.seconds, target.nanos = seconds, nanos
                continue
            if not repeated:
                count = 1
            elif depth == 0 and not small:
                count = draw(st.one_of(st.integers(0, 3), st.integers(95, 120)))
            else:
                count = draw(st.integers(0, 2))
            for _ in range(count):
                value = draw(messages(fd.message_type, pool, depth + 1, small or count > 3))
                if repeated:
                    getattr(message, fd.name).add().CopyFrom(value)
                else:
                    getattr(message, fd.name).CopyFrom(value)
            continue
        if repeated:
            size = draw(st.integers(0, 4) if small else st.one_of(st.integers(0, 4), st.integers(95, 130)))
            items = _scalar(fd, pool, small=small or size > 4)
            getattr(message, fd.name).extend(draw(st.lists(items, min_size=size, max_size=size)))
        else:
            setattr(message, fd.name, draw(_scalar(fd, pool, small=small)))
    return message


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


@st.composite
def unknown_fields(draw: st.DrawFn) -> bytes:
    """One field the request type does not have (or a known number with another wire type)."""
    number = draw(st.one_of(st.integers(1, 20), st.integers(1000, 2**29 - 1)))
    wire = draw(st.sampled_from((0, 1, 2, 5)))
    tag = _varint(number << 3 | wire)
    if wire == 0:
        return tag + _varint(draw(st.integers(0, 2**64 - 1)))
    if wire == 1:
        return tag + draw(st.binary(min_size=8, max_size=8))
    if wire == 5:
        return tag + draw(st.binary(min_size=4, max_size=4))
    payload = draw(st.binary(max_size=64))
    return tag + _varint(len(payload)) + payload


def request_bodies(descriptor: Descriptor, pool: Sequence[str]) -> st.SearchStrategy[bytes]:
    """Request bytes for one RPC: two in six a plausible message, two a hostile one (any value of each
    field's type), one a hostile one with unknown fields, one raw bytes."""
    plausible = plausible_messages(descriptor, pool).map(lambda message: message.SerializeToString())
    hostile = messages(descriptor, pool).map(lambda message: message.SerializeToString())
    unknown = st.builds(
        lambda message, extra: message.SerializeToString() + extra,
        messages(descriptor, pool),
        st.lists(unknown_fields(), min_size=1, max_size=3).map(b"".join),
    )
    return st.one_of(plausible, plausible, hostile, hostile, unknown, st.binary(max_size=600))


# -- the verdict ---------------------------------------------------------------------------------------------

ALLOWED = frozenset(
    {
        "OK",
        "INVALID_ARGUMENT",
        "NOT_FOUND",
        "ALREADY_EXISTS",
        "PERMISSION_DENIED",
        "FAILED_PRECONDITION",
        "ABORTED",
        "OUT_OF_RANGE",
        "RESOURCE_EXHAUSTED",
    }
)
"""The codes a request's content may earn with valid credentials. Never: UNKNOWN or INTERNAL (a
crash of the handler), DEADLINE_EXCEEDED (a hang past the deadline: every wait is answered before
it), UNAVAILABLE, CANCELLED, UNIMPLEMENTED, DATA_LOSS, UNAUTHENTICATED (the credentials are valid)."""


@dataclass
class Answer:
    """One call's ending, from either surface (network or in-process)."""

    code: str
    reason: str | None = None
    domain: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    details: str = ""
    seconds: float = 0.0
    size: int = 0
    """The request's bytes."""


PROTO_DIR = Path(__file__).resolve().parents[2] / "proto" / "kxm" / "v1"
_ERROR_LINE = re.compile(r"^\s*//\s*- ([A-Z_]+(?:, [A-Z_]+)*)(?: \(([A-Z_, ]+)\))?:?(.*)$")
_RPC_LINE = re.compile(r"^\s*rpc (\w+)\(")
UNIVERSAL_ERRORS = frozenset(
    {("INVALID_ARGUMENT", "ERROR_REASON_PROTOCOL_ERROR"), ("RESOURCE_EXHAUSTED", "ERROR_REASON_RATE_LIMITED")}
)
"""What any RPC may answer (docs/errors.md): request bytes that do not decode, a spent rate budget."""


def documented_errors() -> dict[str, set[tuple[str, str]]]:
    """Each RPC's (code, reason) pairs, as the ``Errors:`` list of its comment in the proto says
    (``as for SendMessage`` brings SendMessage's pairs of the codes it names)."""
    found: dict[str, set[tuple[str, str]]] = {}
    for path in sorted(PROTO_DIR.glob("*_service.proto")):
        service = ""
        block: list[str] = []
        for line in path.read_text().splitlines():
            if line.startswith("service "):
                service = line.split()[1]
            rpc = _RPC_LINE.match(line)
            if rpc:
                found[f"/kxm.v1.{service}/{rpc.group(1)}"] = _pairs(block, found, service)
                block = []
            elif line.strip().startswith("//"):
                block.append(line)
            elif line.strip():
                block = []
    return found


def _pairs(block: list[str], known: dict[str, set[tuple[str, str]]], service: str) -> set[tuple[str, str]]:
    pairs: set[tuple[str, str]] = set()
    for line in block:
        match = _ERROR_LINE.match(line)
        if not match:
            continue
        codes = match.group(1).split(", ")
        reasons = [r.strip() for r in (match.group(2) or "").split(",") if r.strip()]
        same = re.search(r"as for (\w+)", match.group(3) or "")
        for code in codes:
            if same:
                pairs |= {p for p in known.get(f"/kxm.v1.{service}/{same.group(1)}", set()) if p[0] == code}
            # "UNAUTHENTICATED, PERMISSION_DENIED (REASON)": the reasons belong to the last code.
            for reason in reasons if code == codes[-1] else ():
                pairs.add((code, reason))
            if code != codes[-1] or not reasons:
                pairs.add((code, "*"))
    return pairs


DOCUMENTED = documented_errors()


def undocumented(method: str, answer: Answer) -> str | None:
    """The answer's (code, reason) when the RPC's proto comment does not list it (None: it does)."""
    if answer.code == "OK" or answer.reason is None:
        return None
    pair = (answer.code, answer.reason)
    listed = DOCUMENTED.get(method, set())
    if pair in UNIVERSAL_ERRORS or pair in listed or (answer.code, "*") in listed:
        return None
    return f"{method}: {answer.code} ({answer.reason}) is not in its proto comment's errors"


def verdict(method: str, answer: Answer) -> str | None:
    """B11's judgement of one answer: None when it is harmless and clear, else the problem."""
    if answer.code not in ALLOWED:
        return f"{method}: {answer.code} {answer.reason} {answer.details[:300]!r}"
    if answer.code == "OK":
        return None
    if answer.code == "RESOURCE_EXHAUSTED" and answer.reason is None and answer.size > MAX_REQUEST_BYTES:
        return None  # grpc's own refusal of an oversized message, before the hub sees it
    if answer.reason is None or answer.domain != DOMAIN:
        return f"{method}: {answer.code} without the hub's ErrorInfo: {answer.details[:300]!r}"
    if answer.code == "INVALID_ARGUMENT" and not (answer.violations or "messageType" in answer.metadata):
        # docs/errors.md: a BadRequest field violation names the field, unless the bytes did not decode.
        return f"{method}: INVALID_ARGUMENT {answer.reason} names no field: {answer.details[:300]!r}"
    return None


def answer_from_status(code: grpc.StatusCode, details: str, trailing: Iterable[tuple[str, Any]]) -> Answer:
    """An ``Answer`` from a status and its trailing metadata (``grpc-status-details-bin``)."""
    answer = Answer(code.name, details=details)
    for key, value in trailing:
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                    info = error_details_pb2.ErrorInfo()
                    detail.Unpack(info)
                    answer.reason, answer.domain, answer.metadata = info.reason, info.domain, dict(info.metadata)
                elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                    bad = error_details_pb2.BadRequest()
                    detail.Unpack(bad)
                    answer.violations = [v.field for v in bad.field_violations]
    return answer


# -- the world ---------------------------------------------------------------------------------------------

Invoke = Callable[[str, Message, Metadata], Awaitable[bytes]]
"""Call an RPC with a request and metadata; the response's bytes (raises on a failed call)."""


@dataclass
class FuzzWorld:
    """What the fuzzers aim at: credentials per access kind, and the strings that name real things."""

    project: str
    token: str
    churn_token: str
    """A second project's token, for RegisterAgent and the agents UnregisterAgent ends: the agents the
    fuzzer registers stay out of the fuzz project, whose every presence change writes an event to
    each online agent of it."""
    admin: Metadata
    agent: Metadata
    listener: Metadata
    runtime: Metadata
    responders: list[tuple[str, str]]
    """(agent id, key) of the agents that reply to everything."""
    pool: list[str]

    def metadata(self, method: str) -> Metadata:
        """The credential ``method`` admits (a quiet listener for Subscribe)."""
        access = RPCS[method].access
        if method == "/kxm.v1.MessageService/Subscribe":
            return self.listener
        if method == "/kxm.v1.AgentService/RegisterAgent":
            return (("authorization", f"Bearer {self.churn_token}"),)
        if access in (Access.ADMIN, Access.OPERATOR):
            return self.admin
        if access is Access.RUNTIME:
            return self.runtime
        if access in (Access.AGENT, Access.ANY):
            return self.agent
        return (("authorization", f"Bearer {self.token}"),)


def _agent_metadata(token: str, agent_id: str, key: str) -> Metadata:
    return (("authorization", f"Bearer {token}"), ("x-kxm-agent-id", agent_id), ("x-kxm-agent-key", key))


async def build_world(invoke: Invoke, admin_token: str, tag: str) -> FuzzWorld:
    """Create the fuzz project and its objects through ``invoke``."""
    A, G, L, M, R = admin_service_pb2, agent_service_pb2, lease_service_pb2, message_service_pb2, runtime_service_pb2
    admin: Metadata = (("authorization", f"Bearer {admin_token}"),)
    project = f"fuzz-{tag}"
    created = A.CreateProjectResponse.FromString(await invoke(
        "/kxm.v1.AdminService/CreateProject", A.CreateProjectRequest(name=project), admin
    ))  # fmt: skip
    token = created.project_token
    decoy = f"decoy-{tag}"
    await invoke("/kxm.v1.AdminService/CreateProject", A.CreateProjectRequest(name=decoy), admin)
    churn = A.CreateProjectResponse.FromString(await invoke(
        "/kxm.v1.AdminService/CreateProject", A.CreateProjectRequest(name=f"churn-{tag}"), admin
    ))  # fmt: skip
    await invoke("/kxm.v1.AdminService/CreateOperator", A.CreateOperatorRequest(name=f"op-{tag}"), admin)
    bearer: Metadata = (("authorization", f"Bearer {token}"),)

    async def register(name: str, model: str = "") -> tuple[str, str]:
        response = G.RegisterAgentResponse.FromString(
            await invoke("/kxm.v1.AgentService/RegisterAgent", G.RegisterAgentRequest(name=name, model=model), bearer)
        )
        return response.agent.id, response.agent_key

    caller = await register("caller")
    listener = await register("listener", model="tui")
    responders = [await register(f"responder-{n}") for n in (1, 2)]
    agent = _agent_metadata(token, *caller)
    first = _agent_metadata(token, *responders[0])
    sent = M.SendMessageResponse.FromString(
        await invoke(
            "/kxm.v1.MessageService/SendMessage", M.SendMessageRequest(target="responder-1", content="hi"), agent
        )
    )
    back = M.SendMessageResponse.FromString(
        await invoke("/kxm.v1.MessageService/SendMessage", M.SendMessageRequest(target="caller", content="yo"), first)
    )
    # Replied, so a fuzzed WaitMessage on it answers at once (an open one would be answered at the
    # call's deadline: that path is B16's).
    reply = M.ReplyToMessageRequest(message_id=back.message.id, content="ok")
    await invoke("/kxm.v1.MessageService/ReplyToMessage", reply, agent)
    await invoke("/kxm.v1.LeaseService/AcquireLease", L.AcquireLeaseRequest(name="fuzz-lease"), agent)
    await invoke("/kxm.v1.LeaseService/AcquireLease", L.AcquireLeaseRequest(name="held-lease"), first)
    runtime_id = "rtm_fuzz000001"
    registered = R.RegisterRuntimeResponse.FromString(
        await invoke("/kxm.v1.RuntimeService/RegisterRuntime", R.RegisterRuntimeRequest(runtime_id=runtime_id), bearer)
    )
    runtime: Metadata = (("authorization", f"Bearer {registered.runtime_key}"),)
    from tests.api.test_runtimes import sync_event  # a valid event, as the runtime tests push them

    events = [sync_event(n, runtime=runtime_id, project_id="prj_fuzz000001", run_id="run_fuzz000001") for n in (1, 2)]
    await invoke("/kxm.v1.RuntimeService/PushSyncEvents", R.PushSyncEventsRequest(events=events), runtime)
    pool = [
        decoy,
        f"op-{tag}",
        "caller",  # the listener is left out: a fanout to it would wait for a reply until the deadline
        "responder-1",
        "responder-2",
        caller[0],
        responders[0][0],
        responders[1][0],
        sent.message.id,
        back.message.id,
        "fuzz-lease",
        "held-lease",
        runtime_id,
        "prj_fuzz000001",
        "run_fuzz000001",
        "kxm.sync-event.v1",
        "run.status_changed",
        "sha256:" + "cd" * 32,
        "2026-01-01T00:00:00.000Z",
        "ERROR_REASON_PROTOCOL_ERROR",
    ]
    listening = _agent_metadata(token, *listener)
    return FuzzWorld(project, token, churn.project_token, admin, agent, listening, runtime, responders, pool)


async def leaver(invoke: Invoke, world: FuzzWorld, n: int) -> Metadata:
    """A fresh agent for one UnregisterAgent call (it ends the identity that makes it)."""
    response = agent_service_pb2.RegisterAgentResponse.FromString(
        await invoke(
            "/kxm.v1.AgentService/RegisterAgent",
            agent_service_pb2.RegisterAgentRequest(name=f"leaver-{n}"),
            (("authorization", f"Bearer {world.churn_token}"),),
        )
    )
    return _agent_metadata(world.churn_token, response.agent.id, response.agent_key)


# -- in process: decode + validate + handler, no network ------------------------------------------------------


class _Aborted(grpc.aio.AbortError):
    """What the fake context's ``abort_with_status`` raises, as grpc's does."""


class _StreamStop(grpc.aio.BaseError):
    """Raised by the fake context's ``write`` once a stream wrote what the fuzzer reads (the client left)."""


class FakeContext:
    """The parts of ``grpc.aio.ServicerContext`` the hub's wrapper and servicers use."""

    def __init__(self, metadata: Metadata, *, time_remaining: float, writes: int) -> None:
        self._metadata = metadata
        self._time_remaining = time_remaining
        self._writes_left = writes
        self.status: grpc.Status | None = None
        self.written = 0

    def invocation_metadata(self) -> Metadata:
        return self._metadata

    def peer(self) -> str:
        return "ipv4:127.0.0.1:40000"

    def time_remaining(self) -> float:
        return self._time_remaining

    def set_trailing_metadata(self, _metadata: Any) -> None:
        pass

    def add_done_callback(self, _callback: Any) -> None:
        pass

    def code(self) -> grpc.StatusCode | None:
        return self.status.code if self.status is not None else None

    async def abort_with_status(self, status: grpc.Status) -> None:
        self.status = status
        raise _Aborted()

    async def write(self, _message: Any) -> None:
        self.written += 1
        self._writes_left -= 1
        if self._writes_left <= 0:
            raise _StreamStop()


class _Capture:
    """Stands in for the grpc server while the generated ``add_*_to_server`` register servicers."""

    def __init__(self) -> None:
        self.handlers: dict[str, Any] = {}

    def add_generic_rpc_handlers(self, _handlers: object) -> None:
        pass

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        for name, handler in handlers.items():
            self.handlers[f"/{service}/{name}"] = handler


class InProcessHub:
    """A hub (``HubServer``, started on loopback but never called over it) whose RPCs are called in process:
    the admission wrapper's handler, with its tolerant deserializer, around the real servicers and store."""

    def __init__(self, data_dir: Path, admin_token: str, *, stale_after: float = 3600.0) -> None:
        self.data_dir = data_dir
        self.admin_token = admin_token
        self.stale_after = stale_after
        self.server: Any = None
        self.handlers: dict[str, Any] = {}

    async def start(self) -> None:
        from kxm_grpc.server import app
        from kxm_grpc.server.interceptor import HubInterceptor
        from kxm_grpc.server.settings import Settings
        from kxm_grpc.store import Durability

        settings = Settings(
            port=0,
            data_dir=self.data_dir,
            admin_token=self.admin_token,
            durability=Durability.NORMAL,
            rate_limit=10**9,
            stale_after=self.stale_after,
            shutdown_grace=0.1,
            log_level="error",
        )
        self.server = app.HubServer(settings)
        await self.server.start()
        capture = _Capture()
        for add in app.SERVICERS:
            add(self.server.hub, capture)  # type: ignore[arg-type]
        interceptor = HubInterceptor(self.server.admission)
        self.handlers = {method: interceptor.wrap(method, handler) for method, handler in capture.handlers.items()}

    async def stop(self) -> None:
        await self.server.stop(0)

    async def call(
        self, method: str, body: bytes, metadata: Metadata, *, deadline: float = 5.0
    ) -> tuple[Answer, bytes]:
        """Decode ``body`` as the hub's wrapper does, admit, handle; the answer and the response bytes.

        Raises:
            TimeoutError: the handler did not answer within ``deadline`` seconds (a hang).
        """
        handler = self.handlers[method]
        request = handler.request_deserializer(body)
        context = FakeContext(metadata, time_remaining=0.06, writes=1)  # long polls answer within 10 ms
        began = time.monotonic()
        response = b""
        try:
            if handler.stream_stream is not None:  # a channel: this one request, then the client's end

                async def requests() -> AsyncIterator[Any]:
                    yield request

                await asyncio.wait_for(handler.stream_stream(requests(), context), deadline)
            elif handler.unary_stream is not None:
                await asyncio.wait_for(handler.unary_stream(request, context), deadline)
            else:
                result = await asyncio.wait_for(handler.unary_unary(request, context), deadline)
                response = handler.response_serializer(result)
            answer = Answer("OK")
        except _StreamStop:
            answer = Answer("OK")
        except _Aborted:
            status = context.status
            assert status is not None
            answer = answer_from_status(status.code, status.details, status.trailing_metadata)
        answer.seconds, answer.size = time.monotonic() - began, len(body)
        return answer, response

    async def invoke(self, method: str, request: Message, metadata: Metadata) -> bytes:
        """``Invoke`` for ``build_world``: a call that must succeed."""
        answer, response = await self.call(method, request.SerializeToString(), metadata)
        if answer.code != "OK":
            raise RuntimeError(f"{method} failed while building the fuzz world: {answer}")
        return response


# -- atheris ---------------------------------------------------------------------------------------------------


def _main(argv: list[str]) -> None:  # pragma: no cover - runs in the subprocess B11 starts
    import atheris  # type: ignore[import-untyped]  # no stubs

    from kxm_grpc.server.log import configure_logging

    configure_logging("json", "error", cache=False)  # a crash's traceback, not every call's line
    out = Path(argv[1])
    flags = argv[2:]
    if os.environ.get("KXM_ATHERIS_INSTRUMENT", "1") == "1":
        with atheris.instrument_imports(include=["kxm_grpc"]):
            import kxm_grpc.domain.sync_events
            import kxm_grpc.server.app
            import kxm_grpc.services.messages
            import kxm_grpc.services.runtimes  # noqa: F401

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    # Agents the fuzzer registers go offline after a few seconds (presence changes write an event to
    # every online agent of the project: thousands of online agents would slow every registration);
    # the world's own agents are kept online by a heartbeat each second.
    hub = InProcessHub(
        Path(tempfile.mkdtemp(prefix="kxm-atheris-")) / "hub", "atheris-admin-token-0123456789", stale_after=5.0
    )
    loop.run_until_complete(hub.start())
    world = loop.run_until_complete(build_world(hub.invoke, hub.admin_token, "atheris"))
    keep = [world.agent, world.listener, *(_agent_metadata(world.token, *r) for r in world.responders)]
    kept = [time.monotonic()]

    async def keep_alive() -> None:
        for metadata in keep:
            await hub.invoke("/kxm.v1.AgentService/Heartbeat", agent_service_pb2.HeartbeatRequest(), metadata)
        await hub.invoke(
            "/kxm.v1.RuntimeService/RuntimeHeartbeat", runtime_service_pb2.RuntimeHeartbeatRequest(), world.runtime
        )

    executions: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    leavers = [0]
    last_write = [time.monotonic()]

    def write_stats() -> None:
        stats = {"executions": dict(executions), "codes": dict(codes), "total": sum(executions.values())}
        tmp = out / "stats.json.tmp"
        tmp.write_text(json.dumps(stats, sort_keys=True))
        tmp.replace(out / "stats.json")

    async def one(method: str, body: bytes) -> Answer:
        metadata = world.metadata(method)
        if method == "/kxm.v1.AgentService/UnregisterAgent":
            leavers[0] += 1
            metadata = await leaver(hub.invoke, world, leavers[0])
        answer, _ = await hub.call(method, body, metadata)
        return answer

    def test_one_input(data: bytes) -> None:
        if time.monotonic() - kept[0] > 1.0:
            kept[0] = time.monotonic()
            loop.run_until_complete(keep_alive())
        if not data:
            return
        method = METHODS[data[0] % len(METHODS)]
        body = data[1:]
        answer = loop.run_until_complete(one(method, body))
        executions[method] += 1
        codes[answer.code] += 1
        problem = verdict(method, answer) or undocumented(method, answer)
        if problem:
            write_stats()
            raise AssertionError(f"B11 verdict: {problem} (request {body[:200]!r})")
        if time.monotonic() - last_write[0] > 0.5:
            last_write[0] = time.monotonic()
            write_stats()

    import atexit

    atexit.register(write_stats)
    import random

    def mutate(data: bytes, max_size: int, seed: int) -> bytes:
        return structured_mutation(data, max_size, random.Random(seed), world.pool, atheris.Mutate)

    atheris.Setup([argv[0], *flags], test_one_input, custom_mutator=mutate)
    atheris.Fuzz()


def structured_mutation(
    data: bytes, max_size: int, rng: Any, pool: Sequence[str], mutate_bytes: Callable[[bytes, int], bytes]
) -> bytes:
    """Mutate an input at the protobuf level (in the spirit of libprotobuf-mutator), or as bytes.

    Three times in ten, or when the body does not decode, libFuzzer's own byte mutation; otherwise
    the body is decoded as its RPC's request and one field changed: set, cleared, a string from the
    pool or mutated as bytes, an integer to an edge or bit-flipped, a repeated field grown or
    shrunk; one time in twenty the RPC itself changes.
    """
    if len(data) < 1 or rng.random() < 0.3:
        return mutate_bytes(data, max_size)
    head, body = data[0], data[1:]
    method = METHODS[head % len(METHODS)]
    descriptor = RPCS[method].descriptor
    assert descriptor is not None
    try:
        message = message_factory.GetMessageClass(descriptor.input_type).FromString(body)
    except Exception:  # not a request of this RPC: bytes it is
        return mutate_bytes(data, max_size)
    if rng.random() < 0.05:
        head = rng.randrange(len(METHODS))
    _mutate_message(message, rng, pool, mutate_bytes, depth=0)
    return (bytes([head]) + message.SerializeToString())[:max_size]


def _mutate_message(message: Message, rng: Any, pool: Sequence[str], mutate_bytes: Any, depth: int) -> None:
    fields = list(message.DESCRIPTOR.fields)
    if not fields:
        return
    fd = rng.choice(fields)
    repeated = fd.is_repeated
    if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
        return
    if fd.message_type is not None:
        if fd.message_type.full_name == "google.protobuf.Struct":
            target = getattr(message, fd.name).add() if repeated else getattr(message, fd.name)
            target.update({rng.choice(("status", "x", "")): rng.choice((None, True, 1.5, "s", [1], {"a": 2}))})
            return
        if repeated:
            items = getattr(message, fd.name)
            if items and rng.random() < 0.3:
                del items[rng.randrange(len(items))]
                return
            child = items[rng.randrange(len(items))] if items and rng.random() < 0.5 else items.add()
        else:
            child = getattr(message, fd.name)
        if depth < 5:
            _mutate_message(child, rng, pool, mutate_bytes, depth + 1)
        return
    value: Any
    if fd.type == FieldDescriptor.TYPE_STRING:
        choice = rng.random()
        if choice < 0.4 and pool:
            value = rng.choice(list(pool))
        elif choice < 0.5:
            value = rng.choice(_SPECIAL_TEXT)
        else:
            items = getattr(message, fd.name)
            current = (items[0] if items else "") if repeated else items
            value = mutate_bytes(str(current).encode(), 512).decode("utf-8", "replace")
    elif fd.type == FieldDescriptor.TYPE_BYTES:
        value = mutate_bytes(b"", 256)
    elif fd.type == FieldDescriptor.TYPE_BOOL:
        value = rng.random() < 0.5
    elif fd.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        value = rng.choice((0.0, -0.0, 1e308, -1e308, float("nan"), float("inf"), rng.uniform(-1e6, 1e6)))
    else:
        low, high = _INT_RANGES[fd.type]
        edges = [low, high, 0, 1, -1 if low < 0 else 2, 100, 101, 2**31 - 1, 2**53]
        value = rng.choice([e for e in edges if low <= e <= high] + [rng.randint(low, high)])
    if repeated:
        items = getattr(message, fd.name)
        if rng.random() < 0.2:
            items.extend([value] * rng.choice((1, 10, 100, 101)))
        elif items and rng.random() < 0.3:
            del items[rng.randrange(len(items))]
        else:
            items.append(value)
    elif rng.random() < 0.1:
        message.ClearField(fd.name)
    else:
        setattr(message, fd.name, value)


def seed_corpus(directory: Path, world_pool: Sequence[str] = ()) -> None:
    """A first input per RPC (its first byte, then an empty and a minimal request), so each is reached at once."""
    directory.mkdir(parents=True, exist_ok=True)
    for index, method in enumerate(METHODS):
        facts = RPCS[method]
        assert facts.descriptor is not None
        (directory / f"seed-{index:02d}-empty").write_bytes(bytes([index]))
        example = message_factory.GetMessageClass(facts.descriptor.input_type)()
        for fd in facts.descriptor.input_type.fields:
            if fd.type == FieldDescriptor.TYPE_STRING and not fd.is_repeated:
                setattr(example, fd.name, world_pool[index % len(world_pool)] if world_pool else "x")
        (directory / f"seed-{index:02d}-fields").write_bytes(bytes([index]) + example.SerializeToString())


if __name__ == "__main__":
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    _main(sys.argv)


__all__ = [
    "ALLOWED",
    "METHODS",
    "Answer",
    "FuzzWorld",
    "InProcessHub",
    "build_world",
    "leaver",
    "request_bodies",
    "seed_corpus",
    "verdict",
]
