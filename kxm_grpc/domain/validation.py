"""Field validation primitives shared by every request.

Strings are trimmed and lowercased with JavaScript's semantics (``String.prototype.trim`` and
``toLowerCase``), and limits count UTF-16 code units after trimming, like the original hub, so a
client in any language sees the same names and the same limits. Every failure is an
InvalidArgument that names the field.
"""

from __future__ import annotations

import re

from kxm_grpc.errors import Reason, invalid_field

# ECMA-262 WhiteSpace and LineTerminator: what String.prototype.trim strips and what \s matches in
# JavaScript. Python's str.strip() differs: it also strips U+001C-U+001F and U+0085, and keeps U+FEFF.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_WHITESPACE = re.compile(f"[{JS_WHITESPACE}]+")


def js_trim(value: str) -> str:
    """``value.trim()`` as JavaScript does it."""
    return value.strip(JS_WHITESPACE)


def js_lower(value: str) -> str:
    """``value.toLowerCase()`` as JavaScript does it.

    Python's ``str.lower`` is the same full Unicode default mapping (final sigma included);
    ``casefold`` is not (it folds ``ß`` to ``ss``, which JavaScript keeps).
    """
    return value.lower()


def utf16_length(value: str) -> int:
    """Return the length of ``value`` in UTF-16 code units, as JavaScript's ``length``: a lone
    surrogate (a JSON ``"\\ud800"``) counts one unit instead of failing to encode."""
    if value.isascii():  # a flag CPython keeps on every str: no encoding for the common case
        return len(value)
    return len(value.encode("utf-16-le", "surrogatepass")) // 2


def required_text(field: str, value: str, max_chars: int) -> str:
    """Return ``value`` trimmed.

    Raises:
        InvalidArgument: it is empty after trimming or longer than ``max_chars``.
    """
    text = js_trim(value)
    if not text:
        raise invalid_field(field, "must not be empty")
    return _bounded(field, text, max_chars)


def optional_text(field: str, value: str, max_chars: int) -> str:
    """Return ``value`` trimmed; empty means absent.

    Raises:
        InvalidArgument: it is longer than ``max_chars``.
    """
    return _bounded(field, js_trim(value), max_chars)


def _bounded(field: str, text: str, max_chars: int) -> str:
    if "\x00" in text:
        raise invalid_field(field, "must not contain NUL characters")
    if utf16_length(text) > max_chars:
        raise invalid_field(field, f"exceeds {max_chars} characters")
    return text


def bounded_int(field: str, value: int, minimum: int, maximum: int, *, default: int | None = None) -> int:
    """Return ``value`` (or ``default`` when it is 0 and a default exists).

    Raises:
        InvalidArgument: it is outside ``[minimum, maximum]``.
    """
    if value == 0 and default is not None:
        return default
    if not minimum <= value <= maximum:
        raise invalid_field(field, f"must be an integer between {minimum} and {maximum}")
    return value


def pattern_text(
    field: str, value: str, pattern: re.Pattern[str], description: str, *, reason: Reason = Reason.PROTOCOL_ERROR
) -> str:
    """Return ``value`` trimmed if it matches ``pattern`` in full.

    Raises:
        InvalidArgument: it does not match; ``description`` says what is expected.
    """
    text = js_trim(value)
    if not pattern.fullmatch(text):
        raise invalid_field(field, description, reason=reason)
    return text


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` UTF-16 code units, ending in ``…`` when cut (never inside a pair)."""
    if utf16_length(text) <= limit:
        return text
    units, kept = 0, []
    for char in text:
        units += 2 if ord(char) > 0xFFFF else 1
        if units > limit - 1:
            break
        kept.append(char)
    return "".join(kept) + "…"


def collapse_whitespace(value: str) -> str:
    """Trim and collapse runs of whitespace to one space."""
    return _WHITESPACE.sub(" ", js_trim(value))


def object_id(field: str, value: str, max_chars: int) -> str:
    """An id a request names (a run, a definition, a stage): 1 to ``max_chars`` characters, none a
    control character; checked before any lookup (PostgreSQL refuses a NUL as a storage error).

    Raises:
        InvalidArgument: (PROTOCOL_ERROR) naming ``field``.
    """
    if not value or len(value) > max_chars or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise invalid_field(field, f"must be 1-{max_chars} characters, none a control character")
    return value
