"""Persistence: the Store protocol and its adapters (SQLite now; PostgreSQL for several replicas)."""

from kxm_grpc.store.base import Durability, Store, StoreError, Tx
from kxm_grpc.store.notify import Notifier

__all__ = ["Durability", "Notifier", "Store", "StoreError", "Tx"]
