"""Secret redaction for journal text that leaves the hub in a report (spec §3.7, §3.8, §11.10).

``redact`` replaces every substring that looks like a credential with ``<redacted:KIND>``. The
patterns are listed below, one named constant each, and applied in ``PATTERNS`` order: the most
specific first, so a bearer token that is also a JWT, or a URL whose password is long hex, is
replaced once and by its most telling kind.

It is a pattern list, not a proof (the original's weakness §11.10 says as much): text that looks
like none of these passes unchanged, and harmless text that looks like one is redacted (a commit
SHA is as long as a hex key). Reports lean to redacting: a hidden hash costs a reader a lookup,
a leaked key costs the key. Redaction runs on the text as written, before a signal's summary is
normalised: lower-casing and digit folding would defeat the case- and digit-bound patterns (an
AWS key id, a JWT, long hex), and a secret that differs between runs must not split a group.

Every marker holds only lower-case letters, hyphens and a colon, so the normaliser leaves it as
it is, and no pattern matches a marker again: ``redact(redact(text)) == redact(text)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Every pattern is ASCII: ``\b`` and the classes mean what they mean in JavaScript.
_FLAGS = re.ASCII

# A PEM private key block, header to footer (or to the end of a truncated text): the body is the key.
PRIVATE_KEY = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)", _FLAGS | re.DOTALL
)

# The userinfo of a URL (``https://user:password@host``, ``https://TOKEN@github.com``): a password or
# a token. The scheme and the host stay, so two runs failing against one host still group.
URL_CREDENTIALS = re.compile(r"\b([a-z][a-z0-9+.-]*://)[^\s/?#@<>]+@", _FLAGS | re.IGNORECASE)

# An HTTP Authorization value: ``Bearer <token>`` or ``Basic <base64>``. The value must hold a digit,
# so prose (``bearer authentication failed``) is left alone; a random token of 8+ characters
# without one is rare enough to accept.
AUTHORIZATION = re.compile(
    r"\b(Bearer|Basic)(\s+)(?=[A-Za-z._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{8,}", _FLAGS | re.IGNORECASE
)

# A JSON Web Token: base64url header and payload (both JSON objects, so both start ``eyJ``) and an
# optional signature.
JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*", _FLAGS)

# The hub's own credentials (domain/secrets.py): ``kxm_admin_``, ``kxm_proj_``, ``kxm_agent_``,
# ``kxm_rtm_``, ``kxm_op_`` and any later ``kxm_<kind>_`` prefix with 16+ base64url characters, and
# the runtime's attempt capabilities (``kxmcap_``). Tool names (``kxm_workflow_record``) are too short.
KXM_CREDENTIAL = re.compile(r"\b(?:kxm_[a-z]+_[A-Za-z0-9_-]{16,}|kxmcap_[A-Za-z0-9_.-]{16,})", _FLAGS)

# GitHub tokens: classic and app tokens (``ghp_``, ``gho_``, ``ghu_``, ``ghs_``, ``ghr_``) and
# fine-grained personal access tokens (``github_pat_``).
GITHUB_TOKEN = re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})", _FLAGS)

# Slack tokens (``xoxb-``, ``xoxp-``, ``xoxa-``, ``xoxr-``, ``xoxs-``).
SLACK_TOKEN = re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}", _FLAGS)

# Model-provider API keys of the ``sk-`` form (OpenAI ``sk-``/``sk-proj-``, Anthropic ``sk-ant-``):
# the keys an agent's harness is most likely to echo.
PROVIDER_API_KEY = re.compile(r"\bsk-[A-Za-z0-9_-]{20,}", _FLAGS)

# Google API keys.
GOOGLE_API_KEY = re.compile(r"\bAIza[A-Za-z0-9_-]{30,}", _FLAGS)

# AWS access key ids: long-term (``AKIA``), temporary (``ASIA``) and the other key-bearing prefixes.
# Their secret half has no shape of its own; ``SECRET_ASSIGNMENT`` catches it by its name
# (``aws_secret_access_key=…``).
AWS_ACCESS_KEY_ID = re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b", _FLAGS)

# A webhook signature: ``sha256=`` or ``sha1=`` and the hex HMAC (``x-kxm-signature``,
# ``x-hub-signature-256``). The prefix stays: it says what was there.
SIGNATURE = re.compile(r"\b(sha1|sha256)=[0-9a-fA-F]{40,}", _FLAGS | re.IGNORECASE)

_SECRET_NAME = (
    r"\b([A-Za-z0-9_.-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)"
    r"[A-Za-z0-9_.-]*)"
)

# A value assigned with ``=`` to a name that says it is secret: ``password=…``,
# ``KXM_FIX_BUG_SECRET=…``, ``aws_secret_access_key = …``, ``?api_key=…``. The name stays; the
# value (8+ characters up to a space, quote, ``&``, ``,`` or ``;``) goes.
SECRET_ASSIGNMENT = re.compile(
    _SECRET_NAME + r"([\"']?\s*=\s*[\"']?)[^\s\"'<>&,;]{8,}",
    _FLAGS | re.IGNORECASE,
)

# The same with ``:`` (JSON, YAML, a header): ``"token": "…"``, ``password: …``. Applied after the
# ``=`` form, and a value followed by ``=`` is a name being assigned, not a value: in
# ``webhook secret: KXM_FIX_BUG_SECRET=…`` the ``=`` form has redacted the value, and the name stays.
SECRET_FIELD = re.compile(
    _SECRET_NAME + r"([\"']?\s*:\s*[\"']?)[^\s\"'<>&,;=]{8,}+(?![=<])",
    _FLAGS | re.IGNORECASE,
)

# An email address: personal data, and often an account name that pairs with a leaked password.
EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b", _FLAGS)

# A standalone run of 32+ hex digits: a hex-encoded key or HMAC (128 bits and more). Not part of a
# word, so the hub's ids (``run_`` + 32 hex) stay: they name records, and signals fold them to
# ``<id>`` anyway.
LONG_HEX = re.compile(r"(?<![A-Za-z0-9_])[0-9a-fA-F]{32,}(?![A-Za-z0-9_])", _FLAGS)

PATTERNS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("private-key", PRIVATE_KEY, "<redacted:private-key>"),
    ("url-credentials", URL_CREDENTIALS, r"\1<redacted:url-credentials>@"),
    ("authorization", AUTHORIZATION, r"\1\2<redacted:authorization>"),
    ("jwt", JWT, "<redacted:jwt>"),
    ("kxm-credential", KXM_CREDENTIAL, "<redacted:kxm-credential>"),
    ("github-token", GITHUB_TOKEN, "<redacted:github-token>"),
    ("slack-token", SLACK_TOKEN, "<redacted:slack-token>"),
    ("api-key", PROVIDER_API_KEY, "<redacted:api-key>"),
    ("api-key", GOOGLE_API_KEY, "<redacted:api-key>"),
    ("aws-key", AWS_ACCESS_KEY_ID, "<redacted:aws-key>"),
    ("signature", SIGNATURE, r"\1=<redacted:signature>"),
    ("secret", SECRET_ASSIGNMENT, r"\1\2<redacted:secret>"),
    ("secret", SECRET_FIELD, r"\1\2<redacted:secret>"),
    ("email", EMAIL, "<redacted:email>"),
    ("hex", LONG_HEX, "<redacted:hex>"),
)
"""(kind, pattern, replacement), applied in this order."""


def redact(text: str) -> str:
    """``text`` with every credential-like substring replaced by ``<redacted:KIND>`` (see ``PATTERNS``)."""
    for _, pattern, replacement in PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def redact_all(values: Iterable[str]) -> tuple[str, ...]:
    """Each value redacted, in order."""
    return tuple(redact(value) for value in values)
