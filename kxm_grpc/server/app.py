"""Wiring: build, start and gracefully stop a hub server.

Start: open and migrate the store, mark every agent offline (presence never survives a restart),
bootstrap credentials, build the grpc.aio server with the interceptor, health (per service),
reflection and keepalive settings, bind, then start the sweeps. Stop: health NOT_SERVING,
tell streams to end with UNAVAILABLE so clients resume elsewhere, then stop within the grace.
In between, health follows the store: every name reads NOT_SERVING while the database refuses
writes, and SERVING again once it takes them.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import signal
import socket
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from kxm_grpc._gen.kxm.v1 import (
    admin_service_pb2,
    admin_service_pb2_grpc,
    agent_service_pb2,
    agent_service_pb2_grpc,
    context_service_pb2,
    context_service_pb2_grpc,
    lease_service_pb2,
    lease_service_pb2_grpc,
    message_service_pb2,
    message_service_pb2_grpc,
    ops_service_pb2,
    ops_service_pb2_grpc,
    runtime_service_pb2,
    runtime_service_pb2_grpc,
    workflow_service_pb2,
    workflow_service_pb2_grpc,
)
from kxm_grpc.domain.clock import Clock, SystemClock
from kxm_grpc.domain.secrets import hash_secret
from kxm_grpc.server.admission import Admission
from kxm_grpc.server.bootstrap import bootstrap, write_credentials
from kxm_grpc.server.dashboard import PATHS as DASHBOARD_PATHS
from kxm_grpc.server.dashboard import Dashboard
from kxm_grpc.server.http_api import MCP_PATH, Endpoint, HttpApiServer, UnavailableEndpoint
from kxm_grpc.server.http_calls import Route, routes_from
from kxm_grpc.server.interceptor import HubInterceptor
from kxm_grpc.server.journal_keys import hub_keyring, load_key_file, reconcile
from kxm_grpc.server.methods import MAX_REQUEST_BYTES, SERVICES
from kxm_grpc.server.metrics import MetricsServer, server_ssl_context
from kxm_grpc.server.notifications import NotificationSender
from kxm_grpc.server.replicas import DatabaseClock, ReplicaCoordination
from kxm_grpc.server.servicers.admin import AdminServicer
from kxm_grpc.server.servicers.agents import AgentServicer
from kxm_grpc.server.servicers.context import ContextServicer
from kxm_grpc.server.servicers.leases import LeaseServicer
from kxm_grpc.server.servicers.messages import MessageServicer
from kxm_grpc.server.servicers.ops import OpsServicer
from kxm_grpc.server.servicers.runtimes import RuntimeServicer
from kxm_grpc.server.servicers.workflows import WorkflowServicer
from kxm_grpc.server.settings import Settings, is_loopback
from kxm_grpc.server.state import HubState
from kxm_grpc.server.token_keys import TOKEN_KEYS
from kxm_grpc.server.tracing import CallTracer, tracer_for
from kxm_grpc.server.webhooks import WebhookServer
from kxm_grpc.services import leases
from kxm_grpc.services.workflows import definitions as workflow_definitions
from kxm_grpc.store import Store
from kxm_grpc.store import url as store_url
from kxm_grpc.version import version

if TYPE_CHECKING:
    from kxm_grpc.server.mcp_http import McpEndpoint

log = structlog.get_logger("kxm.hub")


HEALTH_MAX_CONCURRENT_RPCS = 64
"""Calls the plaintext health listener serves at once (more are refused RESOURCE_EXHAUSTED)."""


class BindError(RuntimeError):
    """A listener's address cannot be bound; the message says which and why, in one line."""


# Keepalive (ecosystem.md §5.5): accept client pings every 10 s without calls, ping idle
# connections ourselves, and raise the pending-stream limits so reconnect storms are not CANCELLED.
# ``server_options`` adds what the settings decide: how often the hub pings (30 s, answered within
# 10 s: a dead peer's streams are reaped within 40 s) and how long a connection without calls lives.
SERVER_OPTIONS: list[tuple[str, Any]] = [
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_ping_strikes", 2),
    ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
    ("grpc.max_send_message_length", 4 * 1024 * 1024),
    ("grpc.server.max_pending_requests", 20_000),
    ("grpc.server.max_pending_requests_hard_limit", 30_000),
    ("grpc.so_reuseport", 0),
]


