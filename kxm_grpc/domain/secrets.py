"""Identifiers and credentials: generation, hashing and constant-time comparison.

Every secret the hub issues is 32 random bytes from :mod:`secrets`, prefixed by its kind so a
leaked value is recognisable. The hub stores only the SHA-256 of a secret: the secrets are
high-entropy, so a fast hash is enough (no password stretching needed).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid

ADMIN_TOKEN_PREFIX = "kxm_admin_"
PROJECT_TOKEN_PREFIX = "kxm_proj_"
AGENT_KEY_PREFIX = "kxm_agent_"
RUNTIME_KEY_PREFIX = "kxm_rtm_"
OPERATOR_TOKEN_PREFIX = "kxm_op_"


def new_id(prefix: str) -> str:
    """Return ``<prefix>_<32 lowercase hex>`` from a random UUID (e.g. ``agt_…``, ``msg_…``)."""
    return f"{prefix}_{uuid.uuid4().hex}"


def new_secret(prefix: str) -> str:
    """Return a fresh credential: the prefix and 32 random bytes, base64url-encoded."""
    return prefix + secrets.token_urlsafe(32)


def hash_secret(secret: str) -> str:
    """Return the stored form of a secret: ``sha256:`` and the hex digest of its UTF-8 bytes."""
    return "sha256:" + hashlib.sha256(secret.encode("utf-8")).hexdigest()


def secret_matches(secret: str, stored_hash: str | None) -> bool:
    """Tell, in constant time, whether ``secret`` hashes to ``stored_hash`` (False when none is stored)."""
    if not stored_hash:
        return False
    return hmac.compare_digest(hash_secret(secret).encode(), stored_hash.encode())


def hashes_match(stored_hash: str | None, expected_hash: str) -> bool:
    """Tell, in constant time, whether a stored hash is ``expected_hash`` (False when none is stored)."""
    if not stored_hash:
        return False
    return hmac.compare_digest(stored_hash.encode(), expected_hash.encode())
