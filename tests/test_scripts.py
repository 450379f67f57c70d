"""The project's scripts: the shell ones avoid patterns that make CI fail by chance, and the docs
generators write their pages through one helper (scripts/_splice.py)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

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


DOCS_GENERATORS = {
    "gen_rpc_doc.py": "api.md",
    "gen_settings_doc.py": "operations.md",
    "gen_errors_doc.py": "errors.md",
}


def _load(name: str) -> ModuleType:
    """A module of scripts/, loaded by its file path (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"kxm_script_{name}", ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_splice_helper_replaces_only_the_text_between_the_markers() -> None:
    """``splice`` keeps the page around the markers as written and the markers themselves; a page
    without them, or with them out of order, stops the generator naming the page."""
    splice = _load("_splice").splice
    page = "# Title\n<!-- b -->\nold\nrows\n<!-- /b -->\nafter\n"

    spliced = splice(page, "new", begin="<!-- b -->", end="<!-- /b -->", name="docs/x.md")

    assert spliced == "# Title\n<!-- b -->\nnew\n<!-- /b -->\nafter\n"
    assert splice(spliced, "new", begin="<!-- b -->", end="<!-- /b -->", name="docs/x.md") == spliced
    for broken in ("# no markers\n", "<!-- /b -->\n<!-- b -->\n"):
        with pytest.raises(SystemExit, match=r"docs/x\.md: the markers"):
            splice(broken, "new", begin="<!-- b -->", end="<!-- /b -->", name="docs/x.md")


@pytest.mark.parametrize("generator", sorted(DOCS_GENERATORS))
def test_every_docs_generator_writes_through_the_helper_and_reproduces_its_page(generator: str, tmp_path: Path) -> None:
    """Each docs generator imports scripts/_splice.py and has no splicing or writing code of its own;
    run as scripts/gen runs it, it writes OUT_ROOT/docs/<page> equal to the committed page."""
    source = (ROOT / "scripts" / generator).read_text()

    subprocess.run([sys.executable, str(ROOT / "scripts" / generator), str(tmp_path)], check=True)

    assert "import _splice" in source
    assert ".find(" not in source and "write_text(" not in source and "sys.argv" not in source
    page = DOCS_GENERATORS[generator]
    assert (tmp_path / "docs" / page).read_text() == (ROOT / "docs" / page).read_text()


def test_the_client_build_log_has_no_colour_codes_and_the_rust_build_shows_progress() -> None:
    """The first hour's noise (issue 20): Maven's colour resets, which Debian's Maven 3.8 writes even
    in batch mode, are stripped from the client build's log, and the Rust build is not run quietly
    (a first build is a minute of silence otherwise)."""
    script = (ROOT / "scripts" / "build-clients").read_text()
    java = next(line for line in script.splitlines() if line.startswith("step java "))
    rust = next(line for line in script.splitlines() if line.startswith("step rust "))

    assert "mvn -q -B" in java and 'sed "s/\\x1b\\[[0-9;]*m//g"' in java
    assert "cargo build" in rust and " -q" not in rust and "--color never" in rust


def test_every_language_reads_the_project_token_from_one_variable() -> None:
    """One name, ``KXM_TOKEN``, in the Python client, the CLI and every other language's README and
    programs (issue 20: the other languages' READMEs said ``KXM_PROJECT_TOKEN``)."""
    tracked = subprocess.run(
        ["git", "ls-files", "clients", "README.md", "docs", "kxm_grpc"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    # decisions.md tells the history: the old name is said there once.
    readers = [
        path
        for path in tracked
        if path != "docs/decisions.md" and "KXM_PROJECT_TOKEN" in (ROOT / path).read_text(errors="replace")
    ]
    readmes = [ROOT / "clients" / language / "README.md" for language in ("go", "java", "python", "rust", "typescript")]

    assert readers == []
    assert all("KXM_TOKEN" in readme.read_text() for readme in readmes if readme.exists())


def test_the_license_is_an_spdx_expression_with_its_file() -> None:
    """``project.license`` as an SPDX string and the LICENSE file shipped: setuptools prints no
    deprecation boxes before the hub's first line (issue 20)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"] and "Apache License" in (ROOT / "LICENSE").read_text()
