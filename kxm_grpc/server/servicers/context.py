"""ContextService: a role's context packet, recall, temporal state, episodes and explanations.

The class only composes the RPC groups, each in a module of its own: items, packets, recall and
explanations (``context_items.ContextItemMethods``), temporal state (``context_state.ContextStateMethods``),
episodes (``context_episodes.ContextEpisodeMethods``), governed skills
(``context_skills.ContextSkillMethods``) and memory records (``context_memory.ContextMemoryMethods``).
The rules live in ``kxm_grpc.services.context``.
"""

from __future__ import annotations

from kxm_grpc._gen.kxm.v1 import context_service_pb2_grpc
from kxm_grpc.server.servicers.context_episodes import ContextEpisodeMethods
from kxm_grpc.server.servicers.context_items import ContextItemMethods
from kxm_grpc.server.servicers.context_memory import ContextMemoryMethods
from kxm_grpc.server.servicers.context_skills import ContextSkillMethods
from kxm_grpc.server.servicers.context_state import ContextStateMethods
from kxm_grpc.server.state import HubState


class ContextServicer(
    ContextItemMethods,
    ContextStateMethods,
    ContextEpisodeMethods,
    ContextSkillMethods,
    ContextMemoryMethods,
    context_service_pb2_grpc.ContextServiceServicer,
):
    """Serves kxm.v1.ContextService."""

    def __init__(self, hub: HubState) -> None:
        self._hub = hub
