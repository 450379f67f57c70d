"""The history a load generator writes: one JSON line per completed operation, as Jepsen's.

Each line is ``{op, agent, project, key, idem, t_invoke, t_complete, type, value, error}``:
``type`` is ``ok`` (the hub answered OK), ``fail`` (it answered with a definite refusal: the
operation did not happen) or ``info`` (indeterminate: UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED,
a connection cut; it may or may not have happened). Times are ``time.monotonic()`` seconds.
The checkers (``checkers.py``) read it back as a list of ``Op``.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

import grpc

from kxm_grpc.errors import HubError

# A status after which the operation may have happened (Jepsen's :info).
INDETERMINATE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.INTERNAL,
    }
)


@dataclass
class Op:
    op: str
    agent: str = ""
    project: str = ""
    key: str = ""
    idem: str = ""
    t_invoke: float = 0.0
    t_complete: float = 0.0
    type: str = "info"
    value: Any = None
    error: str = ""


def status_of(error: BaseException) -> grpc.StatusCode | None:
    """The gRPC status an exception carries (a ``HubError`` or a raw ``grpc.aio.AioRpcError``)."""
    if isinstance(error, HubError):
        return grpc.StatusCode.__members__.get(error.status)
    if isinstance(error, grpc.aio.AioRpcError):
        return error.code()
    return None


def outcome_of(error: BaseException) -> str:
    """``info`` when ``error`` leaves the operation's effect unknown, ``fail`` when it is a definite refusal."""
    code = status_of(error)
    if code is None or code in INDETERMINATE:
        return "info"
    return "fail"


@dataclass
class History:
    """An append-only JSONL history (``path``), also kept in memory (``ops``)."""

    path: Path
    ops: list[Op] = field(default_factory=list)
    _file: TextIO | None = None

    def __post_init__(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("a", encoding="utf-8")

    def append(self, op: Op) -> Op:
        self.ops.append(op)
        assert self._file is not None
        self._file.write(json.dumps(asdict(op), default=str) + "\n")
        return op

    @contextlib.asynccontextmanager
    async def record(self, op: str, **fields: Any) -> AsyncIterator[Op]:
        """Time one operation and append it: ``ok`` unless it raised, then ``fail`` or ``info``.

        The body sets ``entry.value`` to what the hub returned. An exception still propagates after
        it is recorded (the caller decides whether to retry).
        """
        entry = Op(op, t_invoke=time.monotonic(), **fields)
        try:
            yield entry
        except BaseException as error:
            entry.type = outcome_of(error) if isinstance(error, Exception) else "info"
            entry.error = f"{type(error).__name__}: {str(error)[:200]}"
            entry.t_complete = time.monotonic()
            self.append(entry)
            raise
        entry.type = "ok"
        entry.t_complete = time.monotonic()
        self.append(entry)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def read(path: Path) -> Iterator[Op]:
    """The operations of a history file."""
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield Op(**json.loads(line))
