"""Write the settings tables of docs/operations.md from the settings model.

Every ``Settings`` field carries its flag, ``KXM_*`` variable, help and default
(``kxm_grpc/server/settings.py``); this renders them between the two marker comments of
docs/operations.md and leaves the rest of the page as written (the splicing is scripts/_splice.py's,
shared by every docs generator). Run by scripts/gen, so the drift
check (scripts/check-generated) and tests/test_cli_settings.py keep the page and ``kxm hub serve
--help`` equal.
Usage: python scripts/gen_settings_doc.py OUT_ROOT   (reads ROOT/docs/operations.md, writes
OUT_ROOT/docs/operations.md; OUT_ROOT defaults to the repository root)
"""

from __future__ import annotations

import sys
from pathlib import Path

from kxm_grpc.server.settings import Option, options

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the shared helper, when loaded by file path
import _splice

PAGE = Path("docs") / "operations.md"
BEGIN = "<!-- settings: generated from kxm_grpc/server/settings.py by scripts/gen_settings_doc.py; do not edit -->"
END = "<!-- /settings -->"


def _row(option: Option) -> str:
    flags = ", ".join(f"`{flag}`" for flag in option.flags)
    envs = ", ".join(f"`{env}`" for env in option.envs)
    meaning = option.help.replace("|", "/")
    return f"| {flags} | {envs} | {option.shown_default(markdown=True)} | {meaning} |"


def render() -> str:
    """The Markdown between the markers: every setting, then the testing-only ones apart."""
    head = ["| flag | env | default | meaning |", "| --- | --- | --- | --- |"]
    lines = [*head, *(_row(o) for o in options() if not o.testing)]
    testing = [o for o in options() if o.testing]
    if testing:
        lines += [
            "",
            "Testing only (the hub's own fault tests set these; production hubs never do):",
            "",
            *head,
            *(_row(o) for o in testing),
        ]
    return "\n".join(lines)


def splice(page: str) -> str:
    """``page`` with the text between the markers replaced by ``render()``.

    Raises:
        SystemExit: the page lacks the markers.
    """
    return _splice.splice(page, render(), begin=BEGIN, end=END, name=PAGE)


def main() -> None:
    """Write OUT_ROOT/docs/operations.md."""
    _splice.splice_page(PAGE, render, begin=BEGIN, end=END)


if __name__ == "__main__":
    main()
