"""ContextService's items RPCs (placeholder: filled in by the items work of issue 17)."""

from __future__ import annotations

from kxm_grpc.server.state import HubState


class ContextItemMethods:
    """ContextService's items RPCs; mixed into ContextServicer."""

    _hub: HubState
