"""`kxm context` commands of the episodes work of issue 17 (placeholder until it lands)."""

from __future__ import annotations

from typing import Any


def add_commands(actions: Any) -> None:
    """Add this module's commands to the `kxm context` group's subparsers."""
