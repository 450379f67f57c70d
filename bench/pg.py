"""PostgreSQL for the benchmark: a server (the bench's own throwaway cluster, or one given by URL),
a fresh database per scenario, and the CPU its processes spend.

The bench's own cluster is ``scripts/postgres start DIR`` in a directory under the temporary
directory (the disk the SQLite hub's data directory is on, not a tmpfs), made durable before use:
``scripts/postgres`` configures a test cluster without fsync, which would compare a PostgreSQL that
never flushes with a SQLite hub that does. ``ALTER SYSTEM`` turns ``fsync``, ``synchronous_commit``
and ``full_page_writes`` back on (a reload applies them); ``durable=False`` keeps the script's
settings. A server given by URL is used as it is configured; its settings are recorded either way.

CPU: every PostgreSQL process is a child of the postmaster, so the server's CPU is the postmaster's
own (utime + stime), plus what its reaped children spent (cutime + cstime: a backend that exited is
counted there once the postmaster has waited for it), plus each live child's, read from
``/proc/<postmaster>/task/*/children``. The postmaster of a server given by URL is found as the
parent of the bench's own backend (``pg_backend_pid()``), which works when the server runs on this
machine; otherwise its CPU is not measured.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
from psycopg import sql

from bench.common import CLOCK_TICKS, REPO, process_cpu

SCRIPT = REPO / "scripts" / "postgres"
SETTINGS = (
    "server_version",
    "fsync",
    "synchronous_commit",
    "full_page_writes",
    "wal_sync_method",
    "shared_buffers",
    "max_connections",
    "data_directory",
)
DURABLE = {"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on"}

# As tests/postgres.py: a detached process holding the read end of a pipe only the bench holds;
# at EOF (however the bench ended, kill -9 included) it stops the cluster and removes it.
_WATCHDOG = """
import shutil, subprocess, sys
sys.stdin.buffer.read()
subprocess.run([sys.argv[1], "stop", sys.argv[2]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
shutil.rmtree(sys.argv[2], ignore_errors=True)
"""


def _process_fields(pid: int) -> list[str]:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()


def _parent(pid: int) -> int:
    return int(_process_fields(pid)[1])


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found.extend(int(x) for x in (task / "children").read_text().split())
    return found


def _database_of(pid: int) -> str | None:
    """The database a backend serves, from its process title (``postgres: USER DB HOST(PORT) STATE``)."""
    try:
        title = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").split()
    except OSError:
        return None
    if len(title) >= 4 and title[0] == "postgres:" and "(" in title[3]:
        return title[2]
    return None


@dataclass
class PgSnapshot:
    total: float
    """CPU seconds of the whole server so far (postmaster, reaped children, live children)."""
    by_pid: dict[int, tuple[str | None, float]]
    """Each live child: the database it serves (None: an auxiliary process) and its CPU seconds."""


class PgProcesses:
    """The CPU of one PostgreSQL server's processes (see the module docstring)."""

    def __init__(self, postmaster: int) -> None:
        self.postmaster = postmaster

    def snapshot(self) -> PgSnapshot:
        fields = _process_fields(self.postmaster)
        # utime, stime, cutime, cstime: fields 14-17 of /proc/<pid>/stat (11-14 after the name)
        total = sum(int(x) for x in fields[11:15]) / CLOCK_TICKS
        by_pid: dict[int, tuple[str | None, float]] = {}
        for child in _children(self.postmaster):
            with contextlib.suppress(OSError, ValueError, IndexError):
                by_pid[child] = (_database_of(child), process_cpu(child))
        total += sum(cpu for _, cpu in by_pid.values())
        return PgSnapshot(total, by_pid)

    @staticmethod
    def spent(start: PgSnapshot, end: PgSnapshot, databases: set[str]) -> tuple[float, float]:
        """(CPU seconds of the whole server, of the backends serving ``databases``) between two snapshots.

        The second figure misses backends that exited in between (the pools keep theirs open).
        """
        backends = 0.0
        for pid, (database, cpu) in end.by_pid.items():
            if database in databases:
                before = start.by_pid.get(pid)
                backends += cpu - (before[1] if before is not None and before[0] == database else 0.0)
        return max(0.0, end.total - start.total), max(0.0, backends)


@dataclass
class PgServer:
    """A PostgreSQL server the bench creates its databases on."""

    dsn: str
    own: bool
    """True: the bench's throwaway cluster; False: the server of ``--postgres``."""
    directory: Path | None = None
    watchdog: subprocess.Popen[bytes] | None = None
    settings: dict[str, str] = field(default_factory=dict)
    processes: PgProcesses | None = None
    statements: bool = False
    """Whether ``pg_stat_statements`` is loaded (``own_cluster(statements=True)``)."""
    _admin: psycopg.Connection[Any] | None = field(default=None, repr=False)

    def url(self, database: str) -> str:
        return urlsplit(self.dsn)._replace(path="/" + database).geturl()

    def admin(self) -> psycopg.Connection[Any]:
        if self._admin is None or self._admin.closed or self._admin.broken:
            self._admin = psycopg.connect(self.dsn, autocommit=True, connect_timeout=10)
        return self._admin

    def read_settings(self) -> dict[str, str]:
        conn = psycopg.connect(self.dsn, autocommit=True, connect_timeout=10)  # a new session: reloaded values
        try:
            self.settings = {name: str(conn.execute(f"SHOW {name}").fetchone()[0]) for name in SETTINGS}  # type: ignore[index]
        finally:
            conn.close()
        return self.settings

    def find_postmaster(self) -> None:
        """Find the server's postmaster on this machine (None when the server runs elsewhere)."""
        self.processes = None
        with contextlib.suppress(Exception):
            row = self.admin().execute("SELECT pg_backend_pid()").fetchone()
            assert row is not None
            postmaster = _parent(int(row[0]))
            title = Path(f"/proc/{postmaster}/cmdline").read_bytes()
            if b"postgres" in title:
                self.processes = PgProcesses(postmaster)

    def next_xid(self) -> int | None:
        """The server's next transaction id: how many write transactions it has started, cluster-wide."""
        with contextlib.suppress(psycopg.Error):
            row = self.admin().execute("SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint").fetchone()
            return int(row[0]) if row is not None else None
        return None

    def statement_calls(self, database: str) -> dict[str, int]:
        """Calls so far of each (normalised) statement run in ``database`` (empty without pg_stat_statements).

        pg_stat_statements counts in shared memory as each statement ends, so two readings bracket
        exactly the statements run between them (``pg_stat_database`` lags by up to a second).
        """
        if not self.statements:
            return {}
        rows = self.admin().execute(
            "SELECT s.query, sum(s.calls)::bigint FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
            "WHERE d.datname = %s GROUP BY s.query",
            (database,),
        )
        return {str(query): int(calls) for query, calls in rows.fetchall()}

    def transactions(self, database: str, timeout: float = 5.0) -> dict[str, int]:
        """``pg_stat_database``'s commit and rollback counts of ``database``, once it has no backend left.

        A backend reports its counts at least once a second and when it exits, so this waits (up
        to ``timeout``) for every backend of the database to be gone, i.e. for its hubs to have stopped.
        """
        conn = self.admin()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (database,)).fetchone()
            if row is None or int(row[0]) == 0:
                break
            time.sleep(0.05)
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row = conn.execute(
            "SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = %s", (database,)
        ).fetchone()
        return {"commits": int(row[0]), "rollbacks": int(row[1])} if row is not None else {}

    @contextlib.contextmanager
    def database(self, label: str) -> Iterator[tuple[str, str]]:
        """A fresh database (from ``template0``) as (name, URL); dropped ``WITH (FORCE)`` on exit."""
        name = f"kxm_bench_{label}_{uuid.uuid4().hex[:8]}"
        self.admin().execute(sql.SQL("CREATE DATABASE {} TEMPLATE template0").format(sql.Identifier(name)))
        try:
            yield name, self.url(name)
        finally:
            self.admin().execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))

    def close_admin(self) -> None:
        if self._admin is not None:
            with contextlib.suppress(Exception):
                self._admin.close()
            self._admin = None

    def close(self) -> None:
        self.close_admin()
        if self.own and self.directory is not None:
            subprocess.run([SCRIPT, "stop", str(self.directory)], capture_output=True, timeout=120, check=False)
            shutil.rmtree(self.directory, ignore_errors=True)
            if self.watchdog is not None and self.watchdog.stdin is not None:
                self.watchdog.stdin.close()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.watchdog.wait(timeout=60)


