"""TLS and mTLS options of the hub, with certificates generated for the test."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.errors import Unavailable
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.settings import Settings
from tests.conftest import ADMIN_TOKEN


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A self-signed CA with a server certificate for 127.0.0.1 and a client certificate."""
    d = tmp_path_factory.mktemp("pki")
    _openssl(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=kxm test CA",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        cwd=d,
    )
    for name, ext in (("server", "subjectAltName=IP:127.0.0.1"), ("client", "extendedKeyUsage=clientAuth")):
        _openssl(
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-subj",
            f"/CN={name}",
            "-keyout",
            f"{name}.key",
            "-out",
            f"{name}.csr",
            cwd=d,
        )
        (d / f"{name}.ext").write_text(ext + "\n")
        _openssl(
            "x509",
            "-req",
            "-in",
            f"{name}.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "1",
            "-extfile",
            f"{name}.ext",
            "-out",
            f"{name}.pem",
            cwd=d,
        )
    return d


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
