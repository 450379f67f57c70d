"""ContextService's episodes RPCs (placeholder: filled in by the episodes work of issue 17)."""

from __future__ import annotations

from kxm_grpc.server.state import HubState


class ContextEpisodeMethods:
    """ContextService's episodes RPCs; mixed into ContextServicer."""

    _hub: HubState
