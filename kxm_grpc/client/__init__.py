"""The thin Python client: HubClient (async) and SyncHubClient (blocking), one sub-client per area.

``hub.agents``, ``hub.messages``, ``hub.leases``, ``hub.runtimes``, ``hub.admin`` and
``hub.workflows`` (classes ``Agents``, ``Messages``, ... and their blocking twins ``SyncAgents``,
``SyncMessages``, ...) hold one method per RPC. The message and enum types they take and return are in ``kxm_grpc.v1``.
Either client takes one hub address or several (``kxm_grpc.client.addresses``; ``AddressError``
when they cannot be dialled).
"""

from kxm_grpc.client.addresses import AddressError
from kxm_grpc.client.admin import Admin
from kxm_grpc.client.agents import Agents
from kxm_grpc.client.hub import HubClient
from kxm_grpc.client.leases import HeldLease, LeaseLost, Leases
from kxm_grpc.client.messages import Messages
from kxm_grpc.client.runtimes import Runtimes
from kxm_grpc.client.sync import (
    SyncAdmin,
    SyncAgents,
    SyncHubClient,
    SyncLeases,
    SyncMessages,
    SyncRuntimes,
    SyncWorkflows,
)
from kxm_grpc.client.workflows import ReviewNotSent, Workflows

__all__ = [
    "AddressError",
    "Admin",
    "Agents",
    "HeldLease",
    "HubClient",
    "LeaseLost",
    "Leases",
    "Messages",
    "ReviewNotSent",
    "Runtimes",
    "SyncAdmin",
    "SyncAgents",
    "SyncHubClient",
    "SyncLeases",
    "SyncMessages",
    "SyncRuntimes",
    "SyncWorkflows",
    "Workflows",
]
