"""Write the RPC facts table of docs/api.md from the RPC registry (the proto's ``kxm.v1.facts`` options).

Every RPC declares its facts once, in ``proto/kxm/v1/*_service.proto`` (``option (kxm.v1.facts)``,
schema in ``proto/kxm/v1/options.proto``); ``kxm_grpc/server/methods.py`` reads them from the
generated descriptors. This renders them between the two marker comments of docs/api.md and leaves
the rest of the page as written (the splicing is scripts/_splice.py's, shared by every docs
generator). Run by scripts/gen after the Python code is generated, so the drift check
(scripts/check-generated) and tests/test_contract.py keep the page and the contract equal.
Usage: python scripts/gen_rpc_doc.py OUT_ROOT   (reads ROOT/docs/api.md, writes OUT_ROOT/docs/api.md;
OUT_ROOT defaults to the repository root)
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TypeVar

from kxm_grpc.server.methods import RPCS, PresenceRenewal, RpcFacts
from kxm_grpc.server.ratelimit import COSTS, OWN_BUDGET
from kxm_grpc.services.auth import Access

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the shared helper, when loaded by file path
import _splice

PAGE = Path("docs") / "api.md"
BEGIN = "<!-- rpc-facts: generated from the proto's kxm.v1.facts options by scripts/gen_rpc_doc.py; do not edit -->"
END = "<!-- /rpc-facts -->"

ACCESS = {
    Access.ADMIN: ("admin", "the bootstrap admin (the admin token) only, never a named operator"),
    Access.OPERATOR: ("operator", "an operator: the admin token or a named operator's token"),
    Access.PROJECT_TOKEN: (
        "project token",
        "a project token (with or without an agent identity), or an operator naming the project",
    ),
    Access.PROJECT: (
        "project",
        "anything of the project: a project token, an agent, a runtime key, an operator naming it",
    ),
    Access.AGENT: ("agent", "a project token with a valid agent identity"),
    Access.RUNTIME: ("runtime", "a runtime key"),
    Access.ANY: ("any", "any valid credential, an operator without a project too"),
}
PRESENCE = {
    PresenceRenewal.NONE: ("–", "never renews presence (no agent can call it)"),
    PresenceRenewal.ADMISSION: ("admission", "admission renews the calling agent's presence before the RPC runs"),
    PresenceRenewal.SELF: ("itself", "the RPC renews presence itself"),
}


_K = TypeVar("_K")


def _label(value: _K | None, labels: Mapping[_K, tuple[str, str]]) -> str:
    return labels[value][0] if value is not None and value in labels else "**missing**"


def _row(facts: RpcFacts) -> str:
    service = facts.service.rsplit(".", 1)[-1]
    read_only = "**missing**" if facts.read_only is None else ("yes" if facts.read_only else "no")
    tool = f"`{facts.tool_name}`" if facts.tool_name else "–"
    rate = facts.rate_class.value if facts.rate_class is not None else "**missing**"
    cells = [
        f"`{service}.{facts.name}`",
        _label(facts.access, ACCESS),
        read_only,
        _label(facts.presence, PRESENCE),
        facts.streaming,
        tool,
        rate,
    ]
    return "| " + " | ".join(cells) + " |"


def render() -> str:
    """The Markdown between the markers: one row per RPC, then what each value means."""
    lines = [
        "| RPC | who may call | read-only | presence | kind | agent tool | rate class |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        *(_row(facts) for facts in RPCS.values()),
        "",
        "- Who may call: " + "; ".join(f"**{label}**: {meaning}" for label, meaning in ACCESS.values()) + ".",
        "- Presence: " + "; ".join(f"**{label}**: {meaning}" for label, meaning in PRESENCE.values()) + ".",
        "- Rate class: what one call costs in the caller's budget (`--rate-limit` tokens per `--rate-window`): "
        + "; ".join(
            f"**{rate.value}** {cost}" + (" (from a budget of its own)" if rate in OWN_BUDGET else "")
            for rate, cost in COSTS.items()
        )
        + ".",
    ]
    return "\n".join(lines)


def splice(page: str) -> str:
    """``page`` with the text between the markers replaced by ``render()``.

    Raises:
        SystemExit: the page lacks the markers.
    """
    return _splice.splice(page, render(), begin=BEGIN, end=END, name=PAGE)


def main() -> None:
    """Write OUT_ROOT/docs/api.md."""
    _splice.splice_page(PAGE, render, begin=BEGIN, end=END)


if __name__ == "__main__":
    main()
