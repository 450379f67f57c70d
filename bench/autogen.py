"""Microsoft AutoGen's distributed runtime as a peer row: its host in a process of its own, measured in the run.

AutoGen 0.7.5 pins grpcio ~1.70, so it runs from a virtual environment the bench makes for it
(``.bench/autogen-0.7.5`` at the repository root, made once, from the pins below; a half-made one
is made again). ``bench/autogen_peer.py`` is the only code run there: its ``host`` command serves
``GrpcWorkerAgentRuntimeHost`` and its ``drive`` command runs the core exchange through worker
runtimes (one per agent, as each hub agent has its own connection) and prints each repetition.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import shutil
import subprocess
import sys
from pathlib import Path

from bench.common import REPO, Rep, ServerProcess, child_env
from bench.config import Config

PINS = ("autogen-core==0.7.5", "autogen-ext[grpc]==0.7.5", "grpcio==1.70.0", "protobuf==5.29.6")
"""What the AutoGen environment holds: AutoGen as the issue names it, and the grpcio and protobuf it resolved to."""
VENV = REPO / ".bench" / "autogen-0.7.5"
PEER = REPO / "bench" / "autogen_peer.py"


def python() -> Path:
    """The AutoGen environment's interpreter, made first if it is missing or was made from other pins.

    Raises:
        subprocess.CalledProcessError: the environment could not be made (no package index, say).
    """
    interpreter = VENV / "bin" / "python"
    marker = VENV / ".pins"
    VENV.parent.mkdir(parents=True, exist_ok=True)
    with (VENV.parent / ".autogen.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two runs at once make it once
        if marker.exists() and marker.read_text() == "\n".join(PINS):
            return interpreter
        shutil.rmtree(VENV, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, capture_output=True)
        subprocess.run(
            [str(interpreter), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *PINS],
            check=True,
            capture_output=True,
            timeout=900,
        )
        marker.write_text("\n".join(PINS))
    return interpreter


class AutogenHost(ServerProcess):
    """``GrpcWorkerAgentRuntimeHost`` in its own process, on 127.0.0.1, run from the AutoGen environment."""

    settle = 0.2  # the host writes its address as it starts serving

    def __init__(self, work_dir: Path) -> None:
        super().__init__("autogen-host", work_dir)
        self.name = "the AutoGen host"
        self.cwd = work_dir

    def start(self, timeout: float = 30.0) -> str:
        """As ``ServerProcess.start``, waiting up to 30 s by default."""
        return super().start(timeout)

    def _command(self, address_file: Path) -> list[str]:
        return [str(python()), str(PEER), "host", "--address-file", str(address_file)]

    def _env(self) -> dict[str, str]:
        return _peer_env()


def _peer_env() -> dict[str, str]:
    """The environment of the AutoGen environment's processes."""
    env = child_env()
    env.pop("PYTHONPATH", None)  # nothing of the hub's environment
    return env


async def core_loop(address: str, pairs: int, cfg: Config, pid: int) -> list[Rep]:
    """The core exchange through AutoGen's host: ``send_message`` to a peer agent, its handler's reply.

    Raises:
        RuntimeError: the driver failed (its stderr's last line says why).
    """
    driver = await asyncio.create_subprocess_exec(
        str(python()),
        str(PEER),
        "drive",
        "--address",
        address,
        "--host-pid",
        str(pid),
        "--pairs",
        str(pairs),
        "--warmup",
        str(cfg.warmup),
        "--duration",
        str(cfg.duration),
        "--reps",
        str(cfg.reps),
        "--payload",
        str(cfg.payload_size),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=_peer_env(),
    )
    out, err = await driver.communicate()
    if driver.returncode != 0:
        last = (err.decode(errors="replace").strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"the AutoGen driver failed ({driver.returncode}): {last[:300]}")
    reps = []
    for line in out.decode().splitlines():
        rep = json.loads(line)
        reps.append(
            Rep(
                rate=rep["rate"],
                ops=rep["ops"],
                seconds=rep["seconds"],
                latencies=rep["latencies"],
                cpu_seconds=rep["cpu_seconds"],
                extra={"client_cpu_s": rep["client_cpu_s"]},
            )
        )
    return reps


if __name__ == "__main__":  # `python -m bench.autogen`: make the environment now (scripts/test does, before pytest)
    print(python())
