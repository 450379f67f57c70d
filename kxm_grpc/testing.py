"""A hub in its own process, for integration tests, fault tests and benchmarks.

``HubProcess`` runs ``python -m kxm_grpc.cli hub serve`` on 127.0.0.1:0 over a data directory that
outlives it, waits until the gRPC health check says SERVING, and can SIGKILL it and start it again
on the same directory. The hub writes its address to a file (``--address-file``), so nothing races
for a port.
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
        cwd: Path | None = None,
        admin_token: str = ADMIN_TOKEN,
        tls_ca: Path | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.tls_ca = tls_ca
        """The CA a hub serving TLS (``--tls-cert`` in ``extra_args``) is checked with while it starts."""
        self.durability = durability
        self.extra_args = extra_args
        self.env = env or {}
        self.cwd = cwd
        self.admin_token = admin_token
        self.process: subprocess.Popen[bytes] | None = None
        self.address = ""
        self.log_path = data_dir.parent / f"{data_dir.name}-hub.log"
        self.starts = 0

    def start(self, timeout: float = 30.0) -> str:
        """Start the hub and wait until it serves; return its address.

        Raises:
            RuntimeError: the hub exited (its log is at ``log_path``).
            TimeoutError: it did not serve within ``timeout`` seconds.
        """
        address_file = self.data_dir.parent / f"{self.data_dir.name}.address"
        address_file.unlink(missing_ok=True)
        env = {**os.environ, "GRPC_VERBOSITY": "ERROR", **self.env}
        # An empty admin token passes none: the extra arguments give it (--admin-token-file).
        admin = ("--admin-token", self.admin_token) if self.admin_token else ()
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "kxm_grpc.cli", "hub", "serve", "--port", "0",
                 "--data-dir", str(self.data_dir), "--durability", self.durability,
                 "--rate-limit", "100000000", "--log-format", "json", "--shutdown-grace", "1",
                 *admin, "--address-file", str(address_file), *self.extra_args],
                stdout=log, stderr=log, env=env, cwd=self.cwd,
            )  # fmt: skip
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"hub exited with {self.process.returncode}; see {self.log_path}")
            address = _read(address_file)
            if address and _serving(address, self.tls_ca):
                self.address = address
                self.starts += 1
                return address
            time.sleep(0.05)
        self.kill()
        raise TimeoutError(f"hub did not become ready within {timeout} s; see {self.log_path}")

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
        """SIGTERM (graceful shutdown) and wait; SIGKILL if it does not stop in time. Returns the exit code."""
        if self.process is None or self.process.poll() is not None:
            return self.process.returncode if self.process else 0
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return -9

    def __enter__(self) -> HubProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip() or None
    except OSError:
        return None


def _serving(address: str, tls_ca: Path | None = None) -> bool:
    if tls_ca is None:
        channel = grpc.insecure_channel(address)
    else:
        channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=tls_ca.read_bytes()))
    try:
        with channel:
            response = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=0.5)
    except grpc.RpcError:
        return False
    return bool(response.status == health_pb2.HealthCheckResponse.SERVING)