def server_options(settings: Settings) -> list[tuple[str, Any]]:
    """The gRPC server's channel arguments: ``SERVER_OPTIONS`` plus keepalive and idle closing from ``settings``."""
    timeout_ms = round(settings.testing_keepalive_timeout * 1000)
    options = [
        *SERVER_OPTIONS,
        ("grpc.keepalive_time_ms", round(settings.testing_keepalive_time * 1000)),
        ("grpc.keepalive_timeout_ms", timeout_ms),
        # What closes a connection whose peer does not answer a ping: C-core's ping timeout, 60 s by
        # default whatever keepalive_timeout says (measured, grpcio 1.78: a SIGSTOPped client's
        # streams lived keepalive time + 60 s). Set to the keepalive timeout, they are reaped in 40 s.
        ("grpc.http2.ping_timeout_ms", timeout_ms),
    ]
    if settings.max_connection_idle > 0:
        options.append(("grpc.max_connection_idle_ms", round(settings.max_connection_idle * 1000)))
    return options


ServicerFactory = Callable[[HubState, grpc.aio.Server], str]


class Registrar:
    """Stands in for the server while generated ``add_*_to_server`` functions register a servicer.

    Each method handler is wrapped once in the admission pipeline (request id, authentication,
    rate limit, presence, error mapping; ``server/admission.py``), its facts resolved then, and
    registered by exact method name. This does what a
    grpc.aio interceptor does without grpc's per-call interceptor chain (which builds a new
    handler for every call): measured about 10% less server CPU per call (docs/performance.md).
    """

    def __init__(self, server: grpc.aio.Server, interceptor: HubInterceptor) -> None:
        self._server = server
        self._interceptor = interceptor
        self.handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
        """The servicers' own method handlers, unwrapped, by full method name (for the HTTP port,
        which admits its calls itself)."""

    def add_generic_rpc_handlers(self, handlers: object) -> None:
        """Ignored: generated code also registers every method by name, which ``add_registered_method_handlers``
        wraps and serves."""

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        """Wrap and register one service's method handlers (by name, and as a generic fallback)."""
        self.handlers.update((f"/{service}/{name}", h) for name, h in handlers.items())
        wrapped = {name: self._interceptor.wrap(f"/{service}/{name}", h) for name, h in handlers.items()}
        self._server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, wrapped),))
        self._server.add_registered_method_handlers(service, wrapped)


def _add_admin(hub: HubState, server: grpc.aio.Server) -> str:
    admin_service_pb2_grpc.add_AdminServiceServicer_to_server(AdminServicer(hub), server)
    return str(admin_service_pb2.DESCRIPTOR.services_by_name["AdminService"].full_name)


def _add_agents(hub: HubState, server: grpc.aio.Server) -> str:
    agent_service_pb2_grpc.add_AgentServiceServicer_to_server(AgentServicer(hub), server)
    return str(agent_service_pb2.DESCRIPTOR.services_by_name["AgentService"].full_name)


def _add_messages(hub: HubState, server: grpc.aio.Server) -> str:
    message_service_pb2_grpc.add_MessageServiceServicer_to_server(MessageServicer(hub), server)
    return str(message_service_pb2.DESCRIPTOR.services_by_name["MessageService"].full_name)


def _add_leases(hub: HubState, server: grpc.aio.Server) -> str:
    lease_service_pb2_grpc.add_LeaseServiceServicer_to_server(LeaseServicer(hub), server)
    return str(lease_service_pb2.DESCRIPTOR.services_by_name["LeaseService"].full_name)


