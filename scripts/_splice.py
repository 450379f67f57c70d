"""Write the docs pages that are generated: text spliced between two marker comments, or a whole page.

Shared by the docs generators (scripts/gen_rpc_doc.py, gen_settings_doc.py, gen_errors_doc.py), which
scripts/gen runs as ``python scripts/<generator>.py OUT_ROOT``: each reads its page from the repository
(ROOT) and writes it under OUT_ROOT (default: ROOT), so scripts/check-generated can generate into a
temporary tree and compare. It imports nothing of kxm_grpc, so any script may use it.

A generator imports it as ``_splice``: scripts/ is on ``sys.path`` when a script is run, and the
generator puts it there itself for when it is loaded by file path instead (tests/test_rpc_facts.py
loads gen_rpc_doc.py so).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def splice(page: str, body: str, *, begin: str, end: str, name: Path | str) -> str:
    """``page`` with the text between the ``begin`` and ``end`` markers replaced by ``body``.

    The markers stay, each on its own line around ``body``; the rest of the page is kept as written.

    Raises:
        SystemExit: the page (``name``, for the message) lacks a marker, or has them out of order.
    """
    start, stop = page.find(begin), page.find(end)
    if start < 0 or stop < start:
        raise SystemExit(f"{name}: the markers {begin!r} and {end!r} are missing")
    return page[: start + len(begin)] + "\n" + body + "\n" + page[stop:]


def out_root(argv: Sequence[str] | None = None) -> Path:
    """OUT_ROOT: the first command-line argument, else the repository root."""
    args = sys.argv[1:] if argv is None else argv
    return Path(args[0]) if args else ROOT


def write_page(page: Path, text: str, argv: Sequence[str] | None = None) -> Path:
    """Write ``text`` to OUT_ROOT/``page`` (``page`` relative to the root; folders made as needed)."""
    target = out_root(argv) / page
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    return target


def splice_page(page: Path, render: Callable[[], str], *, begin: str, end: str) -> Path:
    """Write OUT_ROOT/``page``: ROOT/``page`` with ``render()`` between its markers (see ``splice``).

    Raises:
        SystemExit: the page lacks the markers.
    """
    text = splice((ROOT / page).read_text(), render(), begin=begin, end=end, name=page)
    return write_page(page, text)
