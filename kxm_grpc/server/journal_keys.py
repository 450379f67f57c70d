"""The hub's journal keys: the keyring that seals and verifies every run's journal chain.

The keys are configuration, shared by the replicas and never written to the database
(``domain/workflows/journal_chain.py`` says what the chain proves). Two sources:

- ``--journal-key-file PATH``: one key per line, ``<key id> <secret in hex>`` (at least 32
  bytes: ``openssl rand -hex 32``); blank lines and ``#`` comments are skipped. The first key
  seals new records; the others only verify, so a key rotates by putting the new one first and
  keeping the old ones for as long as the journals they sealed are kept.
- Without it, one key derived from the admin token (HMAC-SHA256 of the token under a fixed label),
  which every replica of a shared database is given already and which a loopback hub generates
  into ``credentials.json``. Its key id names the derived key's fingerprint (``admin-<12 hex>``),
  so records sealed under an earlier admin token report ``unknown_key`` rather than ``altered``
  after the token changes: name that token's derived key in a key file to keep verifying them.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from pathlib import Path

import structlog

from kxm_grpc.domain.workflows.journal_chain import MIN_KEY_BYTES, Keyring
from kxm_grpc.server.settings import SettingsError
from kxm_grpc.store import Tx

log = structlog.get_logger("kxm.server")

DERIVATION_LABEL = b"kxm.journal-key.v1"
DERIVED_PREFIX = "admin-"


def derived_keyring(admin_token: str) -> Keyring:
    """The one-key keyring derived from the admin token."""
    secret = hmac.new(admin_token.encode(), DERIVATION_LABEL, hashlib.sha256).digest()
    key_id = DERIVED_PREFIX + hashlib.sha256(secret).hexdigest()[:12]
    return Keyring({key_id: secret}, current=key_id)


def read_key_file(path: Path) -> Keyring:
    """The keyring a journal key file holds; its first key is the current one.

    Raises:
        SettingsError: the file cannot be read, holds no key, or a line is not ``<key id> <hex>``
            with a valid id, at least 32 bytes of hex, and an id not given before. The message
            names the line, never a secret.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"cannot read the journal key file {path}: {exc.__class__.__name__}") from None
    keys: dict[str, bytes] = {}
    current = ""
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        parts = stripped.split()
        where = f"journal key file {path}, line {number}"
        if len(parts) != 2:
            raise SettingsError(f"{where}: expected '<key id> <secret in hex>'")
        key_id, encoded = parts
        try:
            secret = bytes.fromhex(encoded)
        except ValueError:
            raise SettingsError(f"{where}: the secret is not hexadecimal") from None
        if len(secret) < MIN_KEY_BYTES:
            raise SettingsError(f"{where}: the secret must be at least {MIN_KEY_BYTES} bytes (64 hex digits)")
        if key_id in keys:
            raise SettingsError(f"{where}: key id {key_id!r} is given twice")
        keys[key_id] = secret
        current = current or key_id
    if not keys:
        raise SettingsError(f"the journal key file {path} holds no key")
    try:
        return Keyring(keys, current=current)
    except ValueError as exc:  # a key id outside the allowed characters
        raise SettingsError(f"journal key file {path}: {exc}") from None


def load_key_file(path: Path | None) -> Keyring | None:
    """The key file's keyring (None without one), read before the hub touches its database, so a
    bad file stops the start before anything is migrated or written.

    Raises:
        SettingsError: as ``read_key_file``.
    """
    if path is None:
        return None
    keyring = read_key_file(path)
    if path.stat().st_mode & 0o077:
        log.warning("journal_key_file_readable_by_others", path=str(path))
    return keyring


def hub_keyring(from_file: Keyring | None, admin_token: str | None) -> Keyring:
    """The hub's keyring: the key file's (``load_key_file``), else derived from the admin token,
    else (a hub with neither, which only an in-memory test hub is) a random key for this process."""
    if from_file is not None:
        keyring, source = from_file, "file"
    elif admin_token:
        keyring, source = derived_keyring(admin_token), "admin_token"
    else:
        keyring, source = Keyring({"process": secrets.token_bytes(32)}, current="process"), "process"
    log.info("journal_keys_loaded", source=source, current_key_id=keyring.current, key_ids=sorted(keyring.keys))
    return keyring


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
