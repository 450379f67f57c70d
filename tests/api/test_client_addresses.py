"""Hub addresses (``kxm_grpc.client.addresses``) and the failover service config (``kxm_grpc.client.retries``).

What one or several addresses become (the channel target and its options), what is refused and
with which message, where a client reads them from, and which RPCs the retry policy covers. No
channel here dials anything: the channels are built but never used, or faked.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import threading
from pathlib import Path
from typing import Any

import grpc
import pytest

import kxm_grpc._gen.kxm.v1 as generated
from kxm_grpc.cli.common import hub_address
from kxm_grpc.client import AddressError, HubClient, SyncHubClient
from kxm_grpc.client.addresses import HubTarget, parse_addresses
from kxm_grpc.client.base import CHANNEL_OPTIONS
from kxm_grpc.client.config import resolve
from kxm_grpc.client.retries import (
    HEALTH_CHECK,
    NOT_RETRIED,
    RETRIED_WRITES,
    RETRY_POLICY,
    SERVICE_CONFIG_JSON,
    SERVICES,
    is_read,
    retried_methods,
)


@pytest.fixture(autouse=True)
def no_address_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Neither ``KXM_ADDR`` nor a credentials file of the machine leaks into these tests."""
    monkeypatch.delenv("KXM_ADDR", raising=False)
    monkeypatch.setenv("KXM_CREDENTIALS", str(tmp_path / "no-credentials.json"))


# -- one address -----------------------------------------------------------------------------------


@pytest.mark.parametrize("address", ["127.0.0.1:7331", "hub.example:7331", "[::1]:7331", "localhost", "unix:/tmp/kxm"])
def test_one_address_is_the_target_as_written(address: str) -> None:
    """One address is dialled as before: the same target, no option added, no failover."""
    target = parse_addresses(address)

    assert target == HubTarget(address=address, target=address, addresses=(address,))
    assert target.channel_options(CHANNEL_OPTIONS) == CHANNEL_OPTIONS
    assert target.channel_options() == []


def test_one_address_in_a_list_or_listed_twice_is_one_address() -> None:
    """A one-item list, surrounding spaces, and duplicates that leave one address: one address."""
    assert parse_addresses(["127.0.0.1:7331"]).target == "127.0.0.1:7331"
    assert parse_addresses("  127.0.0.1:7331 ").target == "127.0.0.1:7331"
    assert parse_addresses("127.0.0.1:7331, 127.0.0.1:7331").target == "127.0.0.1:7331"
    assert not parse_addresses("[::1]:7331,[0:0::1]:7331").failover


async def test_a_client_of_one_address_builds_the_channel_it_always_did(monkeypatch: pytest.MonkeyPatch) -> None:
    """HubClient("host:port") calls grpc with the address and CHANNEL_OPTIONS, nothing else."""
    calls = record_channels(monkeypatch)
    client = HubClient("127.0.0.1:7331", token="t")

    assert calls == [("insecure", "127.0.0.1:7331", CHANNEL_OPTIONS)]
    assert client.address == "127.0.0.1:7331" and not client.failover
    assert client.retry_key("") == "" and client.retry_key("mine") == "mine"


# -- several addresses -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "10.0.0.1:7331,10.0.0.2:7332",
        " 10.0.0.1:7331 ,\t10.0.0.2:7332 ",
        ["10.0.0.1:7331", "10.0.0.2:7332"],
        ("10.0.0.1:7331", " 10.0.0.2:7332"),
        ["10.0.0.1:7331,10.0.0.2:7332"],
        "10.0.0.1:7331,10.0.0.2:7332,10.0.0.1:7331",
        "ipv4:10.0.0.1:7331,10.0.0.2:7332",
    ],
)
def test_several_ipv4_addresses_are_one_ipv4_target(value: str | list[str]) -> None:
    """Comma-separated (spaces allowed), a sequence, duplicates dropped, or gRPC's own spelling."""
    target = parse_addresses(value)

    assert target.target == "ipv4:10.0.0.1:7331,10.0.0.2:7332"
    assert target.address == "10.0.0.1:7331,10.0.0.2:7332"
    assert target.addresses == ("10.0.0.1:7331", "10.0.0.2:7332")
    assert target.failover and target.authority == "10.0.0.1:7331"


