"""The PostgreSQL fixtures (tests/postgres.py): fresh, separate, dropped databases on a loopback-only server."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest

from tests.postgres import PostgresServer

pytestmark = pytest.mark.postgres

USER_RELATIONS = """
    SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
"""


def _connect(url: str) -> psycopg.Connection:
    return psycopg.connect(url, autocommit=True, connect_timeout=10)


def test_two_databases_are_distinct_and_empty(postgres_server: PostgresServer, postgres_database: str) -> None:
    """Each database is new and empty; a table created in one is not in the other."""
    with postgres_server.database() as other, _connect(postgres_database) as one, _connect(other) as two:
        names = {conn.execute("SELECT current_database()").fetchone() for conn in (one, two)}
        assert len(names) == 2
        assert {urlsplit(url).path for url in (postgres_database, other)} == {f"/{name}" for (name,) in names}
        assert one.execute(USER_RELATIONS).fetchone() == (0,)
        assert two.execute(USER_RELATIONS).fetchone() == (0,)

        one.execute("CREATE TABLE only_here (id bigint PRIMARY KEY)")
        one.execute("INSERT INTO only_here VALUES (1)")

        assert one.execute("SELECT to_regclass('only_here') IS NOT NULL").fetchone() == (True,)
        assert two.execute("SELECT to_regclass('only_here') IS NOT NULL").fetchone() == (False,)
        assert two.execute(USER_RELATIONS).fetchone() == (0,)


@dataclass
class Left:
    """What a test leaves behind: its database's name and a connection to it still open."""

    names: list[str] = field(default_factory=list)
    connections: list[psycopg.Connection] = field(default_factory=list)


@pytest.fixture
def left_behind(postgres_server: PostgresServer) -> Iterator[Left]:
    """After the test, the databases it named no longer exist and its connections were ended.

    Requested before ``postgres_database``, this fixture is set up before it and torn down after it,
    so its checks run once ``postgres_database`` has dropped its database.
    """
    left = Left()
    yield left
    try:
        assert left.names, "the test recorded no database"
        with _connect(postgres_server.dsn) as conn:
            rows = conn.execute("SELECT datname FROM pg_database WHERE datname = ANY(%s)", (left.names,)).fetchall()
        assert rows == []
        for conn in left.connections:
            with pytest.raises(psycopg.OperationalError):
                conn.execute("SELECT 1")
    finally:
        for conn in left.connections:
            conn.close()


def test_the_database_is_dropped_after_the_test(left_behind: Left, postgres_database: str) -> None:
    """Dropped even while the test still holds a connection in a transaction (DROP DATABASE ... WITH (FORCE))."""
    conn = _connect(postgres_database)
    left_behind.connections.append(conn)
    conn.execute("CREATE TABLE t (x int)")
    conn.autocommit = False
    conn.execute("INSERT INTO t VALUES (1)")
    row = conn.execute("SELECT current_database()").fetchone()
    assert row is not None
    left_behind.names.append(row[0])


def test_the_server_listens_on_loopback_only(postgres_server: PostgresServer, postgres_database: str) -> None:
    """The throwaway cluster takes TCP connections on 127.0.0.1 only, never on the system cluster's 5432."""
    if postgres_server.external:
        pytest.skip("the server of KXM_TEST_POSTGRES_DSN is not this session's to check")
    url = urlsplit(postgres_database)
    assert (url.scheme, url.username, url.hostname) == ("postgresql", "kxm", "127.0.0.1")
    assert url.port != 5432
    with _connect(postgres_database) as conn:
        assert conn.execute("SHOW listen_addresses").fetchone() == ("127.0.0.1",)
        assert conn.execute("SELECT host(inet_server_addr()), inet_server_port()").fetchone() == ("127.0.0.1", url.port)
    # The kernel's view (Linux): every socket listening on the port is bound to 127.0.0.1, none on IPv6.
    tables = [Path("/proc/net/tcp"), Path("/proc/net/tcp6")]
    if not tables[0].exists():
        return
    listening = {
        (table.name, line.split()[1].rsplit(":", 1)[0])
        for table in tables
        if table.exists()
        for line in table.read_text().splitlines()[1:]
        if line.split()[3] == "0A" and int(line.split()[1].rsplit(":", 1)[1], 16) == url.port
    }
    assert listening == {("tcp", "0100007F")}  # 127.0.0.1, little-endian hex
