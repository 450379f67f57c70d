"""``kxm peer list|send|get|await|fanout|cancel|inbox|reply|ack|tail``: messaging as a saved agent.

Every command but ``list`` acts as the agent named by ``--as`` (or ``KXM_AGENT_NAME``), whose
identity ``kxm agent register`` saved (spec §14); a name with no saved key is refused unless
``--register`` is given (a typo must not register a new agent).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from kxm_grpc.cli.common import (
    EXIT_ERROR,
    EXIT_OK,
    add_connection_flags,
    all_pages,
    client_from,
    emit,
    emit_line,
    message_to_dict,
    progress,
    run,
)
from kxm_grpc.cli.identity import add_identity, agent_client

EXIT_PENDING = 3
"""``await`` and ``fanout``: the wait ended before every message was terminal."""

_DELIVERY = {"steer": "DELIVERY_STEER", "follow-up": "DELIVERY_FOLLOW_UP", "next-turn": "DELIVERY_NEXT_TURN"}


def register(commands: Any) -> None:
    """Add ``peer``."""
    peer = commands.add_parser("peer", help="send, receive and await peer messages")
    actions = peer.add_subparsers(dest="peer_command", required=True, metavar="COMMAND")

    listing = actions.add_parser("list", help="list the project's agents")
    listing.add_argument("--all", action="store_true", help="include offline agents")
    add_connection_flags(listing)
    listing.set_defaults(run=_list)

    send = actions.add_parser("send", help="send a request to an agent (id or name)")
    send.add_argument("target")
    send.add_argument("content", help="the request text; '-' reads standard input")
    send.add_argument("--delivery", choices=sorted(_DELIVERY), default="follow-up")
    send.add_argument("--correlation-id", default="")
    send.add_argument("--reply-to", default="")
    send.add_argument("--idempotency-key", default="")
    send.add_argument("--hops", type=int, default=0)
    send.add_argument("--max-hops", type=int, default=0)
    send.add_argument("--ttl", type=float, default=None, help="seconds the message lives (hub default 24 h)")
    send.add_argument("--allow-offline", action="store_true", help="queue for a registered agent that is offline")
    send.add_argument("--wait", type=float, default=None, metavar="SECONDS", help="then wait this long for the reply")
    add_identity(send)
    send.set_defaults(run=_send)

    get = actions.add_parser("get", help="show a message this agent sent or received")
    get.add_argument("message_id")
    add_identity(get)
    get.set_defaults(run=_get)

    wait = actions.add_parser("await", help="wait for a message to be replied to (exit 3 if still open)")
    wait.add_argument("message_id")
    # --wait says how long to wait (the word the client and docs use); --timeout is its older name.
    wait.add_argument("--wait", "--timeout", dest="wait", type=float, default=60.0, help="seconds to wait (default 60)")
    add_identity(wait)
    wait.set_defaults(run=_await)

    fanout = actions.add_parser(
        "fanout",
        help="send one request to one to three agents and gather the replies",
        description="Send one request to one to three agents and gather the replies. Exit status: 0 when"
        " every message ended (a target refused while others were sent counts: its line says why),"
        " 3 when the wait ended with a message still open, 1 when every target was refused.",
    )
    fanout.add_argument("targets", nargs="+")
    fanout.add_argument("--content", required=True, help="the request text; '-' reads standard input")
    fanout.add_argument("--prefix", default="", help="idempotency key prefix: makes the fanout safe to retry")
    fanout.add_argument("--correlation-id", default="")
    fanout.add_argument("--ttl", type=float, default=None, help="seconds each message lives")
    fanout.add_argument(
        "--wait", "--timeout", dest="wait", type=float, default=60.0, help="seconds to gather replies (at most 1800)"
    )
    fanout.add_argument("--allow-offline", action="store_true")
    add_identity(fanout)
    fanout.set_defaults(run=_fanout)

    cancel = actions.add_parser("cancel", help="cancel a message this agent sent")
    cancel.add_argument("message_id")
    add_identity(cancel)
    cancel.set_defaults(run=_cancel)

    inbox = actions.add_parser("inbox", help="list this agent's open inbound messages, oldest first")
    add_identity(inbox)
    inbox.set_defaults(run=_inbox)

    reply = actions.add_parser("reply", help="reply to a message this agent received")
    reply.add_argument("message_id")
    reply.add_argument("content", help="the reply text; '-' reads standard input")
    add_identity(reply)
    reply.set_defaults(run=_reply)

    ack = actions.add_parser("ack", help="acknowledge received messages (they are not redelivered)")
    ack.add_argument("message_ids", nargs="+")
    add_identity(ack)
    ack.set_defaults(run=_ack)

    tail = actions.add_parser("tail", help="print this agent's inbox event stream (JSON lines with --json)")
    tail.add_argument("--after-seq", type=int, default=0, help="resume after this sequence number")
    tail.add_argument("--ack", action="store_true", help="acknowledge each message once printed")
    tail.add_argument("--count", type=int, default=0, help="stop after this many events (ready events excluded)")
    tail.add_argument("--presence-only", action="store_true", help="presence events only (agents of model 'tui')")
    add_identity(tail)
    tail.set_defaults(run=_tail)


def _text(value: str) -> str:
    return sys.stdin.read() if value == "-" else value


def _agent_name(args: argparse.Namespace) -> str:
    if not args.agent_name:
        print("error: name the acting agent with --as NAME (or KXM_AGENT_NAME)", file=sys.stderr)
        raise SystemExit(EXIT_ERROR)
    return str(args.agent_name)


def _state(message: Any) -> str:
    from kxm_grpc.v1 import types_pb2

    return types_pb2.MessageState.Name(message.state).removeprefix("MESSAGE_STATE_").lower()


def _line(message: Any) -> str:
    """One message as a tab-separated line: id, state, sender -> recipient, first line of content."""
    first = message.content.splitlines()[0] if message.content else ""
    return f"{message.id}\t{_state(message)}\t{message.from_agent_name} -> {message.to_agent_name}\t{first}"


def _detail(message: Any) -> str:
    lines = [_line(message)]
    if message.HasField("reply"):
        lines.append(f"reply: {message.reply.content}")
    if message.error:
        lines.append(f"error: {message.error}")
    return "\n".join(lines)


def _list(args: argparse.Namespace) -> int:
    from kxm_grpc.v1 import types_pb2

    async def command() -> int:
        async with client_from(args) as client:
            agents = await all_pages(lambda t: client.agents.list(include_offline=args.all, page_token=t), "agents")
        lines = [
            f"{a.id}\t{a.name}\t{types_pb2.Presence.Name(a.presence).removeprefix('PRESENCE_').lower()}\t{a.purpose}"
            for a in agents
        ]
        emit(args, {"agents": [message_to_dict(a) for a in agents]}, "\n".join(lines))
        return EXIT_OK

    return run(args, command)


def _send(args: argparse.Namespace) -> int:
    from kxm_grpc.v1 import types_pb2

    name = _agent_name(args)
    content = _text(args.content)

    async def command() -> int:
        client = await agent_client(args, name)
        async with client:
            sent = await client.messages.send(
                args.target,
                content,
                delivery=types_pb2.Delivery.Value(_DELIVERY[args.delivery]),
                correlation_id=args.correlation_id,
                reply_to=args.reply_to,
                idempotency_key=args.idempotency_key,
                hops=args.hops,
                max_hops=args.max_hops,
                ttl=args.ttl,
                allow_offline=args.allow_offline,
            )
            message = sent.message
            terminal = True
            if args.wait is not None:
                try:
                    async with progress(args, f"waiting for the reply to {message.id}"):
                        waited = await client.messages.wait(message.id, wait=args.wait)
                except (asyncio.CancelledError, KeyboardInterrupt):
                    # Ctrl-C: the message is stored and stays open; say which one and how to await it.
                    _interrupted(args, name, message)
                    raise
                message, terminal = waited.message, waited.terminal
        emit(args, message_to_dict(message) | {"repeated": sent.repeated}, _detail(message))
        return EXIT_OK if terminal else EXIT_PENDING

    return run(args, command)


def _interrupted(args: argparse.Namespace, name: str, message: Any) -> None:
    """What ``send --wait`` prints when interrupted: the stored message (JSON with ``--json``) on
    standard output, and how to await its reply on standard error."""
    if args.json:
        emit_line({"id": message.id, "state": _state(message), "interrupted": True})
    else:
        print(_line(message), flush=True)
        print(
            f"interrupted: {message.id} is stored; await its reply with: kxm peer await --as {name} {message.id}",
            file=sys.stderr,
            flush=True,
        )


def _get(args: argparse.Namespace) -> int:
    name = _agent_name(args)

    async def command() -> int:
        client = await agent_client(args, name)
        async with client:
            message = (await client.messages.get(args.message_id)).message
        emit(args, message_to_dict(message), _detail(message))
        return EXIT_OK

    return run(args, command)


def _await(args: argparse.Namespace) -> int:
    name = _agent_name(args)

    async def command() -> int:
        client = await agent_client(args, name)
        async with client, progress(args, f"waiting for the reply to {args.message_id}"):
            waited = await client.messages.wait(args.message_id, wait=args.wait)
        emit(args, message_to_dict(waited.message) | {"terminal": waited.terminal}, _detail(waited.message))
        return EXIT_OK if waited.terminal else EXIT_PENDING

    return run(args, command)


def _fanout(args: argparse.Namespace) -> int:
    from kxm_grpc.v1 import message_service_pb2

    name = _agent_name(args)
    content = _text(args.content)

    async def command() -> int:
        client = await agent_client(args, name)
        async with client, progress(args, f"gathering replies from {len(args.targets)} agents"):
            response = await client.messages.fanout(
                args.targets,
                content,
                correlation_id=args.correlation_id,
                idempotency_key_prefix=args.prefix,
                ttl=args.ttl,
                wait=args.wait,
                allow_offline=args.allow_offline,
            )
        lines = []
        for result in response.results:
            status = message_service_pb2.FanoutStatus.Name(result.status).removeprefix("FANOUT_STATUS_").lower()
            if result.HasField("message"):
                reply = result.message.reply.content if result.message.HasField("reply") else ""
                lines.append(f"{result.target}\t{status}\t{result.message.id}\t{_state(result.message)}\t{reply}")
            else:
                lines.append(f"{result.target}\t{status}\t{result.error_reason}\t{result.error_message}")
        emit(args, {"results": [message_to_dict(r) for r in response.results]}, "\n".join(lines))
        failed = sum(r.status == message_service_pb2.FANOUT_STATUS_ERROR for r in response.results)
        if failed == len(response.results):
            # Nothing was sent: a script must not read this as success.
            if not args.json:
                print(f"error: every target was refused ({failed} of {failed}); nothing was sent", file=sys.stderr)
            return EXIT_ERROR
        pending = any(r.status == message_service_pb2.FANOUT_STATUS_PENDING for r in response.results)
        return EXIT_PENDING if pending else EXIT_OK

    return run(args, command)


def _cancel(args: argparse.Namespace) -> int:
    name = _agent_name(args)

    async def command() -> int:
        client = await agent_client(args, name)
        async with client:
            message = (await client.messages.cancel(args.message_id)).message
        emit(args, message_to_dict(message), _detail(message))
        return EXIT_OK

    return run(args, command)


def _inbox(args: argparse.Namespace) -> int:
    name = _agent_name(args)

    async def command() -> int:
        client = await agent_client(args, name)
        async with client:
            found = await all_pages(lambda t: client.messages.list_inbox(page_token=t), "messages")
        emit(args, {"messages": [message_to_dict(m) for m in found]}, "\n".join(_line(m) for m in found))
        return EXIT_OK

    return run(args, command)


def _reply(args: argparse.Namespace) -> int:
    name = _agent_name(args)
    content = _text(args.content)

    async def command() -> int:
        client = await agent_client(args, name)
        async with client:
            message = (await client.messages.reply(args.message_id, content)).message
        emit(args, message_to_dict(message), _detail(message))
        return EXIT_OK

    return run(args, command)


def _ack(args: argparse.Namespace) -> int:
    name = _agent_name(args)

    async def command() -> int:
        client = await agent_client(args, name)
        async with client:
            acked = (await client.messages.ack(args.message_ids)).messages
        emit(args, {"messages": [message_to_dict(m) for m in acked]}, "\n".join(_line(m) for m in acked))
        return EXIT_OK

    return run(args, command)


def _tail(args: argparse.Namespace) -> int:
    name = _agent_name(args)

    async def command() -> int:
        client = await agent_client(args, name)
        seen = 0
        async with client:
            async for event in client.messages.subscribe(
                args.after_seq, presence_only=args.presence_only, auto_ack=args.ack
            ):
                kind = event.WhichOneof("event") or ""
                if args.json:
                    emit_line(message_to_dict(event))
                elif kind == "ready":
                    ready = event.ready
                    note = " (truncated: some events were purged)" if ready.truncated else ""
                    print(f"ready\tafter={ready.after_seq}\thead={ready.head_seq}{note}", flush=True)
                elif kind == "presence":
                    agent = event.presence
                    print(f"{event.seq}\tpresence\t{agent.id}\t{agent.name}", flush=True)
                else:
                    flag = " (redelivered)" if event.redelivered else ""
                    print(f"{event.seq}\t{kind}{flag}\t{_line(getattr(event, kind))}", flush=True)
                if kind != "ready":
                    seen += 1
                    if args.count and seen >= args.count:
                        break
        return EXIT_OK

    return run(args, command)
