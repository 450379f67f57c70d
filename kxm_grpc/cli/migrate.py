"""``kxm admin migrate --from URL --to URL``: move a stopped hub's state to another database.

Unlike the other ``kxm admin`` commands it talks to no hub: it opens both databases itself
(``kxm_grpc/store/transfer.py`` does the work), so it needs no token, and every hub on either
database must be stopped first. Exit status: 0 copied and verified; 2 refused, nothing copied
(a usage error too); 1 the copy or its verification failed and the target was rolled back.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from kxm_grpc.cli.common import EXIT_ERROR, EXIT_OK

EXIT_REFUSED = 2
"""Refused before anything was copied (as for a usage error)."""

DESCRIPTION = """\
Copy every table of a hub's state from one database to another, offline: this command opens the
databases itself and talks to no hub, so it needs no token, and every hub using either database
must be stopped first (a SQLite database a hub holds is refused by its lock; a PostgreSQL database
with hub connections open is refused too).

Both sides are first brought to this hub's schema version (an older source is upgraded in place,
as a hub of this version would on start). The target must be empty: a new SQLite file, or a new
PostgreSQL database (createdb) on which no hub has started. The copy is one transaction on the
target; before it commits, every table's row count and a SHA-256 digest of every row are compared
on both sides. Any failure or mismatch rolls the target back.

URLs: sqlite:///RELATIVE/PATH, sqlite:////ABSOLUTE/PATH, a bare SQLite path, or
postgresql://USER@HOST:PORT/DATABASE (libpq's form; a password is never printed).

Exit status: 0 copied and verified; 2 refused, nothing copied; 1 failed, the target rolled back."""


def database_url(value: str) -> str:
    """The ``--from``/``--to`` type: a URL the store can open (the message names the forms, never the URL)."""
    from kxm_grpc.store import StoreError
    from kxm_grpc.store.url import parse_database_url

    try:
        parse_database_url(value)
    except StoreError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return value


def register(groups: Any) -> None:
    """Add ``migrate`` to ``kxm admin``."""
    migrate = groups.add_parser(
        "migrate",
        help="offline: copy a stopped hub's state to another (empty) database and verify it; no hub, no token",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    migrate.add_argument(
        "--from", dest="source", required=True, type=database_url, metavar="URL", help="the database to copy from"
    )
    migrate.add_argument(
        "--to", dest="target", required=True, type=database_url, metavar="URL", help="the empty database to copy to"
    )
    migrate.add_argument("--json", action="store_true", help="print the report (or the error) as JSON")
    migrate.set_defaults(run=_migrate)


def report_text(report: Any) -> str:
    """The human report: one line per table, then the totals."""
    width = max(len(name) for name in report.tables)
    lines = [f"migrated {report.source} -> {report.target} (schema version {report.schema_version})"]
    if report.source_schema_before != report.schema_version:
        lines.append(f"  the source was upgraded from schema version {report.source_schema_before} first")
    lines += [f"  {name:<{width}}  {count:>10}" for name, count in report.tables.items()]
    lines.append(f"{len(report.tables)} tables, {report.rows} rows, verified")
    lines.append(f"digest {report.digest}")
    lines.append(
        f"{report.seconds:.2f} s (copy {report.copy_seconds:.2f} s, verification {report.verify_seconds:.2f} s)"
    )
    return "\n".join(lines)


def _migrate(args: argparse.Namespace) -> int:
    from kxm_grpc.server.log import configure_logging
    from kxm_grpc.store.transfer import TransferFailed, TransferRefused, transfer

    # Stores log their schema migrations at info; the report says what matters, on stdout alone.
    configure_logging("auto", "warning")
    try:
        report = asyncio.run(transfer(args.source, args.target))
    except TransferRefused as error:
        return _error(args, "refused", str(error), (), EXIT_REFUSED)
    except TransferFailed as error:
        return _error(args, "failed", str(error), error.tables, EXIT_ERROR)
    except KeyboardInterrupt:
        print("kxm admin migrate: interrupted; the target was rolled back", file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps({"ok": True, **report.to_dict()}, indent=2))
    else:
        print(report_text(report))
    return EXIT_OK


def _error(args: argparse.Namespace, kind: str, message: str, tables: tuple[str, ...], code: int) -> int:
    if args.json:
        print(json.dumps({"ok": False, "error": kind, "message": message, "tables": list(tables)}), file=sys.stderr)
    else:
        print(f"kxm admin migrate: {kind}: {message}", file=sys.stderr)
    return code
