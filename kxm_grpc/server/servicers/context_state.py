"""ContextService's state RPCs (placeholder: filled in by the state work of issue 17)."""

from __future__ import annotations

from kxm_grpc.server.state import HubState


class ContextStateMethods:
    """ContextService's state RPCs; mixed into ContextServicer."""

    _hub: HubState
