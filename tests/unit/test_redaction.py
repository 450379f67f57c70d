"""Secret redaction for report text (kxm_grpc/domain/workflows/redaction.py; spec §3.7, §11.10)."""

from __future__ import annotations

import pytest

from kxm_grpc.domain import secrets
from kxm_grpc.domain.workflows import redaction
from kxm_grpc.domain.workflows.redaction import redact

HEX64 = "0123456789abcdef" * 4


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer abcDEF123456789xyz", "Authorization: Bearer <redacted:authorization>"),
        ("retry with basic dXNlcjpwYXNzd29yZDE=", "retry with basic <redacted:authorization>"),
        (
            "push to https://alice:s3cretpass@github.com/org/repo.git failed",
            "push to https://<redacted:url-credentials>@github.com/org/repo.git failed",
        ),
        ("clone https://ghtoken123@example.com/x", "clone https://<redacted:url-credentials>@example.com/x"),
        ("key kxm_admin_" + "Ab-_9" * 9 + " leaked", "key <redacted:kxm-credential> leaked"),
        ("capability kxmcap_" + "a1B2" * 6, "capability <redacted:kxm-credential>"),
        ("x-kxm-signature: sha256=" + HEX64, "x-kxm-signature: sha256=<redacted:signature>"),
        ("x-hub-signature: sha1=" + HEX64[:40], "x-hub-signature: sha1=<redacted:signature>"),
        ("id AKIAIOSFODNN7EXAMPLE used", "id <redacted:aws-key> used"),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key = <redacted:secret>",
        ),
        ("KXM_FIX_BUG_SECRET=abcdefgh12345 in env", "KXM_FIX_BUG_SECRET=<redacted:secret> in env"),
        ('{"password": "hunter2hunter2"}', '{"password": "<redacted:secret>"}'),
        ("password: hunter2hunter2", "password: <redacted:secret>"),
        ("token=abcd1234EFGH==", "token=<redacted:secret>"),
        (
            "webhook secret: KXM_FIX_BUG_SECRET=s3cr3t-alpha-0001 was echoed",
            "webhook secret: KXM_FIX_BUG_SECRET=<redacted:secret> was echoed",
        ),
        ("GET /hook?api_key=abcdefghij&x=1", "GET /hook?api_key=<redacted:secret>&x=1"),
        ("mail bob.smith+ci@mail.example.com now", "mail <redacted:email> now"),
        ("hmac " + HEX64 + " stored", "hmac <redacted:hex> stored"),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "jwt <redacted:jwt>",
        ),
        ("token ghp_" + "a1" * 18, "token <redacted:github-token>"),
        ("token github_pat_" + "A1_" * 10, "token <redacted:github-token>"),
        ("slack xoxb-1234567890-abcdef", "slack <redacted:slack-token>"),
        ("model key sk-proj-" + "x" * 30, "model key <redacted:api-key>"),
        ("maps AIza" + "B" * 35, "maps <redacted:api-key>"),
        (
            "pem -----BEGIN RSA PRIVATE KEY-----\nMIIEpAIB\n-----END RSA PRIVATE KEY----- tail",
            "pem <redacted:private-key> tail",
        ),
        ("cut -----BEGIN PRIVATE KEY-----\nMIIEpAIB", "cut <redacted:private-key>"),
    ],
)
def test_each_pattern_redacts_its_kind(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "bearer authentication failed",  # prose after "bearer": no digit, not a token
        "token: expired",  # too short to be a value
        "max_tokens=4096",
        "run_" + "a" * 32 + " and journal_" + "b" * 32,  # the hub's ids are not secrets
        "commit 3fa9c01 and a 31-hex run " + "c" * 31,
        "kxm_workflow_record and kxm-admin",  # tool names and the hub's author name
        "class:invalid_auth",
        "alice@alpha has no domain",
        "see https://example.com/path?q=1",
    ],
)
def test_text_without_secrets_is_unchanged(text: str) -> None:
    assert redact(text) == text


def test_every_credential_the_hub_issues_is_redacted() -> None:
    for prefix in (
        secrets.ADMIN_TOKEN_PREFIX,
        secrets.PROJECT_TOKEN_PREFIX,
        secrets.AGENT_KEY_PREFIX,
        secrets.RUNTIME_KEY_PREFIX,
        secrets.OPERATOR_TOKEN_PREFIX,
    ):
        for _ in range(20):
            credential = secrets.new_secret(prefix)
            assert credential not in redact(f"leaked {credential}."), credential


def test_redaction_is_idempotent() -> None:
    text = (
        "Bearer abc123def456 at https://u:p4ssw0rd@h.example/x, KXM_SECRET=zzzzzzzz9, sha256="
        + HEX64
        + " from ops@example.com, "
        + HEX64
    )
    once = redact(text)
    assert redact(once) == once
    assert "p4ssw0rd" not in once and "zzzzzzzz9" not in once and HEX64 not in once


def test_the_most_specific_pattern_wins() -> None:
    # A JWT sent as a bearer token is one authorization value; a signature is not also long hex.
    assert redact("Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig123") == "Bearer <redacted:authorization>"
    assert redact("sha256=" + HEX64) == "sha256=<redacted:signature>"


def test_patterns_are_listed_with_their_kinds() -> None:
    kinds = [kind for kind, _, _ in redaction.PATTERNS]
    assert kinds == [
        "private-key",
        "url-credentials",
        "authorization",
        "jwt",
        "kxm-credential",
        "github-token",
        "slack-token",
        "api-key",
        "api-key",
        "aws-key",
        "signature",
        "secret",
        "secret",
        "email",
        "hex",
    ]
    for kind, _, replacement in redaction.PATTERNS:
        assert f"<redacted:{kind}>" in replacement


def test_redact_all_keeps_the_order() -> None:
    assert redaction.redact_all(["a", "AKIAIOSFODNN7EXAMPLE", "b"]) == ("a", "<redacted:aws-key>", "b")
