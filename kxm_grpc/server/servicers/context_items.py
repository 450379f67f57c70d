"""ContextService's items RPCs: PutItems, GetContextPacket, Recall, ExplainItem and DeleteItems.

Converts proto ↔ the context domain only (``kxm_grpc.server.convert_context``); the rules live in
``kxm_grpc.services.context.items`` and ``packets``. An item's unset source type is the caller's
origin, which the service then checks it against like any other.
"""

from __future__ import annotations

from typing import Any

import grpc

from kxm_grpc._gen.kxm.v1 import context_service_pb2 as cpb
from kxm_grpc.domain.context.items import ContextItem
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import struct_json
from kxm_grpc.server.convert_context import (
    SOURCE_TYPE,
    item_from_proto,
    item_to_proto,
    packet_to_proto,
    recall_item_to_proto,
    request_from_proto,
    request_kind,
)
from kxm_grpc.server.state import HubState
from kxm_grpc.services.context import items, packets, scope

Context = grpc.aio.ServicerContext[Any, Any]


class ContextItemMethods:
    """ContextService's items RPCs; mixed into ContextServicer."""

    _hub: HubState

    async def PutItems(self, request: cpb.PutItemsRequest, context: Context) -> cpb.PutItemsResponse:
        caller = current_call().caller
        origin = scope.origin(caller)
        drafts: list[ContextItem] = []
        for index, proto in enumerate(request.items):
            with items.at_index(index):
                drafts.append(item_from_proto(proto, source_type=origin))
        stored = await items.put(self._hub.store, caller, request.project, drafts, now=self._hub.now())
        return cpb.PutItemsResponse(items=[item_to_proto(item) for item in stored])

    async def GetContextPacket(
        self, request: cpb.GetContextPacketRequest, context: Context
    ) -> cpb.GetContextPacketResponse:
        working_state = (
            struct_json(request.working_state, "workingState") if request.HasField("working_state") else None
        )
        assembled = await packets.packet(
            self._hub.store, current_call().caller, request_from_proto(request.request), working_state=working_state
        )
        return cpb.GetContextPacketResponse(packet=packet_to_proto(assembled.outcome), packet_id=assembled.packet_id)

    async def Recall(self, request: cpb.RecallRequest, context: Context) -> cpb.RecallResponse:
        kinds = [request_kind(value, "kinds") for value in request.kinds]
        recalled = await packets.recall(
            self._hub.store, current_call().caller, request.project, request.query, kinds=kinds, limit=request.limit
        )
        return cpb.RecallResponse(
            items=[recall_item_to_proto(hit) for hit in recalled.hits], unresolved_gaps=recalled.unresolved_gaps
        )

    async def ExplainItem(self, request: cpb.ExplainItemRequest, context: Context) -> cpb.ExplainItemResponse:
        explained = await items.explain(self._hub.store, current_call().caller, request.project, request.item_id)
        return cpb.ExplainItemResponse(
            found=explained.found,
            lineage=explained.lineage,
            evidence_refs=explained.evidence_refs,
            sources=[
                cpb.ItemSource(
                    id=item.id,
                    source_type=SOURCE_TYPE[item.provenance.source_type],
                    source_ref=item.provenance.source_ref or "",
                )
                for item in explained.sources
            ],
        )

    async def DeleteItems(self, request: cpb.DeleteItemsRequest, context: Context) -> cpb.DeleteItemsResponse:
        deleted = await items.delete(
            self._hub.store, current_call().caller, request.project, list(request.item_ids), shared=request.shared
        )
        return cpb.DeleteItemsResponse(deleted_count=deleted)
