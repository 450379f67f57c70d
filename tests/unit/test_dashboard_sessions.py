"""Dashboard session cookies: signed claims that verify with the keyring that signed them, until they expire."""

from __future__ import annotations

import pytest

from kxm_grpc.domain import dashboard_sessions
from kxm_grpc.domain.keyring import Keyring
from kxm_grpc.errors import Reason, Unauthenticated

KEYS = Keyring({"k1": b"k" * 32, "k2": b"q" * 32}, current="k1")
NOW = 1_000_000


def test_a_session_verifies_with_its_claims_until_it_expires() -> None:
    value, session = dashboard_sessions.begin(KEYS, "pat", admin_key="", now=NOW, ttl=10)
    assert dashboard_sessions.verify(value, KEYS, now=NOW + 9) == session
    assert session.operator == "pat" and not session.is_admin and session.expire_time == NOW + 10
    assert dashboard_sessions.csrf_matches(session, session.csrf)
    assert not dashboard_sessions.csrf_matches(session, session.csrf + "x")
    assert not dashboard_sessions.csrf_matches(session, "")
    with pytest.raises(Unauthenticated) as expired:
        dashboard_sessions.verify(value, KEYS, now=NOW + 10)
    assert expired.value.reason is Reason.INVALID_AUTH


def test_an_admin_session_carries_the_admin_tokens_digest() -> None:
    key = dashboard_sessions.admin_key("sha256:abc")
    _, session = dashboard_sessions.begin(KEYS, "admin", admin_key=key, now=NOW, ttl=10)
    assert session.is_admin and session.admin_key == key != dashboard_sessions.admin_key("sha256:abd")
    assert "sha256:abc" not in key


def test_a_retired_key_still_verifies_and_an_unknown_one_does_not() -> None:
    value, _ = dashboard_sessions.begin(KEYS, "pat", admin_key="", now=NOW, ttl=10)
    rotated = Keyring({"k1": b"k" * 32, "k2": b"q" * 32}, current="k2")
    assert dashboard_sessions.verify(value, rotated, now=NOW).operator == "pat"
    with pytest.raises(Unauthenticated):
        dashboard_sessions.verify(value, Keyring({"k2": b"q" * 32}, current="k2"), now=NOW)


@pytest.mark.parametrize(
    "change",
    [
        lambda v: v[:-2] + ("AA" if not v.endswith("AA") else "BB"),  # the MAC
        lambda v: v.replace(".", "..", 1),  # the shape
        lambda v: v.replace("kxmds1.", "kxmst1.", 1),  # another kind of token
        lambda v: v + "." * 3000,  # too long
        lambda v: "",
        lambda v: v.replace("k1.", "k2.", 1),  # signed with another key than it names
    ],
)
def test_a_changed_value_is_refused(change: object) -> None:
    value, _ = dashboard_sessions.begin(KEYS, "pat", admin_key="", now=NOW, ttl=10)
    with pytest.raises(Unauthenticated):
        dashboard_sessions.verify(change(value), KEYS, now=NOW)  # type: ignore[operator]


def test_a_payload_changed_under_a_valid_mac_shape_is_refused() -> None:
    value, _ = dashboard_sessions.begin(KEYS, "pat", admin_key="", now=NOW, ttl=10)
    prefix, key_id, payload, mac = value.split(".")
    forged = f"{prefix}.{key_id}.{payload[:-1]}{'A' if payload[-1] != 'A' else 'B'}.{mac}"
    with pytest.raises(Unauthenticated):
        dashboard_sessions.verify(forged, KEYS, now=NOW)
