"""The repositories every SQL adapter shares: one module per area, written once for SQLite and PostgreSQL.

Each area's repository (``agents.py``, ``messages.py``, ``inbox.py``, …, ``timers.py``) runs plain
SQL in the subset both dialects accept, on any ``Connection`` (``connection.py``), over the column
declarations of ``kxm_grpc/store/rows/``; ``logs.py`` is the one implementation of sequenced logs;
``tx.py`` binds one of each to a connection (``SqlTx``). What differs between the dialects (the
schema and its migrations, transactions, errors, wake-ups) stays in each adapter's package.
"""
