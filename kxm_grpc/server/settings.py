"""Hub settings: flags, then ``KXM_*`` environment variables, then defaults.

``Settings`` is the one source of all three. Each field carries an ``Option`` in its metadata: its
help line, how text becomes its value, its choices, how its default reads, whether it is for tests
only, and the older spellings still accepted. The flag and the variable follow from the field's
name (``message_ttl``: ``--message-ttl``, ``KXM_MESSAGE_TTL``). ``kxm hub serve`` builds its parser
from ``options()`` (``kxm_grpc/cli/hub.py``), and ``scripts/gen_settings_doc.py`` writes the
settings table of docs/operations.md from them (``scripts/check-generated`` fails on drift).
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import functools
import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from kxm_grpc import defaults
from kxm_grpc.domain import leases as lease_rules
from kxm_grpc.domain.clock import MICROS
from kxm_grpc.store import Durability, StoreError
from kxm_grpc.store.url import SQLITE_BUSY_TIMEOUT, parse_database_url

DEFAULT_HOST = defaults.HOST
DEFAULT_PORT = defaults.PORT

T = TypeVar("T")

LOG_LEVELS = ("debug", "info", "warning", "error")
"""What ``--log-level`` accepts (any other name crashed the hub's logging setup)."""

_OPTION = "kxm_option"
"""The metadata key of a field's ``Option``."""


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


def optional_text(value: str) -> str | None:
    """The text, or None when it is empty (an empty ``KXM_ADMIN_TOKEN`` is no token)."""
    return value or None


def optional_path(value: str) -> Path | None:
    """A path, or None when the text is empty (an empty ``KXM_TLS_CERT`` is no certificate)."""
    return Path(value) if value else None


def origins(value: str) -> tuple[str, ...]:
    """A comma-separated list of browser origins (``https://app.example``) or ``*``; empty: none.

    Raises:
        argparse.ArgumentTypeError: an entry is neither ``*`` nor ``scheme://host[:port]``.
    """
    entries = tuple(entry.strip() for entry in value.split(",") if entry.strip())
    for entry in entries:
        scheme, sep, rest = entry.partition("://")
        if entry != "*" and (not sep or scheme not in ("http", "https") or not rest or "/" in rest):
            raise argparse.ArgumentTypeError(f"not an origin (scheme://host[:port]) or '*': {entry!r}")
    return entries


def port_or_off(value: str) -> int | None:
    """A port number, or None for ``off`` (or empty).

    Raises:
        argparse.ArgumentTypeError: neither (argparse names the flag in its usage error).
    """
    if value.strip().lower() in ("", "off"):
        return None
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port or 'off': {value!r}") from None


def database_url(value: str) -> str:
    """A database URL or bare SQLite path, as given, once the store can open it (empty: the default).

    Raises:
        argparse.ArgumentTypeError: an unsupported scheme or a malformed URL (the message names the forms).
    """
    if value:
        try:
            parse_database_url(value)
        except StoreError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return value


@dataclass(frozen=True)
class Option:
    """How one setting is given (flag, ``KXM_*`` variable), parsed and documented.

    ``name``, ``flag``, ``env`` and ``default`` are filled in from the field by ``options()``.
    """

    help: str
    """One line, for ``--help`` and the docs table alike (plain text: no Markdown, no ``%``)."""
    parse: Callable[[str], Any] | None = None
    """Text (a flag's value or a variable's) to the field's value; None: by the default's type."""
    choices: tuple[str, ...] = ()
    """The accepted texts (an enum default lists its values by itself)."""
    fold_case: bool = False
    """A choice is read in any case (``INFO`` is ``info``)."""
    default_text: str | None = None
    """How the default reads when its value says too little (``off``, ``DATA_DIR/hub.db``)."""
    seconds: bool = False
    """The value is a duration in seconds (shown as ``86400 s (24 h)``)."""
    metavar: str | None = None
    testing: bool = False
    """For tests only: marked so in ``--help`` and listed apart in the docs."""
    aliases: tuple[str, ...] = ()
    """Older flags still accepted."""
    env_aliases: tuple[str, ...] = ()
    """Older variables still read when the main one is unset."""
    name: str = ""
    flag: str = ""
    env: str = ""
    default: Any = None

    @property
    def flags(self) -> tuple[str, ...]:
        """Every flag that sets it, the main one first."""
        return (self.flag, *self.aliases)

    @property
    def envs(self) -> tuple[str, ...]:
        """Every variable that sets it, in the order they are read."""
        return (self.env, *self.env_aliases)

    @property
    def accepted(self) -> tuple[str, ...]:
        """The accepted texts, if the setting is a choice."""
        if isinstance(self.default, enum.Enum):
            return tuple(str(member.value) for member in type(self.default))
        return self.choices

    def from_env(self, environ: Mapping[str, str]) -> str | None:
        """The text the environment gives, or None when no variable of it is set."""
        for name in self.envs:
            if name in environ:
                return environ[name]
        return None

    @property
    def parser(self) -> Callable[[str], Any]:
        """Text to the field's value: argparse's ``type`` for the flag and its variables alike.

        A plain ``int`` or ``float`` stays itself, so a malformed value reads as argparse says it
        (``invalid int value: 'x'``); a choice is checked for variables too (argparse checks
        ``choices`` only on the command line), with argparse's wording.
        """
        accepted = self.accepted
        if accepted:
            make = type(self.default) if isinstance(self.default, enum.Enum) else str

            def choice(text: str) -> Any:
                if self.fold_case:
                    text = text.lower()
                if text not in accepted:
                    listed = ", ".join(map(repr, accepted))
                    raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from {listed})")
                return make(text)

            return choice
        if self.parse is not None:
            return self.parse
        return type(self.default)

    def convert(self, text: str) -> Any:
        """The field's value for ``text``.

        Raises:
            argparse.ArgumentTypeError: not one of the choices, or not a port or ``off``.
            ValueError: not a number.
        """
        return self.parser(text)

    def shown_default(self, *, markdown: bool = False) -> str:
        """The default as ``--help`` (or, with ``markdown``, the docs table) shows it."""
        if self.default_text is not None:
            return self.default_text
        value = self.default
        if value is None:
            return "off"
        if isinstance(value, enum.Enum):
            value = value.value
        text = f"{value:g}" if isinstance(value, float) else str(value)
        shown = f"`{text}`" if markdown else text
        if self.seconds:
            shown += f" s{_long_duration(float(value))}"
        return shown

    def help_text(self) -> str:
        """The ``--help`` line: what it does, its variables and its default."""
        prefix = "TESTING ONLY: " if self.testing else ""
        text = f"{prefix}{self.help} (env {', '.join(self.envs)}; default: {self.shown_default()})"
        return text.replace("%", "%%")


