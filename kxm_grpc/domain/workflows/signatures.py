"""Webhook and signal signatures: ``kxm-webhook-v1`` (workflow-context.md §2.6), signer and verifier.

The signed material is seven newline-terminated fields, then the exact body bytes::

    kxm-webhook-v1\\n <kind>\\n <timestamp>\\n <delivery id>\\n <definition id>\\n <run id>\\n <signal key>\\n <body>

and ``x-kxm-signature`` is ``sha256=`` + hex HMAC-SHA256(secret, material). The kind stops a start
signature verifying as a signal (or a notification) even when the secrets are equal; the run id
and signal key stop a signal verifying for another run or key; the timestamp bounds replays to
300 s either way, and the delivery id is de-duplicated by the caller.

GitHub and Jira cannot sign that material, so starts of definitions with those sources also accept
their body-only forms (``x-hub-signature-256``, and for Jira the legacy ``x-hub-signature``):
``sha256=`` + hex HMAC-SHA256(secret, body). Those carry no timestamp; the caller's body-hash
single use (§2.1 step 6) stands in for the window.

``sign`` is the sender reference (the CLI signs with it); ``verify`` is what the routes call.
Neither the secret nor the expected signature ever appears in an error.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import re
import unicodedata
from collections.abc import Mapping

from kxm_grpc.domain import validation
from kxm_grpc.domain.workflows.definitions import Source
from kxm_grpc.errors import Reason, Unauthenticated, invalid_field

SCHEME = "kxm-webhook-v1"
WINDOW_SECONDS = 300
"""How far the signed timestamp may be from the hub's clock, either way."""
MAX_DELIVERY_ID_CHARS = 128
ALGORITHM = "sha256"

DELIVERY_ID_HEADER = "x-kxm-delivery-id"
TIMESTAMP_HEADER = "x-kxm-timestamp"
SIGNATURE_HEADER = "x-kxm-signature"
GITHUB_DELIVERY_HEADER = "x-github-delivery"
JIRA_DELIVERY_HEADER = "x-atlassian-webhook-identifier"
BODY_SIGNATURE_256_HEADER = "x-hub-signature-256"
BODY_SIGNATURE_HEADER = "x-hub-signature"

DELIVERY_HEADERS = (JIRA_DELIVERY_HEADER, GITHUB_DELIVERY_HEADER, DELIVERY_ID_HEADER)
"""Where the delivery id is read from, first present wins (§2.1 step 5)."""

# Canonical decimal only: int() would also take "+1", " 1", "1_0" and non-ASCII digits, and a
# timestamp the verifier reads differently from the sender's text must not verify.
_TIMESTAMP = re.compile(r"0|[1-9][0-9]{0,15}")


class Kind(enum.Enum):
    """What a signature authorises; signed, so a signature for one kind never verifies as another."""

    START = "start"
    SIGNAL = "signal"
    NOTIFY = "notify"
    """The hub's outbound run notifications, signed the same way."""


def material(
    kind: Kind,
    timestamp: int,
    delivery_id: str,
    definition_id: str,
    run_id: str = "",
    signal_key: str = "",
    *,
    body: bytes,
) -> bytes:
    """The bytes a ``kxm-webhook-v1`` signature covers: seven newline-terminated fields, then the body.

    Raises:
        ValueError: a field contains CR or LF (it would shift the fields after it), a field is
            not encodable as UTF-8, or the timestamp is negative.
    """
    if timestamp < 0:
        raise ValueError("timestamp must not be negative")
    fields = (SCHEME, kind.value, str(timestamp), delivery_id, definition_id, run_id, signal_key)
    for value in fields:
        if "\r" in value or "\n" in value:
            raise ValueError("signed fields must not contain line breaks")
    return "".join(value + "\n" for value in fields).encode("utf-8") + body


def _signature(secret: str, data: bytes) -> str:
    """``sha256=`` and the hex HMAC-SHA256 of ``data`` under ``secret`` (its UTF-8 bytes)."""
    return f"{ALGORITHM}=" + hmac.new(secret.encode("utf-8"), data, hashlib.sha256).hexdigest()


