"""``kxm hub serve``'s flags, ``KXM_*`` variables and the docs table all come from ``Settings``."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from kxm_grpc import defaults
from kxm_grpc._gen.kxm.v1 import admin_service_pb2, admin_service_pb2_grpc
from kxm_grpc.cli import build_parser
from kxm_grpc.cli.hub import settings_from
from kxm_grpc.client.config import DEFAULT_ADDRESS
from kxm_grpc.server.settings import Settings, SettingsError, options
from kxm_grpc.store import Durability
from kxm_grpc.testing import HubProcess

ROOT = Path(__file__).resolve().parent.parent

# Users' scripts and unit files spell these: each must keep working whatever the model becomes.
TODAYS_FLAGS = {
    "--host": "KXM_HOST",
    "--port": "KXM_PORT",
    "--data-dir": "KXM_DATA_DIR",
    "--database": "KXM_DATABASE",
    "--admin-token": "KXM_ADMIN_TOKEN",
    "--durability": "KXM_DURABILITY",
    "--rate-limit": "KXM_RATE_LIMIT",
    "--rate-window": "KXM_RATE_WINDOW",
    "--stale-after": "KXM_STALE_AFTER",
    "--message-ttl": "KXM_MESSAGE_TTL",
    "--message-retention": "KXM_MESSAGE_RETENTION",
    "--log-format": "KXM_LOG_FORMAT",
    "--log-level": "KXM_LOG_LEVEL",
    "--tls-cert": "KXM_TLS_CERT",
    "--tls-key": "KXM_TLS_KEY",
    "--tls-client-ca": "KXM_TLS_CLIENT_CA",
    "--metrics-port": "KXM_METRICS_PORT",
    "--metrics-host": "KXM_METRICS_HOST",
    "--shutdown-grace": "KXM_SHUTDOWN_GRACE",
    "--max-streams-per-agent": "KXM_MAX_STREAMS_PER_AGENT",
    "--subscriber-queue": "KXM_SUBSCRIBER_QUEUE",
    "--address-file": "KXM_ADDRESS_FILE",
    "--lease-min-ttl": "KXM_LEASE_MIN_TTL",
}


@pytest.fixture(autouse=True)
def no_kxm_settings_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parser reads the environment when it is built: start every test from none of them."""
    for option in options():
        for name in option.envs:
            monkeypatch.delenv(name, raising=False)


def serve(*argv: str) -> Settings:
    """The settings ``kxm hub serve ARGV`` would start with (parsed in-process, not started)."""
    return settings_from(build_parser().parse_args(["hub", "serve", *argv]))


def serve_help() -> str:
    """``kxm hub serve --help``."""
    parser = build_parser()
    (commands,) = [a for a in parser._actions if a.dest == "group"]
    (hub_commands,) = [a for a in commands.choices["hub"]._actions if a.dest == "hub_command"]  # type: ignore[attr-defined]
    text: str = hub_commands.choices["serve"].format_help()  # type: ignore[attr-defined]
    return text


def test_every_field_is_a_setting_with_a_flag_and_a_variable() -> None:
    """Each field of ``Settings`` declares its Option; flags and variables follow from its name."""
    names = [field.name for field in dataclasses.fields(Settings)]

    assert [option.name for option in options()] == names
    for option in options():
        assert option.flag == "--" + option.name.replace("_", "-")
        assert option.env == "KXM_" + option.name.upper()
        assert option.help and "%" not in option.help and "`" not in option.help


def test_todays_flags_and_variables_keep_working() -> None:
    """Every flag and variable of the hand-written parser is still accepted, for the same setting."""
    accepted = {flag: option for option in options() for flag in option.flags}

    assert set(TODAYS_FLAGS) <= set(accepted)
    assert [env for flag, env in TODAYS_FLAGS.items() if env not in accepted[flag].envs] == []


def test_no_flag_or_variable_defaults_to_settings_defaults() -> None:
    """``kxm hub serve`` with nothing set starts with exactly ``Settings()``."""
    assert serve() == Settings()


