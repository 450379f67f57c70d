"""The generated clients as packages: each installed into a fresh project outside this repository,
as its user would install it, and used there against a real hub.

TypeScript: ``npm pack`` of clients/typescript (the build scripts/build-clients made), installed
with the transports a user picks; one copy of the protobuf runtime (a peer dependency, not a second
copy); the package root and a subpath imported, type-checked and called.

Go: a fresh module requiring ``kxm.dev/hub/clients/go`` with a ``replace`` to clients/go (until the
path is served), built with the module cache scripts/install-client-tools filled (no download), and run.

Java: the library jar (built with its sources and javadoc jars by scripts/build-clients), installed
into the local Maven repository (~/.m2, where `mvn install` puts it) from this clone's build; a fresh
Maven project depending on ``dev.kxm:kxm-hub-client`` built offline and run.

Rust: a fresh crate depending on clients/rust by path, asking for tonic and prost with its own
(caret) requirements and bringing its own runtime, built offline from the crates scripts/build-clients
fetched, and run.

Like tests/test_conformance.py, nothing is built here: a missing toolchain skips locally and fails
under CI; a missing or stale build fails with the command to run.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from kxm_grpc.client import HubClient
from tests.conftest import ADMIN_TOKEN, Hub
from tests.test_conformance import BUILD_HINT, CLIENTS, client_inputs

TYPESCRIPT = CLIENTS / "typescript"
RUST = CLIENTS / "rust"
GO = CLIENTS / "go"
JAVA = CLIENTS / "java"
JAVA_VERSION = "0.1.0"
GO_MODULE = "kxm.dev/hub/clients/go"
NPM_TIMEOUT = 300.0
CARGO_TIMEOUT = 600.0


def _require(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is not on PATH (see scripts/install-client-tools)")
        pytest.skip(f"{tool} is not on PATH")
    return found


def _built(language: str, folder: Path) -> None:
    why = client_inputs.stale(client_inputs.BUILDS[language], folder)
    if why is not None:
        pytest.fail(f"{language}: build outputs are stale or missing: {why}: {BUILD_HINT}")


async def _run(*command: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = NPM_TIMEOUT) -> str:
    """Stdout of ``command``; fails the test with its output when it fails."""
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout)
    assert process.returncode == 0, (
        f"{' '.join(command)} failed ({process.returncode}):\n{out.decode()}\n{err.decode()}"
    )
    return out.decode()


def test_the_typescript_root_exports_every_generated_module() -> None:
    """src/index.ts is written by hand: a module generated later must be added to it."""
    generated = sorted(
        path.relative_to(TYPESCRIPT).with_suffix(".js").as_posix() for path in (TYPESCRIPT / "gen").rglob("*.ts")
    )
    index = (TYPESCRIPT / "src" / "index.ts").read_text()
    exported = sorted(
        line.split('"../', 1)[1].rstrip('";') for line in index.splitlines() if line.startswith("export * from")
    )
    assert exported == generated


@pytest.mark.clients
@pytest.mark.timeout(900)
@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_the_typescript_package_installs_and_calls_the_hub(hub: Hub, tmp_path: Path) -> None:
    npm = _require("npm")
    node = _require("node")
    _built("typescript", TYPESCRIPT)
    packed = json.loads(
        await _run(npm, "pack", "--json", "--ignore-scripts", "--pack-destination", str(tmp_path), cwd=TYPESCRIPT)
    )[0]
    shipped = {entry["path"] for entry in packed["files"]}
    assert "dist/src/index.js" in shipped and "dist/gen/kxm/v1/agent_service_pb.d.ts" in shipped
    assert not any("conformance" in path for path in shipped), "the conformance program is not the library's"

    user = tmp_path / "user-project"
    user.mkdir()
    (user / "package.json").write_text(json.dumps({"name": "user-project", "private": True, "type": "module"}))
    await _run(
        npm,
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        str(tmp_path / packed["filename"]),
        "@bufbuild/protobuf@2.13.0",  # the peer, pinned as the repository's lock file has it: no new release here
        "@connectrpc/connect@2.1.2",
        "@connectrpc/connect-node@2.1.2",
        "@types/node@20.19.43",
        cwd=user,
    )
    copies = (await _run(npm, "ls", "@bufbuild/protobuf", "--all", "--parseable", cwd=user)).split()
    assert len(copies) == 1, f"one protobuf runtime (a peer dependency), not {copies}"

    (user / "register.ts").write_text(REGISTER_TS)
    (user / "tsconfig.json").write_text(json.dumps(USER_TSCONFIG))
    await _run(str(TYPESCRIPT / "node_modules" / ".bin" / "tsc"), "-p", "tsconfig.json", cwd=user)

    admin = HubClient(hub.address, token=ADMIN_TOKEN)
    try:
        token = (await admin.admin.create_project("alpha")).project_token
    finally:
        await admin.close()
    out = await _run(node, "register.js", cwd=user, env={"KXM_URL": f"http://{hub.address}", "KXM_TOKEN": token})
    assert json.loads(out) == {"name": "ts-user", "reason": "TARGET_NOT_FOUND", "sendIsUnary": True}


@pytest.mark.clients
@pytest.mark.timeout(900)
@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_the_rust_crate_builds_in_a_fresh_project_and_calls_the_hub(hub: Hub, tmp_path: Path) -> None:
    cargo = _require("cargo")
    _built("rust", RUST)
    manifest = (RUST / "Cargo.toml").read_text()
    assert "publish = false" not in manifest and '"=' not in manifest, "caret requirements, publishable"
    user = tmp_path / "user-project"
    (user / "src").mkdir(parents=True)
    (user / "Cargo.toml").write_text(RUST_MANIFEST.format(path=RUST.as_posix()))
    (user / "src" / "main.rs").write_text(REGISTER_RS)
    # The repository's lock file (its versions are in the local registry cache: built offline), and
    # its target folder (the dependencies it compiled are reused; cargo keys them by version and features).
    shutil.copy(RUST / "Cargo.lock", user / "Cargo.lock")
    env = {"CARGO_TARGET_DIR": str(RUST / "target")}
    await _run(cargo, "build", "--offline", "--color", "never", cwd=user, env=env, timeout=CARGO_TIMEOUT)
    tree = await _run(
        cargo, "tree", "--offline", "-e", "normal", "-p", "kxm-client", "--prefix", "none", cwd=user, env=env
    )
    assert not any(line.startswith(("serde_json ", "tonic-types ")) for line in tree.splitlines()), tree

    admin = HubClient(hub.address, token=ADMIN_TOKEN)
    try:
        token = (await admin.admin.create_project("alpha")).project_token
    finally:
        await admin.close()
    binary = RUST / "target" / "debug" / "user-project"
    out = await _run(str(binary), cwd=user, env={"KXM_ADDR": hub.address, "KXM_TOKEN": token})
    assert out.split() == ["rs-user", "TargetNotFound"]


@pytest.mark.clients
@pytest.mark.timeout(900)
@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_the_go_module_builds_in_a_fresh_module_and_calls_the_hub(hub: Hub, tmp_path: Path) -> None:
    go = _require("go")
    user = tmp_path / "user-module"
    user.mkdir()
    (user / "main.go").write_text(REGISTER_GO)
    offline = {"GOPROXY": "off", "GOFLAGS": "-mod=mod", "GOWORK": "off"}
    await _run(go, "mod", "init", "example.com/user", cwd=user, env=offline)
    await _run(go, "mod", "edit", f"-require={GO_MODULE}@v0.0.0", f"-replace={GO_MODULE}={GO.as_posix()}", cwd=user)
    # The client's checksums (the checksum database is not reached from here; they are what it says).
    shutil.copy(GO / "go.sum", user / "go.sum")
    # The client's own requirements, as `go get` would add them (go mod tidy would also want the
    # modules the dependencies' tests import, which the cache does not hold).
    required = json.loads(await _run(go, "mod", "edit", "-json", cwd=GO))["Require"]
    await _run(go, "mod", "edit", *(f"-require={r['Path']}@{r['Version']}" for r in required), cwd=user)
    await _run(go, "build", "-o", "register", ".", cwd=user, env=offline, timeout=CARGO_TIMEOUT)

    admin = HubClient(hub.address, token=ADMIN_TOKEN)
    try:
        token = (await admin.admin.create_project("alpha")).project_token
    finally:
        await admin.close()
    out = await _run(str(user / "register"), cwd=user, env={"KXM_ADDR": hub.address, "KXM_TOKEN": token})
    assert out.split() == ["go-user", "ERROR_REASON_TARGET_NOT_FOUND"]


REGISTER_GO = """\
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	kxmv1 "kxm.dev/hub/clients/go/gen/kxm/v1"
)