def _long_duration(value: float) -> str:
    """`` (24 h)`` or `` (7 d)`` for a long whole duration; empty otherwise."""
    day, hour = 86_400, 3_600
    if value >= 2 * day and value % day == 0:
        return f" ({value / day:g} d)"
    if value >= hour and value % hour == 0:
        return f" ({value / hour:g} h)"
    return ""


def setting(default: T, help: str, **option: Any) -> T:
    """A ``Settings`` field: its default and its ``Option`` (see there for the keywords)."""
    return dataclasses.field(default=default, metadata={_OPTION: Option(help=help, **option)})


@dataclass(frozen=True)
class Settings:
    """Everything the hub process needs to start. Durations are in seconds.

    Every field is a ``setting(...)``: the order here is the order of ``--help`` and the docs.
    """

    host: str = setting(DEFAULT_HOST, "bind address of the gRPC listener; anything beyond loopback needs --admin-token")
    port: int = setting(DEFAULT_PORT, "gRPC port; 0 picks a free one (see --address-file)")
    data_dir: Path = setting(
        Path(defaults.DATA_DIR), "state directory (mode 0700): the database and credentials.json", metavar="DIR"
    )
    database: str = setting(
        "",
        "database URL: sqlite:///RELATIVE/PATH, sqlite:////ABSOLUTE/PATH or sqlite://:memory: (nothing persists);"
        " a bare path is a SQLite file; postgresql://USER@HOST:PORT/DB for replicas sharing one database",
        parse=database_url,
        default_text="DATA_DIR/hub.db",
        metavar="URL",
    )
    admin_token: str | None = setting(
        None,
        "admin token, at least 16 characters; a loopback hub without one generates it into DATA_DIR/credentials.json",
        parse=optional_text,
        default_text="generated on loopback",
        metavar="TOKEN",
    )
    admin_token_file: Path | None = setting(
        None,
        "a file whose first line is the admin token, so it is never in ps or the environment; not with --admin-token",
        parse=optional_path,
        metavar="FILE",
    )
    config: Path | None = setting(
        None,
        "a TOML file of settings (keys: these flags without --); flags and KXM_* variables override it",
        parse=optional_path,
        metavar="FILE",
    )
    durability: Durability = setting(
        Durability.FULL, "full: acknowledged writes survive power loss; normal: they survive a hub crash"
    )
    rate_limit: int = setting(
        600, "tokens per identity per --rate-window; an ordinary call costs 1 (docs/api.md)", metavar="N"
    )
    rate_window: float = setting(60.0, "the rate limit's window", seconds=True, metavar="SECONDS")
    stale_after: float = setting(
        30.0,
        "presence window: an agent or runtime without a heartbeat for this long is stale",
        seconds=True,
        metavar="SECONDS",
    )
    replica_ttl: float = setting(
        5.0,
        "replicas on a shared database: one that misses heartbeats this long is gone (its streams stop counting)"
        " and its sweeper role passes to another; heartbeats every fifth of it",
        seconds=True,
        metavar="SECONDS",
    )
    log_format: str = setting(
        "auto", "json: JSON lines; console: readable; auto: console on a terminal", choices=("auto", "json", "console")
    )
    log_level: str = setting("info", "debug, info, warning or error", choices=LOG_LEVELS, fold_case=True)
    tracing: str = setting(
        "off",
        "OpenTelemetry spans, one per call: off, otlp (the OTEL_* variables configure the exporter) or console",
        choices=("off", "otlp", "console"),
    )
    tls_cert: Path | None = setting(
        None, "PEM certificate: serve TLS (with --tls-key)", parse=optional_path, metavar="PATH"
    )
    tls_key: Path | None = setting(None, "PEM private key of --tls-cert", parse=optional_path, metavar="PATH")
    tls_client_ca: Path | None = setting(
        None,
        "PEM CA bundle: require client certificates signed by it (mTLS)",
        parse=optional_path,
        metavar="PATH",
    )
    message_ttl: float = setting(86_400.0, "default message time to live", seconds=True, metavar="SECONDS")
    message_retention: float = setting(
        604_800.0, "how long terminal messages are kept", seconds=True, metavar="SECONDS"
    )
    shutdown_grace: float = setting(
        5.0, "drain time on SIGTERM for running calls (0 to 3600)", seconds=True, metavar="SECONDS"
    )
    max_streams_per_agent: int = setting(8, "open Subscribe streams allowed per agent", metavar="N")
    subscriber_queue: int = setting(
        1_000, "events a stream may fall behind before it is cut off (it resumes from its cursor)", metavar="N"
    )
    max_connection_idle: float = setting(
        300.0,
        "close a connection that has had no call in progress this long (GOAWAY, then close: abandoned"
        " connections give their file descriptors back; a client reconnects at its next call); 0: never",
        seconds=True,
        metavar="SECONDS",
    )
    # Prometheus metrics: off (None), or this port (0 picks one) on metrics_host, loopback by default
    # whatever host gRPC binds; beyond loopback every scrape needs the admin token, and TLS (with the
    # gRPC certificate) so the token never crosses the network in cleartext.
    metrics_port: int | None = setting(
        None,
        "serve Prometheus GET /metrics on this port (the private listener's first route);"
        " 0 picks a free one (logged in hub_started)",
        parse=port_or_off,
        metavar="PORT",
    )
    metrics_host: str = setting(
        DEFAULT_HOST,
        "metrics bind address, whatever --host is; beyond loopback needs --admin-token and --tls-cert,"
        " and every scrape must send 'Authorization: Bearer <admin token>' (over TLS whenever --tls-cert is set)",
        metavar="HOST",
    )
    # The private HTTP listener's API routes (decision 43, docs/tools.md): off unless a port is
    # given, loopback unless a host is; beyond loopback only with TLS, since every request carries
    # a bearer token.
    http_port: int | None = setting(
        None,
        "serve every unary and server-streaming RPC over HTTP (Connect JSON or binary, gRPC-Web) on this"
        " port, the private listener; 0 picks a free one (logged in hub_started)",
        parse=port_or_off,
        metavar="PORT",
    )
    http_host: str = setting(
        DEFAULT_HOST,
        "HTTP API bind address, whatever --host is; beyond loopback needs --tls-cert (the hub's certificate serves it)",
        metavar="HOST",
    )
    http_cors_origin: tuple[str, ...] = setting(
        (),
        "browser origins allowed to call the HTTP API (comma-separated, or *): preflights are answered and"
        " responses carry Access-Control-Allow-Origin for them; empty: CORS off",
        parse=origins,
        default_text="off",
        metavar="ORIGINS",
    )
    # A plaintext grpc.health.v1 listener for probes (decision 261): off unless a port is given,
    # loopback unless a host is. It serves the health service alone, so a probe that cannot present
    # the hub's CA (a container's exec probe, a load balancer) checks a TLS hub without TLS.
    health_port: int | None = setting(
        None,
        "also serve grpc.health.v1 alone, in plaintext, on this port (for probes beside a TLS listener);"
        " 0 picks a free one (logged in hub_started)",
        parse=port_or_off,
        metavar="PORT",
    )
    health_host: str = setting(
        DEFAULT_HOST,
        "plaintext health listener bind address, whatever --host is; set 0.0.0.0 for a probe from outside"
        " the host (kubelet): it answers only serving or not",
        metavar="HOST",
    )
    # The public webhook listener (decision 43): off unless a port is given, loopback unless a host
    # is. It serves only the HMAC-signed workflow routes, so it may face the internet; a reverse
    # proxy may terminate TLS in front of it, or it serves TLS itself.
    webhook_port: int | None = setting(
        None,
        "serve the signed workflow webhook routes (POST /v1/webhooks/...) on this port, the public listener;"
        " 0 picks a free one (logged in hub_started)",
        parse=port_or_off,
        metavar="PORT",
    )
    webhook_host: str = setting(
        DEFAULT_HOST,
        "webhook listener bind address, whatever --host is; set 0.0.0.0 (or a public address) for senders"
        " beyond this machine: every route checks the sender's HMAC signature",
        metavar="HOST",
    )
    webhook_rate_limit: int = setting(
        600,
        "webhook requests per minute for each source address, and signed requests per minute for each"
        " workflow definition (two budgets; 429 with Retry-After beyond either)",
        metavar="N",
    )
    webhook_tls_cert: Path | None = setting(
        None,
        "PEM certificate of the webhook listener (with --webhook-tls-key); unset: --tls-cert if set, else plain"
        " HTTP (for a TLS-terminating proxy in front)",
        parse=optional_path,
        metavar="PATH",
    )
    webhook_tls_key: Path | None = setting(
        None, "PEM private key of --webhook-tls-cert", parse=optional_path, metavar="PATH"
    )
    workflow_replay_horizon: int = setting(
        7_776_000,
        "how long workflow start delivery ids, body hashes and signal receipts are kept to refuse replays"
        " (at least 600 s, longer than --workflow-retention)",
        seconds=True,
        metavar="SECONDS",
    )
    max_concurrent_runs: int = setting(
        8, "step runs a project may have active at once (running or blocked); more wait queued", metavar="N"
    )
    workflow_retention: float = setting(
        604_800.0,
        "how long a workflow run is kept after it ends (shorter than --workflow-replay-horizon)",
        seconds=True,
        metavar="SECONDS",
    )
    context_retention: int = setting(
        604_800,
        "how long a superseded or rejected context item is kept after it ended"
        " (state items: --context-state-retention)",
        seconds=True,
        metavar="SECONDS",
    )
    context_state_retention: int = setting(
        2_592_000,
        "how long superseded and rejected state items are kept after they ended: the history as-of reads see",
        seconds=True,
        metavar="SECONDS",
    )
    skill_optimization: str = setting(
        "off",
        "on: EvaluateSkill and gates declaring evaluates: optimization record optimization evaluations; off:"
        " EvaluateSkill refuses them (SKILL_OPTIMIZATION_DISABLED), such gates record nothing",
        choices=("off", "on"),
    )
    journal_key_file: Path | None = setting(
        None,
        "workflow journal keys, one '<key id> <hex secret>' per line, the first sealing (the same file for every"
        " replica; keep retired keys to verify old journals); unset: a key derived from the admin token",
        parse=optional_path,
        default_text="derived from the admin token",
        metavar="PATH",
    )
    token_key_file: Path | None = setting(
        None,
        "attempt and session token keys, one '<key id> <hex secret>' per line, the first signing (the same file for"
        " every replica; keep retired keys until their tokens expired); unset: a key derived from the admin token",
        parse=optional_path,
        default_text="derived from the admin token",
        metavar="PATH",
    )
    address_file: Path | None = setting(
        None, "write the bound host:port here once serving (useful with --port 0)", parse=optional_path, metavar="PATH"
    )
    workflows: Path | None = setting(
        None,
        "import the workflow definitions (stage and step workflows) and gate registries (<project>.gates.yaml) "
        "of every .json, .yaml and .yml file in this directory at start (one that breaks a rule stops the hub)",
        parse=optional_path,
        metavar="DIR",
    )
    # Production never changes the domain's 5 s minimum; fault tests lower it so holders lapse fast.
    testing_lease_min_ttl: float = setting(
        lease_rules.MIN_TTL / MICROS,
        "lower the minimum lease TTL (0.05 to 5) so fault tests see holders lapse quickly",
        seconds=True,
        metavar="SECONDS",
        testing=True,
        aliases=("--lease-min-ttl",),
        env_aliases=("KXM_LEASE_MIN_TTL",),
    )
    # A SQLite hub owns its file; only a foreign process (a tool, an operator's shell) can hold its
    # lock. The storage battery (B14b) shortens the wait to see the refusal and the recovery quickly.
    testing_busy_timeout: float = setting(
        SQLITE_BUSY_TIMEOUT,
        "SQLite: how long a write waits for another process's lock on the database before it fails"
        " with UNAVAILABLE (0.1 to 60)",
        seconds=True,
        metavar="SECONDS",
        testing=True,
    )
    # Production keeps 30 s and 10 s (a dead peer's streams are reaped within 40 s); fault tests
    # shorten both so a stopped client's streams are reaped within seconds.
    testing_keepalive_time: float = setting(
        30.0,
        "how often the hub pings each connection to find dead peers (0.1 to 7200)",
        seconds=True,
        metavar="SECONDS",
        testing=True,
    )
    testing_keepalive_timeout: float = setting(
        10.0,
        "how long a ping may go unanswered before the hub closes the connection and ends its calls (0.1 to 600)",
        seconds=True,
        metavar="SECONDS",
        testing=True,
    )

    @property
    def database_path(self) -> str:
        """The database URL or bare SQLite path the store opens (``kxm_grpc/store/url.py``)."""
        return self.database or str(self.data_dir / "hub.db")

    @property
    def credentials_path(self) -> Path:
        """Where a zero-configuration hub writes its generated tokens (mode 0600)."""
        return self.data_dir / "credentials.json"

    @property
    def sweep_interval(self) -> float:
        """How often the sweeps run."""
        return max(0.25, self.stale_after / 3)

    def _admin_token_from_file(self, path: Path) -> str:
        if self.admin_token is not None:
            raise SettingsError("give the admin token once: --admin-token or --admin-token-file, not both")
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise SettingsError(f"admin token file {path}: cannot be read ({error})") from None
        token = lines[0].strip() if lines else ""
        if not token:
            raise SettingsError(f"admin token file {path}: its first line is empty")
        return token

    def validate(self) -> Settings:
        """Return self if the settings are safe.

        Raises:
            SettingsError: unsafe binding, a value below its minimum, or an unknown log level; an
                admin token file that cannot be read, is empty, or comes with --admin-token.
        """
        if self.admin_token_file is not None:
            return dataclasses.replace(
                self, admin_token=self._admin_token_from_file(self.admin_token_file), admin_token_file=None
            ).validate()
        if self.database and parse_database_url(self.database).shared and not self.admin_token:
            # Zero-configuration would give each replica its own admin token (and let one rotate the
            # default project's token under the others): replicas share one, given to each.
            raise SettingsError(
                "a shared database (postgresql://) needs --admin-token (KXM_ADMIN_TOKEN), the same for every replica"
            )
        if not is_loopback(self.host) and not self.admin_token:
            raise SettingsError(
                f"binding {self.host} beyond loopback needs an explicit admin token (--admin-token or KXM_ADMIN_TOKEN)"
            )
        if not 0 <= self.port <= 65535:
            raise SettingsError("port must be between 0 and 65535")
        if self.log_level.lower() not in LOG_LEVELS:
            # The flag checks its choices; this catches Settings built in code (an embedded hub).
            raise SettingsError(f"log level must be one of {', '.join(LOG_LEVELS)}, not {self.log_level!r}")
        if self.metrics_port is not None:
            if not 0 <= self.metrics_port <= 65535:
                raise SettingsError("metrics port must be between 0 and 65535")
            if not is_loopback(self.metrics_host) and not self.admin_token:
                raise SettingsError(
                    f"serving metrics on {self.metrics_host} beyond loopback needs an explicit admin token"
                    " (--admin-token or KXM_ADMIN_TOKEN): every scrape must present it"
                )
            if not is_loopback(self.metrics_host) and (self.tls_cert is None or self.tls_key is None):
                raise SettingsError(
                    f"serving metrics on {self.metrics_host} beyond loopback needs TLS (--tls-cert and --tls-key):"
                    " every scrape sends the admin token, which would cross the network in cleartext"
                )
        if self.http_port is not None:
            if not 0 <= self.http_port <= 65535:
                raise SettingsError("http port must be between 0 and 65535")
            if not is_loopback(self.http_host) and (self.tls_cert is None or self.tls_key is None):
                raise SettingsError(
                    f"serving the HTTP API on {self.http_host} beyond loopback needs TLS (--tls-cert and --tls-key):"
                    " every request carries a bearer token, which would cross the network in cleartext"
                )
        if self.health_port is not None and not 0 <= self.health_port <= 65535:
            raise SettingsError("health port must be between 0 and 65535")
        if self.webhook_port is not None and not 0 <= self.webhook_port <= 65535:
            raise SettingsError("webhook port must be between 0 and 65535")
        if self.webhook_rate_limit < 1:
            raise SettingsError("webhook rate limit must be at least 1 request per minute")
        if (self.webhook_tls_cert is None) != (self.webhook_tls_key is None):
            raise SettingsError("webhook TLS needs both --webhook-tls-cert and --webhook-tls-key")
        # A signed request verifies for 300 s either side of its timestamp: its delivery record must
        # outlive that whole window, or a captured request could be replayed once it is forgotten.
        if not 600 <= self.workflow_replay_horizon <= 3_650 * 86_400:
            raise SettingsError("workflow-replay-horizon must be between 600 s and 3650 days")
        if not 1 <= self.workflow_retention < self.workflow_replay_horizon:
            raise SettingsError(
                "workflow-retention must be at least 1 s and shorter than workflow-replay-horizon"
                " (replays must stay refused after a run is purged)"
            )
        if not (1 <= self.context_retention <= 3_650 * 86_400 and 1 <= self.context_state_retention <= 3_650 * 86_400):
            raise SettingsError("context-retention and context-state-retention must be between 1 s and 3650 days")
        if self.stale_after < 0.1:
            raise SettingsError("stale-after must be at least 0.1 s")
        if not 0.5 <= self.replica_ttl <= 600:
            raise SettingsError("replica-ttl must be between 0.5 s and 600 s")
        # Written this way round so NaN is refused too; infinity would make a stop wait forever.
        if not 0 <= self.shutdown_grace <= 3_600:
            raise SettingsError("shutdown-grace must be between 0 and 3600 s")
        if self.rate_limit < 1 or self.rate_window < 0.1:
            raise SettingsError("rate limit must be at least 1 request per 0.1 s window")
        if not 0.05 <= self.testing_lease_min_ttl <= 5.0:
            raise SettingsError("testing-lease-min-ttl must be between 0.05 s and 5 s (it exists for tests)")
        if not 0.1 <= self.testing_busy_timeout <= 60.0:
            raise SettingsError("testing-busy-timeout must be between 0.1 s and 60 s (it exists for tests)")
        if self.message_ttl < 1 or self.message_retention < 1:
            raise SettingsError("message TTL and retention must be at least 1 s")
        if self.message_ttl > 604_800:
            raise SettingsError("the default message TTL must be at most 7 days (604800 s)")
        if not 1 <= self.max_concurrent_runs <= 10_000:
            raise SettingsError("max-concurrent-runs must be between 1 and 10000")
        if self.max_streams_per_agent < 1 or self.subscriber_queue < 1:
            raise SettingsError("max streams per agent and the subscriber queue must be at least 1")
        if not (self.max_connection_idle == 0 or 0.1 <= self.max_connection_idle <= 604_800):
            raise SettingsError("max-connection-idle must be 0 (never) or between 0.1 s and 7 days (604800 s)")
        if not 0.1 <= self.testing_keepalive_time <= 7_200:
            raise SettingsError("testing-keepalive-time must be between 0.1 s and 7200 s")
        if not 0.1 <= self.testing_keepalive_timeout <= 600:
            raise SettingsError("testing-keepalive-timeout must be between 0.1 s and 600 s")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise SettingsError("TLS needs both a certificate and a key")
        if self.tls_client_ca is not None and self.tls_cert is None:
            raise SettingsError("mTLS (a client CA) needs a server certificate and key")
        if self.admin_token is not None and len(self.admin_token) < 16:
            raise SettingsError("the admin token must be at least 16 characters")
        return self


@functools.cache
def options() -> tuple[Option, ...]:
    """Every setting's ``Option``, in field order, with its name, flag, variable and default.

    Raises:
        TypeError: a field of ``Settings`` was declared without ``setting(...)``.
    """
    found = []
    for field in dataclasses.fields(Settings):
        option = field.metadata.get(_OPTION)
        if not isinstance(option, Option):
            raise TypeError(f"Settings.{field.name} has no Option: declare it with setting(...)")
        found.append(
            dataclasses.replace(
                option,
                name=field.name,
                flag="--" + field.name.replace("_", "-"),
                env="KXM_" + field.name.upper(),
                default=field.default,
            )
        )
    return tuple(found)
