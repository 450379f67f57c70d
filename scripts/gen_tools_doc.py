"""Write the tool list of docs/tools.md from the tool table (``kxm_grpc/tools``).

One row per agent tool: its name, its RPC, its CLI verb (``kxm_grpc/cli/tool_verbs.py``), whether
it only reads, its arguments (the schema's top-level properties, required ones marked) and the first
paragraph of its description, all derived from the contract. Rendered between the two marker
comments of docs/tools.md; run by scripts/gen, so the drift check (scripts/check-generated) keeps
the page and the contract equal.
Usage: python scripts/gen_tools_doc.py OUT_ROOT   (OUT_ROOT defaults to the repository root)
"""

from __future__ import annotations

import sys
from pathlib import Path

from kxm_grpc.cli.tool_verbs import TOOL_VERBS
from kxm_grpc.tools.table import TOOLS, Tool

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the shared helper, when loaded by file path
import _splice

PAGE = Path("docs") / "tools.md"
BEGIN = "<!-- tools: generated from the contract by scripts/gen_tools_doc.py; do not edit -->"
END = "<!-- /tools -->"


def _summary(tool: Tool) -> str:
    first = tool.description.split("\n\n", 1)[0].replace("\n", " ")
    return first.replace("|", "\\|")


def _arguments(tool: Tool) -> str:
    required = set(tool.input_schema.get("required", ()))
    names = [f"`{name}`" + ("*" if name in required else "") for name in tool.input_schema["properties"]]
    return ", ".join(names) or "–"


def render() -> str:
    """The Markdown between the markers: one row per tool."""
    lines = [
        "| tool | RPC | CLI | reads only | arguments (* required) | what it does |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for tool in TOOLS.values():
        rpc = tool.method.removeprefix("/kxm.v1.").replace("/", ".")
        reads = "yes" if tool.read_only else "no"
        place = TOOL_VERBS[tool.name]
        cli = f"`kxm {place.group} {place.verb}`" + (f" (`{place.command}`)" if place.command else "")
        lines.append(f"| `{tool.name}` | `{rpc}` | {cli} | {reads} | {_arguments(tool)} | {_summary(tool)} |")
    return "\n".join(lines)


def main() -> None:
    """Write OUT_ROOT/docs/tools.md."""
    _splice.splice_page(PAGE, render, begin=BEGIN, end=END)


if __name__ == "__main__":
    main()
