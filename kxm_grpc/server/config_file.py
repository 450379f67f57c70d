"""The hub's optional configuration file (``--config``, ``KXM_CONFIG``): TOML, one key per setting.

Keys are the settings' flags without the dashes, in either spelling (``metrics-port`` or
``metrics_port``); values are TOML strings or numbers, read exactly as the flag's text would be
(so ``port = 7331`` and ``port = "7331"`` are the same, and every check a flag gets applies).
Flags and ``KXM_*`` variables override the file; the file overrides the defaults. A key that
names no setting, a table, a value of another type and ``config`` itself are refused, naming the
file and the key: a misspelt setting never passes silently.
"""

from __future__ import annotations

import argparse
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kxm_grpc.server.settings import Option, SettingsError


def read_config(path: Path, options: Iterable[Option]) -> dict[str, Any]:
    """The settings ``path`` gives, by field name, each parsed as its flag would be.

    Raises:
        SettingsError: the file cannot be read or is not TOML, or a key or value is refused.
    """
    by_key = {option.name: option for option in options if option.name != "config"}
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise SettingsError(f"config file {path}: cannot be read ({error.strerror or error})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise SettingsError(f"config file {path}: not TOML ({error})") from None
    values: dict[str, Any] = {}
    for key, value in document.items():
        option = by_key.get(key.replace("-", "_"))
        if option is None:
            known = ", ".join(sorted(name.replace("_", "-") for name in by_key))
            raise SettingsError(f"config file {path}: {key!r} is no setting (settings: {known})")
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise SettingsError(f"config file {path}: {key} must be a string or a number")
        text = str(value)
        try:
            values[option.name] = option.convert(text)
        except argparse.ArgumentTypeError as error:
            raise SettingsError(f"config file {path}: {key}: {error}") from None
        except ValueError:
            # As argparse words a flag's malformed number.
            kind = getattr(option.parser, "__name__", "setting")
            raise SettingsError(f"config file {path}: {key}: invalid {kind} value: {text!r}") from None
    return values
