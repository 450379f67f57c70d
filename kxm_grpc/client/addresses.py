"""Hub addresses: one ``host:port``, or several replicas of one hub, dialled as one gRPC channel.

``parse_addresses`` takes what ``HubClient(address=...)``, ``KXM_ADDR``, the CLI's ``--addr`` and
the credentials file's ``address`` may hold and returns a ``HubTarget``: the channel target and the
channel options that go with it.

- **One address** (``127.0.0.1:7331``, ``hub.example:7331``, ``[::1]:7331``, anything gRPC takes) is
  the target as written, with no option added: exactly the channel of a client of one hub.
- **Several addresses**, comma-separated (``10.0.0.1:7331,10.0.0.2:7331``, spaces allowed) or a
  sequence of strings, all IPv4 literals or all IPv6 literals in brackets, each with its port,
  become gRPC's multi-address target (``doc/naming.md`` of grpc/grpc):
  ``ipv4:10.0.0.1:7331,10.0.0.2:7331`` or ``ipv6:[fd00::1]:7331,[fd00::2]:7331``. Duplicates are
  dropped (the first stays); a list that is one address once they are is that one address.
- **One DNS name with several records**: write it as gRPC's ``dns:///hub.example:7331``. gRPC's
  resolver then finds every record (and follows them as they change).
- ``ipv4:...`` and ``ipv6:...`` targets may be written as such too.

Several host names, or IPv4 and IPv6 literals mixed, are refused (``AddressError``): one gRPC
target cannot name them (``dns:`` takes one name, ``ipv4:``/``ipv6:`` only literals of their own
family), and resolving names here instead would freeze the records at start and defeat TLS name
checks. Publish one DNS name for the replicas, or list their IP addresses.

Every form but a single address is a *failover* target: its channel gets the service config of
``kxm_grpc.client.retries`` (``pick_first``, and a retry policy on UNAVAILABLE for the calls that
are safe to repeat). An ``ipv4:``/``ipv6:`` channel also gets the first address as its default
authority (gRPC would otherwise use the whole list, which no TLS certificate names).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kxm_grpc.client.retries import SERVICE_CONFIG_JSON

_PORT = re.compile(r"[0-9]{1,5}")
_HOST_NAME = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?")
_IP_SCHEMES = {"ipv4": 4, "ipv6": 6}


class AddressError(ValueError):
    """A hub address, or list of addresses, that cannot be dialled; the message says why."""


@dataclass(frozen=True)
class HubTarget:
    """Where a client's channel goes: the gRPC target and what its channel needs besides."""

    #: The address the client reports (``HubClient.address``): one address as given, several
    #: joined by commas, or the ``dns:`` target.
    address: str
    #: The channel target handed to gRPC.
    target: str
    #: The addresses, one per replica (the target itself for a ``dns:`` name).
    addresses: tuple[str, ...]
    #: Whether the channel fails over: pick_first over every address, and safe calls retried.
    failover: bool = False
    #: The channel's default authority (for TLS name checks), when gRPC's own would be wrong.
    authority: str | None = None

    def channel_options(self, base: Sequence[tuple[str, Any]] = ()) -> list[tuple[str, Any]]:
        """``base`` plus what this target needs: nothing for one address; else the service config
        (DNS TXT service configs are ignored, so the client's own always applies) and the authority."""
        options = list(base)
        if self.failover:
            options.append(("grpc.service_config", SERVICE_CONFIG_JSON))
            options.append(("grpc.service_config_disable_resolution", 1))
        if self.authority is not None:
            options.append(("grpc.default_authority", self.authority))
        return options


@dataclass(frozen=True)
class _Entry:
    """One ``host:port`` of a list: as written, its family (4, 6, or 0 for a name) and identity."""

    text: str
    family: int
    identity: tuple[object, ...]


def parse_addresses(value: str | Sequence[str]) -> HubTarget:
    """The target of one address, a comma-separated list, a sequence of them, or a gRPC target.

    Raises:
        AddressError: the value is empty or has an empty entry; an entry of a list lacks its port,
            has a bad port, or is an IPv6 address without brackets; the list names hosts by name
            or mixes IPv4 and IPv6; a ``dns:`` target names more than one host.
    """
    if isinstance(value, str):
        text = value.strip()
        scheme, colon, rest = text.partition(":")
        if colon and scheme.lower() == "dns":
            return _dns(text, rest)
        if colon and scheme.lower() in _IP_SCHEMES:
            return _literals(_entries(rest, text), text, family=_IP_SCHEMES[scheme.lower()])
        parts = text.split(",")
    elif isinstance(value, Sequence):
        items = list(value)
        if not items:
            raise AddressError("the list of hub addresses is empty")
        for item in items:
            if not isinstance(item, str):
                raise AddressError(f"hub addresses are strings, not {type(item).__name__} ({item!r})")
        if len(items) == 1:
            return parse_addresses(items[0])
        text = ",".join(items)
        parts = [part for item in items for part in item.split(",")]
    else:
        raise AddressError(f"a hub address is a string or a sequence of strings, not {type(value).__name__}")
    stripped = [part.strip() for part in parts]
    if not text or stripped == [""]:
        raise AddressError("the hub address is empty")
    if len(stripped) == 1:
        return HubTarget(address=stripped[0], target=stripped[0], addresses=(stripped[0],))
    return _literals(_entries(text, text), text, family=None)


