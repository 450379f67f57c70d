"""``kxm debug call``: call any RPC by name with a JSON body, through server reflection (like grpcurl).

It calls with the credentials any command would (``--token``, ``--admin``, ``--project``; ``--as
NAME`` for a saved agent, resumed as ``kxm peer`` resumes it) over TLS when the TLS flags (or
``KXM_TLS_*``) say so, prints each response in the proto JSON mapping, and on a failure prints the
whole error as one JSON object on standard error: code, message, the ``ErrorInfo`` reason and
metadata, field violations and the retry delay (exit 1; 2 when the hub cannot be reached).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

from kxm_grpc.cli.common import ADDR_HELP, EXIT_ERROR, EXIT_OK, EXIT_UNREACHABLE, hub_address, tls_material


def register(commands: Any) -> None:
    """Add ``debug``."""
    debug = commands.add_parser("debug", help="low-level tools")
    actions = debug.add_subparsers(dest="debug_command", required=True, metavar="COMMAND")
    call = actions.add_parser("call", help="call METHOD (Service/Method, or 'list') with a JSON request")
    call.add_argument("method", help="e.g. kxm.v1.AgentService/ListAgents, or 'list' for services")
    call.add_argument("body", nargs="?", default="{}", help="the request as JSON")
    call.add_argument("--addr", type=hub_address, help=ADDR_HELP)
    call.add_argument("--token", help="bearer token (env KXM_TOKEN, else the project token from the credentials file)")
    call.add_argument("--admin", action="store_true", help="use the admin token from the credentials file")
    call.add_argument("--project", help="x-kxm-project (admin calls)")
    call.add_argument(
        "--as",
        dest="agent_name",
        default=os.environ.get("KXM_AGENT_NAME"),
        help="call as this saved agent (env KXM_AGENT_NAME), with its id and key",
    )
    call.add_argument(
        "--tls-ca", help="PEM file of the CA that signed the hub's certificate (enables TLS; env KXM_TLS_CA)"
    )
    call.add_argument("--tls-cert", help="PEM client certificate for a hub that requires one (mTLS; env KXM_TLS_CERT)")
    call.add_argument("--tls-key", help="PEM key of --tls-cert (env KXM_TLS_KEY)")
    call.add_argument("-H", "--header", action="append", default=[], help="extra metadata 'key: value'")
    call.add_argument("--timeout", type=float, default=10.0)
    call.set_defaults(run=_call, json=False)


def _metadata(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The call's credentials: the saved agent's (``--as``) or the bearer token's, then ``-H``.

    Raises:
        SystemExit: the address cannot be dialled, or ``--as`` names no saved agent.
    """
    from kxm_grpc.client.addresses import AddressError
    from kxm_grpc.client.config import resolve

    metadata: list[tuple[str, str]] = []
    if args.agent_name:
        from kxm_grpc.cli.identity import agent_client

        async def agent_metadata() -> list[tuple[str, str]]:
            client = await agent_client(args, args.agent_name)
            async with client:
                return list(client.metadata)

        # agent_client reads the connection flags of any command: these are the same ones.
        args.register = False
        metadata = asyncio.run(agent_metadata())
    else:
        try:
            config = resolve(args.addr, token=args.token, project=args.project, admin=args.admin)
        except AddressError as error:
            raise SystemExit(f"error: {error}") from None
        if config.token:
            metadata.append(("authorization", f"Bearer {config.token}"))
        if args.project:
            metadata.append(("x-kxm-project", args.project))
    for header in args.header:
        key, _, value = header.partition(":")
        metadata.append((key.strip().lower(), value.strip()))
    return metadata


def _error_document(error: Any) -> dict[str, Any]:
    """A failed call's whole status: code, message and its ``google.rpc`` details."""
    from kxm_grpc._status import from_rpc_error

    hub_error = from_rpc_error(error)
    document: dict[str, Any] = {"code": error.code().name, "message": error.details() or ""}
    if hub_error.reason is not None:
        document["reason"] = str(hub_error.reason)
    if hub_error.metadata:
        document["metadata"] = dict(hub_error.metadata)
    if hub_error.field_violations:
        document["fieldViolations"] = [
            {"field": v.field, "description": v.description} for v in hub_error.field_violations
        ]
    if hub_error.retry_after is not None:
        document["retryAfterSeconds"] = hub_error.retry_after
    return document


def _call(args: argparse.Namespace) -> int:
    import grpc
    from google.protobuf import descriptor_pool, json_format, message_factory
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

    from kxm_grpc.client.config import resolve

    metadata = _metadata(args)
    target = resolve(args.addr, admin=args.admin).target
    material = tls_material(args)
    if material:
        credentials = grpc.ssl_channel_credentials(
            material.get("root_certificates"), material.get("private_key"), material.get("certificate_chain")
        )
        channel = grpc.secure_channel(target.target, credentials, options=target.channel_options())
    else:
        channel = grpc.insecure_channel(target.target, options=target.channel_options())
    try:
        with channel:
            database = ProtoReflectionDescriptorDatabase(channel)
            if args.method == "list":
                print("\n".join(sorted(database.get_services())))
                return EXIT_OK
            service_name, _, method_name = args.method.rpartition("/")
            pool = descriptor_pool.DescriptorPool(database)
            method = pool.FindServiceByName(service_name).FindMethodByName(method_name)
            request_class = message_factory.GetMessageClass(method.input_type)
            response_class = message_factory.GetMessageClass(method.output_type)
            request = json_format.Parse(args.body, request_class())
            path = f"/{service_name}/{method_name}"
            kwargs: dict[str, Any] = {
                "request_serializer": request_class.SerializeToString,
                "response_deserializer": response_class.FromString,
            }
            if method.server_streaming:
                for response in channel.unary_stream(path, **kwargs)(
                    request, metadata=tuple(metadata), timeout=args.timeout
                ):
                    print(json_format.MessageToJson(response, indent=None))
            else:
                response = channel.unary_unary(path, **kwargs)(request, metadata=tuple(metadata), timeout=args.timeout)
                print(json_format.MessageToJson(response, indent=None))
    except grpc.RpcError as error:
        print(json.dumps(_error_document(error)), file=sys.stderr)
        code = error.code()
        return (
            EXIT_UNREACHABLE if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED) else EXIT_ERROR
        )
    except (KeyError, json_format.ParseError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK
