"""``kxm debug call``: call any RPC by name with a JSON body, through server reflection (like grpcurl)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from kxm_grpc.cli.common import ADDR_HELP, EXIT_ERROR, EXIT_OK, EXIT_UNREACHABLE, hub_address


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
    call.add_argument("-H", "--header", action="append", default=[], help="extra metadata 'key: value'")
    call.add_argument("--timeout", type=float, default=10.0)
    call.set_defaults(run=_call)


def _call(args: argparse.Namespace) -> int:
    import grpc
    from google.protobuf import descriptor_pool, json_format, message_factory
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

    from kxm_grpc.client.addresses import AddressError
    from kxm_grpc.client.config import resolve

    try:
        config = resolve(args.addr, token=args.token, project=args.project, admin=args.admin)
    except AddressError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    metadata: list[tuple[str, str]] = []
    if config.token:
        metadata.append(("authorization", f"Bearer {config.token}"))
    if args.project:
        metadata.append(("x-kxm-project", args.project))
    for header in args.header:
        key, _, value = header.partition(":")
        metadata.append((key.strip().lower(), value.strip()))
    try:
        with grpc.insecure_channel(config.target.target, options=config.target.channel_options()) as channel:
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
        code = error.code()
        print(json.dumps({"code": code.name, "message": error.details()}), file=sys.stderr)
        return (
            EXIT_UNREACHABLE if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED) else EXIT_ERROR
        )
    except (KeyError, json_format.ParseError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK
