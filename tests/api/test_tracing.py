"""Opt-in tracing: one server span per call, a child of the caller's ``traceparent``, with the
call's status, and the trace id in the call's log lines."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import AsyncIterator
from dataclasses import replace

import grpc
import pytest
import pytest_asyncio
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from kxm_grpc._gen.kxm.v1 import admin_service_pb2, admin_service_pb2_grpc
from kxm_grpc.client import HubClient
from kxm_grpc.server import app
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from kxm_grpc.server.tracing import CallTracer, TracingUnavailable, tracer_for
from tests.conftest import ADMIN_TOKEN, sqlite_only
from tests.harness import eventually

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"


@pytest_asyncio.fixture
async def traced(
    hub_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[str, InMemorySpanExporter]]:
    """A hub tracing into memory (the exporter is the only thing replaced)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(app, "tracer_for", lambda mode: CallTracer(provider) if mode != "off" else None)
    server = HubServer(replace(hub_settings, tracing="console"))
    await server.start()
    try:
        yield server.address, exporter
    finally:
        await server.stop(0)


@sqlite_only
async def test_each_call_is_a_server_span_child_of_its_traceparent_with_its_status(
    traced: tuple[str, InMemorySpanExporter], log_lines: io.StringIO
) -> None:
    # Prepare
    address, exporter = traced
    admin = HubClient(address, token=ADMIN_TOKEN)
    traceparent = (("traceparent", f"00-{TRACE_ID}-{PARENT}-01"),)
    # Execute
    await admin.admin.create_project("traced")
    await admin.close()
    async with grpc.aio.insecure_channel(address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await admin_service_pb2_grpc.AdminServiceStub(channel).ListProjects(
                admin_service_pb2.ListProjectsRequest(),
                metadata=(("authorization", "Bearer not-the-admin-token"), *traceparent),
            )
    # Assert: the server ends a span (and logs) after it sent the status, so the client may be told first.
    await eventually(lambda: len(exporter.get_finished_spans()) >= 2 and "request_error" in log_lines.getvalue())
    spans = {span.name: span for span in exporter.get_finished_spans()}
    created, missing = spans["kxm.v1.AdminService/CreateProject"], spans["kxm.v1.AdminService/ListProjects"]
    assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert created.status.status_code is StatusCode.UNSET
    assert created.attributes["rpc.grpc.status_code"] == 0
    assert missing.status.status_code is StatusCode.ERROR
    assert missing.attributes["rpc.grpc.status_code"] == 16
    assert f"{missing.context.trace_id:032x}" == TRACE_ID
    assert missing.parent is not None and f"{missing.parent.span_id:016x}" == PARENT
    logged = [json.loads(line) for line in log_lines.getvalue().splitlines() if line.startswith("{")]
    errors = [line for line in logged if line.get("event") == "request_error"]
    assert errors and errors[-1]["trace_id"] == TRACE_ID


def test_tracing_is_off_by_default_and_says_what_to_install_when_the_sdk_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Prepare: the SDK made unimportable, as in an installation without the tracing extra
    tracer = tracer_for("otlp")
    assert tracer is not None
    tracer.shutdown()
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)
    # Execute
    with pytest.raises(TracingUnavailable) as missing:
        tracer_for("console")
    # Assert
    assert tracer_for("off") is None
    assert "pip install 'kxm-hub[tracing]'" in str(missing.value)
