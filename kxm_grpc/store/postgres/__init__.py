"""The PostgreSQL adapter (the ``postgres`` extra): several hub replicas on one database.

``engine.py`` runs units of work in SERIALIZABLE transactions on a psycopg connection pool
(``PostgresStore``), on the repositories every SQL adapter shares (``kxm_grpc/store/sql/``, through
``connection.py``); ``listener.py`` carries wake-ups between replicas by LISTEN/NOTIFY;
``migrations.py`` holds PostgreSQL's numbered schema migrations; ``errors.py`` says what a
failure means. Importing this package needs psycopg (``pip install 'kxm-hub[postgres]'``).
"""

from kxm_grpc.store.postgres.engine import PostgresStore

__all__ = ["PostgresStore"]
