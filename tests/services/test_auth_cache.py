"""The authentication cache against the durable credentials version, on a clock the test moves.

``AuthCache`` drops everything when this process changes a credential (``CREDENTIALS_TOPIC``), and
learns of another process's change by reading the durable version once ``recheck`` seconds passed
since it last read it; an entry verified at another version than the latest one read is stale.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from kxm_grpc.domain.caller import Caller, CredentialKind
from kxm_grpc.domain.secrets import hash_secret
from kxm_grpc.errors import Unauthenticated
from kxm_grpc.services import operators, projects
from kxm_grpc.services.auth import Access, AuthCache, Credentials, authenticate
from kxm_grpc.store import Durability, Store
from kxm_grpc.store.sqlite import SqliteStore

ADMIN = Caller(CredentialKind.ADMIN)


class Clock:
    """Seconds that move only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest_asyncio.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    """A started store on a file (so another connection can write it)."""
    opened = SqliteStore(str(tmp_path / "hub.db"), durability=Durability.NORMAL)
    await opened.start()
    yield opened
    await opened.close()


def bump_elsewhere(path: str, *, rotate: tuple[str, str] | None = None) -> None:
    """Another process's commit: optionally a project's new token hash, and the version bump."""
    with sqlite3.connect(path, timeout=5) as conn:
        if rotate is not None:
            conn.execute("UPDATE projects SET token_hash = ? WHERE name = ?", (hash_secret(rotate[1]), rotate[0]))
        conn.execute("UPDATE credentials_version SET version = version + 1")
    conn.close()


async def check(store: Store, cache: AuthCache, token: str) -> Caller:
    return (await authenticate(store, None, Credentials(bearer=token), Access.PROJECT_TOKEN, cache)).caller


async def test_a_remote_bump_is_seen_at_the_first_call_after_recheck(store: SqliteStore) -> None:
    """Within ``recheck`` the cached entry is trusted (no read); the first call after it reads the
    version, sees the bump and authenticates afresh: the rotated-away token is refused."""
    clock = Clock()
    cache = AuthCache(store, recheck=1.0, clock=clock)
    token = (await projects.create_project(store, ADMIN, "p", now=1)).token
    await check(store, cache, token)
    bump_elsewhere(store.path, rotate=("p", "kxm_proj_elsewhere"))

    clock.now += 0.5
    within = await check(store, cache, token)  # cached: the bound is not over yet
    clock.now += 0.5
    with pytest.raises(Unauthenticated):
        await check(store, cache, token)

    assert within.project == "p"
    assert (await check(store, cache, "kxm_proj_elsewhere")).project == "p"


async def test_a_remote_bump_without_a_change_only_costs_one_fresh_authentication(store: SqliteStore) -> None:
    """A bump for another credential invalidates the entries, which authenticate again and are
    cached at the new version."""
    clock = Clock()
    cache = AuthCache(store, recheck=1.0, clock=clock)
    token = (await projects.create_project(store, ADMIN, "p", now=1)).token
    await check(store, cache, token)
    bump_elsewhere(store.path)
    clock.now += 1.0

    assert (await check(store, cache, token)).project == "p"
    assert cache.get(Credentials(bearer=token)) is not None
    assert not cache.due


async def test_a_local_change_drops_the_cache_at_once(store: SqliteStore) -> None:
    """Revoking an operator in this process refuses its token on the very next call, no clock needed."""
    clock = Clock()
    cache = AuthCache(store, recheck=3600.0, clock=clock)
    issued = await operators.create_operator(store, ADMIN, "alice", now=1)
    await projects.create_project(store, ADMIN, "p", now=1)
    creds = Credentials(bearer=issued.token)
    await authenticate(store, None, creds, Access.OPERATOR, cache)

    await operators.revoke_operator(store, ADMIN, "alice", now=2)

    with pytest.raises(Unauthenticated):
        await authenticate(store, None, creds, Access.OPERATOR, cache)


async def test_an_entry_verified_at_an_older_version_is_never_served(store: SqliteStore) -> None:
    """put with a version older than the latest read does not make a usable entry."""
    cache = AuthCache(store, recheck=1.0, clock=Clock())
    token = (await projects.create_project(store, ADMIN, "p", now=1)).token
    caller = await check(store, cache, token)
    latest = await store.read(lambda tx: tx.credentials.version())
    stale = Credentials(bearer="kxm_proj_stale")
    cache.observe(latest + 1)

    cache.put(stale, (await authenticate(store, None, Credentials(bearer=token), Access.PROJECT_TOKEN)), -1, latest)

    assert caller.project == "p"
    assert cache.get(stale) is None