def test_ipv6_literals_in_brackets_are_one_ipv6_target() -> None:
    """IPv6 literals keep their brackets; the same address spelled twice is dropped."""
    target = parse_addresses("[fd00::1]:7331, [fd00::2]:7331, [fd00:0::1]:7331")

    assert target.target == "ipv6:[fd00::1]:7331,[fd00::2]:7331"
    assert target.authority == "[fd00::1]:7331"


def test_a_failover_target_adds_the_service_config_and_the_authority() -> None:
    """The options of several addresses: the base, the service config (DNS TXT configs ignored), the authority."""
    options = parse_addresses("10.0.0.1:7331,10.0.0.2:7331").channel_options(CHANNEL_OPTIONS)

    assert options == [
        *CHANNEL_OPTIONS,
        ("grpc.service_config", SERVICE_CONFIG_JSON),
        ("grpc.service_config_disable_resolution", 1),
        ("grpc.default_authority", "10.0.0.1:7331"),
    ]


def test_one_dns_name_is_passed_to_grpc_as_a_failover_target() -> None:
    """dns:///name:port is gRPC's: its resolver finds every record; gRPC derives the authority."""
    target = parse_addresses("dns:///hub.example:7331")

    assert target.target == "dns:///hub.example:7331" and target.failover and target.authority is None
    assert parse_addresses("dns:hub.example:7331").target == "dns:hub.example:7331"


async def test_a_client_of_several_addresses_builds_a_failover_channel(monkeypatch: pytest.MonkeyPatch) -> None:
    """HubClient(list) dials the ipv4: target with the failover options, TLS included; a channel passed
    in is the caller's (no key is made up for it, since nothing says it retries)."""
    channel = grpc.aio.insecure_channel("127.0.0.1:1")  # never used
    calls = record_channels(monkeypatch)
    plain = HubClient(["10.0.0.1:7331", "10.0.0.2:7331"], token="t")
    secure = HubClient("10.0.0.1:7331,10.0.0.2:7331", token="t", tls=True)
    own = HubClient("10.0.0.1:7331,10.0.0.2:7331", token="t", channel=channel)

    failover_options = parse_addresses("10.0.0.1:7331,10.0.0.2:7331").channel_options(CHANNEL_OPTIONS)
    assert calls == [
        ("insecure", "ipv4:10.0.0.1:7331,10.0.0.2:7331", failover_options),
        ("secure", "ipv4:10.0.0.1:7331,10.0.0.2:7331", failover_options),
    ]
    assert plain.address == "10.0.0.1:7331,10.0.0.2:7331" and plain.failover and secure.failover
    key = plain.retry_key("")
    assert key.startswith("auto:") and len(key) == 37 and int(key[5:], 16) >= 0
    assert plain.retry_key("") != key and plain.retry_key("mine") == "mine"
    assert not own.failover and own.retry_key("") == ""
    await own.close()


