"""The per-service sub-clients of HubClient, one attribute each, made on first use."""

from __future__ import annotations

from functools import cached_property

from kxm_grpc.client.admin import Admin
from kxm_grpc.client.agents import Agents
from kxm_grpc.client.base import ClientBase
from kxm_grpc.client.context import Context
from kxm_grpc.client.leases import Leases
from kxm_grpc.client.messages import Messages
from kxm_grpc.client.ops import Ops
from kxm_grpc.client.runtimes import Runtimes
from kxm_grpc.client.workflows import Workflows


class AreaClient(ClientBase):
    """A client with one sub-client per service area, all on this client's channel and credentials."""

    @cached_property
    def agents(self) -> Agents:
        """AgentService: registration, presence, caller identity."""
        return Agents(self)

    @cached_property
    def messages(self) -> Messages:
        """MessageService: requests, replies, waits, fan-out, the inbox and its stream."""
        return Messages(self)

    @cached_property
    def leases(self) -> Leases:
        """LeaseService: fenced leases."""
        return Leases(self)

    @cached_property
    def runtimes(self) -> Runtimes:
        """RuntimeService: runtimes and their run events."""
        return Runtimes(self)

    @cached_property
    def workflows(self) -> Workflows:
        """WorkflowService: workflow definitions, durable runs, checkpoints, waits and signals."""
        return Workflows(self)

    @cached_property
    def admin(self) -> Admin:
        """AdminService: projects and their tokens, named operators, the audit (an operator's token)."""
        return Admin(self)

    @cached_property
    def context(self) -> Context:
        """ContextService: context items, packets, recall, temporal state, episodes and explanations."""
        return Context(self)

    @cached_property
    def ops(self) -> Ops:
        """OpsService: the operators' view of a project (an operator's token)."""
        return Ops(self)
