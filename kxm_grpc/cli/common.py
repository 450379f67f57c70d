"""Helpers shared by CLI commands: connection flags, output, error reporting."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hmac
import json
import os
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypedDict

from kxm_grpc.errors import HubError, Reason, Unauthenticated

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_UNREACHABLE = 2


ADDR_HELP = (
    "hub address host:port, or a hub's replicas: ip1:port,ip2:port or dns:///name:port"
    " (env KXM_ADDR; default from the credentials file: .kxm/credentials.json here, or the per-user"
    " profile's, ~/.config/kxm/credentials.json)"
)


def hub_address(value: str) -> str:
    """The ``--addr`` type: the value as given, checked when the command line is parsed (so a bad
    list is a usage error naming the problem); empty means not given, as before."""
    if value:
        from kxm_grpc.client.addresses import AddressError, parse_addresses

        try:
            parse_addresses(value)
        except AddressError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return value


def add_connection_flags(parser: argparse.ArgumentParser, *, admin: bool = False) -> None:
    """``--addr``, ``--token``, ``--project``, TLS and ``--json`` flags."""
    parser.add_argument("--addr", type=hub_address, help=ADDR_HELP)
    parser.add_argument(
        "--token",
        help="admin token, or a named operator's kxm_op_ token (env KXM_ADMIN_TOKEN)"
        if admin
        else "project token (env KXM_TOKEN)",
    )
    parser.add_argument(
        "--project",
        help="the project an operator's command acts in (env KXM_PROJECT); required where it acts in one"
        if admin
        else "project (env KXM_PROJECT): its token is read from the credentials file (default 'default');"
        " a project token acts in its own, an operator's token in 'default' unless this names another",
    )
    parser.add_argument(
        "--tls-ca", help="PEM file of the CA that signed the hub's certificate (enables TLS; env KXM_TLS_CA)"
    )
    parser.add_argument(
        "--tls-cert", help="PEM client certificate for a hub that requires one (mTLS; env KXM_TLS_CERT)"
    )
    parser.add_argument("--tls-key", help="PEM key of --tls-cert (env KXM_TLS_KEY)")
    parser.add_argument("--json", action="store_true", help="print JSON")


def client_from(args: argparse.Namespace, *, admin: bool = False, **kwargs: Any) -> Any:
    """A HubClient from the connection flags (imported lazily: grpc is slow to import).

    An address from ``KXM_ADDR`` or the credentials file that cannot be dialled ends the command
    with its error (exit 1); ``--addr`` was checked when the command line was parsed. So does a
    token found nowhere (exit 1, as the hub's CREDENTIAL_MISSING would): the error names every
    place looked, in order, without dialling. (``open_client`` raises instead.)
    """
    from kxm_grpc.client import AddressError

    try:
        return open_client(args, admin=admin, **kwargs)
    except AddressError as error:
        raise SystemExit(f"error: {error}") from None
    except Unauthenticated as missing:
        print_hub_error(args, missing)
        raise SystemExit(EXIT_ERROR) from None


def open_client(args: argparse.Namespace, *, admin: bool = False, **kwargs: Any) -> Any:
    """``client_from``'s client, for a command with exit codes of its own (``kxm gate``).

    Raises:
        AddressError: the address from ``KXM_ADDR`` or the credentials file cannot be dialled.
        Unauthenticated: (CREDENTIAL_MISSING) no token was found; the message names every place looked.
    """
    from kxm_grpc.client import HubClient
    from kxm_grpc.client.config import resolve

    config = resolve(args.addr, token=args.token, project=args.project, admin=admin)
    if not config.token:
        raise Unauthenticated(config.missing_token("--token"), reason=Reason.CREDENTIAL_MISSING)
    project = args.project
    if not admin and config.project is None and _operator_token(config.token, args.addr):
        # A project command given an operator's token (an operator resuming an agent whose key is
        # lost: kxm agent register NAME --token ADMIN) acts in 'default', as --project's help says;
        # a project token needs no name (its own project is the only one it may name).
        project = "default"
    material = tls_material(args)  # a client certificate alone means TLS with the system's roots
    client = HubClient(
        args.addr, token=args.token, project=project, admin=admin, tls=bool(material), **material, **kwargs
    )
    # The address dialled, for an error that no hub answered (it may come from KXM_ADDR or the file).
    args.dialled_address = client.address
    return client


def _operator_token(token: str, address: str | None) -> bool:
    """Whether ``token`` is an operator's: a named operator's (``kxm_op_…``), a generated admin
    token (``kxm_admin_…``), or the admin token found where ``kxm admin`` commands look for it
    (``KXM_ADMIN_TOKEN``, the credentials file)."""
    from kxm_grpc.client.config import resolve
    from kxm_grpc.domain.secrets import ADMIN_TOKEN_PREFIX, OPERATOR_TOKEN_PREFIX

    if token.startswith((OPERATOR_TOKEN_PREFIX, ADMIN_TOKEN_PREFIX)):
        return True
    admin = resolve(address, admin=True).token
    # Secrets are compared in constant time everywhere, even two the caller holds (B9's static check).
    return admin is not None and hmac.compare_digest(token.encode(), admin.encode())


class TlsMaterial(TypedDict, total=False):
    """``HubClient``'s TLS keyword arguments."""

    root_certificates: bytes
    certificate_chain: bytes
    private_key: bytes


def tls_material(args: argparse.Namespace) -> TlsMaterial:
    """The PEM files of ``--tls-ca``, ``--tls-cert`` and ``--tls-key`` (else ``KXM_TLS_CA``,
    ``KXM_TLS_CERT``, ``KXM_TLS_KEY``) as ``HubClient``'s keyword arguments; none: plaintext.

    Raises:
        SystemExit: a file cannot be read, or a certificate comes without its key (or the reverse).
    """
    names = {"root_certificates": "tls_ca", "certificate_chain": "tls_cert", "private_key": "tls_key"}
    paths = {
        keyword: getattr(args, flag, None) or os.environ.get(f"KXM_{flag.upper()}") or None
        for keyword, flag in names.items()
    }
    if (paths["certificate_chain"] is None) != (paths["private_key"] is None):
        raise SystemExit("error: --tls-cert and --tls-key (KXM_TLS_CERT, KXM_TLS_KEY) go together")
    material = TlsMaterial()
    for keyword, path in paths.items():
        if path is None:
            continue
        try:
            material[keyword] = Path(path).read_bytes()  # type: ignore[literal-required]
        except OSError as error:
            flag = "--" + names[keyword].replace("_", "-")
            raise SystemExit(f"error: cannot read {flag} {path}: {error.strerror or error}") from None
    return material


async def all_pages(fetch: Callable[[str], Awaitable[Any]], field: str) -> list[Any]:
    """Every item of a List RPC: call ``fetch(page_token)`` until ``next_page_token`` is empty."""
    items: list[Any] = []
    token = ""
    while True:
        page = await fetch(token)
        items.extend(getattr(page, field))
        token = page.next_page_token
        if not token:
            return items


def message_to_dict(message: Any) -> dict[str, Any]:
    """A protobuf message as JSON-ready data in the proto3 JSON mapping, as ``buf curl`` and Connect
    print it: lowerCamelCase names, 64-bit integers as strings, enums by name, RFC 3339 times, fields
    at their default left out (docs/api.md, "JSON output")."""
    from google.protobuf import json_format

    return json_format.MessageToDict(message)


def emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    """Print ``data`` as JSON with ``--json``, else ``text``.

    ``data`` is always an object, never a bare array (a list goes under its plural name, as the
    List RPCs' responses hold it), with lowerCamelCase keys, so a later key never breaks a reader.

    Raises:
        TypeError: ``data`` is not a dict (a command broke the convention).
    """
    if not isinstance(data, dict):
        raise TypeError(f"--json prints an object, not {type(data).__name__}")
    if getattr(args, "json", False):
        print(json.dumps(data, indent=2, sort_keys=True))
    else:
        print(text)


def emit_line(data: dict[str, Any]) -> None:
    """Print one object as a JSON line (a stream's ``--json`` output: one object per event)."""
    print(json.dumps(data, sort_keys=True), flush=True)


@contextlib.asynccontextmanager
async def progress(args: argparse.Namespace, label: str) -> AsyncIterator[None]:
    """Show ``label`` and the seconds elapsed on standard error while the body waits, as one line
    rewritten in place and cleared at the end; only on a terminal, and never with ``--json``."""
    if getattr(args, "json", False) or not sys.stderr.isatty():
        yield
        return
    started = time.monotonic()

    async def tick() -> None:
        while True:
            sys.stderr.write(f"\r{label} {time.monotonic() - started:.0f}s")
            sys.stderr.flush()
            await asyncio.sleep(1.0)

    ticker = asyncio.create_task(tick())
    try:
        yield
    finally:
        ticker.cancel()
        # Erase the line (carriage return, then clear to its end) so what follows starts clean.
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()


EXIT_INTERRUPTED = 130
INTERRUPT_GRACE_SECONDS = 5.0
"""How long an interrupted command may take to close its channel and loop before it is ended."""


def run(args: argparse.Namespace, command: Callable[[], Coroutine[Any, Any, int]]) -> int:
    """Run an async command; print a HubError as one line (JSON with ``--json``) and exit 1; exit
    130 on Ctrl-C (SIGINT).

    Ctrl-C cancels the command, as ``asyncio.run`` would, and also starts a watchdog: closing a
    grpc.aio channel with a call in flight has been seen to take over a minute on a loaded
    machine (grpc/grpc#26887, #29560), and a user who pressed Ctrl-C must not wait for it, so
    after ``INTERRUPT_GRACE_SECONDS`` the process flushes its output and ends with 130.
    """
    interrupted = False

    async def main() -> int:
        nonlocal interrupted
        task = asyncio.current_task()
        assert task is not None

        def interrupt() -> None:
            nonlocal interrupted
            if not interrupted:
                interrupted = True
                _end_after(INTERRUPT_GRACE_SECONDS, EXIT_INTERRUPTED)
            task.cancel()

        with contextlib.suppress(NotImplementedError, RuntimeError):  # no signals: not the main thread
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, interrupt)
        return await command()

    try:
        return asyncio.run(main())
    except HubError as error:
        print_hub_error(args, error)
        return EXIT_UNREACHABLE if error.status in ("UNAVAILABLE", "DEADLINE_EXCEEDED") else EXIT_ERROR
    except asyncio.CancelledError:
        if interrupted:
            return EXIT_INTERRUPTED
        raise
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def _end_after(seconds: float, code: int) -> None:
    """End the process with ``code`` after ``seconds`` unless it ended first (a daemon thread)."""

    def end() -> None:
        time.sleep(seconds)
        with contextlib.suppress(Exception):  # best effort: the output printed so far
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)

    threading.Thread(target=end, name="kxm-interrupt-watchdog", daemon=True).start()


