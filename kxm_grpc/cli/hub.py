"""``kxm hub serve`` and ``kxm health``."""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
from pathlib import Path
from typing import Any

import structlog

from kxm_grpc import defaults, failpoints
from kxm_grpc.cli.common import ADDR_HELP, EXIT_ERROR, EXIT_OK, EXIT_UNREACHABLE, hub_address
from kxm_grpc.server.config_file import read_config
from kxm_grpc.server.settings import Settings, SettingsError, options

GC_THRESHOLD = 20_000
"""Allocations between young-generation collections in ``kxm hub serve`` (Python's default: 700)."""


class _Unset:
    """A setting neither a flag nor a variable gave: the config file's value, else ``default``."""

    __slots__ = ("default",)

    def __init__(self, default: Any) -> None:
        self.default = default


def add_settings(parser: argparse.ArgumentParser) -> None:
    """One flag per ``Settings`` field, from the field's ``Option``: its flags, help and default.

    A ``KXM_*`` value stays a string default: argparse converts it with the option's ``type`` only
    when ``hub serve`` runs, so a malformed value is a clear usage error of ``hub serve``
    (``argument --port: invalid int value: 'x'``), not a crash of every ``kxm`` command. A setting
    given by neither is ``_Unset`` until ``settings_from`` reads the config file.
    """
    for option in options():
        from_env = option.from_env(os.environ)
        accepted = option.accepted
        parser.add_argument(
            *option.flags,
            dest=option.name,
            type=option.parser,
            default=_Unset(option.default) if from_env is None else from_env,
            metavar=option.metavar or ("{" + ",".join(accepted) + "}" if accepted else None),
            help=option.help_text(),
        )


def settings_from(args: argparse.Namespace) -> Settings:
    """The ``Settings`` that parsed flags (over ``KXM_*`` variables, over the config file, over
    defaults) describe.

    Raises:
        SettingsError: the config file (``--config``) is unreadable or refuses a key or value.
    """
    config = getattr(args, "config", None)
    path = config.default if isinstance(config, _Unset) else config
    from_file = read_config(path, options()) if path is not None else {}
    values = {}
    for option in options():
        value = getattr(args, option.name)
        values[option.name] = from_file.get(option.name, value.default) if isinstance(value, _Unset) else value
    return Settings(**values)


def register(commands: Any) -> None:
    """Add ``hub`` and ``health``."""
    hub = commands.add_parser("hub", help="run the hub")
    hub_commands = hub.add_subparsers(dest="hub_command", required=True, metavar="COMMAND")
    serve = hub_commands.add_parser(
        "serve",
        help=f"start the hub (SQLite, {defaults.ADDRESS} by default)",
        description="Start the hub. Every setting is a flag or a KXM_* environment variable; flags win."
        " Settings marked TESTING ONLY exist for the hub's own tests: never set them in production.",
    )
    add_settings(serve)
    serve.set_defaults(run=_serve)

    health = commands.add_parser("health", help="exit 0 if the hub serves, 1 if not serving, 2 if unreachable")
    health.add_argument("--addr", default=None, type=hub_address, help=ADDR_HELP)
    health.add_argument("--service", default="", help="a service name; empty means the whole hub")
    health.add_argument("--timeout", type=float, default=2.0)
    health.add_argument("--tls-ca", help="PEM CA for a TLS hub")
    health.set_defaults(run=_health)


def _serve(args: argparse.Namespace) -> int:
    from kxm_grpc.errors import HubError
    from kxm_grpc.server.app import BindError, serve
    from kxm_grpc.server.log import configure_logging
    from kxm_grpc.server.tracing import TracingUnavailable
    from kxm_grpc.store import StoreError

    try:
        settings = settings_from(args).validate()
    except SettingsError as error:
        print(f"kxm hub: {error}", file=sys.stderr)
        return 2
    configure_logging(settings.log_format, settings.log_level)
    try:
        armed = failpoints.arm_from_environment()
    except failpoints.FailpointError as error:
        print(f"kxm hub: {error}", file=sys.stderr)
        return 2
    if armed:
        # Loud on purpose: a hub with failpoints is a test rig, never a deployment.
        structlog.get_logger("kxm.hub").warning(
            "failpoints_armed", points=sorted(armed), spec=os.environ.get(failpoints.ENV, "")
        )
    _tune_gc()
    try:
        asyncio.run(serve(settings))
    except TracingUnavailable as error:
        print(f"kxm hub: {error}", file=sys.stderr)
        return 2
    except (StoreError, HubError, BindError) as error:
        # The database cannot be opened, is held by another hub, or refuses the start's writes; or a
        # listener's port is taken: one line, no traceback.
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

    from kxm_grpc.client.addresses import AddressError
    from kxm_grpc.client.config import resolve

    try:
        target = resolve(args.addr).target
    except AddressError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    try:
        if args.tls_ca:
            creds = grpc.ssl_channel_credentials(Path(args.tls_ca).read_bytes())
            channel = grpc.secure_channel(target.target, creds, options=target.channel_options())
        else:
            channel = grpc.insecure_channel(target.target, options=target.channel_options())
        with channel:
            stub = health_pb2_grpc.HealthStub(channel)
            response = stub.Check(health_pb2.HealthCheckRequest(service=args.service), timeout=args.timeout)
    except grpc.RpcError as error:
        print(f"unreachable: {error.code().name}: {error.details()}", file=sys.stderr)
        return EXIT_UNREACHABLE
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)
    print(status)
    return EXIT_OK if response.status == health_pb2.HealthCheckResponse.SERVING else EXIT_ERROR