def _add_runtimes(hub: HubState, server: grpc.aio.Server) -> str:
    runtime_service_pb2_grpc.add_RuntimeServiceServicer_to_server(RuntimeServicer(hub), server)
    return str(runtime_service_pb2.DESCRIPTOR.services_by_name["RuntimeService"].full_name)


def _add_workflows(hub: HubState, server: grpc.aio.Server) -> str:
    workflow_service_pb2_grpc.add_WorkflowServiceServicer_to_server(WorkflowServicer(hub), server)
    return str(workflow_service_pb2.DESCRIPTOR.services_by_name["WorkflowService"].full_name)


def _add_context(hub: HubState, server: grpc.aio.Server) -> str:
    context_service_pb2_grpc.add_ContextServiceServicer_to_server(ContextServicer(hub), server)
    return str(context_service_pb2.DESCRIPTOR.services_by_name["ContextService"].full_name)


def _add_ops(hub: HubState, server: grpc.aio.Server) -> str:
    ops_service_pb2_grpc.add_OpsServiceServicer_to_server(OpsServicer(hub), server)
    return str(ops_service_pb2.DESCRIPTOR.services_by_name["OpsService"].full_name)


SERVICERS: list[ServicerFactory] = [
    _add_admin,
    _add_agents,
    _add_messages,
    _add_leases,
    _add_runtimes,
    _add_workflows,
    _add_context,
    _add_ops,
]


def open_store(settings: Settings) -> Store:
    """The store (not yet started) the settings' database URL names (``kxm_grpc/store/url.py``).

    Raises:
        StoreError: the URL is not one of the supported forms.
    """
    return store_url.open_store(
        settings.database_path, durability=settings.durability, sqlite_busy_timeout=settings.testing_busy_timeout
    )


def _credentials(settings: Settings) -> grpc.ServerCredentials | None:
    if settings.tls_cert is None or settings.tls_key is None:
        return None
    root = settings.tls_client_ca.read_bytes() if settings.tls_client_ca else None
    return grpc.ssl_server_credentials(
        [(settings.tls_key.read_bytes(), settings.tls_cert.read_bytes())],
        root_certificates=root,
        require_client_auth=root is not None,
    )


