"""The SQLite adapter: one writer thread committing concurrent work together, WAL readers."""

from kxm_grpc.store.sqlite.engine import SqliteStore

__all__ = ["SqliteStore"]
