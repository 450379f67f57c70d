"""Per-method gRPC metrics with the names and labels of py-grpc-prometheus, and the build info.

Dashboards and alerts written for py-grpc-prometheus (and go-grpc-prometheus, whose names it
copies) work unchanged: ``grpc_server_started_total``, ``grpc_server_handled_total`` (by
``grpc_code``, CANCELLED and DEADLINE_EXCEEDED included: a client that gives up is counted, which
the hub's older ``kxm_rpc`` counter never did for streams), ``grpc_server_handling_seconds``
(a histogram), ``grpc_server_msg_received_total`` and ``grpc_server_msg_sent_total``, each labelled
``grpc_type`` (``unary`` or ``server_stream``), ``grpc_service`` and ``grpc_method``. Beside them
``kxm_rpc_in_flight`` counts calls being served and ``kxm_build_info`` carries the version.

Every label child is resolved once per method when the hub registers it (``MethodMetrics``), so a
call costs a few increments and one histogram observation; bench/ measures that cost. A hub
serving no metrics endpoint (no ``--metrics-port``) records none of them (``UNMETERED``): what no
one can scrape costs nothing.
"""

from __future__ import annotations

import platform
import time

import grpc
from prometheus_client import Counter, Gauge, Histogram

from kxm_grpc.version import version

_LABELS = ("grpc_type", "grpc_service", "grpc_method")

STARTED = Counter("grpc_server_started", "RPCs started on the server.", _LABELS)
HANDLED = Counter(
    "grpc_server_handled", "RPCs completed on the server, by status code (whoever ended them).", [*_LABELS, "grpc_code"]
)
HANDLING_SECONDS = Histogram(
    "grpc_server_handling_seconds",
    "Seconds from a call's arrival to its status (for a stream: its whole life).",
    _LABELS,
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0),
)
RECEIVED = Counter("grpc_server_msg_received", "Messages received from clients.", _LABELS)
SENT = Counter("grpc_server_msg_sent", "Messages sent to clients.", _LABELS)
IN_FLIGHT = Gauge("kxm_rpc_in_flight", "Calls being served now (streams included), by type.", ["grpc_type"])
BUILD_INFO = Gauge("kxm_build_info", "Always 1; the labels say what is running.", ["version", "python", "grpc"])
BUILD_INFO.labels(version(), platform.python_version(), grpc.__version__).set(1)

_CODES = tuple(code.name for code in grpc.StatusCode)


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
    """One method's label children, resolved once; ``start`` and ``finish`` bracket every call."""

    __slots__ = ("_handled", "_in_flight", "_seconds", "_started", "received", "sent")

    def __init__(self, method: str, grpc_type: str) -> None:
        service, _, name = method.lstrip("/").rpartition("/")
        labels = (grpc_type, service, name)
        self._started = STARTED.labels(*labels)
        self._handled = {code: HANDLED.labels(*labels, code) for code in _CODES}
        self._seconds = HANDLING_SECONDS.labels(*labels)
        self.received = RECEIVED.labels(*labels)
        self.sent = SENT.labels(*labels)
        self._in_flight = IN_FLIGHT.labels(grpc_type)

    def start(self) -> float:
        """Count a call that arrived (with its one request message); its start time for ``finish``."""
        self._started.inc()
        self.received.inc()
        self._in_flight.inc()
        return time.perf_counter()

    def finish(self, started: float, code: str) -> None:
        """Count a call that ended with ``code`` (a ``grpc.StatusCode`` name)."""
        self._in_flight.dec()
        self._seconds.observe(time.perf_counter() - started)
        (self._handled.get(code) or self._handled["UNKNOWN"]).inc()


Metered = MethodMetrics | _Unmetered
"""What the call wrappers meter a method with."""
