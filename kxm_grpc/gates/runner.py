"""Run one gate check (spec §6.3): an argv without a shell, in its own process group, observed.

``run_check`` validates the argv (``commands.validate_argv``) and refuses destructive commands
(``commands.refusal``) before spawning; then it starts the command in a new session (its own process
group), stdin from ``/dev/null``, and reads stdout and stderr as they arrive, hashing them (SHA-256,
byte counts, a ``complete`` flag). Their content is never kept, except a bounded tail when the
caller asks for one (``keep_tail``: for the operator's own terminal and the workspace's own
``git rev-parse``, never for a result).

On timeout, on ``stop`` (an event the caller sets) and when the task awaiting ``run_check`` is
cancelled, the whole group is stopped: SIGTERM, then after ``grace_ms`` SIGKILL, then a final wait
of ``grace_ms``. A command that exits while its pipes stay open (a grandchild holding them) for
``grace_ms`` is ``lost-close``, and its group is stopped the same way. Whatever the path, no member
of the group is left running: processes a complete command left behind are stopped too.

The observation is ``no-start`` (refused, invalid, not spawned, stopped before spawning),
``complete`` (a numeric exit, no signal, both streams complete, no stop cause) or ``uncertain``
with a reason. A cancelled task stops the group, then re-raises ``CancelledError`` (asyncio's
contract); ``stop`` is how a caller gets an ``uncertain``/``cancel`` observation back.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import structlog

from kxm_grpc.domain.workflows.plans import commands

log = structlog.get_logger("kxm.gates")

DEFAULT_TIMEOUT_MS = 600_000
MAX_TIMEOUT_MS = 2_147_483_647
DEFAULT_GRACE_MS = 2_000
MAX_TAIL_BYTES = 65_536
_POLL_S = 0.02
"""How often a stopping group is probed for members still alive."""

_CREDENTIAL_MARKERS = ("TOKEN", "KEY", "SECRET", "PASSWORD")


class Status(StrEnum):
    """What was observed of a check."""

    NO_START = "no-start"
    COMPLETE = "complete"
    UNCERTAIN = "uncertain"


class Reason(StrEnum):
    """Why a check did not start, or why its observation is uncertain."""

    INVALID_COMMAND = "invalid-command"
    REFUSED = "refused"
    SPAWN_ERROR = "spawn-error"
    TIMEOUT = "timeout"
    CANCEL = "cancel"
    LOST_CLOSE = "lost-close"
    STOP_ERROR = "stop-error"
    STREAM_ERROR = "stream-error"
    SIGNAL_TERMINATION = "signal-termination"


@dataclass(frozen=True)
class Command:
    """One check's command: ``env`` None is this worker's environment without its hub credentials."""

    argv: Sequence[str]
    cwd: str | os.PathLike[str] | None = None
    env: Mapping[str, str] | None = None
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    grace_ms: int = DEFAULT_GRACE_MS


@dataclass(frozen=True)
class StreamDigest:
    """What was read of one stream: its SHA-256 (hex), its length, whether it reached its end cleanly."""

    sha256: str
    size: int
    complete: bool
    tail: bytes = field(default=b"", repr=False, compare=False)
    """The last bytes read, only when asked for (``keep_tail``); never part of a result."""

    def to_dict(self) -> dict[str, Any]:
        return {"sha256": self.sha256, "bytes": self.size, "complete": self.complete}


EMPTY_DIGEST = StreamDigest(hashlib.sha256(b"").hexdigest(), 0, False)
"""The digest of a stream never opened (a check that did not start)."""


@dataclass(frozen=True)
class Observation:
    """What ``run_check`` saw. ``detail`` explains a no-start or an uncertain reason (never output)."""

    status: Status
    reason: Reason | None = None
    detail: str = ""
    rule: str | None = None
    """The seatbelt rule of a refusal."""
    exit_code: int | None = None
    signal: int | None = None
    """The signal that ended the process (its return code negated)."""
    duration_ms: int = 0
    stdout: StreamDigest = EMPTY_DIGEST
    stderr: StreamDigest = EMPTY_DIGEST
    pid: int | None = None
    """The process id, also its process group id."""

    @property
    def complete(self) -> bool:
        return self.status is Status.COMPLETE


def worker_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default ``os.environ``) without the hub credentials a check must never see.

    A gate runs the repository's code: the worker's ``KXM_*`` tokens, keys and secrets stay out.
    """
    source = os.environ if base is None else base
    return {
        name: value
        for name, value in source.items()
        if not (name.startswith("KXM_") and any(marker in name for marker in _CREDENTIAL_MARKERS))
    }


def _no_start(reason: Reason, detail: str, *, rule: str | None = None) -> Observation:
    return Observation(Status.NO_START, reason, detail, rule=rule)


