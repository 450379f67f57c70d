"""``kxm ops snapshot`` and ``kxm ops watch``: the operators' view of a project (OpsService)."""

from __future__ import annotations

import argparse
from typing import Any

from kxm_grpc.cli.common import EXIT_OK, add_connection_flags, client_from, emit, emit_line, message_to_dict, run
from kxm_grpc.v1 import ops_service_pb2, types_pb2, workflow_types_pb2


def register(commands: Any) -> None:
    """Add ``ops``."""
    ops = commands.add_parser("ops", help="what operators watch: a project's agents, open messages, leases, runtimes")
    actions = ops.add_subparsers(dest="ops_command", required=True, metavar="COMMAND")
    snapshot = actions.add_parser(
        "snapshot",
        help="one project's agents, newest open messages (never their content), live leases and runtimes "
        "(an operator's token; --project names the project)",
    )
    add_connection_flags(snapshot, admin=True)
    snapshot.set_defaults(run=_snapshot)
    watch = actions.add_parser(
        "watch",
        help="the same view, printed again each time it changes, until interrupted (--json: a JSON line each)",
    )
    add_connection_flags(watch, admin=True)
    watch.add_argument("--after-version", default="", help="print nothing until the view differs from this version")
    watch.add_argument("--count", type=int, default=0, help="stop after this many views (0: never)")
    watch.set_defaults(run=_watch)


def _snapshot(args: argparse.Namespace) -> int:
    async def command() -> int:
        async with client_from(args, admin=True) as client:
            seen = await client.ops.get_snapshot()
        emit(args, message_to_dict(seen), _text(seen))
        return EXIT_OK

    return run(args, command)


def _watch(args: argparse.Namespace) -> int:
    async def command() -> int:
        printed = 0
        async with client_from(args, admin=True) as client:
            async for update in client.ops.watch(after_version=args.after_version):
                if args.json:
                    emit_line(message_to_dict(update))
                else:
                    print(f"version {update.version}\n{_text(update.snapshot)}\n", flush=True)
                printed += 1
                if args.count and printed >= args.count:
                    break
        return EXIT_OK

    return run(args, command)


def _word(enum: Any, value: int, prefix: str) -> str:
    """An enum value as a lower-case word (``PRESENCE_ONLINE`` -> ``online``)."""
    return str(enum.Name(value)).removeprefix(prefix).lower()


def _text(seen: ops_service_pb2.GetOpsSnapshotResponse) -> str:
    """The snapshot as a person reads it: a heading per list with its count, a line per row."""
    lines = [f"project {seen.project} at {seen.snapshot_time.ToJsonString()}"]
    lines.append(f"agents ({len(seen.agents)} of {seen.agent_total}):")
    lines += [f"  {a.name}\t{_word(types_pb2.Presence, a.presence, 'PRESENCE_')}" for a in seen.agents]
    lines.append(f"open messages ({len(seen.open_messages)} of {seen.open_message_total}, newest first):")
    state = types_pb2.MessageState
    lines += [
        f"  {m.id}\t{m.from_agent_name} -> {m.to_agent_name}\t{_word(state, m.state, 'MESSAGE_STATE_')}"
        f"\tsent {m.create_time.ToJsonString()}"
        for m in seen.open_messages
    ]
    lines.append(f"leases ({len(seen.leases)} of {seen.lease_total}):")
    lines += [
        f"  {lease.name}\t{lease.holder_agent_name}\ttoken {lease.fencing_token}"
        f"\tuntil {lease.expire_time.ToJsonString()}"
        for lease in seen.leases
    ]
    lines.append(f"runtimes ({len(seen.runtimes)} of {seen.runtime_total}):")
    presence = types_pb2.RuntimePresenceState
    lines += [f"  {r.id}\t{r.host}\t{_word(presence, r.presence, 'RUNTIME_PRESENCE_STATE_')}" for r in seen.runtimes]
    for home in seen.runtime_runs:
        lines.append(f"  sync runs of {home.runtime_id} ({len(home.runs)} of {home.run_total}):")
        lines += [
            f"    {run.project_id}/{run.run_id}\tingested to {run.cursor} of {run.last_sequence}"
            + ("\ta sequence is missing" if run.pending_gap else "")
            for run in home.runs
        ]
    lines.append(f"workflow runs ({len(seen.runs)} of {seen.run_total}, newest first):")
    status = workflow_types_pb2.WorkflowRunStatus
    lines += [
        f"  {r.id}\t{r.definition_id}\t{_word(status, r.status, 'WORKFLOW_RUN_STATUS_')}\t{r.current_stage_id}"
        for r in seen.runs
    ]
    lines.append(f"plans ({len(seen.plans)}, newest first):")
    lines += [f"  {p.run_id}\t{p.stage_id or '-'}\t{p.summary}" for p in seen.plans]
    return "\n".join(lines)
