"""Webhook and signal signatures (kxm-webhook-v1, workflow-context.md §2.6): sign, verify, body-only forms."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import pytest

from kxm_grpc.domain.workflows import signatures as sig
from kxm_grpc.domain.workflows.definitions import Source
from kxm_grpc.domain.workflows.signatures import Kind
from kxm_grpc.errors import InvalidArgument, Reason, Unauthenticated

SECRET = "s3cret-start-secret-0123"
NOW = 1_767_225_600
BODY = b'{"issue":{"key":"KXM-1"}}'


def signed_start(**overrides: Any) -> dict[str, str]:
    fields: dict[str, Any] = {
        "secret": SECRET,
        "kind": Kind.START,
        "timestamp": NOW,
        "delivery_id": "dlv-1",
        "definition_id": "triage",
        "run_id": "",
        "signal_key": "",
        "body": BODY,
    }
    fields.update(overrides)
    return sig.sign(**fields)


def signed_signal(**overrides: Any) -> dict[str, str]:
    fields: dict[str, Any] = {"kind": Kind.SIGNAL, "run_id": "run_abc", "signal_key": "ci-done"}
    fields.update(overrides)
    return signed_start(**fields)


def verify(headers: dict[str, str], body: bytes = BODY, **overrides: Any) -> str:
    fields: dict[str, Any] = {
        "kind": Kind.START,
        "secret": SECRET,
        "definition_id": "triage",
        "run_id": "",
        "signal_key": "",
        "source": Source.GENERIC,
        "now_seconds": NOW,
    }
    fields.update(overrides)
    return sig.verify(headers, body, **fields)


def verify_signal(headers: dict[str, str], body: bytes = BODY, **overrides: Any) -> str:
    fields: dict[str, Any] = {"kind": Kind.SIGNAL, "run_id": "run_abc", "signal_key": "ci-done"}
    fields.update(overrides)
    return verify(headers, body, **fields)


def refused(reason: Reason, headers: dict[str, str], body: bytes = BODY, **overrides: Any) -> Unauthenticated:
    with pytest.raises(Unauthenticated) as caught:
        verify(headers, body, **overrides)
    assert caught.value.reason is reason
    return caught.value


def body_signature(secret: str = SECRET, body: bytes = BODY) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


# -- material and the sender reference -------------------------------------------------------------


def test_known_answer_vector() -> None:
    """The signature is HMAC-SHA256 over seven newline-terminated fields then the body, computed here
    independently on the literal material."""
    literal = b'kxm-webhook-v1\nsignal\n1767225600\ndlv-1\ntriage\nrun_abc\nci-done\n{"issue":{"key":"KXM-1"}}'
    expected = "sha256=" + hmac.new(SECRET.encode(), literal, hashlib.sha256).hexdigest()

    assert sig.material(Kind.SIGNAL, NOW, "dlv-1", "triage", "run_abc", "ci-done", body=BODY) == literal
    assert signed_signal() == {
        "x-kxm-delivery-id": "dlv-1",
        "x-kxm-timestamp": "1767225600",
        "x-kxm-signature": expected,
    }


def test_start_material_has_empty_run_and_key_fields() -> None:
    assert sig.material(Kind.START, 5, "d", "def", body=b"") == b"kxm-webhook-v1\nstart\n5\nd\ndef\n\n\n"
    notify = sig.material(Kind.NOTIFY, 5, "d", "def", "run_1", body=b"x")
    assert notify == b"kxm-webhook-v1\nnotify\n5\nd\ndef\nrun_1\n\nx"


@pytest.mark.parametrize("field", ["delivery_id", "definition_id", "run_id", "signal_key"])
@pytest.mark.parametrize("breaker", ["\n", "\r"])
def test_signer_refuses_line_breaks(field: str, breaker: str) -> None:
    with pytest.raises(ValueError, match="line breaks"):
        signed_signal(**{field: f"a{breaker}b"})


@pytest.mark.parametrize(
    "overrides", [{"delivery_id": ""}, {"delivery_id": " dlv"}, {"definition_id": ""}, {"timestamp": -1}]
)
def test_signer_refuses_what_the_hub_would(overrides: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        signed_start(**overrides)


def test_body_sha256() -> None:
    assert sig.body_sha256(BODY) == hashlib.sha256(BODY).hexdigest()
    assert sig.body_sha256(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


# -- signed form -----------------------------------------------------------------------------------


def test_round_trip_start_and_signal() -> None:
    assert verify(signed_start()) == "dlv-1"
    assert verify_signal(signed_signal()) == "dlv-1"


@pytest.mark.parametrize("source", list(Source))
def test_signed_form_works_for_every_source(source: Source) -> None:
    assert verify(signed_start(), source=source) == "dlv-1"
    assert verify_signal(signed_signal(), source=source) == "dlv-1"


def test_round_trip_notify() -> None:
    headers = signed_start(kind=Kind.NOTIFY, run_id="run_abc")
    assert verify(headers, kind=Kind.NOTIFY, run_id="run_abc") == "dlv-1"


def test_cross_kind_refused_with_equal_secrets() -> None:
    """A start signature presented as a signal (or a notification) does not verify, and back."""
    start = signed_start(run_id="run_abc", signal_key="ci-done")
    with pytest.raises(Unauthenticated) as caught:
        verify_signal(start)
    assert caught.value.reason is Reason.WEBHOOK_SIGNATURE_INVALID
    refused(Reason.WEBHOOK_SIGNATURE_INVALID, signed_signal(), run_id="run_abc", signal_key="ci-done")
    refused(Reason.WEBHOOK_SIGNATURE_INVALID, signed_start(), kind=Kind.NOTIFY)


@pytest.mark.parametrize(
    ("header_overrides", "verify_overrides", "body"),
    [
        ({"x-kxm-timestamp": str(NOW + 1)}, {}, BODY),
        ({"x-kxm-delivery-id": "dlv-2"}, {}, BODY),
        ({}, {"definition_id": "other"}, BODY),
        ({}, {"run_id": "run_other"}, BODY),
        ({}, {"signal_key": "other-key"}, BODY),
        ({}, {"secret": SECRET + "x"}, BODY),
        ({}, {}, BODY + b" "),
        ({}, {}, b""),
    ],
    ids=["timestamp", "delivery-id", "definition", "run", "signal-key", "secret", "body-appended", "body-empty"],
)
def test_every_field_and_the_body_are_covered(
    header_overrides: dict[str, str], verify_overrides: dict[str, Any], body: bytes
) -> None:
    headers = {**signed_signal(), **header_overrides}
    with pytest.raises(Unauthenticated) as caught:
        verify_signal(headers, body, **verify_overrides)
    assert caught.value.reason is Reason.WEBHOOK_SIGNATURE_INVALID


def test_scheme_field_is_covered() -> None:
    """The first field: a signature over another scheme name never verifies (the kind: cross-kind above)."""
    other = b"kxm-webhook-v2\nsignal\n1767225600\ndlv-1\ntriage\nrun_abc\nci-done\n" + BODY
    forged = {**signed_signal(), "x-kxm-signature": "sha256=" + hmac.new(SECRET.encode(), other, "sha256").hexdigest()}
    with pytest.raises(Unauthenticated) as caught:
        verify_signal(forged)
    assert caught.value.reason is Reason.WEBHOOK_SIGNATURE_INVALID


def test_fields_cannot_shift_across_the_separator() -> None:
    """Moving text between the run id and the signal key changes the material (nothing is joined)."""
    headers = signed_signal(run_id="run_a", signal_key="bc")
    assert verify_signal(headers, run_id="run_a", signal_key="bc") == "dlv-1"
    with pytest.raises(Unauthenticated):
        verify_signal(headers, run_id="run_ab", signal_key="c")


@pytest.mark.parametrize("field", ["definition_id", "run_id", "signal_key"])
def test_line_break_in_a_verified_field_is_an_invalid_signature(field: str) -> None:
    with pytest.raises(Unauthenticated) as caught:
        verify_signal(signed_signal(), BODY, **{field: "a\nb"})
    assert caught.value.reason is Reason.WEBHOOK_SIGNATURE_INVALID


@pytest.mark.parametrize("presented", ["sha256=" + "0" * 64, "sha256=", "sha256=zz", "sha256=é", "garbage"])
def test_forged_signatures_are_invalid(presented: str) -> None:
    refused(Reason.WEBHOOK_SIGNATURE_INVALID, {**signed_start(), "x-kxm-signature": presented})


def test_uppercase_hex_is_not_the_signature() -> None:
    headers = signed_start()
    headers["x-kxm-signature"] = "sha256=" + headers["x-kxm-signature"].removeprefix("sha256=").upper()
    refused(Reason.WEBHOOK_SIGNATURE_INVALID, headers)


def test_signed_form_with_another_algorithm_is_unsupported() -> None:
    refused(Reason.WEBHOOK_SIGNATURE_UNSUPPORTED, {**signed_start(), "x-kxm-signature": "sha1=abcd"})


@pytest.mark.parametrize("offset", [0, 1, 299, 300, -1, -299, -300])
def test_window_accepts_up_to_300_seconds_either_way(offset: int) -> None:
    assert verify(signed_start(timestamp=NOW + offset)) == "dlv-1"


@pytest.mark.parametrize("offset", [301, -301, 86_400, -NOW])
def test_window_refuses_beyond_300_seconds_either_way(offset: int) -> None:
    error = refused(Reason.WEBHOOK_TIMESTAMP_EXPIRED, signed_start(timestamp=NOW + offset))
    assert error.metadata["windowSeconds"] == "300"


def test_window_is_checked_only_after_the_signature() -> None:
    """A forgery with a stale timestamp hears only that it is invalid: nothing about the clock."""
    stale = {**signed_start(timestamp=NOW - 1000), "x-kxm-signature": "sha256=" + "0" * 64}
    refused(Reason.WEBHOOK_SIGNATURE_INVALID, stale)


@pytest.mark.parametrize("timestamp", ["", "abc", "1.5", "+1767225600", " 1767225600x", "01767225600", "١٢٣", "-5"])
def test_non_integer_or_non_canonical_timestamps_are_invalid(timestamp: str) -> None:
    refused(Reason.WEBHOOK_SIGNATURE_INVALID, {**signed_start(), "x-kxm-timestamp": timestamp})


def test_missing_timestamp_is_invalid() -> None:
    headers = signed_start()
    del headers["x-kxm-timestamp"]
    refused(Reason.WEBHOOK_SIGNATURE_INVALID, headers)


def test_no_signature_is_missing() -> None:
    headers = signed_start()
    del headers["x-kxm-signature"]
    refused(Reason.WEBHOOK_SIGNATURE_MISSING, headers)
    refused(Reason.WEBHOOK_SIGNATURE_MISSING, {**headers, "x-kxm-signature": "  "})
    refused(Reason.WEBHOOK_SIGNATURE_MISSING, {})
    with pytest.raises(Unauthenticated) as caught:
        verify_signal({})
    assert caught.value.reason is Reason.WEBHOOK_SIGNATURE_MISSING


def test_errors_never_carry_the_secret_or_the_expected_signature() -> None:
    headers = signed_start()
    expected = headers["x-kxm-signature"]
    for error in (
        refused(Reason.WEBHOOK_SIGNATURE_INVALID, {**headers, "x-kxm-signature": "sha256=" + "0" * 64}),
        refused(Reason.WEBHOOK_TIMESTAMP_EXPIRED, signed_start(timestamp=NOW - 301)),
        refused(Reason.WEBHOOK_SIGNATURE_INVALID, headers, definition_id="other"),
    ):
        text = error.message + repr(error.metadata)
        assert SECRET not in text
        assert expected.removeprefix("sha256=") not in text


# -- body-only forms -------------------------------------------------------------------------------


def test_github_body_only_form_accepted_for_github_starts() -> None:
    headers = {"x-github-delivery": "gh-1", "x-hub-signature-256": body_signature()}
    assert verify(headers, source=Source.GITHUB) == "gh-1"


@pytest.mark.parametrize("header", ["x-hub-signature-256", "x-hub-signature"])
def test_jira_body_only_forms_accepted_for_jira_starts(header: str) -> None:
    headers = {"x-atlassian-webhook-identifier": "jira-1", header: body_signature()}
    assert verify(headers, source=Source.JIRA) == "jira-1"


def test_body_only_form_mismatch_is_invalid() -> None:
    headers = {"x-github-delivery": "gh-1", "x-hub-signature-256": body_signature()}
    refused(Reason.WEBHOOK_SIGNATURE_INVALID, headers, BODY + b"x", source=Source.GITHUB)
    refused(Reason.WEBHOOK_SIGNATURE_INVALID, headers, secret="another-secret-0123", source=Source.GITHUB)


@pytest.mark.parametrize(
    ("source", "header", "delivery"),
    [
        (Source.GITHUB, "x-hub-signature-256", "x-github-delivery"),
        (Source.JIRA, "x-hub-signature-256", "x-atlassian-webhook-identifier"),
        (Source.JIRA, "x-hub-signature", "x-atlassian-webhook-identifier"),
    ],
)
def test_body_only_form_with_another_algorithm_is_unsupported(source: Source, header: str, delivery: str) -> None:
    sha1 = "sha1=" + hmac.new(SECRET.encode(), BODY, hashlib.sha1).hexdigest()
    refused(Reason.WEBHOOK_SIGNATURE_UNSUPPORTED, {delivery: "d-1", header: sha1}, source=source)


@pytest.mark.parametrize("header", ["x-hub-signature-256", "x-hub-signature"])
def test_body_only_form_is_missing_for_generic_starts(header: str) -> None:
    headers = {"x-kxm-delivery-id": "d-1", header: body_signature()}
    refused(Reason.WEBHOOK_SIGNATURE_MISSING, headers, source=Source.GENERIC)
    # Even with an unsupported algorithm: the form itself is not accepted here.
    refused(Reason.WEBHOOK_SIGNATURE_MISSING, {**headers, header: "sha1=00"}, source=Source.GENERIC)


@pytest.mark.parametrize(
    ("source", "delivery"), [(Source.GITHUB, "x-github-delivery"), (Source.JIRA, "x-atlassian-webhook-identifier")]
)
def test_body_only_form_is_missing_for_signals(source: Source, delivery: str) -> None:
    headers = {delivery: "d-1", "x-hub-signature-256": body_signature()}
    with pytest.raises(Unauthenticated) as caught:
        verify_signal(headers, source=source)
    assert caught.value.reason is Reason.WEBHOOK_SIGNATURE_MISSING


def test_github_legacy_sha1_header_is_not_a_signature() -> None:
    headers = {"x-github-delivery": "gh-1", "x-hub-signature": body_signature()}
    refused(Reason.WEBHOOK_SIGNATURE_MISSING, headers, source=Source.GITHUB)


def test_jira_prefers_the_256_header() -> None:
    headers = {
        "x-atlassian-webhook-identifier": "jira-1",
        "x-hub-signature-256": body_signature(),
        "x-hub-signature": "sha1=00",
    }
    assert verify(headers, source=Source.JIRA) == "jira-1"


def test_signed_form_wins_over_a_body_only_one() -> None:
    """When both are present the signed form decides; a failing one is not rescued by the body form."""
    headers = {**signed_start(), "x-github-delivery": "gh-1", "x-hub-signature-256": body_signature()}
    refused(Reason.WEBHOOK_SIGNATURE_INVALID, headers, source=Source.GITHUB)


@pytest.mark.parametrize(
    ("source", "header"), [(Source.GITHUB, "x-github-delivery"), (Source.JIRA, "x-atlassian-webhook-identifier")]
)
def test_body_only_form_requires_the_providers_delivery_header(source: Source, header: str) -> None:
    headers = {"x-kxm-delivery-id": "d-1", "x-hub-signature-256": body_signature()}
    with pytest.raises(InvalidArgument) as caught:
        verify(headers, source=source)
    assert caught.value.metadata["field"] == header


# -- delivery ids ----------------------------------------------------------------------------------


def test_delivery_id_precedence() -> None:
    """Atlassian, then GitHub, then kxm; the signed material covers the id that wins."""
    all_three = {"x-atlassian-webhook-identifier": "jira-1", "x-github-delivery": "gh-1"}
    headers = {**signed_start(delivery_id="jira-1"), **all_three}
    assert verify(headers) == "jira-1"
    headers = {**signed_start(delivery_id="gh-1"), "x-github-delivery": "gh-1"}
    assert verify(headers) == "gh-1"


def test_an_added_delivery_header_breaks_the_signature() -> None:
    """Replaying a signed request under a fresh provider delivery id does not verify."""
    headers = {**signed_start(), "x-github-delivery": "fresh-id"}
    refused(Reason.WEBHOOK_SIGNATURE_INVALID, headers)


def test_delivery_id_is_trimmed_and_limited() -> None:
    assert verify(signed_start(delivery_id="d" * 128)) == "d" * 128
    # An HTTP layer that keeps the surrounding spaces: the signature covers the raw value.
    headers = signed_start()
    raw = " dlv-1 "
    headers["x-kxm-delivery-id"] = raw
    headers["x-kxm-signature"] = (
        "sha256="
        + hmac.new(SECRET.encode(), sig.material(Kind.START, NOW, raw, "triage", body=BODY), hashlib.sha256).hexdigest()
    )
    assert verify(headers) == "dlv-1"


@pytest.mark.parametrize("delivery_id", ["d" * 129, "d\x00", "d\x7f", "d\tx", "d\x85"])
def test_bad_delivery_ids_refused_after_the_signature(delivery_id: str) -> None:
    headers = signed_start()
    headers["x-kxm-delivery-id"] = delivery_id
    headers["x-kxm-signature"] = (
        "sha256="
        + hmac.new(
            SECRET.encode(), sig.material(Kind.START, NOW, delivery_id, "triage", body=BODY), hashlib.sha256
        ).hexdigest()
    )
    with pytest.raises(InvalidArgument) as caught:
        verify(headers)
    assert caught.value.metadata["field"] == "x-kxm-delivery-id"
    # Unsigned, the same request is refused as unauthenticated: the signature comes first.
    refused(Reason.WEBHOOK_SIGNATURE_INVALID, {**headers, "x-kxm-signature": "sha256=" + "0" * 64})


def test_missing_delivery_id() -> None:
    """Signed with an empty id by a non-reference sender: verified, then refused for the missing id."""
    data = sig.material(Kind.START, NOW, "", "triage", body=BODY)
    headers = {
        "x-kxm-timestamp": str(NOW),
        "x-kxm-signature": "sha256=" + hmac.new(SECRET.encode(), data, hashlib.sha256).hexdigest(),
    }
    with pytest.raises(InvalidArgument, match="delivery id is required"):
        verify(headers)
    # The reference signer puts its id in x-kxm-delivery-id; without it the material differs.
    headers = signed_start()
    del headers["x-kxm-delivery-id"]
    refused(Reason.WEBHOOK_SIGNATURE_INVALID, headers)


def test_github_delivery_id_limit() -> None:
    headers = {"x-github-delivery": "g" * 129, "x-hub-signature-256": body_signature()}
    with pytest.raises(InvalidArgument) as caught:
        verify(headers, source=Source.GITHUB)
    assert caught.value.metadata["field"] == "x-github-delivery"