async def run_check(command: Command, *, stop: asyncio.Event | None = None, keep_tail: int = 0) -> Observation:
    """Run ``command`` once and observe it; see the module docstring.

    Raises:
        asyncio.CancelledError: the awaiting task was cancelled (after the group was stopped).
        ValueError: ``keep_tail`` is outside 0–65,536.
    """
    if not 0 <= keep_tail <= MAX_TAIL_BYTES:
        raise ValueError(f"keep_tail must be 0-{MAX_TAIL_BYTES}")
    try:
        argv = commands.validate_argv(command.argv)
    except commands.ArgvError as error:
        log.warning("gate_check_invalid", detail=str(error))
        return _no_start(Reason.INVALID_COMMAND, str(error))
    if not 1 <= command.timeout_ms <= MAX_TIMEOUT_MS:
        return _no_start(Reason.INVALID_COMMAND, f"timeoutMs must be 1-{MAX_TIMEOUT_MS}")
    if not 1 <= command.grace_ms <= MAX_TIMEOUT_MS:
        return _no_start(Reason.INVALID_COMMAND, f"the stop grace must be 1-{MAX_TIMEOUT_MS} ms")
    refused = commands.refusal(argv)
    if refused is not None:
        # The program name and the rule only: the argv may carry secrets.
        log.warning("gate_check_refused", program=os.path.basename(argv[0]), rule=refused.rule)
        return _no_start(Reason.REFUSED, refused.message, rule=refused.rule)
    if stop is not None and stop.is_set():
        return _no_start(Reason.CANCEL, "stopped before the command was started")
    env = worker_environment() if command.env is None else dict(command.env)
    loop = asyncio.get_running_loop()
    started = time.monotonic()
    try:
        transport, protocol = await loop.subprocess_exec(
            lambda: _Observer(loop, keep_tail),
            *argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=command.cwd,
            env=env,
            start_new_session=True,
        )
    except (OSError, ValueError, subprocess.SubprocessError) as error:
        detail = f"{type(error).__name__}: {getattr(error, 'strerror', None) or error}"
        log.warning("gate_check_spawn_failed", program=os.path.basename(argv[0]), error=type(error).__name__)
        return _no_start(Reason.SPAWN_ERROR, detail)
    pid = transport.get_pid()
    group = _Group(pid)
    log.info("gate_check_started", program=os.path.basename(argv[0]), argc=len(argv), pid=pid)
    try:
        observation = await _supervise(command, transport, protocol, group, stop, started)
    except asyncio.CancelledError:
        log.warning("gate_check_cancelled", pid=pid, reason=Reason.CANCEL.value)
        await _stop(group, protocol, command.grace_ms)
        raise
    finally:
        if not group.settled:
            group.kill()  # the last resort when supervising was interrupted (a second cancel)
        transport.close()
    log.info(
        "gate_check_observed",
        pid=pid,
        status=observation.status.value,
        reason=observation.reason.value if observation.reason else None,
        exit_code=observation.exit_code,
        duration_ms=observation.duration_ms,
        stdout_bytes=observation.stdout.size,
        stderr_bytes=observation.stderr.size,
    )
    return observation


