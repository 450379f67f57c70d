"""Per-method gRPC metrics with the names and labels of py-grpc-prometheus, and the build info.

Dashboards and alerts written for py-grpc-prometheus (and go-grpc-prometheus, whose names it
copies) work unchanged: ``grpc_server_started_total``, ``grpc_server_handled_total`` (by
``grpc_code``, CANCELLED and DEADLINE_EXCEEDED included: a client that gives up is counted, which
the hub's older ``kxm_rpc`` counter never did for streams), ``grpc_server_handling_seconds``
(a histogram), ``grpc_server_msg_received_total`` and ``grpc_server_msg_sent_total``, each labelled
``grpc_type`` (``unary``, ``server_stream`` or ``bidi_stream``), ``grpc_service`` and ``grpc_method``. Beside them
``kxm_rpc_in_flight`` counts calls being served and ``kxm_build_info`` carries the version.

A call costs a few integer additions and one bisection, not prometheus_client's locked
counters: every call is counted on the hub's event loop thread, so the counts are plain ``int``
fields of one ``MethodMetrics`` per label set (shared by every hub of the process, as label
children would be), and ``RpcCollector`` turns them into the metric families when a scrape asks.
A scrape reads them from another thread; an ``int`` read is atomic, so at worst a scrape sees a
call counted as started and not yet handled, as it would with locked counters. A hub serving no
metrics endpoint (no ``--metrics-port``) records none of them (``UNMETERED``): what no one can
scrape costs nothing. ``bench.percall --metrics`` measures the cost.
"""

from __future__ import annotations

import bisect
import itertools
import platform
import time
from collections.abc import Iterator

import grpc
from prometheus_client import REGISTRY, Gauge
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

from kxm_grpc.version import version

_LABELS = ("grpc_type", "grpc_service", "grpc_method")

BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
"""Upper bounds of ``grpc_server_handling_seconds``'s buckets (``+Inf`` follows)."""

_BOUND_NAMES = (*(repr(bound) for bound in BUCKETS), "+Inf")
"""The buckets' ``le`` labels, as prometheus_client writes them (``0.001``, ``1.0``, ``+Inf``)."""

BUILD_INFO = Gauge("kxm_build_info", "Always 1; the labels say what is running.", ["version", "python", "grpc"])
BUILD_INFO.labels(version(), platform.python_version(), grpc.__version__).set(1)

_CODES = tuple(code.name for code in grpc.StatusCode)


class _Count:
    """One counter's value (``inc`` adds one), for the call wrappers: one per method, shared by its calls."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0

    def inc(self) -> None:
        """Add one."""
        self.value += 1


class _Unmetered:
    """``MethodMetrics`` for a hub without a metrics endpoint: every operation does nothing."""

    __slots__ = ()

    @property
    def sent(self) -> _Unmetered:
        return self

    def inc(self) -> None:
        """Nothing."""

    def start(self) -> float:
        """Nothing; 0."""
        return 0.0

    def finish(self, started: float, code: str) -> None:
        """Nothing."""


UNMETERED = _Unmetered()


class MethodMetrics:
    """One method's counts (one instance per label set: ``for_method``); ``start`` and ``finish``
    bracket every call."""

    __slots__ = ("buckets", "created", "handled", "in_flight", "labels", "received", "seconds", "sent", "started")

    def __init__(self, labels: tuple[str, str, str]) -> None:
        self.labels = labels
        self.created = time.time()
        self.started = 0
        self.received = _Count()
        self.sent = _Count()
        self.in_flight = 0
        self.handled = dict.fromkeys(_CODES, 0)
        self.buckets = [0] * (len(BUCKETS) + 1)  # per bucket, not cumulative; the last is +Inf
        self.seconds = 0.0

    @classmethod
    def for_method(cls, method: str, grpc_type: str) -> MethodMetrics:
        """The counts of ``method`` (``/package.Service/Method``) served as ``grpc_type``, created
        on first use and registered with ``COLLECTOR``."""
        service, _, name = method.lstrip("/").rpartition("/")
        labels = (grpc_type, service, name)
        metrics = COLLECTOR.methods.get(labels)
        if metrics is None:
            metrics = COLLECTOR.methods[labels] = cls(labels)
        return metrics

    def start(self) -> float:
        """Count a call that arrived (with its one request message); its start time for ``finish``."""
        self.started += 1
        self.received.value += 1
        self.in_flight += 1
        return time.perf_counter()

    def finish(self, started: float, code: str) -> None:
        """Count a call that ended with ``code`` (a ``grpc.StatusCode`` name)."""
        elapsed = time.perf_counter() - started
        self.in_flight -= 1
        self.seconds += elapsed
        self.buckets[bisect.bisect_left(BUCKETS, elapsed)] += 1
        handled = self.handled
        handled[code if code in handled else "UNKNOWN"] += 1


Metered = MethodMetrics | _Unmetered
"""What the call wrappers meter a method with."""


class RpcCollector(Collector):
    """Turns every ``MethodMetrics`` into the py-grpc-prometheus families when a scrape asks."""

    def __init__(self) -> None:
        self.methods: dict[tuple[str, str, str], MethodMetrics] = {}

    def collect(self) -> Iterator[Metric]:
        """The families, each with one sample set per method (per code for ``handled``)."""
        started = CounterMetricFamily("grpc_server_started", "RPCs started on the server.", labels=_LABELS)
        handled = CounterMetricFamily(
            "grpc_server_handled",
            "RPCs completed on the server, by status code (whoever ended them).",
            labels=[*_LABELS, "grpc_code"],
        )
        seconds = HistogramMetricFamily(
            "grpc_server_handling_seconds",
            "Seconds from a call's arrival to its status (for a stream: its whole life).",
            labels=_LABELS,
        )
        received = CounterMetricFamily("grpc_server_msg_received", "Messages received from clients.", labels=_LABELS)
        sent = CounterMetricFamily("grpc_server_msg_sent", "Messages sent to clients.", labels=_LABELS)
        in_flight = GaugeMetricFamily(
            "kxm_rpc_in_flight", "Calls being served now (streams included), by type.", labels=["grpc_type"]
        )
        calls_in_flight: dict[str, int] = {}
        for labels, metrics in list(self.methods.items()):
            created = metrics.created
            started.add_metric(labels, metrics.started, created)
            for code, count in list(metrics.handled.items()):
                handled.add_metric([*labels, code], count, created)
            received.add_metric(labels, metrics.received.value, created)
            sent.add_metric(labels, metrics.sent.value, created)
            cumulative = itertools.accumulate(list(metrics.buckets))
            seconds.add_metric(labels, list(zip(_BOUND_NAMES, cumulative, strict=True)), metrics.seconds)
            calls_in_flight[labels[0]] = calls_in_flight.get(labels[0], 0) + metrics.in_flight
        for grpc_type, count in sorted(calls_in_flight.items()):
            in_flight.add_metric([grpc_type], count)
        yield from (started, handled, seconds, received, sent, in_flight)


COLLECTOR = RpcCollector()
REGISTRY.register(COLLECTOR)
