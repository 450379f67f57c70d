"""The CLI's verbs for the agent tools: every tool is a verb of ``kxm peer|lease|context|workflow``.

``TOOL_VERBS`` settles the verb set once (issue 19): a tool's verb is its name without ``kxm_``
and without its group's noun (``kxm_acquire_lease`` → ``kxm lease acquire``,
``kxm_workflow_checkpoint`` → ``kxm workflow checkpoint``), with ``-`` for ``_``. Where a
hand-written command already does what the tool does under another name (``peer await`` for
``kxm_wait``), the tool's name is added to it as an alias and the old name stays. A tool with no
hand-written command gets one derived from its schema (``derived_verb``): an option per argument
(``messageId`` → ``--message-id``; objects and lists as JSON text), acting as the ``--as`` agent,
printing the tool's result in the proto JSON mapping. ``tests/test_cli_tools.py`` fails when a tool
has no verb.

Two tools keep a verb named for what they do, since the tool's name says something else there:
``kxm_context`` is ``kxm context get`` (the group is its noun), and ``kxm_promote``, which only
proposes, is ``kxm context propose`` (``context promote`` is the operator's promotion).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kxm_grpc.cli.common import EXIT_ERROR, EXIT_OK, emit, run
from kxm_grpc.cli.identity import add_identity, agent_client


@dataclass(frozen=True, slots=True)
class ToolVerb:
    """Where a tool lives on the command line."""

    group: str
    """``peer``, ``lease``, ``context`` or ``workflow``."""
    verb: str
    """The tool-named verb."""
    command: str | None = None
    """The hand-written command that does it under another name (the verb becomes its alias)."""


TOOL_VERBS: Mapping[str, ToolVerb] = {
    # peer: messages and agents
    "kxm_list_agents": ToolVerb("peer", "list-agents", "list"),
    "kxm_whoami": ToolVerb("peer", "whoami"),
    "kxm_send": ToolVerb("peer", "send"),
    "kxm_get_message": ToolVerb("peer", "get-message", "get"),
    "kxm_cancel": ToolVerb("peer", "cancel"),
    "kxm_reply": ToolVerb("peer", "reply"),
    "kxm_inbox": ToolVerb("peer", "inbox"),
    "kxm_wait": ToolVerb("peer", "wait", "await"),
    "kxm_fanout": ToolVerb("peer", "fanout"),
    # lease
    "kxm_acquire_lease": ToolVerb("lease", "acquire"),
    "kxm_renew_lease": ToolVerb("lease", "renew"),
    "kxm_release_lease": ToolVerb("lease", "release"),
    "kxm_get_lease": ToolVerb("lease", "get"),
    "kxm_list_leases": ToolVerb("lease", "list"),
    "kxm_check_fence": ToolVerb("lease", "check-fence"),
    # context
    "kxm_context": ToolVerb("context", "get"),
    "kxm_recall": ToolVerb("context", "recall"),
    "kxm_state": ToolVerb("context", "state"),
    "kxm_state_set": ToolVerb("context", "state-set"),
    "kxm_promote": ToolVerb("context", "propose"),
    "kxm_episode": ToolVerb("context", "episode"),
    "kxm_explain": ToolVerb("context", "explain"),
    # workflow
    "kxm_workflow_definition": ToolVerb("workflow", "definition"),
    "kxm_workflow_definitions": ToolVerb("workflow", "definitions", "list"),
    "kxm_gate_registry": ToolVerb("workflow", "gate-registry", "gates"),
    "kxm_workflow_run": ToolVerb("workflow", "run"),
    "kxm_workflow_runs": ToolVerb("workflow", "runs"),
    "kxm_workflow_checkpoint": ToolVerb("workflow", "checkpoint"),
    "kxm_workflow_wait": ToolVerb("workflow", "wait"),
    "kxm_workflow_escalate": ToolVerb("workflow", "escalate"),
    "kxm_workflow_record": ToolVerb("workflow", "record"),
    "kxm_workflow_journal": ToolVerb("workflow", "journal"),
    "kxm_improvement_report": ToolVerb("workflow", "improvement-report", "report"),
    "kxm_workflow_retrospective": ToolVerb("workflow", "retrospective", "export"),
    "kxm_workflow_verify_journal": ToolVerb("workflow", "verify-journal", "verify"),
    "kxm_workflow_events": ToolVerb("workflow", "events"),
    "kxm_workflow_audit": ToolVerb("workflow", "audit"),
    "kxm_complete_assignment": ToolVerb("workflow", "complete-assignment"),
    "kxm_next_assignment": ToolVerb("workflow", "next-assignment"),
}


def commands_of(parser: argparse.ArgumentParser) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    """A parser's subcommands (its one sub-parsers action)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    raise LookupError(f"{parser.prog} has no subcommands")


