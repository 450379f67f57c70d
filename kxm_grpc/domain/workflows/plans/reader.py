"""Reading raw definition values while collecting problems (never stopping at the first)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence

from kxm_grpc.domain.validation import js_trim, utf16_length
from kxm_grpc.domain.workflows.plans.model import Problem

_PLAIN_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*")
_SURROGATE = re.compile("[\ud800-\udfff]")

# Issue codes beyond §4.1's list (which names only the compiler's): the loader's own.
FIELD_REQUIRED = "field_required"
FIELD_TYPE_INVALID = "field_type_invalid"
TEXT_INVALID = "text_invalid"
FIELD_UNKNOWN = "field_unknown"
FIELD_UNSUPPORTED = "field_unsupported"
COUNT_INVALID = "count_invalid"


def path(parent: str, key: str | int) -> str:
    """The JSON path of ``key`` under ``parent``: ``a.b``, ``a[2]`` or ``a["odd key"]``."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    if _PLAIN_KEY.fullmatch(key):
        return f"{parent}.{key}" if parent else key
    return f"{parent}[{json.dumps(key, ensure_ascii=False)}]"


def as_integer(raw: object) -> int | None:
    """An integer, like JavaScript's ``Number.isInteger`` (``3.0`` is one, ``true`` is not)."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float) and math.isfinite(raw) and raw.is_integer():
        return int(raw)
    return None


class Reader:
    """Records a problem for each bad value; every reader returns None for an absent or bad value."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.step_id: str | None = None
        """The step being read: problems recorded now belong to it."""

    def problem(self, field: str, code: str, message: str, *, outcome: str | None = None) -> None:
        self.problems.append(Problem(field, code, message, self.step_id, outcome))

    def mark(self) -> int:
        return len(self.problems)

    def clean_since(self, mark: int) -> bool:
        return len(self.problems) == mark

    def required(self, raw: object, field: str, required: bool) -> bool:
        """Whether ``raw`` is present; records ``field_required`` when it must be and is not."""
        if raw is None:
            if required:
                self.problem(field, FIELD_REQUIRED, "is required")
            return False
        return True

    def text(
        self, raw: object, field: str, limit: int, *, required: bool = False, code: str = TEXT_INVALID
    ) -> str | None:
        """A string, trimmed, not empty, at most ``limit`` UTF-16 code units, no NUL."""
        if not self.required(raw, field, required):
            return None
        if not isinstance(raw, str):
            self.problem(field, FIELD_TYPE_INVALID, "must be a string")
            return None
        value = js_trim(raw)
        if not value:
            self.problem(field, code, "must not be empty")
        elif "\x00" in value or _SURROGATE.search(value):
            self.problem(field, code, "must not contain NUL characters or unpaired surrogates")
        elif utf16_length(value) > limit:
            self.problem(field, code, f"exceeds {limit} characters")
        else:
            return value
        return None

    def pattern(
        self, raw: object, field: str, regex: re.Pattern[str], limit: int, code: str, what: str, *, required: bool
    ) -> str | None:
        value = self.text(raw, field, limit, required=required, code=code)
        if value is not None and not regex.fullmatch(value):
            self.problem(field, code, f"must be {what}")
            return None
        return value

    def choice(
        self, raw: object, field: str, choices: Sequence[str], code: str, *, required: bool = False
    ) -> str | None:
        value = self.text(raw, field, 64, required=required, code=code)
        if value is not None and value not in choices:
            self.problem(field, code, f"must be one of {', '.join(choices)}")
            return None
        return value

    def integer(
        self,
        raw: object,
        field: str,
        minimum: int,
        maximum: int,
        *,
        required: bool = False,
        code: str = COUNT_INVALID,
    ) -> int | None:
        if not self.required(raw, field, required):
            return None
        number = as_integer(raw)
        if number is None or not minimum <= number <= maximum:
            self.problem(field, code, f"must be an integer between {minimum} and {maximum}")
            return None
        return number

    def boolean(self, raw: object, field: str) -> bool | None:
        if raw is None:
            return None
        if not isinstance(raw, bool):
            self.problem(field, FIELD_TYPE_INVALID, "must be true or false")
            return None
        return raw

    def mapping(self, raw: object, field: str, *, required: bool = False) -> dict[str, object] | None:
        if not self.required(raw, field, required):
            return None
        if not isinstance(raw, Mapping):
            self.problem(field, FIELD_TYPE_INVALID, "must be an object")
            return None
        result: dict[str, object] = {}
        for key, value in raw.items():
            if isinstance(key, str):
                result[key] = value
            else:  # only YAML can say this
                self.problem(f"{field}[{key!r}]", FIELD_TYPE_INVALID, "keys must be strings")
        return result

    def array(self, raw: object, field: str, *, required: bool = False) -> list[object] | None:
        if not self.required(raw, field, required):
            return None
        if not isinstance(raw, list):
            self.problem(field, FIELD_TYPE_INVALID, "must be an array")
            return None
        return raw

    def only(
        self,
        value: Mapping[str, object],
        field: str,
        allowed: Sequence[str],
        unsupported: Mapping[str, str] | None = None,
    ) -> None:
        """Refuse every key of ``value`` not in ``allowed``: ``field_unsupported`` (with why) for a
        field the original format has but the hub does not execute, ``field_unknown`` otherwise."""
        for key in value:
            if key in allowed:
                continue
            if unsupported is not None and key in unsupported:
                self.problem(path(field, key), FIELD_UNSUPPORTED, unsupported[key])
            else:
                self.problem(path(field, key), FIELD_UNKNOWN, f"is not a field here (allowed: {', '.join(allowed)})")