def test_variables_are_parsed_like_flags_and_flags_win(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each variable goes through its flag's parser; empty optional values mean off; a flag beats its variable."""
    monkeypatch.setenv("KXM_PORT", "7400")
    monkeypatch.setenv("KXM_DURABILITY", "normal")
    monkeypatch.setenv("KXM_ADMIN_TOKEN", "")
    monkeypatch.setenv("KXM_TLS_CERT", "")
    monkeypatch.setenv("KXM_METRICS_PORT", "off")
    monkeypatch.setenv("KXM_MESSAGE_TTL", "60")
    monkeypatch.setenv("KXM_DATA_DIR", "/srv/kxm")
    monkeypatch.setenv("KXM_LEASE_MIN_TTL", "0.1")

    settings = serve("--port", "7500")

    assert settings.port == 7500
    assert settings.durability is Durability.NORMAL
    assert settings.admin_token is None and settings.tls_cert is None and settings.metrics_port is None
    assert settings.message_ttl == 60.0
    assert settings.data_dir == Path("/srv/kxm")
    assert settings.testing_lease_min_ttl == 0.1


def test_the_testing_hook_has_a_testing_name_and_keeps_its_old_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--testing-lease-min-ttl`` is the name; ``--lease-min-ttl`` and ``KXM_LEASE_MIN_TTL`` still set it."""
    assert serve("--testing-lease-min-ttl", "0.2").testing_lease_min_ttl == 0.2
    assert serve("--lease-min-ttl", "0.3").testing_lease_min_ttl == 0.3
    monkeypatch.setenv("KXM_LEASE_MIN_TTL", "0.4")
    assert serve().testing_lease_min_ttl == 0.4
    monkeypatch.setenv("KXM_TESTING_LEASE_MIN_TTL", "0.5")
    assert serve().testing_lease_min_ttl == 0.5  # the new variable is read first
    testing = [option.name for option in options() if option.testing]
    assert "testing_lease_min_ttl" in testing
    # Every testing-only setting, and only those, is named testing_* (so --help and the docs say so).
    assert testing == [option.name for option in options() if option.name.startswith("testing_")]


@pytest.mark.parametrize(
    ("env", "value", "message"),
    [
        ("KXM_PORT", "abc", "argument --port: invalid int value: 'abc'"),
        ("KXM_STALE_AFTER", "soon", "argument --stale-after: invalid float value: 'soon'"),
        ("KXM_METRICS_PORT", "x", "argument --metrics-port: not a port or 'off': 'x'"),
        ("KXM_DURABILITY", "bogus", "argument --durability: invalid choice: 'bogus' (choose from 'full', 'normal')"),
        ("KXM_LOG_FORMAT", "xml", "argument --log-format: invalid choice: 'xml'"),
        (
            "KXM_LOG_LEVEL",
            "verbose",
            "argument --log-level: invalid choice: 'verbose' (choose from 'debug', 'info', 'warning', 'error')",
        ),
    ],
)
def test_a_malformed_variable_is_a_usage_error_of_serve_alone(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], env: str, value: str, message: str
) -> None:
    """A bad ``KXM_*`` value fails ``hub serve`` with argparse's message (exit 2); other commands still parse."""
    monkeypatch.setenv(env, value)

    assert build_parser().parse_args(["health"]).group == "health"
    with pytest.raises(SystemExit) as exit_:
        serve()

    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_help_shows_every_flag_with_its_variable_and_default() -> None:
    """``--help`` names each setting's variable and default, and marks the testing-only ones."""
    text = " ".join(serve_help().split())  # argparse wraps lines

    for option in options():
        assert f"{option.flag} " in text
        assert f"(env {', '.join(option.envs)}; default: {option.shown_default()})" in text
    assert "default: 7331" in text and "default: 86400 s (24 h)" in text and "default: off" in text
    assert "TESTING ONLY: lower the minimum lease TTL" in text


def test_help_never_shows_a_token_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Defaults shown are the model's, so ``KXM_ADMIN_TOKEN`` never reaches ``--help``."""
    monkeypatch.setenv("KXM_ADMIN_TOKEN", "secret-admin-token-0123456789")

    assert "secret-admin-token" not in serve_help()


def test_the_docs_table_is_generated_from_the_model(tmp_path: Path) -> None:
    """docs/operations.md holds exactly what scripts/gen_settings_doc.py renders (the drift check)."""
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_settings_doc.py"), str(tmp_path)], check=True)
    page = (ROOT / "docs" / "operations.md").read_text()

    assert (tmp_path / "docs" / "operations.md").read_text() == page
    for option in options():
        assert f"`{option.flag}`" in page and f"`{option.env}`" in page


def test_the_hub_and_its_clients_share_one_default_address_and_data_dir() -> None:
    """The client dials where a default hub listens, and both keep state in the same directory."""
    assert DEFAULT_ADDRESS == f"{Settings().host}:{Settings().port}" == defaults.ADDRESS
    assert Settings().data_dir == Path(defaults.DATA_DIR) == defaults.data_dir()


# -- the config file and secret files -------------------------------------------------------------------


def test_a_config_file_sets_what_no_flag_or_variable_sets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys in either spelling, values read as their flags' text; a variable beats the file and a flag
    beats both; ``KXM_CONFIG`` names the file as ``--config`` does."""
    config = tmp_path / "hub.toml"
    config.write_text(
        'port = 7400\nmetrics-port = "off"\ndurability = "normal"\nmessage_ttl = 60\nhost = "127.0.0.1"\n'
    )
    monkeypatch.setenv("KXM_DURABILITY", "full")

    from_file = serve("--config", str(config))
    flag_wins = serve("--config", str(config), "--port", "7500")
    monkeypatch.setenv("KXM_CONFIG", str(config))
    by_variable = serve()

    assert (from_file.port, from_file.metrics_port, from_file.message_ttl) == (7400, None, 60.0)
    assert from_file.durability is Durability.FULL
    assert flag_wins.port == 7500
    assert by_variable.port == 7400


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("prot = 7400\n", "'prot' is no setting"),
        ("port = true\n", "port must be a string or a number"),
        ("[hub]\nport = 1\n", "'hub' is no setting"),
        ("durability = 'fast'\n", "durability: invalid choice: 'fast'"),
        ("port = 'x'\n", "port: invalid int value: 'x'"),
        ("port = \n", "not TOML"),
        ("config = 'other.toml'\n", "'config' is no setting"),
    ],
)
def test_a_config_file_refuses_what_it_cannot_mean_naming_the_file_and_key(
    tmp_path: Path, text: str, says: str
) -> None:
    config = tmp_path / "hub.toml"
    config.write_text(text)

    with pytest.raises(SettingsError) as refused:
        serve("--config", str(config))

    assert str(refused.value).startswith(f"config file {config}: ")
    assert says in str(refused.value)


def test_the_admin_token_comes_from_its_file_once(tmp_path: Path) -> None:
    """The first line of ``--admin-token-file``, stripped; never with ``--admin-token``; an empty or
    missing file is refused."""
    token_file = tmp_path / "admin-token"
    token_file.write_text("a-token-from-a-file-0123456789\nignored\n")

    settings = serve("--admin-token-file", str(token_file)).validate()

    assert (settings.admin_token, settings.admin_token_file) == ("a-token-from-a-file-0123456789", None)
    with pytest.raises(SettingsError, match="not both"):
        serve("--admin-token-file", str(token_file), "--admin-token", "x" * 20).validate()
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(SettingsError, match="first line is empty"):
        serve("--admin-token-file", str(tmp_path / "empty")).validate()
    with pytest.raises(SettingsError, match="cannot be read"):
        serve("--admin-token-file", str(tmp_path / "missing")).validate()


def test_kxm_hub_serve_reads_the_admin_token_from_its_file_and_never_shows_it(tmp_path: Path) -> None:
    """A real hub started with ``--admin-token-file`` answers the token, and the token is not in its
    command line (what ``ps`` shows)."""
    token = "file-token-" + "7" * 20
    token_file = tmp_path / "admin-token"
    token_file.write_text(token + "\n")
    hub = HubProcess(tmp_path / "data", extra_args=("--admin-token-file", str(token_file)), admin_token="")
    with hub:
        with grpc.insecure_channel(hub.address) as channel:
            stub = admin_service_pb2_grpc.AdminServiceStub(channel)
            stub.ListProjects(admin_service_pb2.ListProjectsRequest(), metadata=[("authorization", f"Bearer {token}")])
        command_line = Path(f"/proc/{hub.pid}/cmdline").read_bytes().decode()

    assert token not in command_line


def test_the_container_images_settings_start_a_hub_only_with_an_admin_token_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ENV of the Containerfile, as ``kxm hub serve`` reads it: beyond loopback, refused without
    an admin token and started with one from ``KXM_ADMIN_TOKEN_FILE``; the health probe asks the
    plaintext loopback health listener the ENV starts, so it needs no CA when the hub serves TLS."""
    containerfile = (Path(__file__).resolve().parent.parent / "Containerfile").read_text()
    (block,) = re.findall(r"^ENV (.*?)\n(?!\s)", containerfile, flags=re.S | re.M)
    for name, value in re.findall(r"(KXM_\w+)=(\S+)", block):
        monkeypatch.setenv(name, value.replace("/data", str(tmp_path)))
    token_file = tmp_path / "admin"
    token_file.write_text("an-admin-token-from-a-secret\n")

    with pytest.raises(SettingsError, match="admin"):
        serve().validate()
    monkeypatch.setenv("KXM_ADMIN_TOKEN_FILE", str(token_file))
    settings = serve().validate()

    assert (settings.host, settings.port, settings.data_dir) == ("0.0.0.0", 7331, tmp_path)  # noqa: S104
    assert settings.admin_token == "an-admin-token-from-a-secret"
    assert '"kxm", "hub", "serve"' in containerfile and "USER kxm" in containerfile
    assert (settings.health_host, settings.health_port) == ("127.0.0.1", 7332)
    assert 'CMD ["kxm", "health", "--addr", "127.0.0.1:7332"]' in containerfile
