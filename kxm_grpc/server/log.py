"""structlog configuration: JSON lines for machines, readable lines on a terminal.

The standard library's loggers (asyncio's "Task exception was never retrieved", grpc's and
others') are bridged into the same output: a handler on the root logger renders their records
with the hub's processors and renderer, so every line on stderr has the one shape, with the
record's logger name. Their level follows ``--log-level`` as the hub's own lines do.
"""

from __future__ import annotations

import logging
import sys

import structlog


def configure_logging(fmt: str = "auto", level: str = "info", *, cache: bool = True) -> None:
    """Configure structlog once for the process; ``fmt`` is ``json``, ``console`` or ``auto``.

    ``cache=False`` lets a later ``configure`` reach loggers already used (tests reconfigure).
    """
    use_console = fmt == "console" or (fmt == "auto" and sys.stderr.isatty())
    renderer: structlog.typing.Processor = (
        structlog.dev.ConsoleRenderer(exception_formatter=structlog.dev.plain_traceback)
        if use_console
        else structlog.processors.JSONRenderer()
    )
    processors: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    if not use_console:
        # Tracebacks without local variables: locals hold tokens, keys and message bodies.
        processors.append(
            structlog.processors.ExceptionRenderer(structlog.tracebacks.ExceptionDictTransformer(show_locals=False))
        )
    _bridge_standard_logging(processors, renderer, level)
    processors.append(renderer)
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelNamesMapping()[level.upper()]),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=cache,
    )


class _BridgeHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """The root logger's handler that ``configure_logging`` installs (and replaces when called again).

    It writes to ``sys.stderr`` as it is when a record comes, as structlog's own lines do, not
    to the stream of the moment it was made (a test runner swaps stderr between tests).
    """

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


def _bridge_standard_logging(
    processors: list[structlog.typing.Processor], renderer: structlog.typing.Processor, level: str
) -> None:
    """Render the standard library's log records as the hub's own lines (see the module docstring)."""
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[structlog.stdlib.add_logger_name, *processors],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
    )
    handler = _BridgeHandler(sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    for existing in [h for h in root.handlers if isinstance(h, _BridgeHandler)]:
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(logging.getLevelNamesMapping()[level.upper()])
