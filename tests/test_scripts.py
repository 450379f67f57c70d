"""The project's shell scripts avoid patterns that make CI fail by chance."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# A reader that exits before its input ends (grep -q at the first match, head after N lines) kills
# the writer with SIGPIPE; under `pipefail` the pipeline then fails with status 141, depending on
# timing. Such lists are read into a variable first (see scripts/check-generated).
EARLY_EXIT_READER = re.compile(r"\|\s*(grep\s+(-\w*q\w*|--quiet)|head\b)")


def _shell_scripts() -> list[Path]:
    candidates = [*ROOT.joinpath("scripts").iterdir(), ROOT / ".ci" / "run"]
    return [p for p in candidates if p.is_file() and p.read_text(errors="replace").startswith("#!/usr/bin/env bash")]


def test_no_pipeline_into_an_early_exiting_reader_under_pipefail() -> None:
    """No script under ``pipefail`` pipes into ``grep -q`` or ``head`` (exit 141 about one run in fifteen)."""
    scripts = _shell_scripts()
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in scripts
        if "pipefail" in path.read_text()
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if not line.lstrip().startswith("#") and EARLY_EXIT_READER.search(line)
    ]

    assert len(scripts) >= 8, "the scripts folder moved?"
    assert offenders == []


def test_the_check_catches_the_pattern() -> None:
    """The pattern the test looks for matches the line that failed CI at 44ca714."""
    assert EARLY_EXIT_READER.search('if ! "$here/scripts/gen-clients" --list | grep -qxF "$rel"; then')
    assert not EARLY_EXIT_READER.search('if ! grep -qxF -- "$rel" <<<"$written"; then')
