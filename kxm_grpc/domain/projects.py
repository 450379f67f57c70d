"""Projects: the isolation boundary of the hub."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kxm_grpc.domain.validation import pattern_text

DEFAULT_PROJECT = "default"
PROJECT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


@dataclass(frozen=True, slots=True)
class Project:
    """A project and when its token was last issued."""

    name: str
    create_time: int
    token_rotate_time: int


def project_name(field: str, value: str) -> str:
    """Return a valid project name.

    Raises:
        InvalidArgument: it is empty, longer than 128 characters, or has characters other than
            letters, digits, ``.``, ``_`` and ``-`` (a letter or digit first).
    """
    return pattern_text(
        field,
        value,
        PROJECT_NAME,
        "must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit",
    )
