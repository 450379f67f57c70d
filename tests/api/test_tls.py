"""TLS and mTLS options of the hub, with certificates generated for the test (``pki``, tests/api/conftest.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.errors import Unavailable, Unimplemented
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from tests.conftest import ADMIN_TOKEN
from tests.test_cli import kxm


async def test_tls_hub_serves_a_client_that_trusts_its_ca(hub_settings: Settings, pki: Path) -> None:
    """With --tls-cert/--tls-key the hub speaks TLS; a client trusting the CA calls it."""
    settings = replace(hub_settings, tls_cert=pki / "server.pem", tls_key=pki / "server.key")
    server = HubServer(settings)
    await server.start()
    client = HubClient(server.address, token=ADMIN_TOKEN, root_certificates=(pki / "ca.pem").read_bytes())

    created = await client.create_project("secure")

    assert created.project.name == "secure"
    await client.close()
    await server.stop(0)


async def test_mtls_hub_refuses_a_client_without_certificate(hub_settings: Settings, pki: Path) -> None:
    """With --tls-client-ca a client must present a certificate signed by that CA."""
    settings = replace(
        hub_settings, tls_cert=pki / "server.pem", tls_key=pki / "server.key", tls_client_ca=pki / "ca.pem"
    )
    server = HubServer(settings)
    await server.start()
    ca = (pki / "ca.pem").read_bytes()
    anonymous = HubClient(server.address, token=ADMIN_TOKEN, root_certificates=ca, timeout=3)
    identified = HubClient(
        server.address,
        token=ADMIN_TOKEN,
        root_certificates=ca,
        private_key=(pki / "client.key").read_bytes(),
        certificate_chain=(pki / "client.pem").read_bytes(),
    )

    with pytest.raises(Unavailable):
        await anonymous.list_projects()
    listed = await identified.list_projects()

    assert [p.name for p in listed.projects] == []
    await anonymous.close()
    await identified.close()
    await server.stop(0)


async def test_the_cli_reaches_an_mtls_hub_with_a_client_certificate_from_flags_or_variables(
    hub_settings: Settings, pki: Path, tmp_path: Path
) -> None:
    """``kxm`` commands take --tls-ca, --tls-cert and --tls-key (or KXM_TLS_*); without the
    certificate the hub refuses the connection, and a certificate without its key is a usage error."""
    settings = replace(
        hub_settings, tls_cert=pki / "server.pem", tls_key=pki / "server.key", tls_client_ca=pki / "ca.pem"
    )
    server = HubServer(settings)
    await server.start()
    base = ("admin", "project", "list", "--addr", server.address, "--token", ADMIN_TOKEN, "--json")
    tls = ("--tls-ca", str(pki / "ca.pem"))
    client_cert = ("--tls-cert", str(pki / "client.pem"), "--tls-key", str(pki / "client.key"))
    try:
        by_flags = await kxm(*base, *tls, *client_cert, cwd=tmp_path)
        by_variables = await kxm(
            *base,
            cwd=tmp_path,
            env={
                "KXM_TLS_CA": str(pki / "ca.pem"),
                "KXM_TLS_CERT": str(pki / "client.pem"),
                "KXM_TLS_KEY": str(pki / "client.key"),
            },
        )
        anonymous = await kxm(*base, *tls, cwd=tmp_path)
        half = await kxm(*base, *tls, "--tls-cert", str(pki / "client.pem"), cwd=tmp_path)
    finally:
        await server.stop(0)

    assert (by_flags[0], by_variables[0]) == (0, 0)
    assert anonymous[0] != 0
    assert half[0] != 0 and "--tls-cert and --tls-key" in half[2]


async def test_a_tls_hub_answers_plaintext_health_probes_on_its_health_port_and_nothing_else(
    hub_settings: Settings, pki: Path, tmp_path: Path
) -> None:
    """``--health-port`` serves grpc.health.v1 alone in plaintext beside the TLS listener (loopback by
    default): ``kxm health`` without a CA reads SERVING there, while the TLS port refuses plaintext
    and the health port serves no other service."""
    settings = replace(hub_settings, tls_cert=pki / "server.pem", tls_key=pki / "server.key", health_port=0)
    server = HubServer(settings)
    await server.start()
    assert server.health_port is not None
    health_address = f"127.0.0.1:{server.health_port}"
    try:
        probed = await kxm("health", "--addr", health_address, "--timeout", "30", cwd=tmp_path)
        tls_port = await kxm("health", "--addr", server.address, "--timeout", "5", cwd=tmp_path)
        other = HubClient(health_address, token=ADMIN_TOKEN, timeout=30)
        with pytest.raises(Unimplemented):
            await other.list_projects()
        await other.close()
    finally:
        await server.stop(0)

    assert server.health_address == health_address
    assert probed[0] == 0 and probed[1].strip() == "SERVING"
    assert tls_port[0] == 2