# -- refused ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "is empty"),
        ("   ", "is empty"),
        ([], "list of hub addresses is empty"),
        ([""], "is empty"),
        ("10.0.0.1:7331,,10.0.0.2:7331", "has an empty entry"),
        ("10.0.0.1:7331,", "has an empty entry"),
        (",10.0.0.1:7331", "has an empty entry"),
        (["10.0.0.1:7331", " "], "has an empty entry"),
        ("10.0.0.1,10.0.0.2:7331", "'10.0.0.1' has no port"),
        ("10.0.0.1:7331,10.0.0.2:0", "not a number from 1 to 65535"),
        ("10.0.0.1:7331,10.0.0.2:65536", "not a number from 1 to 65535"),
        ("10.0.0.1:7331,10.0.0.2:http", "not a number from 1 to 65535"),
        ("10.0.0.1:7331,:7331", "has no host"),
        ("fd00::1:7331,fd00::2:7331", "write an IPv6 address in brackets"),
        ("[fd00::1:7331,[fd00::2]:7331", "no closing bracket"),
        ("[10.0.0.1]:7331,[fd00::2]:7331", "is not an IPv6 address"),
        ("[fd00::1],[fd00::2]:7331", "has no port"),
        ("hub-a.example:7331,hub-b.example:7331", "names hosts by name (hub-a.example:7331, hub-b.example:7331)"),
        ("localhost:7331,localhost:7332", "names hosts by name"),
        ("10.0.0.1:7331,hub.example:7331", "names hosts by name (hub.example:7331)"),
        ("10.0.0.1:7331,[fd00::1]:7331", "mixes IPv4 and IPv6"),
        ("ipv4:[fd00::1]:7331,[fd00::2]:7331", "an ipv4: target lists IPv6 addresses"),
        ("ipv6:10.0.0.1:7331", "an ipv6: target lists IPv4 addresses"),
        ("10.0.0.1:7331,dns:///hub.example:7331", "is a gRPC target"),
        ("dns:///hub.example", "with the hub's port"),
        ("dns:///hub-a.example:7331,hub-b.example:7331", "names one host"),
        ("dns://hub.example:7331", "dns:///host:port"),
        (["10.0.0.1:7331", 7331], "strings, not int"),
        (b"10.0.0.1:7331", "strings, not int"),
    ],
)
def test_what_cannot_be_dialled_is_refused_naming_the_problem(value: Any, message: str) -> None:
    with pytest.raises(AddressError) as raised:
        parse_addresses(value)

    assert message in str(raised.value)
    assert isinstance(raised.value, ValueError)


def test_a_refused_list_says_what_to_do_instead() -> None:
    """Host names: list IP addresses, or one DNS name; the message says both."""
    with pytest.raises(AddressError, match=r"IP addresses, or give one DNS name .* as dns:///name:port"):
        parse_addresses("hub-a:7331,hub-b:7331")


# -- where the addresses come from -----------------------------------------------------------------