def sign(
    secret: str,
    kind: Kind,
    timestamp: int,
    delivery_id: str,
    definition_id: str,
    run_id: str,
    signal_key: str,
    body: bytes,
) -> dict[str, str]:
    """The three headers a sender adds: delivery id, timestamp (Unix seconds) and signature.

    Raises:
        ValueError: the delivery id is empty or has surrounding whitespace, the definition id is
            empty, or ``material`` refuses a field.
    """
    # The hub would refuse an empty id after the signature verified, and HTTP strips the spaces
    # around a header value, which the signature covers: a reference sender sends neither.
    if not delivery_id or validation.js_trim(delivery_id) != delivery_id:
        raise ValueError("delivery id must not be empty or have surrounding whitespace")
    if not definition_id:
        raise ValueError("definition id must not be empty")
    data = material(kind, timestamp, delivery_id, definition_id, run_id, signal_key, body=body)
    return {
        DELIVERY_ID_HEADER: delivery_id,
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: _signature(secret, data),
    }


def body_sha256(body: bytes) -> str:
    """The hex SHA-256 of a raw body (the start's payload hash, the signal receipt's hash)."""
    return hashlib.sha256(body).hexdigest()


def _refused(reason: Reason, message: str, header: str) -> Unauthenticated:
    return Unauthenticated(message, reason=reason, metadata={"header": header})


def _header(headers: Mapping[str, str], name: str) -> str | None:
    """A header's value, None when absent or blank."""
    value = headers.get(name)
    return value if value is not None and validation.js_trim(value) else None


def _matches(secret: str, data: bytes, presented: str, header: str) -> None:
    """Compare a presented ``sha256=<hex>`` with the expected one in constant time.

    Raises:
        Unauthenticated: WEBHOOK_SIGNATURE_UNSUPPORTED for another algorithm,
            WEBHOOK_SIGNATURE_INVALID when it is malformed or does not match.
    """
    presented = validation.js_trim(presented)
    algorithm, separator, _ = presented.partition("=")
    if not separator:
        raise _refused(Reason.WEBHOOK_SIGNATURE_INVALID, f"{header} is not of the form sha256=<hex>", header)
    if algorithm != ALGORITHM:
        raise _refused(
            Reason.WEBHOOK_SIGNATURE_UNSUPPORTED, f"{header} uses an unsupported algorithm; use sha256", header
        )
    expected = _signature(secret, data)
    # Both sides as bytes: compare_digest refuses non-ASCII str, and a presented value is the
    # caller's text. A length difference returns early, which tells nothing (the length is public).
    if not hmac.compare_digest(expected.encode("ascii"), presented.encode("utf-8", "replace")):
        raise _refused(Reason.WEBHOOK_SIGNATURE_INVALID, f"{header} does not verify", header)


def _delivery_header(headers: Mapping[str, str]) -> tuple[str, str] | None:
    """The first present delivery id header and its raw value, by §2.1 precedence."""
    for name in DELIVERY_HEADERS:
        value = _header(headers, name)
        if value is not None:
            return name, value
    return None


def _delivery_id(found: tuple[str, str] | None) -> str:
    """The delivery id, trimmed.

    Raises:
        InvalidArgument: none present, longer than 128 characters or containing a control character.
    """
    if found is None:
        raise invalid_field(DELIVERY_ID_HEADER, f"a delivery id is required ({', '.join(DELIVERY_HEADERS)})")
    name, raw = found
    value = validation.js_trim(raw)
    if validation.utf16_length(value) > MAX_DELIVERY_ID_CHARS:
        raise invalid_field(name, f"exceeds {MAX_DELIVERY_ID_CHARS} characters")
    if any(unicodedata.category(char) == "Cc" for char in value):
        raise invalid_field(name, "must not contain control characters")
    return value