def external(dsn: str) -> PgServer:
    """The server of ``--postgres``, as configured (its user must be allowed to create databases)."""
    if urlsplit(dsn).scheme not in ("postgresql", "postgres"):
        raise SystemExit(f"--postgres must be a postgresql:// URL, not {dsn!r}")
    server = PgServer(dsn, own=False)
    try:
        server.admin().execute("SELECT 1")
    except psycopg.Error as exc:
        raise SystemExit(f"cannot reach {dsn}: {exc}") from exc
    server.read_settings()
    server.find_postmaster()
    return server


def own_cluster(*, durable: bool = True, statements: bool = False) -> PgServer:
    """Start a throwaway cluster with ``scripts/postgres`` (durable unless told otherwise).

    ``statements``: load ``pg_stat_statements`` (a restart), to count the statements per operation;
    it costs the server some CPU of its own, so the CPU figures of such a run are not the plain ones.
    """
    found = subprocess.run([SCRIPT, "bindir"], capture_output=True, text=True, check=False)
    if found.returncode != 0:
        raise SystemExit(f"{found.stderr.strip()} (or pass --postgres URL of an existing server)")
    # Directly under the temporary directory: as root the server runs as user postgres, which must
    # reach it (a private parent would stop it).
    directory = Path(tempfile.mkdtemp(prefix="kxm-bench-pg-"))
    watchdog = subprocess.Popen(
        [sys.executable, "-c", _WATCHDOG, str(SCRIPT), str(directory)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    server = PgServer("", own=True, directory=directory, watchdog=watchdog)
    try:
        started = subprocess.run(
            [SCRIPT, "start", str(directory)], capture_output=True, text=True, timeout=120, check=False
        )
        if started.returncode != 0:
            raise RuntimeError(f"scripts/postgres start {directory} failed:\n{started.stderr}")
        server.dsn = started.stdout.strip()
        if statements:
            conn = server.admin()
            conn.execute("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
            server.close_admin()
            port = str(urlsplit(server.dsn).port)
            subprocess.run([SCRIPT, "stop", str(directory)], capture_output=True, timeout=120, check=True)
            restarted = subprocess.run(
                [SCRIPT, "start", str(directory), port], capture_output=True, text=True, timeout=120, check=False
            )
            if restarted.returncode != 0:
                raise RuntimeError(f"scripts/postgres could not restart {directory}:\n{restarted.stderr}")
            server.admin().execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            server.statements = True
        if durable:
            conn = server.admin()
            for name, value in DURABLE.items():
                conn.execute(sql.SQL("ALTER SYSTEM SET {} = {}").format(sql.Identifier(name), sql.Literal(value)))
            conn.execute("SELECT pg_reload_conf()")
            deadline = time.monotonic() + 10
            while any(server.read_settings()[k] != v for k, v in DURABLE.items()):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the cluster did not take the durable settings: {server.settings}")
                time.sleep(0.05)
        else:
            server.read_settings()
        server.find_postmaster()
        return server
    except BaseException:
        server.close()
        raise