func main() {
	conn, err := grpc.NewClient(os.Getenv("KXM_ADDR"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+os.Getenv("KXM_TOKEN"))
	agents := kxmv1.NewAgentServiceClient(conn)
	registered, err := agents.RegisterAgent(ctx, &kxmv1.RegisterAgentRequest{Name: "go-user"})
	if err != nil {
		panic(err)
	}
	fmt.Println(registered.GetAgent().GetName())
	fmt.Println(kxmv1.ErrorReason_ERROR_REASON_TARGET_NOT_FOUND)
}
"""


@pytest.mark.clients
@pytest.mark.timeout(900)
@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_the_java_library_installs_and_a_fresh_project_calls_the_hub(hub: Hub, tmp_path: Path) -> None:
    mvn = _require("mvn")
    java = _require("java")
    _built("java", JAVA)
    # Installed from this clone's build (offline, no javadoc rebuilt): ~/.m2 is the machine's, and another
    # clone may have installed its own library there since scripts/build-clients ran here.
    install = (mvn, "-q", "-B", "-o", "-DskipTests", "-Dmaven.javadoc.skip=true", "-Dmaven.source.skip=true")
    await _run(*install, "-pl", "client", "install", cwd=JAVA, timeout=CARGO_TIMEOUT)
    repository = Path.home() / ".m2" / "repository" / "dev" / "kxm" / "kxm-hub-client" / JAVA_VERSION
    for kind in ("", "-sources", "-javadoc"):
        assert (JAVA / "client" / "target" / f"kxm-hub-client-{JAVA_VERSION}{kind}.jar").exists(), BUILD_HINT
    installed_jar = repository / f"kxm-hub-client-{JAVA_VERSION}.jar"
    with zipfile.ZipFile(installed_jar) as jar:
        names = jar.namelist()
    assert "dev/kxm/v1/AgentServiceGrpc.class" in names
    assert not any(name.startswith("dev/kxm/conformance/") for name in names), (
        "the conformance program is not the library's"
    )

    user = tmp_path / "user-project"
    (user / "src" / "main" / "java" / "example").mkdir(parents=True)
    (user / "pom.xml").write_text(JAVA_POM.format(version=JAVA_VERSION))
    (user / "src" / "main" / "java" / "example" / "Register.java").write_text(REGISTER_JAVA)
    classpath = user / "classpath.txt"
    maven = (mvn, "-q", "-B", "-o", "package", "dependency:build-classpath", f"-Dmdep.outputFile={classpath}")
    await _run(*maven, cwd=user, timeout=CARGO_TIMEOUT)

    admin = HubClient(hub.address, token=ADMIN_TOKEN)
    try:
        token = (await admin.admin.create_project("alpha")).project_token
    finally:
        await admin.close()
    program = (java, "-cp", f"target/classes:{classpath.read_text().strip()}", "example.Register")
    out = await _run(*program, cwd=user, env={"KXM_ADDR": hub.address, "KXM_TOKEN": token})
    assert out.split() == ["java-user", "ERROR_REASON_TARGET_NOT_FOUND"]


JAVA_POM = """\
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>user-project</artifactId>
  <version>1</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>17</maven.compiler.release>
  </properties>
  <dependencies>
    <dependency>
      <groupId>dev.kxm</groupId>
      <artifactId>kxm-hub-client</artifactId>
      <version>{version}</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
      <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.15.0</version></plugin>
      <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.5.4</version></plugin>
      <plugin><artifactId>maven-jar-plugin</artifactId><version>3.5.0</version></plugin>
      <plugin><artifactId>maven-dependency-plugin</artifactId><version>3.9.0</version></plugin>
    </plugins>
  </build>
</project>
"""

REGISTER_JAVA = """\
package example;

import dev.kxm.v1.AgentServiceGrpc;
import dev.kxm.v1.ErrorReason;
import dev.kxm.v1.RegisterAgentRequest;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.util.concurrent.TimeUnit;

public final class Register {
  public static void main(String[] args) throws Exception {
    ManagedChannel channel =
        Grpc.newChannelBuilder(System.getenv("KXM_ADDR"), InsecureChannelCredentials.create()).build();
    Metadata headers = new Metadata();
    Metadata.Key<String> authorization = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    headers.put(authorization, "Bearer " + System.getenv("KXM_TOKEN"));
    var registered = AgentServiceGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .registerAgent(RegisterAgentRequest.newBuilder().setName("java-user").build());
    System.out.println(registered.getAgent().getName());
    System.out.println(ErrorReason.ERROR_REASON_TARGET_NOT_FOUND);
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
"""


RUST_MANIFEST = """\
[package]
name = "user-project"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
kxm-client = {{ path = "{path}" }}
tonic = {{ version = "0.14", default-features = false, features = ["channel", "codegen"] }}
tokio = {{ version = "1", features = ["macros", "rt-multi-thread"] }}

[workspace]
"""

REGISTER_RS = """\
use kxm_client::v1::agent_service_client::AgentServiceClient;
use kxm_client::v1::{ErrorReason, RegisterAgentRequest};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address = std::env::var("KXM_ADDR")?;
    let token = std::env::var("KXM_TOKEN")?;
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{address}"))?.connect().await?;
    let mut request = tonic::Request::new(RegisterAgentRequest { name: "rs-user".into(), ..Default::default() });
    request.metadata_mut().insert("authorization", format!("Bearer {token}").parse()?);
    let registered = AgentServiceClient::new(channel).register_agent(request).await?.into_inner();
    println!("{}", registered.agent.map(|agent| agent.name).unwrap_or_default());
    println!("{:?}", ErrorReason::TargetNotFound);
    Ok(())
}
"""


REGISTER_TS = """\
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { AgentService, ErrorReason } from "@kxm/hub-client";
import { MessageService } from "@kxm/hub-client/kxm/v1/message_service_pb.js";

const transport = createGrpcTransport({ baseUrl: process.env.KXM_URL ?? "" });
const headers = { authorization: `Bearer ${process.env.KXM_TOKEN ?? ""}` };
const registered = await createClient(AgentService, transport).registerAgent({ name: "ts-user" }, { headers });
console.log(
  JSON.stringify({
    name: registered.agent?.name,
    reason: ErrorReason[ErrorReason.TARGET_NOT_FOUND],
    sendIsUnary: MessageService.method.sendMessage.methodKind === "unary",
  }),
);
"""

USER_TSCONFIG = {
    "compilerOptions": {
        "target": "es2022",
        "module": "nodenext",
        "moduleResolution": "nodenext",
        "strict": True,
        "types": ["node"],
        "outDir": ".",
    },
    "files": ["register.ts"],
}