def verify(
    headers: Mapping[str, str],
    body: bytes,
    *,
    kind: Kind,
    secret: str,
    definition_id: str,
    run_id: str = "",
    signal_key: str = "",
    source: Source,
    now_seconds: int,
) -> str:
    """Verify a start, signal or notification request and return its delivery id.

    ``headers`` has lower-case names. ``secret`` is the one for ``kind`` (the caller picks the
    start or the signal secret). The signed form (``x-kxm-signature``) wins when present; the
    body-only forms are accepted only for starts of ``github`` (``x-hub-signature-256``) and
    ``jira`` (``x-hub-signature-256``, else ``x-hub-signature``) definitions.

    Raises:
        Unauthenticated: WEBHOOK_SIGNATURE_MISSING when there is no signature, or only a body-only
            one where it is not accepted; WEBHOOK_SIGNATURE_UNSUPPORTED for an algorithm other
            than sha256; WEBHOOK_SIGNATURE_INVALID when it does not verify (a missing, non-integer
            or non-canonical timestamp, a signed field with a line break included);
            WEBHOOK_TIMESTAMP_EXPIRED when a valid signature's timestamp is more than 300 s from
            ``now_seconds``.
        InvalidArgument: (PROTOCOL_ERROR) the signature verifies but no delivery id is present, or
            it is longer than 128 characters or contains a control character.
    """
    # The delivery id in the signed material is the one this request is de-duplicated by (the
    # first present by §2.1 precedence): a captured signed request replayed with an added
    # x-github-delivery header changes the material, so it does not verify under a new id. Its
    # shape is checked only once the signature verifies (§2.1: step 3 before step 5), so an
    # unauthenticated caller is refused as such whatever else it sent.
    found = _delivery_header(headers)
    signed = _header(headers, SIGNATURE_HEADER)
    if signed is not None:
        _verify_signed(headers, body, signed, found, kind, secret, definition_id, run_id, signal_key, now_seconds)
        return _delivery_id(found)
    body_header = _body_signature_header(headers, source)
    if body_header is None:
        raise _refused(Reason.WEBHOOK_SIGNATURE_MISSING, f"{SIGNATURE_HEADER} is required", SIGNATURE_HEADER)
    if kind is not Kind.START or source is Source.GENERIC:
        # A body-only signature covers neither the kind, the run, the key nor a time: a captured
        # start body would otherwise verify as a signal, and any replay at any time.
        raise _refused(
            Reason.WEBHOOK_SIGNATURE_MISSING,
            f"{body_header} is accepted only for {Source.GITHUB.value} and {Source.JIRA.value} starts; "
            f"sign with {SCHEME} ({SIGNATURE_HEADER})",
            SIGNATURE_HEADER,
        )
    _matches(secret, body, headers[body_header], body_header)
    # The provider's own delivery header, which it sends with its signature (§2.6), not whichever
    # header comes first: nothing here is signed, so the id must be the one the provider set.
    provider_header = GITHUB_DELIVERY_HEADER if source is Source.GITHUB else JIRA_DELIVERY_HEADER
    provider_value = _header(headers, provider_header)
    if provider_value is None:
        raise invalid_field(provider_header, f"is required with {body_header}")
    return _delivery_id((provider_header, provider_value))


def _body_signature_header(headers: Mapping[str, str], source: Source) -> str | None:
    """The body-only signature header present (for Jira also the legacy one), or None."""
    if _header(headers, BODY_SIGNATURE_256_HEADER) is not None:
        return BODY_SIGNATURE_256_HEADER
    # GitHub's x-hub-signature is SHA-1 only; Jira's carries sha256 too. Elsewhere the legacy
    # header counts as a body-only form (refused as such) so the caller hears what it sent.
    if _header(headers, BODY_SIGNATURE_HEADER) is not None and source is not Source.GITHUB:
        return BODY_SIGNATURE_HEADER
    return None


def _verify_signed(
    headers: Mapping[str, str],
    body: bytes,
    presented: str,
    found: tuple[str, str] | None,
    kind: Kind,
    secret: str,
    definition_id: str,
    run_id: str,
    signal_key: str,
    now_seconds: int,
) -> None:
    """Verify the ``kxm-webhook-v1`` form, then its window."""
    raw_timestamp = validation.js_trim(headers.get(TIMESTAMP_HEADER) or "")
    if not _TIMESTAMP.fullmatch(raw_timestamp):
        raise _refused(
            Reason.WEBHOOK_SIGNATURE_INVALID, f"{TIMESTAMP_HEADER} must be Unix seconds as an integer", TIMESTAMP_HEADER
        )
    timestamp = int(raw_timestamp)
    delivery_id = found[1] if found is not None else ""
    try:
        data = material(kind, timestamp, delivery_id, definition_id, run_id, signal_key, body=body)
    except ValueError:
        # A line break in a field (a path segment can carry one, percent-encoded) could make two
        # different requests sign the same material: no sender can have signed it.
        raise _refused(
            Reason.WEBHOOK_SIGNATURE_INVALID, f"{SIGNATURE_HEADER} does not verify", SIGNATURE_HEADER
        ) from None
    _matches(secret, data, presented, SIGNATURE_HEADER)
    # The window is checked only after the signature verifies: a forger learns nothing about the
    # hub's clock (every forgery gets the same answer), and only a genuine but stale or early
    # request hears that its timestamp is the problem. The timestamp is signed, so the check
    # cannot be dodged by editing it.
    if abs(now_seconds - timestamp) > WINDOW_SECONDS:
        raise Unauthenticated(
            f"{TIMESTAMP_HEADER} is more than {WINDOW_SECONDS} s from the hub's clock",
            reason=Reason.WEBHOOK_TIMESTAMP_EXPIRED,
            metadata={"header": TIMESTAMP_HEADER, "timestamp": raw_timestamp, "windowSeconds": str(WINDOW_SECONDS)},
        )
