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
        ("postgresql://kxm:secret@db.example/kxm", "unsupported database URL scheme 'postgresql'"),
        ("mysql://x/y", "unsupported database URL scheme 'mysql'"),
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
    with pytest.raises(argparse.ArgumentTypeError, match="unsupported database URL scheme 'postgresql'"):
        database_url("postgresql://db/kxm")
    with pytest.raises(StoreError, match="supported scheme is sqlite"):
        open_hub_store(Settings(data_dir=tmp_path, database="postgresql://db/kxm"))

    # Assert
    assert isinstance(chosen, SqliteStore) and chosen.path == str(tmp_path / "x.db")
    assert isinstance(default, SqliteStore) and default.path == str(tmp_path / "hub.db")
    assert database_url("") == "" and database_url("sqlite://:memory:") == "sqlite://:memory:"
