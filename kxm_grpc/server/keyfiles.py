"""Key files: the hub's HMAC keyrings as configuration, shared by the replicas, never in the database.

Each keyring of the hub (the journal's, ``server/journal_keys.py``; the tool-policy tokens',
``server/token_keys.py``) is a ``KeySource``: a setting naming a key file, else one key derived
from the admin token under the source's own label (so the keyrings never share a secret).

- The file: one key per line, ``<key id> <secret in hex>`` (at least 32 bytes: ``openssl rand
  -hex 32``); blank lines and ``#`` comments are skipped. The first key signs what is new; the
  others only verify, so a key rotates by putting the new one first and keeping the old ones for
  as long as what they signed must verify.
- Without it, one key derived from the admin token (HMAC-SHA256 of the token under the label),
  which every replica of a shared database is given already and which a loopback hub generates
  into ``credentials.json``. Its key id names the derived key's fingerprint (``admin-<12 hex>``),
  so what was signed under an earlier admin token reads as an unknown key rather than a forgery
  after the token changes: name that token's derived key in a key file to keep verifying it.
- With neither (only an in-memory test hub), a random key for this process.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from pathlib import Path

import structlog

from kxm_grpc.domain.keyring import MIN_KEY_BYTES, Keyring
from kxm_grpc.server.settings import SettingsError

log = structlog.get_logger("kxm.server")

DERIVED_PREFIX = "admin-"
"""What the id of a key derived from the admin token starts with (then 12 hex of its fingerprint)."""


@dataclass(frozen=True, slots=True)
class KeySource:
    """Where one keyring of the hub comes from: its file's description, its derivation label, its log event."""

    what: str
    """What the file is called in messages: ``journal key file``."""
    label: bytes
    """The label the admin token is derived under (distinct per keyring)."""
    event: str
    """The stem of the source's log events: ``journal_key`` logs ``journal_keys_loaded`` and
    ``journal_key_file_readable_by_others``."""

    def derived(self, admin_token: str) -> Keyring:
        """The one-key keyring derived from the admin token."""
        secret = hmac.new(admin_token.encode(), self.label, hashlib.sha256).digest()
        key_id = DERIVED_PREFIX + hashlib.sha256(secret).hexdigest()[:12]
        return Keyring({key_id: secret}, current=key_id)

    def read(self, path: Path) -> Keyring:
        """The keyring a key file holds; its first key is the current one.

        Raises:
            SettingsError: the file cannot be read, holds no key, or a line is not ``<key id> <hex>``
                with a valid id, at least 32 bytes of hex, and an id not given before. The message
                names the line, never a secret.
        """
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SettingsError(f"cannot read the {self.what} {path}: {exc.__class__.__name__}") from None
        keys: dict[str, bytes] = {}
        current = ""
        for number, line in enumerate(text.splitlines(), start=1):
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            parts = stripped.split()
            where = f"{self.what} {path}, line {number}"
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
            raise SettingsError(f"the {self.what} {path} holds no key")
        try:
            return Keyring(keys, current=current)
        except ValueError as exc:  # a key id outside the allowed characters
            raise SettingsError(f"{self.what} {path}: {exc}") from None

    def load(self, path: Path | None) -> Keyring | None:
        """The key file's keyring (None without one), read before the hub touches its database, so a
        bad file stops the start before anything is migrated or written.

        Raises:
            SettingsError: as ``read``.
        """
        if path is None:
            return None
        keyring = self.read(path)
        if path.stat().st_mode & 0o077:
            log.warning(f"{self.event}_file_readable_by_others", path=str(path))
        return keyring

    def keyring(self, from_file: Keyring | None, admin_token: str | None) -> Keyring:
        """The hub's keyring of this source: the key file's (``load``), else derived from the admin
        token, else (a hub with neither, which only an in-memory test hub is) a random key for this process."""
        if from_file is not None:
            keyring, source = from_file, "file"
        elif admin_token:
            keyring, source = self.derived(admin_token), "admin_token"
        else:
            keyring, source = Keyring({"process": secrets.token_bytes(32)}, current="process"), "process"
        log.info(f"{self.event}s_loaded", source=source, current_key_id=keyring.current, key_ids=sorted(keyring.keys))
        return keyring
