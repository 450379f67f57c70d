"""Fixtures of the API tests: the hub's logs (the test certificates, ``pki``, are in tests/conftest.py)."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
import structlog

from kxm_grpc.server.log import configure_logging


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    """Route the hub's JSON logs (info and up) into a buffer for the test, then restore the test configuration."""
    buffer = io.StringIO()
    configure_logging("json", "info", cache=False)
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(buffer))
    yield buffer
    configure_logging("json", "warning", cache=False)
