"""Several hub processes on one PostgreSQL database, and clients of them."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from kxm_grpc.store.tables import raw_connection
from kxm_grpc.testing import HubProcess

ADMIN_TOKEN = "replica-admin-token-0123456789"


class Cluster:
    """Hub replicas on one database: ``start(n)`` adds ``n`` more; each is a real ``kxm hub serve``."""

    def __init__(self, root: Path, database: str, extra_args: tuple[str, ...]) -> None:
        self.root = root
        self.database = database
        self.extra_args = extra_args
        self.replicas: list[HubProcess] = []

    def start(self, count: int = 1, *extra: str) -> list[HubProcess]:
        """Start ``count`` more replicas (in turn) and return them."""
        started = []
        for _ in range(count):
            replica = HubProcess(
                self.root / f"replica{len(self.replicas)}",
                durability="normal",
                admin_token=ADMIN_TOKEN,
                extra_args=("--database", self.database, *self.extra_args, *extra),
            )
            replica.start()
            self.replicas.append(replica)
            started.append(replica)
        return started

    def addresses(self, *replicas: HubProcess) -> str:
        """The comma-separated addresses of the given replicas (all by default), for a failing-over client."""
        return ",".join(r.address for r in replicas or self.replicas)

    def sweeper(self) -> HubProcess | None:
        """The replica holding the sweeper role now (as the database records it), or None."""
        with raw_connection(self.database) as conn:
            row = conn.execute("SELECT holder FROM roles WHERE name = 'sweeper'").fetchone()
        if row is None:
            return None
        pid = int(str(row[0]).split(":")[1])
        return next((r for r in self.replicas if r.process is not None and r.pid == pid), None)

    def stop_all(self) -> None:
        for replica in self.replicas:
            with contextlib.suppress(Exception):
                replica.kill()


@pytest.fixture
def cluster(tmp_path: Path, postgres_database: str) -> Iterator[Cluster]:
    """A cluster of replicas on a fresh database (none started yet); every replica is killed at the end."""
    made = Cluster(tmp_path, postgres_database, ("--replica-ttl", "1", "--stale-after", "2"))
    try:
        yield made
    finally:
        made.stop_all()
