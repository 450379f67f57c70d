"""Database URLs: the forms that select the SQLite adapter, today's bare paths, and what is refused."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from kxm_grpc.server.app import open_store as open_hub_store
from kxm_grpc.server.settings import Settings, database_url
from kxm_grpc.store import StoreError
from kxm_grpc.store.sqlite import SqliteStore
from kxm_grpc.store.url import DatabaseUrl, open_store, parse_database_url


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("sqlite:///hub.db", "hub.db"),
        ("sqlite:///data/hub.db", "data/hub.db"),
        ("sqlite:////srv/kxm/hub.db", "/srv/kxm/hub.db"),
        ("SQLite:////srv/kxm/hub.db", "/srv/kxm/hub.db"),
        ("sqlite://:memory:", ":memory:"),
        ("sqlite:///:memory:", ":memory:"),
        ("hub.db", "hub.db"),  # a bare path, as before URLs
        ("/srv/kxm/hub.db", "/srv/kxm/hub.db"),
        ("./odd:name.db", "./odd:name.db"),
        (":memory:", ":memory:"),
    ],
)
def test_sqlite_urls_and_bare_paths_name_a_file_or_memory(text: str, path: str) -> None:
    """Three slashes then a relative path, four for an absolute one, ``:memory:``, or a bare path."""
    # Execute
    parsed = parse_database_url(text)

    # Assert
    assert parsed == DatabaseUrl("sqlite", path)
    assert parse_database_url(str(parsed)) == parsed  # the canonical form reads back the same


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("mysql://kxm:secret@db.example/kxm", "unsupported database URL scheme 'mysql'"),
        ("postgresql:kxm:secret@db.example/kxm", "starts postgresql://"),
        ("sqlite:hub.db", "starts sqlite://"),
        ("sqlite://host/hub.db", "names no host"),
        ("sqlite://", "names no file"),
        ("sqlite:///", "names no file"),
        ("sqlite:///data/", "names no file"),
        ("sqlite:///hub.db?mode=ro", "no query"),
        ("", "empty"),
    ],
)
def test_other_schemes_and_malformed_sqlite_urls_are_refused_naming_the_forms(text: str, says: str) -> None:
    """The refusal names what is wrong and the supported forms, and never repeats the URL (a password)."""
    # Execute
    with pytest.raises(StoreError) as caught:
        parse_database_url(text)

    # Assert
    message = str(caught.value)
    assert says in message
    assert "sqlite:///RELATIVE/PATH, sqlite:////ABSOLUTE/PATH, sqlite://:memory:" in message
    assert "secret" not in message


def test_open_store_opens_the_sqlite_adapter_and_describes_it_by_its_canonical_url(tmp_path: Path) -> None:
    """A file URL and a relative bare path give a SqliteStore on that file, described by absolute URL."""
    # Execute
    by_url = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    by_path = open_store(os.path.relpath(tmp_path / "b.db"))
    memory = open_store("sqlite://:memory:")

    # Assert
    assert isinstance(by_url, SqliteStore) and by_url.path == str(tmp_path / "a.db")
    assert by_url.description == f"sqlite:///{tmp_path / 'a.db'}"
    assert by_path.description == f"sqlite:///{tmp_path / 'b.db'}"
    assert isinstance(memory, SqliteStore) and memory.memory and memory.description == "sqlite://:memory:"


def test_the_hub_opens_its_settings_database_url(tmp_path: Path) -> None:
    """--database takes a URL; without one the hub opens DATA_DIR/hub.db; an unknown scheme is refused
    by the flag's parser (argparse reports it against --database) and by open_store."""
    # Execute
    chosen = open_hub_store(Settings(data_dir=tmp_path, database=f"sqlite:///{tmp_path / 'x.db'}"))
    default = open_hub_store(Settings(data_dir=tmp_path))
    with pytest.raises(argparse.ArgumentTypeError, match="unsupported database URL scheme 'mysql'"):
        database_url("mysql://db/kxm")
    with pytest.raises(StoreError, match="supported schemes are sqlite and postgresql"):
        open_hub_store(Settings(data_dir=tmp_path, database="mysql://db/kxm"))

    # Assert
    assert isinstance(chosen, SqliteStore) and chosen.path == str(tmp_path / "x.db")
    assert isinstance(default, SqliteStore) and default.path == str(tmp_path / "hub.db")
    assert database_url("") == "" and database_url("sqlite://:memory:") == "sqlite://:memory:"


@pytest.mark.parametrize(
    ("text", "described"),
    [
        (
            "postgresql://kxm:secret@db.example:5433/hub?sslmode=require&password=secret",
            "postgresql://kxm@db.example:5433/hub",
        ),
        ("postgres://db.example/hub", "postgresql://db.example/hub"),
        ("postgresql://kxm@127.0.0.1:54329/hub", "postgresql://kxm@127.0.0.1:54329/hub"),
    ],
)
def test_a_postgresql_url_opens_the_postgres_adapter_and_is_described_without_its_password(
    text: str, described: str
) -> None:
    """postgresql:// and postgres:// open PostgresStore on the URL as given; logs see no password or query."""
    pytest.importorskip("psycopg")
    from kxm_grpc.store.postgres import PostgresStore

    # Execute
    parsed = parse_database_url(text)
    store = open_store(text)

    # Assert
    assert parsed.scheme == "postgresql" and parsed.path == text and parsed.shared
    assert str(parsed) == described and "secret" not in str(parsed)
    assert isinstance(store, PostgresStore) and store.description == described and store.shared
    assert database_url(text) == text
