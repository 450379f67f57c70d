"""Persistence: the Store contract, one protocol per area, and its adapters (SQLite; PostgreSQL later).

``kxm_grpc.store.url.open_store(url, durability)`` opens the adapter a database URL names.
"""

from kxm_grpc.store.base import Durability, Store, StoreError
from kxm_grpc.store.notify import Notifier
from kxm_grpc.store.protocols import LogState, Timer, Tx

__all__ = ["Durability", "LogState", "Notifier", "Store", "StoreError", "Timer", "Tx"]
