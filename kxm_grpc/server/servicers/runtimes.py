"""RuntimeService: runtime registration, presence and sync events.

A pushed ``SyncEvent`` message is turned into the JSON shape of ``kxm.sync-event.v1`` (camelCase
names as in the original, ``occurredAt`` as RFC 3339 text, the payload as plain JSON values); the
hub validates, canonicalises and hashes that shape, and rebuilds the message from the stored
canonical text when it is read back. Proto3 cannot tell an empty string from a missing one, so an
empty field is treated as missing.
"""

from __future__ import annotations

import json
from typing import Any

import grpc
from google.protobuf import struct_pb2, timestamp_pb2

from kxm_grpc._gen.kxm.v1 import envelopes_pb2, runtime_service_pb2, runtime_service_pb2_grpc, types_pb2
from kxm_grpc.domain import sync_events as sync
from kxm_grpc.domain.runtimes import Runtime, RuntimePresence
from kxm_grpc.domain.sync_events import JsonValue, StoredEvent, SyncOutcome, SyncResult, SyncRun
from kxm_grpc.server.context import current_call
from kxm_grpc.server.convert import check_timestamp, timestamp
from kxm_grpc.server.state import HubState
from kxm_grpc.services import runtimes

Context = grpc.aio.ServicerContext[Any, Any]

_PRESENCE = {
    RuntimePresence.ONLINE: types_pb2.RUNTIME_PRESENCE_STATE_ONLINE,
    RuntimePresence.EXPIRED: types_pb2.RUNTIME_PRESENCE_STATE_EXPIRED,
    RuntimePresence.UNKNOWN: types_pb2.RUNTIME_PRESENCE_STATE_UNKNOWN,
}
_OUTCOME = {
    SyncOutcome.ACCEPTED: runtime_service_pb2.SYNC_OUTCOME_ACCEPTED,
    SyncOutcome.DUPLICATE: runtime_service_pb2.SYNC_OUTCOME_DUPLICATE,
    SyncOutcome.CONFLICT: runtime_service_pb2.SYNC_OUTCOME_CONFLICT,
    SyncOutcome.REJECTED: runtime_service_pb2.SYNC_OUTCOME_REJECTED,
}
# Proto field → the original's JSON name, for the plain string fields of a SyncEvent.
_STRING_FIELDS = (
    ("schema", "schema"),
    ("source_event_id", "sourceEventId"),
    ("project_id", "projectId"),
    ("run_id", "runId"),
    ("home_runtime_id", "homeRuntimeId"),
    ("event_type", "eventType"),
    ("config_revision", "configRevision"),
    ("executor_policy_revision", "executorPolicyRevision"),
    ("tool_policy_revision", "toolPolicyRevision"),
    ("sync_policy_revision", "syncPolicyRevision"),
    ("memory_revision", "memoryRevision"),
)


def runtime_to_proto(runtime: Runtime, *, now: int, stale_after: int) -> types_pb2.Runtime:
    """The public view of a runtime, with presence on the hub's clock."""
    expire_time = timestamp(runtime.presence_expire_time(stale_after))
    return types_pb2.Runtime(
        id=runtime.id,
        project=runtime.project,
        host=runtime.host,
        register_time=timestamp(runtime.register_time),
        heartbeat_time=timestamp(runtime.heartbeat_time),
        lease_expire_time=expire_time,
        presence=_PRESENCE[runtime.presence(now, stale_after)],
        presence_expire_time=expire_time,
    )


def _json_value(value: struct_pb2.Value) -> JsonValue:
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return _json_object(value.struct_value)
    if kind == "list_value":
        return [_json_value(v) for v in value.list_value.values]
    if kind == "string_value":
        return value.string_value
    if kind == "number_value":
        return value.number_value
    if kind == "bool_value":
        return value.bool_value
    return None


def _json_object(struct: struct_pb2.Struct) -> dict[str, JsonValue]:
    return {key: _json_value(value) for key, value in struct.fields.items()}


def event_shape(event: envelopes_pb2.SyncEvent, path: str = "event") -> dict[str, JsonValue]:
    """The ``kxm.sync-event.v1`` JSON shape of a pushed event (empty fields left out).

    Raises:
        InvalidArgument: ``occur_time`` is not a valid Timestamp (named ``<path>.occur_time``).
    """
    shape: dict[str, JsonValue] = {}
    for field, key in _STRING_FIELDS:
        value = getattr(event, field)
        if value:
            shape[key] = value
    if event.sequence:
        shape["sequence"] = event.sequence
    if event.HasField("occur_time"):
        check_timestamp(f"{path}.occur_time", event.occur_time)
        shape["occurredAt"] = sync.occurred_at(event.occur_time.seconds, event.occur_time.nanos)
    if event.HasField("redaction"):
        redaction: dict[str, JsonValue] = {
            "fieldsOmitted": list(event.redaction.fields_omitted),
            "valuesReplaced": event.redaction.values_replaced,
        }
        if event.redaction.version:
            redaction["version"] = event.redaction.version
        shape["redaction"] = redaction
    if event.HasField("payload"):
        shape["payload"] = _json_object(event.payload)
    return shape


