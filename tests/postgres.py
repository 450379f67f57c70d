"""PostgreSQL for the tests marked ``postgres`` (a pytest plugin; tests/conftest.py registers it).

``postgres_server`` (session) is the server: the one ``KXM_TEST_POSTGRES_DSN`` names (a
``postgresql://`` URL whose user may create and drop databases), else a throwaway cluster that
``scripts/postgres`` starts in a temporary directory and stops when the session ends, however it
ends (a watchdog process stops it even when pytest is killed). ``postgres_database`` (function) is
a fresh, empty database on it for one test, as its URL; dropped after the test (``WITH (FORCE)``:
connections the test left open do not keep it). Tests using either fixture are marked
``postgres`` here, so ``-m "not postgres"`` deselects them.

Without PostgreSQL (no server installed: ``scripts/install-postgres``) or with
``KXM_SKIP_POSTGRES=1``, those tests skip; with ``KXM_REQUIRE_POSTGRES=1`` (CI) they fail instead,
so a missing PostgreSQL can never pass silently.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn
from urllib.parse import urlsplit

import psycopg
import pytest
from psycopg import sql

from kxm_grpc.store.url import parse_database_url

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "postgres"
DSN_ENV = "KXM_TEST_POSTGRES_DSN"
FIXTURES = frozenset({"postgres_server", "postgres_database"})

# Run in its own session (Ctrl-C does not reach it) with the read end of a pipe that only this
# process holds: at EOF, whenever and however pytest ended, it stops the cluster and removes it.
# After a normal teardown both are gone already and it has nothing to do.
_WATCHDOG = """
import shutil, subprocess, sys
sys.stdin.buffer.read()
subprocess.run([sys.argv[1], "stop", sys.argv[2]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
shutil.rmtree(sys.argv[2], ignore_errors=True)
"""


@dataclass
class PostgresServer:
    """A PostgreSQL server for the session: its DSN (the ``postgres`` database) and fresh databases."""

    dsn: str
    external: bool
    """True for the server of ``KXM_TEST_POSTGRES_DSN``, False for the session's throwaway cluster."""
    _admin: psycopg.Connection | None = field(default=None, repr=False)

    def url(self, database: str) -> str:
        """The DSN of ``database`` on this server (same user, host, port and parameters)."""
        return urlsplit(self.dsn)._replace(path="/" + database).geturl()

    @contextlib.contextmanager
    def database(self) -> Iterator[str]:
        """A new, empty database (a copy of ``template0``) as its URL; dropped on exit."""
        name = f"kxm_test_{uuid.uuid4().hex[:16]}"
        self._execute(sql.SQL("CREATE DATABASE {} TEMPLATE template0").format(sql.Identifier(name)))
        try:
            yield self.url(name)
        finally:
            self._execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))

    def _execute(self, statement: sql.Composable) -> None:
        if self._admin is None or self._admin.closed or self._admin.broken:
            self._admin = psycopg.connect(self.dsn, autocommit=True, connect_timeout=10)
        self._admin.execute(statement)

    def close(self) -> None:
        """Close the admin connection."""
        if self._admin is not None:
            self._admin.close()


def _unavailable(reason: str) -> NoReturn:
    """Skip the test for want of PostgreSQL, or fail it under ``KXM_REQUIRE_POSTGRES=1``."""
    if os.environ.get("KXM_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"{reason}; KXM_REQUIRE_POSTGRES=1 forbids skipping the PostgreSQL tests", pytrace=False)
    pytest.skip(reason)


def _scratch_parent() -> str:
    """Where the throwaway cluster goes: a tmpfs (/dev/shm) when it has room, else the temp dir.

    Creating files dominates CREATE DATABASE (about 300 of them, 0.4 ms each on the project's ext4
    disks under load): 10 to 250 ms there, about 8 ms on tmpfs; starting the cluster 1.4 s against 0.6 s.
    """
    shm = "/dev/shm"
    with contextlib.suppress(OSError):
        stat = os.statvfs(shm)
        if stat.f_bavail * stat.f_frsize >= 1 << 30 and os.access(shm, os.W_OK | os.X_OK):
            return shm
    return tempfile.gettempdir()


def _external(dsn: str) -> PostgresServer:
    if urlsplit(dsn).scheme not in ("postgresql", "postgres"):
        pytest.fail(f"{DSN_ENV} must be a postgresql:// URL", pytrace=False)
    server = PostgresServer(dsn, external=True)
    try:
        server._execute(sql.SQL("SELECT 1"))
    except psycopg.Error as exc:
        shown = str(parse_database_url(dsn))  # without its password
        pytest.fail(f"cannot reach the server of {DSN_ENV} ({shown}): {type(exc).__name__}", pytrace=False)
    return server


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The session's PostgreSQL server (see the module docstring)."""
    if os.environ.get("KXM_SKIP_POSTGRES") == "1":
        _unavailable("KXM_SKIP_POSTGRES=1")
    if dsn := os.environ.get(DSN_ENV, "").strip():
        server = _external(dsn)
        try:
            yield server
        finally:
            server.close()
        return
    found = subprocess.run([SCRIPT, "bindir"], capture_output=True, text=True, check=False)
    if found.returncode != 0:
        _unavailable(f"{found.stderr.strip().removeprefix('postgres: ')} (or set {DSN_ENV} to an existing server)")
    directory = tempfile.mkdtemp(prefix="kxm-pg-", dir=_scratch_parent())
    watchdog = subprocess.Popen(
        [sys.executable, "-c", _WATCHDOG, str(SCRIPT), directory],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    server = None
    try:
        started = subprocess.run([SCRIPT, "start", directory], capture_output=True, text=True, timeout=120, check=False)
        if started.returncode != 0:
            pytest.fail(f"scripts/postgres start {directory} failed:\n{started.stderr}", pytrace=False)
        server = PostgresServer(started.stdout.strip(), external=False)
        yield server
    finally:
        if server is not None:
            server.close()
        stopped = subprocess.run([SCRIPT, "stop", directory], capture_output=True, text=True, timeout=120, check=False)
        shutil.rmtree(directory, ignore_errors=True)
        assert watchdog.stdin is not None
        watchdog.stdin.close()
        watchdog.wait(timeout=60)
        if stopped.returncode != 0:
            raise RuntimeError(f"scripts/postgres stop {directory} failed:\n{stopped.stderr}")


@pytest.fixture
def postgres_database(postgres_server: PostgresServer) -> Iterator[str]:
    """A fresh, empty database for one test, as its URL (``postgresql://kxm@127.0.0.1:PORT/<name>``)."""
    with postgres_server.database() as url:
        yield url


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``postgres`` the tests that use these fixtures (before ``-m`` selects)."""
    for item in items:
        if FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.postgres)
