"""A hub in a subprocess, for fault tests: start, SIGKILL, restart on the same data directory.

The hub binds 127.0.0.1:0 and writes its address to a file (``--address-file``), so nothing
races for a port. Readiness is the gRPC health check.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

ADMIN_TOKEN = "harness-admin-token-0123456789"


class HubProcess:
    """One hub process over a data directory that outlives it."""

    def __init__(
        self,
        data_dir: Path,
        *,
        durability: str = "full",
        extra_args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.durability = durability
        self.extra_args = extra_args
        self.env = env or {}
        self.process: subprocess.Popen[bytes] | None = None
        self.address = ""
        self.log_path = data_dir.parent / f"{data_dir.name}-hub.log"
        self.starts = 0

    def start(self, timeout: float = 15.0) -> str:
        """Start the hub and wait until it serves; return its address."""
        address_file = self.data_dir.parent / f"{self.data_dir.name}.address"
        address_file.unlink(missing_ok=True)
        env = {**os.environ, "GRPC_VERBOSITY": "ERROR", **self.env}
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kxm_grpc.cli",
                "hub",
                "serve",
                "--port",
                "0",
                "--data-dir",
                str(self.data_dir),
                "--durability",
                self.durability,
                "--rate-limit",
                "1000000",
                "--log-format",
                "json",
                "--shutdown-grace",
                "1",
                "--admin-token",
                ADMIN_TOKEN,
                "--address-file",
                str(address_file),
                *self.extra_args,
            ],
            stdout=log,
            stderr=log,
            env=env,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"hub exited with {self.process.returncode}; see {self.log_path}")
            address = self._reported_address(address_file)
            if address and self._serving(address):
                self.address = address
                self.starts += 1
                return address
            time.sleep(0.05)
        self.kill()
        raise TimeoutError(f"hub did not become ready within {timeout} s; see {self.log_path}")

    @staticmethod
    def _reported_address(path: Path) -> str | None:
        try:
            return path.read_text().strip() or None
        except OSError:
            return None

    @staticmethod
    def _serving(address: str) -> bool:
        try:
            with grpc.insecure_channel(address) as channel:
                response = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=0.5)
        except grpc.RpcError:
            return False
        return response.status == health_pb2.HealthCheckResponse.SERVING

    @property
    def pid(self) -> int:
        """The hub's process id."""
        assert self.process is not None
        return self.process.pid

    def kill(self) -> None:
        """SIGKILL the hub (no chance to flush or close anything) and reap it."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def restart(self) -> str:
        """kill -9, then start again on the same data directory."""
        self.kill()
        return self.start()

    def stop(self, timeout: float = 10.0) -> int:
        """SIGTERM (graceful shutdown) and wait; return the exit code."""
        if self.process is None or self.process.poll() is not None:
            return self.process.returncode if self.process else 0
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return -9
