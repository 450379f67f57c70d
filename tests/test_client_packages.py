"""The generated clients as packages: each installed into a fresh project outside this repository,
as its user would install it, and used there against a real hub.

TypeScript: ``npm pack`` of clients/typescript (the build scripts/build-clients made), installed
with the transports a user picks; one copy of the protobuf runtime (a peer dependency, not a second
copy); the package root and a subpath imported, type-checked and called.

Like tests/test_conformance.py, nothing is built here: a missing toolchain skips locally and fails
under CI; a missing or stale build fails with the command to run.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from kxm_grpc.client import HubClient
from tests.conftest import ADMIN_TOKEN, Hub
from tests.test_conformance import BUILD_HINT, CLIENTS, client_inputs

TYPESCRIPT = CLIENTS / "typescript"
NPM_TIMEOUT = 300.0


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