class HubServer:
    """A running hub: its gRPC server, store and background tasks."""

    def __init__(self, settings: Settings, *, store: Store | None = None, clock: Clock | None = None) -> None:
        self.settings = settings.validate()
        self.store = store or open_store(settings)
        self.clock = clock or SystemClock()
        self.port = 0
        self.hub: HubState | None = None
        self.admission: Admission | None = None
        """The admission pipeline every surface of this hub admits its calls through (set by start)."""
        self._server: grpc.aio.Server | None = None
        self._tracer: CallTracer | None = None
        self._health: health.aio.HealthServicer | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.notifications: NotificationSender | None = None
        """The workflow notification sender (set by start)."""
        self._services: list[str] = []
        self._stopped = asyncio.Event()
        self._storage_changed = asyncio.Event()
        self.metrics_port: int | None = None
        """The port metrics are served on once started (the chosen one with port 0); None when off."""
        self._metrics: MetricsServer | None = None
        self.webhook_port: int | None = None
        """The port of the public webhook listener once started (the chosen one with port 0); None when off."""
        self._webhooks: WebhookServer | None = None
        self.health_port: int | None = None
        """The port of the plaintext health listener once started (the chosen one with port 0); None when off."""
        self.http_port: int | None = None
        """The port of the HTTP API once started (the chosen one with port 0); None when off."""
        self._http: HttpApiServer | None = None
        self._mcp: McpEndpoint | None = None
        self._health_server: grpc.aio.Server | None = None

    @property
    def address(self) -> str:
        """``host:port`` the hub listens on."""
        return f"{self.settings.host}:{self.port}"

    @property
    def metrics_address(self) -> str | None:
        """``host:port`` of ``GET /metrics``, or None when metrics are off."""
        if self.metrics_port is None:
            return None
        return f"{self.settings.metrics_host}:{self.metrics_port}"

    async def _start_metrics(self) -> None:
        """Serve metrics on their own address; beyond loopback each scrape needs the admin token.

        With ``--tls-cert``/``--tls-key`` they are served over TLS with the same certificate.
        """
        settings = self.settings
        assert self.hub is not None and settings.metrics_port is not None
        host = settings.metrics_host
        token_hash = None if is_loopback(host) else self.hub.admin_token_hash
        tls = None
        if settings.tls_cert is not None and settings.tls_key is not None:
            tls = server_ssl_context(settings.tls_cert, settings.tls_key)
        # Settings.validate refuses both already; never serve beyond loopback without them.
        if not is_loopback(host) and token_hash is None:
            raise RuntimeError(f"metrics on {host} beyond loopback need an admin token")
        if not is_loopback(host) and tls is None:
            raise RuntimeError(f"metrics on {host} beyond loopback need TLS (the admin token would cross in cleartext)")
        metrics = MetricsServer(
            host,
            settings.metrics_port,
            admin_token_hash=token_hash,
            limiter=self.hub.coordination.limiter,
            ssl_context=tls,
        )
        try:
            self.metrics_port = await metrics.start()
        except OSError as error:
            raise BindError(f"could not bind metrics on {host}:{self.settings.metrics_port}: {error}") from error
        self._metrics = metrics

    @property
    def http_connections(self) -> int:
        """Connections the HTTP API is serving now (0 when it is off)."""
        return 0 if self._http is None else self._http.open_connections

    @property
    def http_address(self) -> str | None:
        """``host:port`` of the HTTP API (Connect and gRPC-Web), or None when it is off."""
        if self.http_port is None:
            return None
        return f"{self.settings.http_host}:{self.http_port}"

    @property
    def dashboard_url(self) -> str | None:
        """Where the operator dashboard is served (docs/dashboard.md), or None when the HTTP API is off."""
        address = self.http_address
        if address is None or self._http is None:
            return None
        return f"{'https' if self._http.tls else 'http'}://{address}/dashboard/"

    async def _start_http(self, handlers: dict[str, grpc.RpcMethodHandler[Any, Any]]) -> None:
        """Serve the RPCs over HTTP on the private listener (``server/http_api.py``), over TLS with the
        hub's certificate when it has one (required beyond loopback: ``Settings.validate``)."""
        settings = self.settings
        assert self.admission is not None and settings.http_port is not None
        host = settings.http_host
        tls = None
        if settings.tls_cert is not None and settings.tls_key is not None:
            tls = server_ssl_context(settings.tls_cert, settings.tls_key)
            if settings.tls_client_ca is not None:
                # mTLS on gRPC is mTLS here too: the same RPCs must not be reachable without a certificate.
                tls.verify_mode = ssl.CERT_REQUIRED
                tls.load_verify_locations(cafile=str(settings.tls_client_ca))
        if not is_loopback(host) and tls is None:
            raise RuntimeError(f"the HTTP API on {host} beyond loopback needs TLS")
        routes = routes_from(self.admission, handlers)
        assert self.hub is not None
        dashboard = Dashboard(self.hub, routes, tls=tls is not None)
        endpoints: dict[str, Endpoint] = {MCP_PATH: await self._start_mcp(routes, tls=tls is not None)}
        endpoints.update(dict.fromkeys(DASHBOARD_PATHS, dashboard))
        http = HttpApiServer(
            host,
            settings.http_port,
            routes,
            ssl_context=tls,
            cors_origins=settings.http_cors_origin,
            endpoints=endpoints,
            sessions=dashboard,
        )
        try:
            self.http_port = await http.start()
        except OSError as error:
            raise BindError(f"could not bind the HTTP API on {host}:{settings.http_port}: {error}") from error
        self._http = http

    async def _start_mcp(self, routes: dict[str, Route], *, tls: bool) -> Endpoint:
        """MCP over HTTP for the HTTP port (``server/mcp_http.py``), or its 501 without the ``mcp`` extra."""
        try:
            from kxm_grpc.server.mcp_http import McpEndpoint
            from kxm_grpc.server.mcp_news import InboxNews
        except ModuleNotFoundError as missing:
            if missing.name is None or not missing.name.startswith("mcp"):
                raise
            return UnavailableEndpoint()
        settings, hub = self.settings, self.hub
        assert hub is not None
        news = InboxNews(hub.store, hub.clock)
        endpoint = McpEndpoint(routes, news, host=settings.http_host, cors_origins=settings.http_cors_origin, tls=tls)
        await endpoint.start()
        self._mcp = endpoint
        return endpoint

    @property
    def health_address(self) -> str | None:
        """``host:port`` of the plaintext health listener, or None when it is off."""
        if self.health_port is None:
            return None
        return f"{self.settings.health_host}:{self.health_port}"

    async def _start_health(self) -> None:
        """Serve ``grpc.health.v1`` alone, in plaintext, on its own address (decision 261).

        The servicer is the main listener's, so both say the same (NOT_SERVING while the store
        refuses writes, and from the start of a stop). No other service is registered: a caller
        there reaches no RPC, token or not.
        """
        settings = self.settings
        assert self._health is not None and settings.health_port is not None
        host = settings.health_host
        # Unauthenticated by design, so bounded: probes are a few calls at a time, and a caller
        # holding Watch streams open there must not hold the hub's memory.
        server = grpc.aio.server(options=[("grpc.so_reuseport", 0)], maximum_concurrent_rpcs=HEALTH_MAX_CONCURRENT_RPCS)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        problem = _unbindable(host, settings.health_port) if settings.health_port else None
        if problem is not None and problem.in_use:
            raise BindError(problem.message.replace("use --port", "use --health-port"))
        try:
            port = server.add_insecure_port(f"{host}:{settings.health_port}")
        except RuntimeError as error:
            raise BindError(f"could not bind the health listener on {host}:{settings.health_port}") from error
        if port == 0:
            raise BindError(f"could not bind the health listener on {host}:{settings.health_port}")
        await server.start()
        self.health_port = port
        self._health_server = server

    @property
    def webhook_address(self) -> str | None:
        """``host:port`` of the signed webhook routes, or None when the webhook listener is off."""
        if self.webhook_port is None:
            return None
        return f"{self.settings.webhook_host}:{self.webhook_port}"

    async def _start_webhooks(self) -> None:
        """Serve the signed webhook routes on the public listener (``server/webhooks.py``).

        TLS with ``--webhook-tls-cert``/``--webhook-tls-key``, else the hub's certificate, else
        plain HTTP (a proxy in front terminates TLS; every request is signed either way).
        """
        settings = self.settings
        assert self.hub is not None and settings.webhook_port is not None
        host = settings.webhook_host
        cert, key = settings.webhook_tls_cert, settings.webhook_tls_key
        if cert is None or key is None:
            cert, key = settings.tls_cert, settings.tls_key
        tls = server_ssl_context(cert, key) if cert is not None and key is not None else None
        webhooks = WebhookServer(
            host, settings.webhook_port, hub=self.hub, rate_limit=settings.webhook_rate_limit, ssl_context=tls
        )
        try:
            self.webhook_port = await webhooks.start()
        except OSError as error:
            raise BindError(f"could not bind webhooks on {host}:{settings.webhook_port}: {error}") from error
        self._webhooks = webhooks
        if tls is None and not is_loopback(host):
            log.warning("webhooks_without_tls", address=self.webhook_address)

    async def start(self) -> None:
        """Open the store, bootstrap credentials and start serving; on failure, undo it all.

        A start that fails leaves nothing open: the store is closed again, so its database lock
        is released even when the hub is embedded in a process that goes on.

        Raises:
            StoreError: the database cannot be opened (or another hub holds it).
            HubError: the database refused the start's writes (full, read-only).
            BindError: the port, or the metrics or webhook address, cannot be bound.
        """
        try:
            await self._start()
        except BaseException:
            if self._server is not None:
                await self.stop(0)
            else:
                if self.hub is not None:
                    with contextlib.suppress(Exception):  # leave at once rather than a replica ttl later
                        await self.hub.coordination.stop()
                await self.store.close()
            raise

    async def _start(self) -> None:
        settings = self.settings
        file_keys = load_key_file(settings.journal_key_file)
        token_file_keys = TOKEN_KEYS.load(settings.token_key_file)
        await self.store.start()
        if self.store.shared and isinstance(self.clock, SystemClock):
            self.clock = DatabaseClock(self.store)  # replicas decide on one clock: the database's
            await self.clock.sync()
        boot = await bootstrap(settings, self.store, now=self.clock.now())
        keys = self.store.journal_keys = hub_keyring(file_keys, boot.admin_token)
        await self.store.write(lambda tx: reconcile(tx, keys))
        if settings.workflows is not None:
            await workflow_definitions.store_imported(
                self.store, workflow_definitions.import_directory(settings.workflows), now=self.clock.now()
            )
        self.hub = HubState(
            settings=settings,
            store=self.store,
            clock=self.clock,
            admin_token_hash=hash_secret(boot.admin_token) if boot.admin_token else None,
            coordination=ReplicaCoordination if self.store.shared else None,
            token_keys=TOKEN_KEYS.keyring(token_file_keys, boot.admin_token),
        )
        started = await self.hub.coordination.start()
        server = grpc.aio.server(options=server_options(settings))
        self.admission = Admission(self.hub)
        self._tracer = tracer_for(settings.tracing)
        interceptor = HubInterceptor(self.admission, rpc_metrics=settings.metrics_port is not None, tracer=self._tracer)
        registrar = Registrar(server, interceptor)
        self._services = [add(self.hub, registrar) for add in SERVICERS]  # type: ignore[arg-type]
        missing = {service.full_name for service in SERVICES} - set(self._services)
        if missing:
            # Every service of the contract (the RPC registry's) must be served: a gap is a build defect.
            raise RuntimeError(f"no servicer registered for {', '.join(sorted(missing))}")
        self._health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        reflection.enable_server_reflection((*self._services, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
        target = f"{settings.host}:{settings.port}"
        creds = _credentials(settings)
        # Asked first so a taken port is one line: gRPC's own failure also logs from its C core.
        # Only a port in use is refused before gRPC tries: gRPC falls back where a probe cannot
        # (a dual-stack wildcard on a host without IPv6 binds IPv4), so other causes are its call.
        problem = _unbindable(settings.host, settings.port) if settings.port else None
        if problem is not None and problem.in_use:
            raise BindError(problem.message)
        try:
            self.port = server.add_secure_port(target, creds) if creds else server.add_insecure_port(target)
        except RuntimeError as error:  # grpcio raises "Failed to bind to address" (older releases returned 0)
            raise BindError(_bind_failure(settings.host, settings.port)) from error
        if self.port == 0:
            raise BindError(_bind_failure(settings.host, settings.port))
        await server.start()
        self._server = server
        for name in ("", *self._services):
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        self.store.add_health_listener(lambda _healthy: self._storage_changed.set())
        self._storage_changed.set()  # the store may have failed already
        self._tasks.append(asyncio.create_task(self._follow_storage(), name="kxm-storage-health"))
        if settings.metrics_port is not None:
            await self._start_metrics()
        if settings.webhook_port is not None:
            await self._start_webhooks()
        if settings.health_port is not None:
            await self._start_health()
        if settings.http_port is not None:
            await self._start_http(registrar.handlers)
        if boot.file_data is not None:
            scheme = "https" if creds else "http"
            write_credentials(settings.credentials_path, {**boot.file_data, "address": self.address, "scheme": scheme})
        if settings.address_file is not None:
            # Written after bind so supervisors and tests can find a hub started on port 0.
            tmp = settings.address_file.with_suffix(".tmp")
            tmp.write_text(self.address + "\n")
            tmp.replace(settings.address_file)
        coordination = self.hub.coordination
        self._tasks.append(asyncio.create_task(coordination.run_sweeps(), name="kxm-sweeps"))
        # Fires at once what came due while the hub was down (after resume_after_restart, so a
        # lapse mark never precedes the extension of the grants that were live).
        self._tasks.append(asyncio.create_task(coordination.run_timers(), name="kxm-timers"))
        self.notifications = NotificationSender(self.hub)
        self._tasks.append(asyncio.create_task(self.notifications.run(), name="kxm-workflow-notifications"))
        log.info(
            "hub_started",
            version=version(),
            address=self.address,
            database=self.store.description,
            durability=settings.durability.value,
            tls=creds is not None,
            metrics_address=self.metrics_address,
            metrics_token_required=self._metrics.requires_token if self._metrics else None,
            metrics_tls=self._metrics.tls if self._metrics else None,
            webhook_address=self.webhook_address,
            webhook_tls=self._webhooks.tls if self._webhooks else None,
            health_address=self.health_address,
            http_address=self.http_address,
            http_tls=self._http.tls if self._http else None,
            dashboard_url=self.dashboard_url,
            agents_marked_offline=started.agents_marked_offline,
            lease_downtime_seconds=round(started.lease_downtime / 1_000_000, 3),
            first_replica=started.first if self.store.shared else None,
        )

    async def _follow_storage(self) -> None:
        """Set every health name ("" and each service) NOT_SERVING while the store refuses writes,
        SERVING once it takes them again (a shutdown's NOT_SERVING is final: grpc ignores sets)."""
        assert self._health is not None
        serving = True
        while True:
            await self._storage_changed.wait()
            self._storage_changed.clear()
            if self.store.healthy == serving:
                continue
            serving = self.store.healthy
            status = health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
            for name in ("", *self._services):
                await self._health.set(name, status)

    async def stop(self, grace: float | None = None) -> None:
        """Drain and stop: health NOT_SERVING, streams told to end, then stop within the grace.

        Every step after the drain is bounded (``STOP_STEP_SECONDS``): a step that overruns is
        logged as ``hub_stop_step_overran`` with the tasks still pending, and the stop goes on, so
        the database is always closed and the process can exit (a supervisor would kill it anyway).
        """
        if self._server is None or self.hub is None:
            return
        grace = self.settings.shutdown_grace if grace is None else grace
        stopping = time.monotonic()
        log.info("hub_stopping", grace_seconds=grace)
        if self._health is not None:
            await self._health.enter_graceful_shutdown()
        self.hub.shutting_down.set()
        try:
            # The webhook listener stops taking requests now and drains beside gRPC, within the grace.
            # So does the HTTP API: its calls in progress end within the grace, its streams with
            # UNAVAILABLE as gRPC's do.
            webhooks, self._webhooks = self._webhooks, None
            draining = asyncio.create_task(webhooks.stop(grace)) if webhooks is not None else None
            if draining is not None:
                self._tasks.append(draining)  # cancelled with the others should a step below fail
            http, self._http = self._http, None
            http_draining = asyncio.create_task(http.stop(grace)) if http is not None else None
            if http_draining is not None:
                self._tasks.append(http_draining)
            await _bounded("server", self._server.stop(grace), grace + STOP_STEP_SECONDS)
            self._server = None
            if draining is not None:
                await _bounded("webhooks", draining, grace + STOP_STEP_SECONDS)
            if http_draining is not None:
                await _bounded("http", http_draining, grace + STOP_STEP_SECONDS)
            if self._mcp is not None:
                await _bounded("mcp", self._mcp.stop(), STOP_STEP_SECONDS)
                self._mcp = None
            if self._metrics is not None:
                await _bounded("metrics", self._metrics.stop(), STOP_STEP_SECONDS)
                self._metrics = None
            if self._health_server is not None:
                # Stopped after the drain: a probe reads NOT_SERVING through it until then.
                await _bounded("health", self._health_server.stop(0), STOP_STEP_SECONDS)
                self._health_server = None
        finally:
            # The timers run through the grace: a grant that lapses while calls drain is marked as
            # lapsed, so a SIGKILL at the end of the grace (a supervisor's) cannot revive it.
            for task in self._tasks:
                task.cancel()
            if self._tasks:
                await _bounded("background_tasks", asyncio.wait(self._tasks), STOP_STEP_SECONDS)
            if self.notifications is not None:
                self.notifications.close()  # cuts POSTs still open: no receiver keeps the process alive
            try:
                await _bounded("coordination", self.hub.coordination.stop(), STOP_STEP_SECONDS)
            except Exception:  # the database may be gone: the others then take this replica for dead in time
                log.exception("coordination_stop_failed")
            try:
                # The last moment leases were decided: a restart extends live ones from here, exactly.
                final_mark = leases.keep_alive(self.store, now=self.clock.now())
                await _bounded("final_lease_mark", final_mark, STOP_STEP_SECONDS)
            except Exception:  # a full or failing disk must not keep the database locked
                log.exception("final_lease_mark_failed")
            finally:
                await _bounded("store_close", self.store.close(), 2 * STOP_STEP_SECONDS)
                if self._tracer is not None:  # flushes the spans of the last calls
                    await _bounded("tracing", asyncio.to_thread(self._tracer.shutdown), STOP_STEP_SECONDS)
                # The last line a hub writes: a supervisor reading the log knows the stop completed.
                log.info("hub_stopped", seconds=round(time.monotonic() - stopping, 3))
                self._stopped.set()

    async def wait_stopped(self) -> None:
        """Wait until stop() has finished."""
        await self._stopped.wait()


STOP_STEP_SECONDS = 10.0
"""How long each step of ``HubServer.stop`` after the drain may take before the stop moves on."""


async def _bounded(step: str, awaitable: Awaitable[object], seconds: float) -> None:
    """Await ``awaitable`` for ``seconds`` at most; on overrun cancel it and log what was still pending."""
    try:
        await asyncio.wait_for(awaitable, seconds)
    except TimeoutError:
        log.warning("hub_stop_step_overran", step=step, seconds=seconds, pending=_pending_tasks())


def _pending_tasks(limit: int = 20) -> list[str]:
    """The event loop's unfinished tasks, each with the line it waits at (for a stop that overran)."""
    described = []
    for task in list(asyncio.all_tasks())[:limit]:
        frames = task.get_stack(limit=1)
        where = f"{frames[-1].f_code.co_filename}:{frames[-1].f_lineno}" if frames else "?"
        described.append(f"{task.get_name()} at {where}")
    return described


@dataclass(frozen=True)
class _BindProblem:
    in_use: bool
    message: str


def _unbindable(host: str, port: int) -> _BindProblem | None:
    """Why no address ``host`` resolves to can be bound on ``port`` (gRPC binds those it can), or None.

    gRPC says only that a bind failed; probe sockets, bound as gRPC binds them, say why.
    """
    target = f"{host}:{port}"
    try:
        resolved = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as error:
        return _BindProblem(False, f"cannot bind {target}: {error.strerror or error}")
    failures: list[OSError] = []
    for family, kind, proto, _, address in resolved:
        try:
            with socket.socket(family, kind, proto) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(address)
        except OSError as error:
            failures.append(error)
            continue
        return None
    if any(error.errno == errno.EADDRINUSE for error in failures):
        return _BindProblem(True, f"port {target} is in use (another hub?); use --port")
    return _BindProblem(False, f"cannot bind {target}: {failures[0].strerror or failures[0]}") if failures else None


def _bind_failure(host: str, port: int) -> str:
    """The one line a failed gRPC bind of ``host:port`` is reported with."""
    problem = _unbindable(host, port)
    return problem.message if problem is not None else f"cannot bind {host}:{port}"


async def serve(settings: Settings) -> None:
    """Run a hub until SIGTERM or SIGINT, then stop gracefully."""
    server = HubServer(settings)
    await server.start()
    loop = asyncio.get_running_loop()
    stopping: asyncio.Task[None] | None = None

    def on_signal() -> None:
        nonlocal stopping
        if stopping is None:
            stopping = asyncio.create_task(server.stop())

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal)
    await server.wait_stopped()