def install(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Give every tool its verb in ``kxm``'s command groups: an alias of the hand-written command
    that does it, or a command derived from the tool's schema."""
    from kxm_grpc.tools.table import TOOLS

    for name, place in TOOL_VERBS.items():
        actions = commands_of(commands.choices[place.group])
        if place.verb in actions.choices:
            continue
        if place.command is not None:
            _alias(actions, place.command, place.verb)
        else:
            derived_verb(actions, TOOLS[name], place.verb)


def _alias(actions: argparse._SubParsersAction[argparse.ArgumentParser], command: str, alias: str) -> None:
    """Make ``alias`` another name of ``command`` (argparse's own aliases, added after the fact)."""
    actions._name_parser_map[alias] = actions.choices[command]
    for listed in actions._choices_actions:
        if listed.dest == command:
            listed.metavar = f"{alias} ({command})"


def derived_verb(actions: argparse._SubParsersAction[argparse.ArgumentParser], tool: Any, verb: str) -> None:
    """A command calling ``tool`` as the ``--as`` agent, with an option per argument of its schema."""
    summary = tool.description.split("\n\n", 1)[0].replace("\n", " ")
    parser = actions.add_parser(verb, help=summary.replace("%", "%%"), description=tool.description.replace("%", "%%"))
    add_identity(parser)
    taken = set(parser._option_string_actions)
    required = set(tool.input_schema.get("required", ()))
    for name, schema in tool.input_schema["properties"].items():
        flag = "--" + "".join(f"-{c.lower()}" if c.isupper() else c for c in name)
        if flag in taken:
            continue  # --project: the connection flag is the argument too (the same project)
        text = schema.get("description", "").replace("%", "%%")
        options: dict[str, Any] = {
            "dest": f"argument_{name}",
            "help": text,
            "required": name in required,
            "metavar": flag[2:].replace("-", "_").upper(),
        }
        kind = schema.get("type")
        if kind == "boolean":
            options["action"] = "store_true"
            del options["required"], options["metavar"]
        elif "enum" in schema:
            options["choices"] = schema["enum"]
            del options["metavar"]
        elif kind == "integer":
            options["type"] = int
        elif kind == "number":
            options["type"] = float
        elif kind in ("object", "array"):
            options["type"] = json.loads
            options["metavar"] = "JSON"
        parser.add_argument(flag, **options)
    parser.set_defaults(run=lambda args: _call(args, tool))


def _call(args: argparse.Namespace, tool: Any) -> int:
    from kxm_grpc.tools.table import ArgumentError

    if not args.agent_name:
        print("error: name the acting agent with --as NAME (or KXM_AGENT_NAME)", file=sys.stderr)
        return EXIT_ERROR
    arguments = {
        key.removeprefix("argument_"): value
        for key, value in vars(args).items()
        if key.startswith("argument_") and value not in (None, False)
    }
    if "project" in tool.input_schema["properties"] and args.project:
        arguments["project"] = args.project
    try:
        request = tool.request_from(arguments)
    except ArgumentError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_ERROR

    async def command() -> int:
        client = await agent_client(args, args.agent_name)
        async with client:
            response = await client.invoke(tool.method, request, tool.response_type)
        result = tool.result_of(response)
        emit(args, result, json.dumps(result, indent=2, ensure_ascii=False))
        return EXIT_OK

    return run(args, command)
