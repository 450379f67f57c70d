"""``kxm hub serve`` and ``kxm health``."""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
from pathlib import Path
from typing import Any

from kxm_grpc.cli.common import EXIT_ERROR, EXIT_OK, EXIT_UNREACHABLE

GC_THRESHOLD = 20_000
"""Allocations between young-generation collections in ``kxm hub serve`` (Python's default: 700)."""


def _env(name: str, default: str) -> str:
    # Defaults stay strings: argparse converts them with the option's type only when the command
    # runs, so a malformed KXM_* value is a clear usage error of `hub serve`, not a crash of `kxm`.
    return os.environ.get(f"KXM_{name}", default)


def _port_or_off(value: str) -> int | None:
    """A port number, or None for ``off`` (or empty)."""
    if value.strip().lower() in ("", "off"):
        return None
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port or 'off': {value!r}") from None


def register(commands: Any) -> None:
    """Add ``hub`` and ``health``."""
    hub = commands.add_parser("hub", help="run the hub")
    hub_commands = hub.add_subparsers(dest="hub_command", required=True, metavar="COMMAND")
    serve = hub_commands.add_parser("serve", help="start the hub (SQLite, 127.0.0.1:7331 by default)")
    serve.add_argument("--host", default=_env("HOST", "127.0.0.1"), help="bind address (env KXM_HOST)")
    serve.add_argument("--port", type=int, default=_env("PORT", "7331"), help="port; 0 picks one (KXM_PORT)")
    serve.add_argument("--data-dir", default=_env("DATA_DIR", ".kxm"), help="state directory (KXM_DATA_DIR)")
    serve.add_argument(
        "--database",
        default=_env("DATABASE", ""),
        help="SQLite file or :memory: (KXM_DATABASE; default DATA_DIR/hub.db)",
    )
    serve.add_argument("--admin-token", default=os.environ.get("KXM_ADMIN_TOKEN"), help="admin token (KXM_ADMIN_TOKEN)")
    serve.add_argument(
        "--durability",
        choices=["full", "normal"],
        default=_env("DURABILITY", "full"),
        help="full: acknowledged writes survive power loss; normal: survive a hub crash (KXM_DURABILITY)",
    )
    serve.add_argument(
        "--rate-limit",
        type=int,
        default=_env("RATE_LIMIT", "600"),
        help="calls per window per identity (KXM_RATE_LIMIT)",
    )
    serve.add_argument(
        "--rate-window",
        type=float,
        default=_env("RATE_WINDOW", "60"),
        help="rate window in seconds (KXM_RATE_WINDOW)",
    )
    serve.add_argument(
        "--stale-after",
        type=float,
        default=_env("STALE_AFTER", "30"),
        help="seconds without a heartbeat before an agent is stale (KXM_STALE_AFTER)",
    )
    serve.add_argument(
        "--message-ttl",
        type=float,
        default=_env("MESSAGE_TTL", "86400"),
        help="default message time to live in seconds (KXM_MESSAGE_TTL)",
    )
    serve.add_argument(
        "--message-retention",
        type=float,
        default=_env("MESSAGE_RETENTION", "604800"),
        help="seconds terminal messages are kept (KXM_MESSAGE_RETENTION)",
    )
    serve.add_argument(
        "--log-format",
        choices=["auto", "json", "console"],
        default=_env("LOG_FORMAT", "auto"),
        help="log format (KXM_LOG_FORMAT)",
    )
    serve.add_argument("--log-level", default=_env("LOG_LEVEL", "info"), help="log level (KXM_LOG_LEVEL)")
    serve.add_argument("--tls-cert", default=os.environ.get("KXM_TLS_CERT"), help="PEM certificate (KXM_TLS_CERT)")
    serve.add_argument("--tls-key", default=os.environ.get("KXM_TLS_KEY"), help="PEM private key (KXM_TLS_KEY)")
    serve.add_argument(
        "--tls-client-ca",
        default=os.environ.get("KXM_TLS_CLIENT_CA"),
        help="PEM CA bundle; requires client certificates (mTLS) (KXM_TLS_CLIENT_CA)",
    )
    serve.add_argument(
        "--metrics-port",
        type=_port_or_off,
        default=_env("METRICS_PORT", "off"),
        help="serve Prometheus GET /metrics on this port; 0 picks one; default off (KXM_METRICS_PORT)",
    )
    serve.add_argument(
        "--metrics-host",
        default=_env("METRICS_HOST", "127.0.0.1"),
        help="metrics bind address, whatever --host is; beyond loopback every scrape needs"
        " 'Authorization: Bearer <admin token>' (KXM_METRICS_HOST)",
    )
    serve.add_argument(
        "--shutdown-grace",
        type=float,
        default=_env("SHUTDOWN_GRACE", "5"),
        help="seconds to drain on SIGTERM (KXM_SHUTDOWN_GRACE)",
    )
    serve.add_argument(
        "--max-streams-per-agent",
        type=int,
        default=_env("MAX_STREAMS_PER_AGENT", "8"),
        help="open Subscribe streams allowed per agent (KXM_MAX_STREAMS_PER_AGENT)",
    )
    serve.add_argument(
        "--subscriber-queue",
        type=int,
        default=_env("SUBSCRIBER_QUEUE", "1000"),
        help="events a stream may fall behind before it is cut off to resume later (KXM_SUBSCRIBER_QUEUE)",
    )
    serve.add_argument(
        "--address-file",
        default=os.environ.get("KXM_ADDRESS_FILE"),
        help="write the bound host:port here once serving (useful with --port 0) (KXM_ADDRESS_FILE)",
    )
    serve.add_argument(
        "--lease-min-ttl",
        type=float,
        default=_env("LEASE_MIN_TTL", "5"),
        help="TESTING ONLY: lower the minimum lease TTL (default 5 s) so fault tests lapse quickly (KXM_LEASE_MIN_TTL)",
    )
    serve.set_defaults(run=_serve)

    health = commands.add_parser("health", help="exit 0 if the hub serves, 1 if not serving, 2 if unreachable")
    health.add_argument("--addr", default=None, help="hub address (env KXM_ADDR)")
    health.add_argument("--service", default="", help="a service name; empty means the whole hub")
    health.add_argument("--timeout", type=float, default=2.0)
    health.add_argument("--tls-ca", help="PEM CA for a TLS hub")
    health.set_defaults(run=_health)


