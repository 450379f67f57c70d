"""Opaque page tokens for List RPCs (AIP-158): keyset pagination over a sort key."""

from __future__ import annotations

import base64
import hashlib
import json

from kxm_grpc.errors import Reason, invalid_field

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000


def page_size(value: int) -> int:
    """Return the effective page size: the default for 0, at most the maximum.

    Raises:
        InvalidArgument: the size is negative.
    """
    if value < 0:
        raise invalid_field("page_size", "must not be negative")
    return min(value or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)


def _query_tag(query: str) -> str:
    return hashlib.sha256(query.encode()).hexdigest()[:12]


def encode_page_token(after: str, query: str) -> str:
    """Encode the last key returned; ``query`` binds the token to one filter."""
    raw = json.dumps({"a": after, "q": _query_tag(query)}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_page_token(token: str, query: str) -> str | None:
    """Return the key to continue after, or None for the first page.

    Raises:
        InvalidArgument: the token is malformed or was issued for another query.
    """
    if not token:
        return None
    try:
        padded = token + "=" * (-len(token) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        after, tag = data["a"], data["q"]
    except (ValueError, KeyError, TypeError):
        raise invalid_field("page_token", "is malformed", reason=Reason.INVALID_PAGE_TOKEN) from None
    if not isinstance(after, str) or tag != _query_tag(query):
        raise invalid_field("page_token", "belongs to another query", reason=Reason.INVALID_PAGE_TOKEN)
    return after
