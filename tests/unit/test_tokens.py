"""Attempt and session tokens: signing, every defect refused with its reason, and key rotation.

Pure functions (kxm_grpc/domain/tokens.py). The hub-side checks a signature cannot make (the
calling agent's, its project's, not revoked) are tested over a real hub in tests/api/test_tokens.py.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.domain.sync_events import canonical_json
from kxm_grpc.domain.tokens import (
    ATTEMPT_SCHEMA,
    MAX_TOKEN_CHARS,
    SESSION_SCHEMA,
    AttemptClaims,
    Defect,
    SessionClaims,
    claims_json,
    mint_attempt_token,
    mint_session_token,
    verify_token,
)
from kxm_grpc.domain.tool_policy import make_policy
from kxm_grpc.errors import PermissionDenied, Reason

K1, K2, ATTACKER = b"1" * 32, b"2" * 32, b"x" * 32
KEYS = Keyring({"k1": K1}, current="k1")
NOW = 1_700_000_000_000_000
HOUR = 3_600_000_000
POLICY = make_policy(preset="read-only", allow=["kxm_*"], deny=["kxm_fanout"])


def session(keyring: Keyring = KEYS, *, now: int = NOW, ttl: int = HOUR) -> tuple[str, SessionClaims]:
    return mint_session_token(
        keyring, project="alpha", session_id="ses_1", agent_id="agt_1", tool_policy=POLICY, now=now, ttl=ttl
    )


def attempt(keyring: Keyring = KEYS) -> tuple[str, AttemptClaims]:
    return mint_attempt_token(
        keyring,
        project="alpha",
        run_id="wfr_1",
        step_id="implement",
        step_attempt=2,
        assignment_id="asg_1",
        attempt_id="att_1",
        agent_id="agt_1",
        tool_policy=POLICY,
        now=NOW,
        ttl=HOUR,
    )


def refusal(token: str, schema: str = SESSION_SCHEMA, keyring: Keyring = KEYS, now: int = NOW) -> PermissionDenied:
    with pytest.raises(PermissionDenied) as refused:
        verify_token(token, schema, keyring, now=now)
    return refused.value


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def forge(document: dict[str, object], *, secret: bytes, schema: str = SESSION_SCHEMA, key_id: str = "k1") -> str:
    """A token built as the hub builds one, under ``secret``."""
    payload = canonical_json(document).encode()  # type: ignore[arg-type]
    mac = hmac.new(secret, schema.encode() + b"\x00" + payload, hashlib.sha256).digest()
    prefix = "kxmst1." if schema == SESSION_SCHEMA else "kxmat1."
    return f"{prefix}{key_id}.{b64(payload)}.{b64(mac)}"


def test_a_minted_token_verifies_to_its_claims() -> None:
    token, claims = session()
    attempt_token, attempt_claims = attempt()

    assert token.startswith("kxmst1.k1.") and attempt_token.startswith("kxmat1.k1.")
    assert verify_token(token, SESSION_SCHEMA, KEYS, now=NOW) == claims
    assert verify_token(attempt_token, ATTEMPT_SCHEMA, KEYS, now=NOW) == attempt_claims
    assert claims.key_id == "k1" and claims.tool_policy == POLICY and claims.expire_time == NOW + HOUR
    assert (attempt_claims.run_id, attempt_claims.step_attempt, attempt_claims.assignment_id) == ("wfr_1", 2, "asg_1")
    assert token not in repr(claims) and token not in repr(KEYS)


def test_expiry_is_exact_on_the_hub_clock() -> None:
    """Valid while now < expire_time, refused from that microsecond on."""
    token, claims = session()

    assert verify_token(token, SESSION_SCHEMA, KEYS, now=claims.expire_time - 1) == claims
    expired = refusal(token, now=claims.expire_time)
    assert (expired.reason, expired.metadata["defect"]) == (Reason.SESSION_TOKEN_INVALID, Defect.EXPIRED)


def _altered(token: str) -> str:
    """The token with one claim changed and its payload re-encoded (the mac kept)."""
    head, payload, mac = token.rsplit(".", 2)
    document = json.loads(base64.urlsafe_b64decode(payload + "=="))
    document["toolPolicy"] = {"allow": ["*"]}
    return f"{head}.{b64(canonical_json(document).encode())}.{mac}"


def _flipped_mac(token: str) -> str:
    head, payload, mac = token.rsplit(".", 2)
    raw = bytearray(base64.urlsafe_b64decode(mac + "=="))
    raw[0] ^= 1
    return f"{head}.{payload}.{b64(bytes(raw))}"


SESSION_TOKEN, SESSION_CLAIMS = session()
ATTEMPT_TOKEN, _ = attempt()
DOCUMENT = claims_json(SESSION_CLAIMS)


@pytest.mark.parametrize(
    ("token", "schema", "defect"),
    [
        (_flipped_mac(SESSION_TOKEN), SESSION_SCHEMA, Defect.BAD_SIGNATURE),
        (_altered(SESSION_TOKEN), SESSION_SCHEMA, Defect.BAD_SIGNATURE),
        (_altered(ATTEMPT_TOKEN), ATTEMPT_SCHEMA, Defect.BAD_SIGNATURE),
        (forge({**DOCUMENT, "toolPolicy": {"allow": ["*"]}}, secret=ATTACKER), SESSION_SCHEMA, Defect.BAD_SIGNATURE),
        (SESSION_TOKEN.replace("kxmst1.k1.", "kxmst1.k2."), SESSION_SCHEMA, Defect.UNKNOWN_KEY),
        (forge(DOCUMENT, secret=ATTACKER, key_id="other.hub"), SESSION_SCHEMA, Defect.UNKNOWN_KEY),
        (ATTEMPT_TOKEN, SESSION_SCHEMA, Defect.WRONG_SCHEMA),
        (SESSION_TOKEN, ATTEMPT_SCHEMA, Defect.WRONG_SCHEMA),
        # Signed by the hub's key under the session schema, but its payload says attempt.
        (forge({**DOCUMENT, "schema": ATTEMPT_SCHEMA}, secret=K1), SESSION_SCHEMA, Defect.WRONG_SCHEMA),
        # Signed correctly, but not claims the hub writes.
        (forge({**DOCUMENT, "expireTime": "soon"}, secret=K1), SESSION_SCHEMA, Defect.MALFORMED),
        (forge({**DOCUMENT, "sessionId": ""}, secret=K1), SESSION_SCHEMA, Defect.MALFORMED),
        (forge({**DOCUMENT, "toolPolicy": {"preset": "admin"}}, secret=K1), SESSION_SCHEMA, Defect.MALFORMED),
        ("", SESSION_SCHEMA, Defect.MALFORMED),
        ("Bearer abc", SESSION_SCHEMA, Defect.MALFORMED),
        ("kxmst1.", SESSION_SCHEMA, Defect.MALFORMED),
        ("kxmst1.k1.payload", SESSION_SCHEMA, Defect.MALFORMED),
        (SESSION_TOKEN + "=", SESSION_SCHEMA, Defect.MALFORMED),
        (SESSION_TOKEN.replace(".", "..", 1), SESSION_SCHEMA, Defect.MALFORMED),
        ("kxmst1.k1.a.b", SESSION_SCHEMA, Defect.MALFORMED),
        ("kxmst1.k1.é.b", SESSION_SCHEMA, Defect.MALFORMED),
        ("kxmst1.k1." + "a" * MAX_TOKEN_CHARS + ".b", SESSION_SCHEMA, Defect.MALFORMED),
    ],
    ids=lambda value: value if isinstance(value, str) and len(value) < 30 else None,
)
def test_every_defect_is_refused_with_its_reason_never_echoing_the_token(token: str, schema: str, defect: str) -> None:
    refused = refusal(token, schema)

    expected = Reason.SESSION_TOKEN_INVALID if schema == SESSION_SCHEMA else Reason.ATTEMPT_TOKEN_INVALID
    assert (refused.reason, refused.metadata["defect"]) == (expected, defect)
    assert refused.metadata["token"] == ("session" if schema == SESSION_SCHEMA else "attempt")
    assert refused.metadata["nextAction"]
    if len(token) > 20:
        assert token not in str(refused) and token[-20:] not in refused.message


def test_a_rotated_keyring_verifies_old_tokens_and_signs_with_the_new_key() -> None:
    """k2 first and k1 kept: a k1 token still verifies, a new one is k2's; k1 dropped: unknown_key."""
    old, old_claims = session(Keyring({"k1": K1}, current="k1"))
    rotated = Keyring({"k2": K2, "k1": K1}, current="k2")
    new, new_claims = session(rotated)

    assert verify_token(old, SESSION_SCHEMA, rotated, now=NOW) == old_claims
    assert new.startswith("kxmst1.k2.") and new_claims.key_id == "k2"
    assert verify_token(new, SESSION_SCHEMA, rotated, now=NOW) == new_claims
    dropped = refusal(old, keyring=Keyring({"k2": K2}, current="k2"))
    assert dropped.metadata["defect"] == Defect.UNKNOWN_KEY
    assert refusal(new, keyring=KEYS).metadata["defect"] == Defect.UNKNOWN_KEY


def test_key_ids_with_dots_are_split_from_the_right() -> None:
    keys = Keyring({"2026.12.k": K1}, current="2026.12.k")
    token, claims = session(keys)

    assert verify_token(token, SESSION_SCHEMA, keys, now=NOW) == claims


def test_minting_refuses_what_no_token_should_say() -> None:
    with pytest.raises(ValueError):
        session(ttl=0)
    with pytest.raises(ValueError):
        mint_attempt_token(
            KEYS,
            project="alpha",
            run_id="wfr_1",
            step_id="s",
            step_attempt=0,
            assignment_id="a",
            attempt_id="t",
            agent_id="agt_1",
            tool_policy=POLICY,
            now=NOW,
            ttl=HOUR,
        )
