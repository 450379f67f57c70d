"""HubClient: a thin async client over the generated stubs, one method per RPC.

Each service's calls live in their own module; HubClient combines them. Errors arrive as the same
HubError subclasses the server raised (``reason``, ``metadata``, ``field_violations``,
``retry_after``); transport failures arrive as ``Unavailable`` or ``DeadlineExceeded``.
"""

from __future__ import annotations

from kxm_grpc.client.admin import AdminCalls
from kxm_grpc.client.agents import AgentCalls
from kxm_grpc.client.leases import LeaseCalls
from kxm_grpc.client.messages import MessageCalls
from kxm_grpc.client.runtimes import RuntimeCalls


class HubClient(AgentCalls, MessageCalls, LeaseCalls, RuntimeCalls, AdminCalls):
    """An async client for one hub, acting as one caller (admin, project, agent or runtime).

    Arguments left out are read from ``KXM_ADDR``, ``KXM_TOKEN`` (``KXM_ADMIN_TOKEN`` with
    ``admin=True``), ``KXM_PROJECT``, ``KXM_AGENT_ID``, ``KXM_AGENT_KEY``, then from the
    credentials file a zero-configuration hub wrote (``.kxm/credentials.json``).
    """
