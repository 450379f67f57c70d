"""The registry of RPC facts, read from the proto: every kxm RPC declares its facts once.

Each RPC of ``proto/kxm/v1/*_service.proto`` carries ``option (kxm.v1.facts) = {...}``
(``proto/kxm/v1/options.proto``): who may call it, whether it is read-only, how it renews
presence, its agent-tool name and its rate-limit class; whether it streams comes from the method
descriptor itself. This module reads them from the generated descriptors at import time, and
everything else derives from ``RPCS``: the access table, admission's presence renewal and rate
class (``server/admission.py``), the RPC table of docs/api.md (``scripts/gen_rpc_doc.py``), the
contract and security tests, later the tool policy, the MCP tools and the dashboard.

An RPC whose facts are missing or incomplete is still listed (with ``None`` for what it lacks),
so ``problems()`` can name it; admission refuses every call of it (it fails closed).
"""

from __future__ import annotations

import enum
import importlib
import pkgutil
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor

from kxm_grpc._gen.kxm import v1 as _gen_v1
from kxm_grpc._gen.kxm.v1 import options_pb2
from kxm_grpc.domain.caller import CredentialKind
from kxm_grpc.server.ratelimit import RateClass
from kxm_grpc.services.auth import Access, admitted_kinds


class PresenceRenewal(enum.Enum):
    """How a call renews the calling agent's presence (``kxm.v1.PresenceRenewal``)."""

    NONE = "none"
    """Never: no agent can make the call."""

    ADMISSION = "admission"
    """Admission renews the calling agent's presence before the handler runs."""

    SELF = "self"
    """The RPC renews presence itself (Heartbeat); admission does not write it a second time."""


MAX_REQUEST_BYTES = 256 * 1024
"""The largest request message an RPC takes on any surface (gRPC's receive limit; the HTTP port's too)."""

TOOL_NAME = re.compile(r"kxm_[a-z][a-z0-9_]*")
"""What an agent-tool name looks like (``kxm_send``)."""


@dataclass(frozen=True, slots=True)
class RpcFacts:
    """One RPC's facts, as its proto declares them (``None``: the declaration lacks that fact)."""

    method: str
    """The full method name gRPC routes by: ``/kxm.v1.AgentService/Heartbeat``."""
    service: str
    """The service's full name: ``kxm.v1.AgentService``."""
    name: str
    """The RPC's name: ``Heartbeat``."""
    access: Access | None
    """Who may call it."""
    read_only: bool | None
    """True when it changes nothing a caller can observe (admission's presence renewal aside)."""
    presence: PresenceRenewal | None
    """How a call renews the calling agent's presence."""
    tool_name: str
    """Its agent-tool name (``kxm_send``); empty when it is not a tool."""
    rate_class: RateClass | None
    """What one call costs in the caller's rate budget (``server/ratelimit.py``)."""
    client_streaming: bool
    server_streaming: bool
    declared: bool = True
    """Whether the RPC carries the ``(kxm.v1.facts)`` option at all."""
    descriptor: MethodDescriptor | None = field(default=None, compare=False, repr=False)
    """The method's descriptor (request and response types, comments' home)."""

    @property
    def streaming(self) -> str:
        """``unary``, ``server stream``, ``client stream`` or ``bidirectional stream``."""
        if self.client_streaming and self.server_streaming:
            return "bidirectional stream"
        if self.server_streaming:
            return "server stream"
        if self.client_streaming:
            return "client stream"
        return "unary"

    @property
    def complete(self) -> bool:
        """Whether every fact is declared (admission refuses every call of an incomplete RPC)."""
        return (
            self.declared
            and self.access is not None
            and self.read_only is not None
            and self.presence is not None
            and self.rate_class is not None
        )

    @property
    def admission_renews_presence(self) -> bool:
        """Whether admission renews the calling agent's presence before the handler runs."""
        return self.presence is PresenceRenewal.ADMISSION

    def problems(self) -> list[str]:
        """What is wrong with these facts on their own (empty: nothing)."""
        where = f"{self.service}.{self.name}"
        if not self.declared:
            return [f"{where}: no option (kxm.v1.facts)"]
        found = []
        if self.access is None:
            found.append(f"{where}: access is unspecified")
        if self.read_only is None:
            found.append(f"{where}: read_only is not set")
        if self.presence is None:
            found.append(f"{where}: presence is unspecified")
        if self.rate_class is None:
            found.append(f"{where}: rate_limit is unspecified")
        agents_may_call = self.access is not None and CredentialKind.AGENT in admitted_kinds(self.access)
        if self.access is not None and self.presence is not None:
            if agents_may_call and self.presence is PresenceRenewal.NONE:
                found.append(f"{where}: agents may call it, so presence must be renewed (ADMISSION or SELF), not NONE")
            if not agents_may_call and self.presence is not PresenceRenewal.NONE:
                found.append(f"{where}: no agent may call it, so presence must be NONE")
            if self.presence is PresenceRenewal.SELF and self.access is not Access.AGENT:
                found.append(f"{where}: only an RPC that needs an agent can renew presence itself (SELF)")
        if self.tool_name:
            if not TOOL_NAME.fullmatch(self.tool_name):
                found.append(f"{where}: tool name {self.tool_name!r} is not kxm_ and lowercase letters, digits, _")
            if self.streaming != "unary":
                found.append(f"{where}: a {self.streaming} cannot be a tool ({self.tool_name!r})")
            if self.access is not None and not agents_may_call:
                found.append(f"{where}: no agent may call it, so it cannot be an agent tool ({self.tool_name!r})")
        return found


