"""Hub settings: flags, then ``KXM_*`` environment variables, then defaults."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path

from kxm_grpc.store import Durability

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7331


class SettingsError(ValueError):
    """The settings are unsafe or out of range; the hub refuses to start."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Settings:
    """Everything the hub process needs to start. Durations are in seconds."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    data_dir: Path = Path(".kxm")
    database: str = ""
    admin_token: str | None = None
    durability: Durability = Durability.FULL
    rate_limit: int = 600
    rate_window: float = 60.0
    stale_after: float = 30.0
    log_format: str = "auto"
    log_level: str = "info"
    tls_cert: Path | None = None
    tls_key: Path | None = None
    tls_client_ca: Path | None = None
    message_ttl: float = 86_400.0
    message_retention: float = 604_800.0
    shutdown_grace: float = 5.0
    max_streams_per_agent: int = 8
    subscriber_queue: int = 1_000
    # Prometheus metrics: off (None), or this port (0 picks one) on metrics_host, loopback by default
    # whatever host gRPC binds; beyond loopback every scrape needs the admin token.
    metrics_port: int | None = None
    metrics_host: str = DEFAULT_HOST
    # Testing only: fault tests lower the 5 s minimum lease TTL to make holders lapse quickly.
    lease_min_ttl: float = 5.0
    address_file: Path | None = None

    @property
    def database_path(self) -> str:
        """The SQLite file (or ``:memory:``)."""
        return self.database or str(self.data_dir / "hub.db")

    @property
    def credentials_path(self) -> Path:
        """Where a zero-configuration hub writes its generated tokens (mode 0600)."""
        return self.data_dir / "credentials.json"

    @property
    def sweep_interval(self) -> float:
        """How often the sweeps run."""
        return max(0.25, self.stale_after / 3)

    def validate(self) -> Settings:
        """Return self if the settings are safe.

        Raises:
            SettingsError: unsafe binding or a value below its minimum.
        """
        if not is_loopback(self.host) and not self.admin_token:
            raise SettingsError(
                f"binding {self.host} beyond loopback needs an explicit admin token (--admin-token or KXM_ADMIN_TOKEN)"
            )
        if not 0 <= self.port <= 65535:
            raise SettingsError("port must be between 0 and 65535")
        if self.metrics_port is not None:
            if not 0 <= self.metrics_port <= 65535:
                raise SettingsError("metrics port must be between 0 and 65535")
            if not is_loopback(self.metrics_host) and not self.admin_token:
                raise SettingsError(
                    f"serving metrics on {self.metrics_host} beyond loopback needs an explicit admin token"
                    " (--admin-token or KXM_ADMIN_TOKEN): every scrape must present it"
                )
        if self.stale_after < 0.1:
            raise SettingsError("stale-after must be at least 0.1 s")
        # Written this way round so NaN is refused too; infinity would make a stop wait forever.
        if not 0 <= self.shutdown_grace <= 3_600:
            raise SettingsError("shutdown-grace must be between 0 and 3600 s")
        if self.rate_limit < 1 or self.rate_window < 0.1:
            raise SettingsError("rate limit must be at least 1 request per 0.1 s window")
        if not 0.05 <= self.lease_min_ttl <= 5.0:
            raise SettingsError("lease-min-ttl must be between 0.05 s and 5 s (it exists for tests)")
        if self.message_ttl < 1 or self.message_retention < 1:
            raise SettingsError("message TTL and retention must be at least 1 s")
        if self.message_ttl > 604_800:
            raise SettingsError("the default message TTL must be at most 7 days (604800 s)")
        if self.max_streams_per_agent < 1 or self.subscriber_queue < 1:
            raise SettingsError("max streams per agent and the subscriber queue must be at least 1")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise SettingsError("TLS needs both a certificate and a key")
        if self.tls_client_ca is not None and self.tls_cert is None:
            raise SettingsError("mTLS (a client CA) needs a server certificate and key")
        if self.admin_token is not None and len(self.admin_token) < 16:
            raise SettingsError("the admin token must be at least 16 characters")
        return self
