"""A step request's fields as the rules accept them: evidence maps, summaries, signal keys.

Each parser trims and bounds a field as the original did (lengths in UTF-16 code units) and
names the field in its refusal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from kxm_grpc.domain import validation
from kxm_grpc.domain.messages import canonical_requirement_key
from kxm_grpc.errors import Reason, invalid_field

MAX_EVIDENCE_KEYS = 64

MAX_EVIDENCE_KEY_CHARS = 128

MAX_EVIDENCE_VALUE_CHARS = 1_000

MAX_SUMMARY_CHARS = 4_000

MAX_OUTCOME_CHARS = 64

MAX_TRANSITION_EVIDENCE_KEYS = 32

MAX_SIGNAL_KEY_CHARS = 128

SIGNAL_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]*")


def parse_evidence(raw: Mapping[str, str], *, field: str = "evidence") -> dict[str, tuple[str, ...]]:
    """Canonicalise an evidence map (key → one value): ≤ 64 keys, keys ≤ 128, values 1–1,000.

    Raises:
        InvalidArgument: (INVALID_WORKFLOW_EVIDENCE) a limit is broken, or two keys are equal
            once canonicalised (``Lint`` and `` lint ``).
    """
    if len(raw) > MAX_EVIDENCE_KEYS:
        raise invalid_field(field, f"has more than {MAX_EVIDENCE_KEYS} keys", reason=Reason.INVALID_WORKFLOW_EVIDENCE)
    parsed: dict[str, tuple[str, ...]] = {}
    for key, value in raw.items():
        canonical = canonical_requirement_key(key)
        if not canonical or validation.utf16_length(canonical) > MAX_EVIDENCE_KEY_CHARS:
            raise invalid_field(
                f"{field}[{key!r}]",
                f"keys are 1-{MAX_EVIDENCE_KEY_CHARS} characters",
                reason=Reason.INVALID_WORKFLOW_EVIDENCE,
            )
        if canonical in parsed:
            raise invalid_field(
                f"{field}[{key!r}]",
                f"names the same requirement as another key ({canonical!r}) once canonicalised",
                reason=Reason.INVALID_WORKFLOW_EVIDENCE,
            )
        text = validation.js_trim(value)
        if not text or validation.utf16_length(text) > MAX_EVIDENCE_VALUE_CHARS:
            raise invalid_field(
                f"{field}[{key!r}]",
                f"values are 1-{MAX_EVIDENCE_VALUE_CHARS} characters",
                reason=Reason.INVALID_WORKFLOW_EVIDENCE,
            )
        parsed[canonical] = (text,)
    return parsed


def summary_text(value: str, *, field: str = "summary") -> str:
    """A trimmed summary of at most 4,000 characters (empty allowed).

    Raises:
        InvalidArgument: it is longer.
    """
    return validation.optional_text(field, value, MAX_SUMMARY_CHARS)


def signal_key(value: str, *, field: str = "signal_key") -> str:
    """A signal key: ``[A-Za-z0-9][A-Za-z0-9._:-]*``, at most 128 characters.

    Raises:
        InvalidArgument: (INVALID_SIGNAL_KEY) it is not.
    """
    text = validation.js_trim(value)
    if len(text) > MAX_SIGNAL_KEY_CHARS or not SIGNAL_KEY.fullmatch(text):
        raise invalid_field(
            field,
            f"must match [A-Za-z0-9][A-Za-z0-9._:-]* and be at most {MAX_SIGNAL_KEY_CHARS} characters",
            reason=Reason.INVALID_SIGNAL_KEY,
        )
    return text