_E = TypeVar("_E", bound=enum.Enum)


def _enum_member(kind: type[_E], proto_name: str, prefix: str) -> _E | None:
    """``Access`` for ``ACCESS_AGENT``; None for the zero value or a name Python does not know."""
    return kind.__members__.get(proto_name.removeprefix(prefix)) if proto_name.startswith(prefix) else None


def read_facts(service: ServiceDescriptor, method: MethodDescriptor) -> RpcFacts:
    """The facts ``method`` of ``service`` declares (``None`` wherever it declares nothing)."""
    options = method.GetOptions()
    declared = options.HasExtension(options_pb2.facts)
    facts = options.Extensions[options_pb2.facts]
    return RpcFacts(
        method=f"/{service.full_name}/{method.name}",
        service=service.full_name,
        name=method.name,
        access=_enum_member(Access, options_pb2.Access.Name(facts.access), "ACCESS_"),
        read_only=facts.read_only if facts.HasField("read_only") else None,
        presence=_enum_member(PresenceRenewal, options_pb2.PresenceRenewal.Name(facts.presence), "PRESENCE_RENEWAL_"),
        tool_name=facts.tool_name,
        rate_class=_enum_member(RateClass, options_pb2.RateLimitClass.Name(facts.rate_limit), "RATE_LIMIT_CLASS_"),
        client_streaming=method.client_streaming,
        server_streaming=method.server_streaming,
        declared=declared,
        descriptor=method,
    )


def contract_services() -> list[ServiceDescriptor]:
    """Every service of every generated ``kxm.v1`` module, by file name (found, so none is forgotten)."""
    services: list[ServiceDescriptor] = []
    for module in sorted(m.name for m in pkgutil.iter_modules(_gen_v1.__path__)):
        if module.endswith("_pb2"):
            generated = importlib.import_module(f"{_gen_v1.__name__}.{module}")
            services.extend(generated.DESCRIPTOR.services_by_name.values())
    return services


def problems(rpcs: Iterable[RpcFacts]) -> list[str]:
    """Everything wrong with a registry: each RPC's own problems, then tool names used twice."""
    found: list[str] = []
    owners: dict[str, list[str]] = {}
    for facts in rpcs:
        found.extend(facts.problems())
        if facts.tool_name:
            owners.setdefault(facts.tool_name, []).append(f"{facts.service}.{facts.name}")
    found.extend(
        f"tool name {tool!r} is used by {', '.join(users)}" for tool, users in owners.items() if len(users) > 1
    )
    return found


SERVICES: tuple[ServiceDescriptor, ...] = tuple(contract_services())
"""Every kxm service of the contract."""

RPCS: Mapping[str, RpcFacts] = {
    facts.method: facts for facts in (read_facts(service, method) for service in SERVICES for method in service.methods)
}
"""Every kxm RPC's facts, by full method name (``/kxm.v1.AgentService/Heartbeat``)."""

ACCESS: Mapping[str, Access] = {method: facts.access for method, facts in RPCS.items() if facts.access is not None}
"""Who may call each RPC (derived from ``RPCS``; an RPC without it admits nobody)."""

TOOLS: Mapping[str, RpcFacts] = {facts.tool_name: facts for facts in RPCS.values() if facts.tool_name}
"""The agent tools, by tool name (``kxm_send``), for tool policy and the MCP surface."""