def _entries(listing: str, whole: str) -> list[_Entry]:
    """Each comma-separated entry of ``listing``, parsed; duplicates dropped (the first stays)."""
    entries: list[_Entry] = []
    seen: set[tuple[object, ...]] = set()
    for part in listing.split(","):
        part = part.strip()
        if not part:
            raise AddressError(f"the hub address list {whole!r} has an empty entry (a doubled or trailing comma)")
        entry = _entry(part)
        if entry.identity not in seen:
            seen.add(entry.identity)
            entries.append(entry)
    return entries


def _entry(text: str) -> _Entry:
    """One ``host:port`` of a list: an IPv4 literal, an IPv6 literal in brackets, or a host name."""
    if "/" in text or text.lower().startswith(("dns:", "ipv4:", "ipv6:", "unix:")):
        raise AddressError(f"{text!r} is a gRPC target; a list of hub addresses holds host:port entries only")
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket:
            raise AddressError(f"{text!r}: the IPv6 address has no closing bracket")
        try:
            ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.IPv6Address(host)
        except ValueError:
            raise AddressError(f"{text!r}: {host!r} is not an IPv6 address") from None
        if not rest.startswith(":"):
            raise AddressError(f"{text!r} has no port: a list of hub addresses needs host:port entries")
        return _Entry(text, 6, (6, ip, _port(text, rest[1:])))
    host, colon, port_text = text.rpartition(":")
    if not colon:
        raise AddressError(f"{text!r} has no port: a list of hub addresses needs host:port entries")
    if ":" in host:
        raise AddressError(f"{text!r}: write an IPv6 address in brackets, as in [::1]:7331")
    if not host:
        raise AddressError(f"{text!r} has no host")
    port = _port(text, port_text)
    try:
        ip = ipaddress.IPv4Address(host)
    except ValueError:
        if not _HOST_NAME.fullmatch(host):
            raise AddressError(f"{text!r}: {host!r} is neither an IP address nor a host name") from None
        return _Entry(text, 0, (0, host.lower(), port))
    return _Entry(text, 4, (4, ip, port))


def _port(text: str, port_text: str) -> int:
    port = int(port_text) if _PORT.fullmatch(port_text) else 0
    if not 1 <= port <= 65535:
        raise AddressError(f"{text!r}: the port {port_text!r} is not a number from 1 to 65535")
    return port


def _literals(entries: list[_Entry], text: str, *, family: int | None) -> HubTarget:
    """The ``ipv4:``/``ipv6:`` target of these entries; ``family`` when the text named its scheme."""
    if family is None and len(entries) == 1:
        # A list that is one address once duplicates are dropped: that address, as a single one is dialled.
        return HubTarget(address=entries[0].text, target=entries[0].text, addresses=(entries[0].text,))
    names = [entry.text for entry in entries if entry.family == 0]
    if names:
        raise AddressError(
            f"the hub address list {text!r} names hosts by name ({', '.join(names)}): one gRPC channel "
            "dials several addresses only as IP literals of one family (ipv4:/ipv6:) or as one DNS name "
            "with several records; list the hubs' IP addresses, or give one DNS name that resolves to "
            "all of them as dns:///name:port"
        )
    families = {entry.family for entry in entries}
    if len(families) > 1:
        raise AddressError(
            f"the hub address list {text!r} mixes IPv4 and IPv6 addresses: one gRPC channel dials "
            "literals of one family only (ipv4: or ipv6:); list one family, or give one DNS name "
            "with A and AAAA records as dns:///name:port"
        )
    (found,) = families
    if family is not None and found != family:
        raise AddressError(f"{text!r}: an ipv{family}: target lists IPv{found} addresses")
    texts = tuple(entry.text for entry in entries)
    return HubTarget(
        address=",".join(texts),
        target=f"ipv{found}:" + ",".join(texts),
        addresses=texts,
        failover=True,
        authority=texts[0],
    )


def _dns(text: str, rest: str) -> HubTarget:
    """A ``dns:[//authority/]host:port`` target, as written; it must name one host, with its port."""
    endpoint = rest
    if rest.startswith("//"):
        _, slash, endpoint = rest[2:].partition("/")
        if not slash:
            raise AddressError(f"{text!r}: a dns: target is dns:///host:port")
    if "," in endpoint:
        raise AddressError(f"{text!r}: a dns: target names one host; its DNS records name the replicas")
    try:
        _entry(endpoint)  # a host and its port (gRPC would dial 443 without one)
    except AddressError:
        raise AddressError(f"{text!r}: a dns: target is dns:///host:port, with the hub's port") from None
    return HubTarget(address=text, target=text, addresses=(text,), failover=True)