def _serve(args: argparse.Namespace) -> int:
    from kxm_grpc.errors import HubError
    from kxm_grpc.server.app import serve
    from kxm_grpc.server.log import configure_logging
    from kxm_grpc.server.settings import Settings, SettingsError
    from kxm_grpc.store import Durability, StoreError

    try:
        settings = Settings(
            host=args.host,
            port=args.port,
            data_dir=Path(args.data_dir),
            database=args.database,
            admin_token=args.admin_token or None,
            durability=Durability(args.durability),
            rate_limit=args.rate_limit,
            rate_window=args.rate_window,
            stale_after=args.stale_after,
            message_ttl=args.message_ttl,
            message_retention=args.message_retention,
            log_format=args.log_format,
            log_level=args.log_level,
            tls_cert=Path(args.tls_cert) if args.tls_cert else None,
            tls_key=Path(args.tls_key) if args.tls_key else None,
            tls_client_ca=Path(args.tls_client_ca) if args.tls_client_ca else None,
            metrics_port=args.metrics_port,
            metrics_host=args.metrics_host,
            shutdown_grace=args.shutdown_grace,
            max_streams_per_agent=args.max_streams_per_agent,
            subscriber_queue=args.subscriber_queue,
            address_file=Path(args.address_file) if args.address_file else None,
            lease_min_ttl=args.lease_min_ttl,
        ).validate()
    except SettingsError as error:
        print(f"kxm hub: {error}", file=sys.stderr)
        return 2
    configure_logging(settings.log_format, settings.log_level)
    _tune_gc()
    try:
        asyncio.run(serve(settings))
    except (StoreError, HubError) as error:
        # The database cannot be opened, is held by another hub, or refuses the start's writes.
        print(f"kxm hub: {error}", file=sys.stderr)
        return 3
    return EXIT_OK


def _tune_gc() -> None:
    """Collect garbage less often: every RPC allocates hundreds of short-lived objects, and the
    default threshold (700) ran a collection every few calls, about 3 % of the hub's CPU. What is
    loaded at start (modules, generated classes) is frozen out of every later collection."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, 20, 20)


def _health(args: argparse.Namespace) -> int:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from kxm_grpc.client.config import resolve

    address = resolve(args.addr).address
    try:
        if args.tls_ca:
            creds = grpc.ssl_channel_credentials(Path(args.tls_ca).read_bytes())
            channel = grpc.secure_channel(address, creds)
        else:
            channel = grpc.insecure_channel(address)
        with channel:
            stub = health_pb2_grpc.HealthStub(channel)
            response = stub.Check(health_pb2.HealthCheckRequest(service=args.service), timeout=args.timeout)
    except grpc.RpcError as error:
        print(f"unreachable: {error.code().name}: {error.details()}", file=sys.stderr)
        return EXIT_UNREACHABLE
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)
    print(status)
    return EXIT_OK if response.status == health_pb2.HealthCheckResponse.SERVING else EXIT_ERROR
