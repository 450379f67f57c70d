"""The SQLite adapter: one writer thread committing concurrent work together, WAL readers.

``engine.py`` runs units of work (``SqliteStore``); ``tx.py`` binds one repository per area to a
connection, each area in a module of its own (``agents.py``, ``messages.py``, ``inbox.py``, …,
``timers.py``) over the column declarations of ``kxm_grpc/store/rows/``; ``logs.py`` is the one
implementation of sequenced logs; ``migrations.py`` the numbered schema migrations.
"""

from kxm_grpc.store.sqlite.engine import SqliteStore

__all__ = ["SqliteStore"]
