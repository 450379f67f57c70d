"""The hub's journal keys: the keyring that seals and verifies every run's journal chain.

The keys are configuration, shared by the replicas and never written to the database
(``domain/workflows/journal_chain.py`` says what the chain proves), read as every keyring of the
hub is (``server/keyfiles.py``): ``--journal-key-file PATH`` (the first key seals new records;
keep the old ones for as long as the journals they sealed are kept), else one key derived from
the admin token under the journal's own label. Records sealed under an earlier admin token report
``unknown_key`` rather than ``altered`` after the token changes: name that token's derived key in
a key file to keep verifying them.
"""

from __future__ import annotations

from pathlib import Path

import structlog

from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.server.keyfiles import DERIVED_PREFIX, KeySource
from kxm_grpc.store import Tx

log = structlog.get_logger("kxm.server")

DERIVATION_LABEL = b"kxm.journal-key.v1"

JOURNAL_KEYS = KeySource("journal key file", DERIVATION_LABEL, "journal_key")
"""The journal keyring's source: ``--journal-key-file``, else derived from the admin token."""

__all__ = ["DERIVED_PREFIX", "JOURNAL_KEYS", "derived_keyring", "hub_keyring", "load_key_file", "read_key_file"]


def derived_keyring(admin_token: str) -> Keyring:
    """The one-key journal keyring derived from the admin token."""
    return JOURNAL_KEYS.derived(admin_token)


def read_key_file(path: Path) -> Keyring:
    """The keyring a journal key file holds; its first key is the current one.

    Raises:
        SettingsError: as ``KeySource.read``; the message names the line, never a secret.
    """
    return JOURNAL_KEYS.read(path)


def load_key_file(path: Path | None) -> Keyring | None:
    """The journal key file's keyring (None without one), read before the hub touches its database.

    Raises:
        SettingsError: as ``KeySource.read``.
    """
    return JOURNAL_KEYS.load(path)


def hub_keyring(from_file: Keyring | None, admin_token: str | None) -> Keyring:
    """The hub's journal keyring: the key file's, else derived from the admin token, else a random one."""
    return JOURNAL_KEYS.keyring(from_file, admin_token)


CURRENT_KEY_META = "journal_current_key_id"
"""The ``meta`` row naming the key id the last hub to start sealed with (an id, never a secret)."""


def reconcile(tx: Tx, keyring: Keyring) -> None:
    """Compare the keyring with the key id the last hub to start on this database sealed with,
    then record this hub's: a change to a key this keyring still holds is a rotation (logged
    ``journal_key_rotated``); one to a key it lacks means records sealed by that hub (a replica
    started without the shared key file, or a key dropped too early) will not verify here
    (logged ``journal_key_unknown`` at warning, with both ids)."""
    previous = tx.meta.get(CURRENT_KEY_META)
    if previous is not None and previous != keyring.current:
        if previous in keyring.keys:
            log.info("journal_key_rotated", previous_key_id=previous, current_key_id=keyring.current)
        else:
            log.warning(
                "journal_key_unknown",
                previous_key_id=previous,
                current_key_id=keyring.current,
                next_action="give every replica the same --journal-key-file, keeping retired keys",
            )
    tx.meta.put(CURRENT_KEY_META, keyring.current)