def event_from_canonical(text: str) -> envelopes_pb2.SyncEvent:
    """Rebuild the message from the canonical text the hub stored."""
    data = json.loads(text)
    event = envelopes_pb2.SyncEvent(sequence=int(data["sequence"]))
    for field, key in _STRING_FIELDS:
        setattr(event, field, data[key])
    occurred = timestamp_pb2.Timestamp()
    occurred.FromJsonString(data["occurredAt"])
    event.occur_time.CopyFrom(occurred)
    redaction = data["redaction"]
    event.redaction.version = redaction["version"]
    event.redaction.fields_omitted.extend(redaction["fieldsOmitted"])
    event.redaction.values_replaced = int(redaction["valuesReplaced"])
    event.payload.update(data["payload"])
    return event


def _result(result: SyncResult) -> runtime_service_pb2.SyncEventResult:
    return runtime_service_pb2.SyncEventResult(
        project_id=result.project_id,
        run_id=result.run_id,
        sequence=result.sequence,
        outcome=_OUTCOME[result.outcome],
        code=str(result.code) if result.code is not None else "",
        message=result.message,
        content_hash=result.content_hash,
        existing_hash=result.existing_hash,
    )


def _cursor(run: SyncRun) -> runtime_service_pb2.SyncCursor:
    return runtime_service_pb2.SyncCursor(
        project_id=run.project_id,
        run_id=run.run_id,
        cursor=run.cursor,
        last_sequence=run.last_sequence,
        pending_gap=run.pending_gap,
    )


def _stored(event: StoredEvent) -> runtime_service_pb2.StoredSyncEvent:
    return runtime_service_pb2.StoredSyncEvent(
        event=event_from_canonical(event.canonical),
        content_hash=event.content_hash,
        receive_time=timestamp(event.receive_time),
    )


class RuntimeServicer(runtime_service_pb2_grpc.RuntimeServiceServicer):
    """Serves kxm.v1.RuntimeService."""

    def __init__(self, hub: HubState) -> None:
        self._hub = hub

    def _view(self, runtime: Runtime, now: int) -> types_pb2.Runtime:
        return runtime_to_proto(runtime, now=now, stale_after=self._hub.stale_after)

    async def RegisterRuntime(
        self, request: runtime_service_pb2.RegisterRuntimeRequest, context: Context
    ) -> runtime_service_pb2.RegisterRuntimeResponse:
        now = self._hub.now()
        registered = await runtimes.register_runtime(
            self._hub.store, current_call().caller, request.runtime_id, request.host, now=now
        )
        return runtime_service_pb2.RegisterRuntimeResponse(
            runtime=self._view(registered.runtime, now), runtime_key=registered.key
        )

    async def RuntimeHeartbeat(
        self, request: runtime_service_pb2.RuntimeHeartbeatRequest, context: Context
    ) -> runtime_service_pb2.RuntimeHeartbeatResponse:
        now = self._hub.now()
        runtime = await runtimes.runtime_heartbeat(self._hub.store, current_call().caller, request.host, now=now)
        return runtime_service_pb2.RuntimeHeartbeatResponse(runtime=self._view(runtime, now))

    async def ListRuntimes(
        self, request: runtime_service_pb2.ListRuntimesRequest, context: Context
    ) -> runtime_service_pb2.ListRuntimesResponse:
        page, next_token = await runtimes.list_runtimes(
            self._hub.store, current_call().caller, request.page_size, request.page_token
        )
        now = self._hub.now()
        return runtime_service_pb2.ListRuntimesResponse(
            runtimes=[self._view(runtime, now) for runtime in page], next_page_token=next_token
        )

    async def PushSyncEvents(
        self, request: runtime_service_pb2.PushSyncEventsRequest, context: Context
    ) -> runtime_service_pb2.PushSyncEventsResponse:
        runtimes.check_batch(len(request.events))  # by count, before converting any event
        shapes = [event_shape(event, f"events[{index}]") for index, event in enumerate(request.events)]
        outcome = await runtimes.push_sync_events(self._hub.store, current_call().caller, shapes, now=self._hub.now())
        return runtime_service_pb2.PushSyncEventsResponse(
            results=[_result(r) for r in outcome.results], cursors=[_cursor(c) for c in outcome.cursors]
        )

    async def ListRunEvents(
        self, request: runtime_service_pb2.ListRunEventsRequest, context: Context
    ) -> runtime_service_pb2.ListRunEventsResponse:
        events, run = await runtimes.list_run_events(
            self._hub.store,
            current_call().caller,
            request.project_id,
            request.run_id,
            request.after_sequence,
            request.page_size,
        )
        return runtime_service_pb2.ListRunEventsResponse(events=[_stored(e) for e in events], cursor=_cursor(run))

    async def ReassignSyncProject(
        self, request: runtime_service_pb2.ReassignSyncProjectRequest, context: Context
    ) -> runtime_service_pb2.ReassignSyncProjectResponse:
        moved = await runtimes.reassign_sync_project(
            self._hub.store, current_call().caller, request.project_id, request.project, now=self._hub.now()
        )
        return runtime_service_pb2.ReassignSyncProjectResponse(moved_events=moved)