async def _supervise(
    command: Command,
    transport: asyncio.SubprocessTransport,
    protocol: _Observer,
    group: _Group,
    stop: asyncio.Event | None,
    started: float,
) -> Observation:
    grace = command.grace_ms / 1000
    cause: Reason | None = None
    stop_failed = False
    stop_waiter = asyncio.ensure_future(stop.wait()) if stop is not None else None
    try:
        waiters: set[asyncio.Future[Any]] = {protocol.exited}
        if stop_waiter is not None:
            waiters.add(stop_waiter)
        await asyncio.wait(waiters, timeout=command.timeout_ms / 1000, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if stop_waiter is not None:
            stop_waiter.cancel()
    if protocol.exited.done():
        if not await _wait_for(protocol.closed(), grace):
            cause = Reason.LOST_CLOSE
            stop_failed = await _stop(group, protocol, command.grace_ms)
        elif group.alive():
            # Exited and closed, but it left processes behind in its group: stop them (the
            # observation stays complete, it is about the command, not its leftovers).
            log.warning("gate_check_leftovers", pid=group.pgid)
            stop_failed = await _stop(group, protocol, command.grace_ms)
        else:
            group.settled = True
    else:
        cause = Reason.CANCEL if stop is not None and stop.is_set() else Reason.TIMEOUT
        stop_failed = await _stop(group, protocol, command.grace_ms)
    duration_ms = round((time.monotonic() - started) * 1000)
    return _classify(transport.get_returncode(), protocol, cause, stop_failed, duration_ms, group.pgid)


def _classify(
    returncode: int | None, protocol: _Observer, cause: Reason | None, stop_failed: bool, duration_ms: int, pid: int
) -> Observation:
    stdout, stderr = protocol.stdout.digest(), protocol.stderr.digest()
    exit_code = returncode if returncode is not None and returncode >= 0 else None
    signal_number = -returncode if returncode is not None and returncode < 0 else None

    def uncertain(reason: Reason, detail: str) -> Observation:
        return Observation(
            Status.UNCERTAIN, reason, detail, None, exit_code, signal_number, duration_ms, stdout, stderr, pid
        )

    if stop_failed:
        return uncertain(Reason.STOP_ERROR, "the process group did not end after SIGKILL")
    if cause is Reason.TIMEOUT:
        return uncertain(cause, "the command ran past its timeout and was stopped")
    if cause is Reason.CANCEL:
        return uncertain(cause, "the command was stopped before it ended")
    if cause is Reason.LOST_CLOSE:
        return uncertain(cause, "the command exited but its output pipes stayed open")
    if signal_number is not None:
        return uncertain(Reason.SIGNAL_TERMINATION, f"the command was ended by signal {signal_number}")
    if returncode is None:
        return uncertain(Reason.STOP_ERROR, "no exit status was observed")
    if not (stdout.complete and stderr.complete):
        return uncertain(Reason.STREAM_ERROR, "an output stream failed before its end")
    return Observation(Status.COMPLETE, None, "", None, exit_code, None, duration_ms, stdout, stderr, pid)


async def _wait_for(awaitable: asyncio.Future[Any], seconds: float) -> bool:
    """Whether ``awaitable`` finished within ``seconds`` (it is left running otherwise)."""
    try:
        await asyncio.wait_for(asyncio.shield(awaitable), seconds)
    except TimeoutError:
        return False
    return True


async def _stop(group: _Group, protocol: _Observer, grace_ms: int) -> bool:
    """SIGTERM the group, SIGKILL it after ``grace_ms`` if anything is left, then wait ``grace_ms``
    more; True when the command or a member of its group was still alive after that."""
    grace = grace_ms / 1000
    group.signal(signal.SIGTERM)
    if await _settle(group, protocol, grace):
        return False
    log.warning("gate_check_killed", pid=group.pgid)
    group.signal(signal.SIGKILL)
    if await _settle(group, protocol, grace):
        return False
    log.error("gate_check_stop_failed", pid=group.pgid)
    return True


async def _settle(group: _Group, protocol: _Observer, seconds: float) -> bool:
    """Wait up to ``seconds`` for the command's exit and an empty group, then give the pipes what
    is left of it to report their end; True once exit and the group's end were seen."""
    deadline = time.monotonic() + seconds
    if not await _wait_for(protocol.exited, seconds):
        return False
    while group.alive():
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(_POLL_S)
    group.settled = True
    await _wait_for(protocol.closed(), max(0.0, deadline - time.monotonic()))
    return True


class _Group:
    """The command's process group (its id is the command's pid: it leads a new session)."""

    def __init__(self, pgid: int) -> None:
        self.pgid = pgid
        self.settled = False
        """Seen empty: from then on its id may be reused, so it is never signalled again."""

    def signal(self, number: int) -> None:
        if self.settled:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pgid, number)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, signal.SIGKILL)

    def alive(self) -> bool:
        """Whether a member of the group still runs (zombies waiting for their reaper do not count)."""
        try:
            os.killpg(self.pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return _linux_members_running(self.pgid) if sys.platform.startswith("linux") else True


def _linux_members_running(pgid: int) -> bool:
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue  # gone meanwhile
        # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ")".
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) >= 3 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


class _Stream:
    """One output stream, hashed as it is read."""

    def __init__(self, keep_tail: int) -> None:
        self._hash = hashlib.sha256()
        self._bytes = 0
        self._keep = keep_tail
        self._tail = bytearray()
        self.ended = False
        self.failed = False

    def feed(self, data: bytes) -> None:
        self._hash.update(data)
        self._bytes += len(data)
        if self._keep:
            self._tail += data
            del self._tail[: -self._keep]

    def digest(self) -> StreamDigest:
        return StreamDigest(self._hash.hexdigest(), self._bytes, self.ended and not self.failed, bytes(self._tail))


class _Observer(asyncio.SubprocessProtocol):
    """The subprocess protocol: hashes what the pipes deliver and resolves exit and close futures."""

    def __init__(self, loop: asyncio.AbstractEventLoop, keep_tail: int) -> None:
        self.stdout = _Stream(keep_tail)
        self.stderr = _Stream(keep_tail)
        self.exited: asyncio.Future[None] = loop.create_future()
        self._closed = {1: loop.create_future(), 2: loop.create_future()}

    def _stream(self, fd: int) -> _Stream:
        return self.stdout if fd == 1 else self.stderr

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        self._stream(fd).feed(data if isinstance(data, bytes) else data.encode())

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd not in self._closed:
            return
        stream = self._stream(fd)
        stream.ended = True
        stream.failed = exc is not None
        if not self._closed[fd].done():
            self._closed[fd].set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)

    def closed(self) -> asyncio.Future[Any]:
        """Done once both pipes reported their end."""
        return asyncio.gather(*self._closed.values())