def print_hub_error(args: argparse.Namespace, error: HubError) -> None:
    """A HubError as one line on standard error (JSON with ``--json``); a missing reason is left out,
    and a hub that is not there is named as such."""
    message = error.message
    detail = _no_hub(args, error)
    if detail is not None:
        message, detail = detail, message
    if getattr(args, "json", False):
        payload: dict[str, Any] = {
            "ok": False,
            "code": error.status,
            "reason": "" if error.reason is None else str(error.reason),
            "message": message,
            "metadata": error.metadata,
        }
        if detail is not None:
            payload["detail"] = detail
        print(json.dumps(payload), file=sys.stderr)
    elif error.reason is None:
        print(f"error: {error.status}: {message}", file=sys.stderr)
    else:
        print(f"error: {error.status} {error.reason}: {message}", file=sys.stderr)


# What gRPC says when nothing listens at the address (refused) or nothing answers (the connect timed out).
_NOT_LISTENING = ("Connection refused", "Timeout occurred")


def _no_hub(args: argparse.Namespace, error: HubError) -> str | None:
    """The line saying no hub is at the address when the connection itself failed, else None.

    A hub's own UNAVAILABLE carries a reason (SHUTTING_DOWN, STORAGE_UNAVAILABLE); a failed TLS
    handshake reaches a listener, so it keeps gRPC's words.
    """
    address = getattr(args, "dialled_address", None)
    if error.status != "UNAVAILABLE" or error.reason is not None or not address:
        return None
    if not any(words in error.message for words in _NOT_LISTENING):
        return None
    return f"no hub at {address}; start one with scripts/serve"
