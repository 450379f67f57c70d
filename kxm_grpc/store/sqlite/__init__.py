"""The SQLite adapter: one writer thread committing concurrent work together, WAL readers.

``engine.py`` runs units of work (``SqliteStore``) on the repositories every SQL adapter shares
(``kxm_grpc/store/sql/``, bound to the connection by ``SqlTx``); ``migrations.py`` holds the
numbered schema migrations of SQLite.
"""

from kxm_grpc.store.sqlite.engine import SqliteStore

__all__ = ["SqliteStore"]