def test_kxm_addr_and_the_credentials_file_take_lists(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """KXM_ADDR is comma-separated; the file's address a string or a list; an empty argument is not given."""
    credentials = tmp_path / "credentials.json"
    monkeypatch.setenv("KXM_CREDENTIALS", str(credentials))
    credentials.write_text(json.dumps({"address": ["10.0.0.5:7331", "10.0.0.6:7331"]}))
    from_list = resolve()
    credentials.write_text(json.dumps({"address": "10.0.0.5:7331, 10.0.0.6:7331"}))
    from_string = resolve()
    monkeypatch.setenv("KXM_ADDR", "10.0.0.1:7331, 10.0.0.2:7331")
    from_env = resolve("")
    argument = resolve(("10.0.0.3:7331", "10.0.0.4:7331"))

    assert from_list.target.target == from_string.target.target == "ipv4:10.0.0.5:7331,10.0.0.6:7331"
    assert from_env.address == "10.0.0.1:7331,10.0.0.2:7331"
    assert from_env.target.target == "ipv4:10.0.0.1:7331,10.0.0.2:7331"
    assert argument.target.target == "ipv4:10.0.0.3:7331,10.0.0.4:7331"


def test_a_bad_list_names_where_it_came_from(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    credentials = tmp_path / "credentials.json"
    credentials.write_text(json.dumps({"address": "10.0.0.1:7331,"}))
    monkeypatch.setenv("KXM_CREDENTIALS", str(credentials))
    with pytest.raises(AddressError, match=rf"^the address in {credentials}: .*empty entry"):
        resolve()
    monkeypatch.setenv("KXM_ADDR", "a:1,b:2")
    with pytest.raises(AddressError, match=r"^KXM_ADDR: .*names hosts by name"):
        resolve()
    with pytest.raises(AddressError, match=r"^the hub address list"):
        resolve("10.0.0.1:1,,10.0.0.2:1")


def test_the_default_address_is_one_address() -> None:
    assert resolve().target == HubTarget("127.0.0.1:7331", "127.0.0.1:7331", ("127.0.0.1:7331",))


def test_the_cli_flag_is_checked_when_parsed() -> None:
    """``--addr``'s type returns the value as given, refuses a bad list, and leaves "" for "not given"."""
    assert hub_address("10.0.0.1:7331, 10.0.0.2:7331") == "10.0.0.1:7331, 10.0.0.2:7331"
    assert hub_address("") == ""
    with pytest.raises(argparse.ArgumentTypeError, match="empty entry"):
        hub_address("10.0.0.1:7331,,10.0.0.2:7331")


def test_a_sync_client_with_a_bad_address_leaves_no_thread() -> None:
    with pytest.raises(AddressError):
        SyncHubClient("10.0.0.1:7331,,10.0.0.2:7331", token="t")

    assert not [thread for thread in threading.enumerate() if thread.name == "kxm-client-loop"]


# -- the retry policy ------------------------------------------------------------------------------


def contract_methods() -> dict[str, Any]:
    """Every RPC of every service module generated from proto/kxm/v1, by ``Service/Method``."""
    methods: dict[str, Any] = {}
    for info in pkgutil.iter_modules(generated.__path__):
        if info.name.endswith("_service_pb2"):
            module = importlib.import_module(f"{generated.__name__}.{info.name}")
            for service in module.DESCRIPTOR.services_by_name.values():
                for method in service.methods:
                    methods[f"{service.full_name}/{method.name}"] = method
    return methods


def test_every_rpc_is_either_retried_or_not_on_purpose() -> None:
    """Each unary write is in RETRIED_WRITES or NOT_RETRIED (a new RPC fails this until it is put in
    one); each unary read is retried; no stream is; the client knows every service of the contract."""
    methods = contract_methods()
    retried = set(retried_methods())
    writes = {name for name, method in methods.items() if not is_read(method) and not method.server_streaming}

    assert {service.full_name for service in SERVICES} == {name.split("/")[0] for name in methods}
    assert set(RETRIED_WRITES) | set(NOT_RETRIED) == writes
    assert not set(RETRIED_WRITES) & set(NOT_RETRIED)
    for name, method in methods.items():
        if method.server_streaming or method.client_streaming:
            assert name not in retried, name
        elif is_read(method):
            assert name in retried, name
        else:
            assert (name in retried) == (name in RETRIED_WRITES), name


def test_the_service_config_is_pick_first_with_a_bounded_retry_on_unavailable() -> None:
    config = json.loads(SERVICE_CONFIG_JSON)
    (method_config,) = config["methodConfig"]
    names = [f"{name['service']}/{name['method']}" for name in method_config["name"]]

    assert config["loadBalancingConfig"] == [{"pick_first": {}}]
    assert method_config["retryPolicy"] == RETRY_POLICY
    assert RETRY_POLICY["retryableStatusCodes"] == ["UNAVAILABLE"] and 2 <= RETRY_POLICY["maxAttempts"] <= 5
    assert len(names) == len(set(names))
    assert {"kxm.v1.MessageService/SendMessage", "kxm.v1.MessageService/GetMessage", HEALTH_CHECK} <= set(names)
    assert not {"kxm.v1.MessageService/Subscribe", "kxm.v1.AgentService/RegisterAgent"} & set(names)


# -- helpers ---------------------------------------------------------------------------------------


def record_channels(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, list[tuple[str, Any]]]]:
    """Replace grpc.aio's channel constructors with recorders; the calls they received."""
    calls: list[tuple[str, str, list[tuple[str, Any]]]] = []

    def insecure(target: str, options: list[tuple[str, Any]] | None = None) -> object:
        calls.append(("insecure", target, list(options or [])))
        return object()

    def secure(target: str, credentials: object, options: list[tuple[str, Any]] | None = None) -> object:
        calls.append(("secure", target, list(options or [])))
        return object()

    monkeypatch.setattr(grpc.aio, "insecure_channel", insecure)
    monkeypatch.setattr(grpc.aio, "secure_channel", secure)
    return calls
