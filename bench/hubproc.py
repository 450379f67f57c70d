"""The hub under test, as its own process (``python -m kxm_grpc.cli hub serve``), like tests/harness.py."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.common import REPO, child_env

ADMIN_TOKEN = "bench-admin-token-0123456789"


class HubProcess:
    """One hub on 127.0.0.1:0 over a fresh data directory."""

    def __init__(self, data_dir: Path, *, durability: str = "full", extra_args: tuple[str, ...] = ()) -> None:
        self.data_dir = data_dir
        self.durability = durability
        self.extra_args = extra_args
        self.process: subprocess.Popen[bytes] | None = None
        self.address = ""
        self.log_path = data_dir.parent / f"{data_dir.name}-hub.log"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self, timeout: float = 30.0) -> str:
        """Start the hub and wait until its health check says SERVING; return its address."""
        address_file = self.data_dir.parent / f"{self.data_dir.name}.address"
        address_file.unlink(missing_ok=True)
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
                "100000000",
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
            env=child_env(),
            cwd=REPO,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"hub exited with {self.process.returncode}; see {self.log_path}")
            try:
                address = address_file.read_text().strip()
            except OSError:
                address = ""
            if address and self._serving(address):
                self.address = address
                return address
            time.sleep(0.05)
        self.stop()
        raise TimeoutError(f"hub did not become ready within {timeout} s; see {self.log_path}")

    @staticmethod
    def _serving(address: str) -> bool:
        try:
            with grpc.insecure_channel(address) as ch:
                response = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=0.5)
        except grpc.RpcError:
            return False
        return bool(response.status == health_pb2.HealthCheckResponse.SERVING)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, then SIGKILL if it does not stop in time."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)

    def __enter__(self) -> HubProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
