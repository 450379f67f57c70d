"""Opt-in OpenTelemetry tracing: one server span per call, opened by the hub's own call wrapper.

``--tracing otlp`` exports spans with OTLP over gRPC, configured by the standard ``OTEL_*``
variables (``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_EXPORTER_OTLP_HEADERS``, ``OTEL_SERVICE_NAME``,
``OTEL_TRACES_SAMPLER``, …); ``--tracing console`` writes them to stdout (for a look, not for
production); ``off`` (the default) costs one ``is None`` test per call. It needs the ``tracing``
extra (``pip install 'kxm-hub[tracing]'``).

Why not the stock ``opentelemetry-instrumentation-grpc``: measured on these machines it records the
hub's errors (sent through ``abort``) as status OK and costs 29–66 % more server CPU per call. Here
the span is opened where the call's status is known: a call's W3C ``traceparent`` (and
``tracestate``) metadata makes it a child of the caller's span; its name is the method's full name
(``kxm.v1.MessageService/SendMessage``); it carries ``rpc.system``, ``rpc.service``,
``rpc.method`` and ``rpc.grpc.status_code``, and an error status for any code but OK. While it is
open, every log line of the call carries its ``trace_id`` and ``span_id``. Spans never carry
request or response bodies, tokens or metadata values.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import grpc
import structlog

_CODE_NUMBERS = {code.name: code.value[0] for code in grpc.StatusCode}


class TracingUnavailable(RuntimeError):
    """``--tracing`` was asked for but the OpenTelemetry packages are not installed."""


class CallTracer:
    """Opens and ends the server span of each call (made by ``tracer_for``)."""

    def __init__(self, provider: Any) -> None:
        from opentelemetry.trace import SpanKind
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        self._provider = provider
        self._tracer = provider.get_tracer("kxm_grpc")
        self._propagator = TraceContextTextMapPropagator()
        self._server = SpanKind.SERVER

    def start(self, method: str, metadata: Iterable[tuple[str, str | bytes]] | None) -> Any:
        """The span of a call of ``method`` (``/kxm.v1.X/Y``), child of its ``traceparent`` if any;
        the call's log lines carry its ids from here on."""
        carrier = {key: value for key, value in metadata or () if isinstance(value, str) and key.startswith("trace")}
        parent = self._propagator.extract(carrier) if carrier else None
        service, _, name = method.lstrip("/").rpartition("/")
        span = self._tracer.start_span(
            method.lstrip("/"),
            context=parent,
            kind=self._server,
            attributes={"rpc.system": "grpc", "rpc.service": service, "rpc.method": name},
        )
        ids = span.get_span_context()
        structlog.contextvars.bind_contextvars(trace_id=f"{ids.trace_id:032x}", span_id=f"{ids.span_id:016x}")
        return span

    @staticmethod
    def finish(span: Any, code: str) -> None:
        """End ``span`` with the call's status ``code`` (a ``grpc.StatusCode`` name)."""
        from opentelemetry.trace import Status, StatusCode

        span.set_attribute("rpc.grpc.status_code", _CODE_NUMBERS.get(code, 2))
        if code != "OK":
            span.set_status(Status(StatusCode.ERROR, code))
        span.end()

    def shutdown(self) -> None:
        """Flush and stop the exporter (the hub's stop calls it)."""
        self._provider.shutdown()


def tracer_for(mode: str) -> CallTracer | None:
    """The tracer of ``--tracing MODE`` (``off``: None).

    Raises:
        TracingUnavailable: the OpenTelemetry SDK (or, for ``otlp``, its exporter) is not installed.
    """
    if mode == "off":
        return None
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

        exporter: SpanExporter
        if mode == "otlp":
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter()
        else:
            exporter = ConsoleSpanExporter()
    except ImportError as error:
        raise TracingUnavailable(
            f"--tracing {mode} needs OpenTelemetry: pip install 'kxm-hub[tracing]' ({error.name} is missing)"
        ) from None
    from kxm_grpc.version import version

    # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES still apply: Resource.create merges them over these.
    provider = TracerProvider(resource=Resource.create({"service.name": "kxm-hub", "service.version": version()}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    return CallTracer(provider)
