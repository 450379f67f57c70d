"""What each generated client's conformance build is made from, and the stamp that records it.

scripts/build-clients builds a client through ``run``: it hashes every input file of the client's
folder, runs the build, and when the build succeeds (and no input changed meanwhile) writes the
hashes next to the build output. tests/test_conformance.py recomputes them and refuses to run an
output whose inputs differ (a regenerated file under gen/, an edited conformance program, a changed
manifest or lock file). Content hashes, not mtimes: a clone or checkout gives every file a new mtime,
and an output can be newer than a file that changed after the build started.

An input is every file of ``clients/<folder>`` except documentation (``*.md``) and the entries a
build lists as not inputs (its outputs, installed dependencies, other programs).

Usage (from anywhere; only the standard library):

    python scripts/client_inputs.py run LANG -- COMMAND...   build LANG with COMMAND, stamp on success
    python scripts/client_inputs.py check LANG               exit 1 and say why when LANG is stale
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = ROOT / "clients"
STAMP = ".kxm-inputs.json"
SHOWN = 5  # changed files named in a staleness report


@dataclass(frozen=True)
class Build:
    """One client build: its folder under clients/, where its stamp goes, what is not an input."""

    language: str
    folder: str
    stamp_dir: str
    """The build's output folder (relative to the client folder): the stamp lives and dies with it."""
    not_inputs: tuple[str, ...]
    """Entries of the client folder (paths relative to it) that do not go into the build."""


BUILDS: dict[str, Build] = {
    # tsc compiles src/ and gen/ (tsconfig.json) against node_modules (package-lock.json) into dist/.
    "typescript": Build("typescript", "typescript", "dist", ("dist", "node_modules")),
    # mvn install compiles gen/ into client/target (the library, installed into ~/.m2) and
    # conformance/src into conformance/target (the poms); conformance/run only launches it.
    "java": Build("java", "java", "conformance/target", ("client/target", "conformance/target", "conformance/run")),
    # cargo builds src/ and gen/ (Cargo.toml, Cargo.lock) into target/; codegen/ is the buf plugin
    # that writes gen/ (a workspace member the conformance binary does not link).
    "rust": Build("rust", "rust", "target", ("target", "codegen")),
}


def folder_of(build: Build) -> Path:
    """The client folder of ``build`` in this repository."""
    return CLIENTS / build.folder


def stamp_path(build: Build, folder: Path) -> Path:
    """Where the stamp of ``build`` (in ``folder``) is written."""
    return folder / build.stamp_dir / STAMP


def inputs(build: Build, folder: Path) -> dict[str, str]:
    """Every input file of the build, by path relative to ``folder``, with its content's sha256."""
    hashes: dict[str, str] = {}
    for directory, subdirectories, files in os.walk(folder):
        here = Path(directory)
        relative = here.relative_to(folder)
        subdirectories[:] = [name for name in subdirectories if (relative / name).as_posix() not in build.not_inputs]
        files = [name for name in files if (relative / name).as_posix() not in build.not_inputs]
        subdirectories.sort()
        for name in sorted(files):
            if name.endswith(".md"):
                continue
            path = here / name
            hashes[path.relative_to(folder).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return dict(sorted(hashes.items()))


def digest(hashes: dict[str, str]) -> str:
    """One sha256 over every input's path and hash."""
    whole = hashlib.sha256()
    for path, sha in sorted(hashes.items()):
        whole.update(f"{path}\0{sha}\n".encode())
    return whole.hexdigest()


def write_stamp(build: Build, folder: Path, hashes: dict[str, str]) -> None:
    """Record ``hashes`` as what the outputs of ``build`` were built from."""
    target = stamp_path(build, folder)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    tmp.write_text(json.dumps({"language": build.language, "digest": digest(hashes), "inputs": hashes}, indent=1))
    tmp.replace(target)


def stale(build: Build, folder: Path) -> str | None:
    """Why the outputs of ``build`` do not match its inputs now, or None when they do."""
    target = stamp_path(build, folder)
    try:
        recorded = json.loads(target.read_text())
        built: dict[str, str] = dict(recorded["inputs"])
        if recorded["digest"] != digest(built):
            raise ValueError("the digest does not match the inputs")
    except FileNotFoundError:
        return f"{target.relative_to(folder)} is missing (not built by scripts/build-clients, or its build failed)"
    except (ValueError, KeyError, TypeError) as error:
        return f"{target.relative_to(folder)} is unreadable ({error})"
    now = inputs(build, folder)
    if now == built:
        return None
    changes = [f"{path} changed" for path in now if path in built and now[path] != built[path]]
    changes += [f"{path} is new" for path in now if path not in built]
    changes += [f"{path} was removed" for path in built if path not in now]
    more = f" and {len(changes) - SHOWN} more" if len(changes) > SHOWN else ""
    return "inputs differ from the build's: " + ", ".join(changes[:SHOWN]) + more


def run(build: Build, folder: Path, command: list[str]) -> int:
    """Run the build ``command`` in ``folder``; stamp its inputs when it succeeds and they held still.

    The old stamp goes first, so a failed or interrupted build leaves outputs that count as stale.
    """
    stamp_path(build, folder).unlink(missing_ok=True)
    before = inputs(build, folder)
    returncode = subprocess.run(command, cwd=folder, check=False).returncode
    if returncode != 0:
        return returncode
    if inputs(build, folder) != before:
        print(
            f"client_inputs: {build.language}: inputs changed during the build; not stamped (build again)",
            file=sys.stderr,
        )
        return 1
    write_stamp(build, folder, before)
    return 0


def main(argv: list[str]) -> int:
    """The command line (see the module docstring)."""
    if len(argv) >= 2 and argv[0] == "check" and argv[1] in BUILDS:
        build = BUILDS[argv[1]]
        why = stale(build, folder_of(build))
        if why:
            print(f"{build.language}: stale: {why}", file=sys.stderr)
            return 1
        return 0
    if len(argv) >= 4 and argv[0] == "run" and argv[1] in BUILDS and argv[2] == "--":
        build = BUILDS[argv[1]]
        return run(build, folder_of(build), argv[3:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
