"""The dashboard on the HTTP port, over raw HTTP: its page and headers, the sign-in that sets an
HttpOnly SameSite=Strict cookie, calls admitted by that cookie only with the session's CSRF value
from this origin, revocation and expiry, sign-out, and nothing of it on the webhook listener."""

from __future__ import annotations

import asyncio
import gzip
import json
from dataclasses import replace

import pytest

from kxm_grpc.domain.clock import ManualClock
from kxm_grpc.server.dashboard import CONTENT_SECURITY_POLICY
from kxm_grpc.server.settings import Settings
from tests.api.http_client import Answer, Connection, framed, frames
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub, Project

SNAPSHOT = "/kxm.v1.OpsService/GetOpsSnapshot"
WATCH = "/kxm.v1.OpsService/WatchOps"
SESSION = "/dashboard/session"


@pytest.fixture
def hub_settings(hub_settings: Settings) -> Settings:
    """The test hub with its HTTP port on (a free port on loopback)."""
    return replace(hub_settings, http_port=0)


def _http(hub: Hub) -> str:
    address = hub.server.http_address
    assert address is not None
    return address


def _json(data: object) -> bytes:
    return json.dumps(data).encode()


def _reason(answer: Answer) -> str:
    error = json.loads(answer.body)
    return str(next(d["debug"]["reason"] for d in error["details"] if d["type"] == "google.rpc.ErrorInfo"))


async def sign_in(http: Connection, token: str = ADMIN_TOKEN) -> tuple[Answer, str, str]:
    """Sign in; the answer, the cookie (``name=value``) and the CSRF value."""
    answer = await http.request(SESSION, _json({"token": token}))
    assert answer.status == 200, answer.body
    cookie = answer.headers["set-cookie"].split(";", 1)[0]
    return answer, cookie, json.loads(answer.body)["csrfToken"]


async def open_watch(http: Connection, headers: list[tuple[str, str]]) -> None:
    """Send WatchOps of project alpha over the Connect streaming protocol (the page's way)."""
    await http.send(
        "POST", WATCH, framed(_json({"project": "alpha"})), content_type="application/connect+json", headers=headers
    )


async def test_the_page_is_served_with_a_strict_policy_compressed_and_revalidated(hub: Hub) -> None:
    async with Connection(_http(hub)) as http:
        await http.send("GET", "/dashboard", content_type=None)
        redirect = await http.answer()
        await http.send("GET", "/dashboard/", content_type=None, headers=[("Accept-Encoding", "gzip")])
        page = await http.answer()
        await http.send("GET", "/dashboard/app.js", content_type=None)
        code = await http.answer()
        await http.send(
            "GET", "/dashboard/app.css", content_type=None, headers=[("If-None-Match", code.headers["etag"])]
        )
        other = await http.answer()
        await http.send(
            "GET", "/dashboard/app.js", content_type=None, headers=[("If-None-Match", code.headers["etag"])]
        )
        unchanged = await http.answer()
        await http.send("POST", "/dashboard/app.js", b"", content_type=None)
        posted = await http.answer()

    assert redirect.status == 308 and redirect.headers["location"] == "/dashboard/"
    assert page.status == 200 and page.headers["content-encoding"] == "gzip"
    html = gzip.decompress(page.body).decode()
    assert '<script type="module" src="app.js"></script>' in html and "<script>" not in html, "no inline script"
    for answer in (page, code):
        assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["referrer-policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY and "'unsafe-inline'" not in CONTENT_SECURITY_POLICY
    assert code.headers["content-type"].startswith("text/javascript") and b"WatchOps" in code.body
    assert other.status == 200, "another asset's ETag does not match"
    assert unchanged.status == 304 and unchanged.body == b""
    assert posted.status == 405


async def test_signing_in_sets_an_httponly_strict_cookie_and_is_audited(hub: Hub) -> None:
    async with Connection(_http(hub)) as http:
        answer, cookie, csrf = await sign_in(http)
        await http.send("GET", SESSION, content_type=None, headers=[("Cookie", cookie)])
        again = await http.answer()
    attributes = [part.strip() for part in answer.headers["set-cookie"].split(";")]
    assert attributes[0].startswith("kxm_session=kxmds1.")
    assert {"HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=28800"} <= set(attributes)
    assert "Secure" not in attributes, "plain HTTP on loopback: a Secure cookie would never be sent back"
    assert answer.headers["cache-control"] == "no-store"
    body = json.loads(answer.body)
    assert body["operator"] == "admin" and len(csrf) >= 32 and body["expireTime"].endswith("Z")
    assert ADMIN_TOKEN not in answer.headers["set-cookie"] and ADMIN_TOKEN not in answer.body.decode()
    assert again.status == 200 and json.loads(again.body)["csrfToken"] == csrf
    async with hub.admin() as admin:
        records = (await admin.admin.list_audit_records(action="SignInDashboard")).audit_records
    assert [(r.operator, r.action) for r in records] == [("admin", "SignInDashboard")]


async def test_a_sign_in_without_an_operators_token_is_refused(hub: Hub, project: Project) -> None:
    async with Connection(_http(hub)) as http:
        wrong = await http.request(SESSION, _json({"token": "not-a-token"}))
        by_project = await http.request(SESSION, _json({"token": project.token}))
        empty = await http.request(SESSION, _json({}))
        as_form = await http.request(SESSION, b"token=x", content_type="application/x-www-form-urlencoded")
        # A type a cross-site form may send without asking first, naming JSON in a parameter.
        as_text = await http.request(
            SESSION, _json({"token": ADMIN_TOKEN}), content_type="text/plain; x=application/json"
        )
        cross_site = await http.request(
            SESSION, _json({"token": ADMIN_TOKEN}), headers=[("Origin", "https://evil.example")]
        )
        await http.send("GET", SESSION, content_type=None)
        nobody = await http.answer()
    assert (wrong.status, _reason(wrong)) == (401, "ERROR_REASON_INVALID_AUTH")
    assert (by_project.status, _reason(by_project)) == (403, "ERROR_REASON_CREDENTIAL_KIND_DENIED")
    assert (empty.status, _reason(empty)) == (400, "ERROR_REASON_PROTOCOL_ERROR")
    assert (as_form.status, _reason(as_form)) == (400, "ERROR_REASON_PROTOCOL_ERROR")
    assert (as_text.status, _reason(as_text)) == (400, "ERROR_REASON_PROTOCOL_ERROR")
    assert (cross_site.status, _reason(cross_site)) == (403, "ERROR_REASON_CSRF_REJECTED")
    assert (nobody.status, _reason(nobody)) == (401, "ERROR_REASON_CREDENTIAL_MISSING")
    for refused in (wrong, by_project, empty, as_text, cross_site):
        assert "set-cookie" not in refused.headers


async def test_a_cookie_call_needs_the_csrf_value_and_this_origin(
    hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    await make_agent("alice")
    body = _json({"project": "alpha"})
    async with Connection(_http(hub)) as http:
        _, cookie, csrf = await sign_in(http)
        good = await http.request(SNAPSHOT, body, headers=[("Cookie", cookie), ("x-kxm-csrf", csrf)])
        same_site = await http.request(
            SNAPSHOT,
            body,
            headers=[
                ("Cookie", cookie),
                ("x-kxm-csrf", csrf),
                ("Origin", "http://127.0.0.1"),
                ("Sec-Fetch-Site", "same-origin"),
            ],
        )
        no_csrf = await http.request(SNAPSHOT, body, headers=[("Cookie", cookie)])
        # Another last character, always (appending "x" kept the value whenever it ended in "x").
        wrong = csrf[:-1] + ("y" if csrf[-1] == "x" else "x")
        wrong_csrf = await http.request(SNAPSHOT, body, headers=[("Cookie", cookie), ("x-kxm-csrf", wrong)])
        other_origin = await http.request(
            SNAPSHOT, body, headers=[("Cookie", cookie), ("x-kxm-csrf", csrf), ("Origin", "http://evil.example")]
        )
        cross_site = await http.request(
            SNAPSHOT, body, headers=[("Cookie", cookie), ("x-kxm-csrf", csrf), ("Sec-Fetch-Site", "cross-site")]
        )
        opaque = await http.request(
            SNAPSHOT, body, headers=[("Cookie", cookie), ("x-kxm-csrf", csrf), ("Origin", "null")]
        )
        # Behind a proxy that ends TLS the hub sees plain HTTP: the origin's scheme is not compared.
        proxied = await http.request(
            SNAPSHOT, body, headers=[("Cookie", cookie), ("x-kxm-csrf", csrf), ("Origin", "https://127.0.0.1")]
        )
        name, value = cookie.split("=", 1)
        prefix, key_id, payload, mac = value.split(".")
        changed = mac[:10] + ("B" if mac[10] == "A" else "A") + mac[11:]  # one character of the MAC, always
        tampered = await http.request(
            SNAPSHOT, body, headers=[("Cookie", f"{name}={prefix}.{key_id}.{payload}.{changed}"), ("x-kxm-csrf", csrf)]
        )
        with_agent = await http.request(
            SNAPSHOT,
            body,
            headers=[("Cookie", cookie), ("x-kxm-csrf", csrf), ("x-kxm-agent-id", "agt_x"), ("x-kxm-agent-key", "k")],
        )
        nothing = await http.request(SNAPSHOT, body)
        agent_call = await http.request(
            "/kxm.v1.MessageService/ListInbox", b"{}", headers=[("Cookie", cookie), ("x-kxm-csrf", csrf)]
        )
    assert good.status == 200 and [a["name"] for a in json.loads(good.body)["agents"]] == ["alice"]
    assert same_site.status == 200 and proxied.status == 200
    for refused in (no_csrf, wrong_csrf, other_origin, cross_site, opaque):
        assert (refused.status, _reason(refused)) == (403, "ERROR_REASON_CSRF_REJECTED")
    assert (tampered.status, _reason(tampered)) == (401, "ERROR_REASON_INVALID_AUTH")
    assert (with_agent.status, _reason(with_agent)) == (401, "ERROR_REASON_INVALID_AGENT_IDENTITY")
    assert (nothing.status, _reason(nothing)) == (401, "ERROR_REASON_CREDENTIAL_MISSING")
    assert (agent_call.status, _reason(agent_call)) == (403, "ERROR_REASON_CREDENTIAL_KIND_DENIED")


async def test_the_ops_watch_streams_to_a_cookie(hub: Hub, project: Project, make_agent: AgentFactory) -> None:
    await make_agent("alice")
    async with Connection(_http(hub)) as http:
        _, cookie, csrf = await sign_in(http)
        await http.send(
            "POST",
            WATCH,
            framed(_json({"project": "alpha"})),
            content_type="application/connect+json",
            headers=[("Cookie", cookie), ("x-kxm-csrf", csrf)],
        )
        status, _ = await http.head()
        first = await anext(http.chunks())
    flags, message = frames(first)[0]
    assert status == 200 and flags == 0
    update = json.loads(message)
    assert [a["name"] for a in update["snapshot"]["agents"]] == ["alice"] and update["version"]


async def test_a_revoked_operators_session_ends_and_signing_out_clears_the_cookie(hub: Hub, project: Project) -> None:
    body = _json({"project": "alpha"})
    async with hub.admin() as admin:
        issued = await admin.admin.create_operator("pat")
        async with Connection(_http(hub)) as http:
            answer, cookie, csrf = await sign_in(http, issued.operator_token)
            before = await http.request(SNAPSHOT, body, headers=[("Cookie", cookie), ("x-kxm-csrf", csrf)])
            await http.send("DELETE", SESSION, content_type=None, headers=[("Cookie", cookie), ("x-kxm-csrf", csrf)])
            signed_out = await http.answer()
            # A copy of the signed-out cookie is worth nothing: sign-out ended the session on the hub.
            replayed = await http.request(SNAPSHOT, body, headers=[("Cookie", cookie), ("x-kxm-csrf", csrf)])
            _, cookie, csrf = await sign_in(http, issued.operator_token)
            again = await http.request(SNAPSHOT, body, headers=[("Cookie", cookie), ("x-kxm-csrf", csrf)])
            await admin.admin.revoke_operator("pat")
            after = await http.request(SNAPSHOT, body, headers=[("Cookie", cookie), ("x-kxm-csrf", csrf)])
            await http.send("GET", SESSION, content_type=None, headers=[("Cookie", cookie)])
            reloaded = await http.answer()
        records = (await admin.admin.list_audit_records(operator="pat")).audit_records
    assert json.loads(answer.body)["operator"] == "pat" and before.status == 200
    assert signed_out.status == 204 and "Max-Age=0" in signed_out.headers["set-cookie"]
    assert (replayed.status, _reason(replayed)) == (401, "ERROR_REASON_INVALID_AUTH") and again.status == 200
    assert (reloaded.status, _reason(reloaded)) == (401, "ERROR_REASON_INVALID_AUTH")
    assert (after.status, _reason(after)) == (401, "ERROR_REASON_INVALID_AUTH")
    assert sorted(r.action for r in records) == ["SignInDashboard", "SignInDashboard", "SignOutDashboard"]


async def test_signing_out_ends_the_sessions_open_watch(hub: Hub, project: Project) -> None:
    async with Connection(_http(hub)) as http, Connection(_http(hub)) as other:
        _, cookie, csrf = await sign_in(http)
        headers = [("Cookie", cookie), ("x-kxm-csrf", csrf)]
        await http.send(
            "POST", WATCH, framed(_json({"project": "alpha"})), content_type="application/connect+json", headers=headers
        )
        status, _ = await http.head()
        chunks = http.chunks()
        await anext(chunks)  # the first view
        await other.send("DELETE", SESSION, content_type=None, headers=headers)
        assert (await other.answer()).status == 204
        (flags, ending), *_ = frames(await asyncio.wait_for(anext(chunks), 10))
    assert status == 200 and flags == 0x02
    assert json.loads(ending)["error"]["code"] == "unauthenticated"


async def test_an_open_watch_ends_when_its_session_expires(clocked_hub: tuple[Hub, ManualClock]) -> None:
    hub, clock = clocked_hub
    async with hub.admin() as admin:
        await admin.admin.create_project("alpha")
    async with Connection(_http(hub)) as http:
        _, cookie, csrf = await sign_in(http)
        clock.advance(8 * 3600 - 1)  # one second of the session left, on the hub's clock
        headers = [("Cookie", cookie), ("x-kxm-csrf", csrf)]
        await http.send(
            "POST", WATCH, framed(_json({"project": "alpha"})), content_type="application/connect+json", headers=headers
        )
        await http.head()
        chunks = http.chunks()
        await anext(chunks)
        (flags, ending), *_ = frames(await asyncio.wait_for(anext(chunks), 10))
    assert flags == 0x02 and json.loads(ending)["error"]["code"] == "deadline_exceeded"


async def test_a_session_expires_on_the_hubs_clock(clocked_hub: tuple[Hub, ManualClock]) -> None:
    hub, clock = clocked_hub
    async with Connection(_http(hub)) as http:
        _, cookie, csrf = await sign_in(http)
        clock.advance(8 * 3600 - 1)
        still = await http.request(
            "/kxm.v1.AdminService/ListProjects", b"{}", headers=[("Cookie", cookie), ("x-kxm-csrf", csrf)]
        )
        clock.advance(1)
        expired = await http.request(
            "/kxm.v1.AdminService/ListProjects", b"{}", headers=[("Cookie", cookie), ("x-kxm-csrf", csrf)]
        )
    assert still.status == 200
    assert (expired.status, _reason(expired)) == (401, "ERROR_REASON_INVALID_AUTH")


async def test_the_webhook_listener_serves_no_dashboard(hub_settings: Settings) -> None:
    from kxm_grpc.server.app import HubServer

    server = HubServer(replace(hub_settings, webhook_port=0))
    await server.start()
    try:
        async with Connection(f"127.0.0.1:{server.webhook_port}") as http:
            await http.send("GET", "/dashboard/", content_type=None)
            page = await http.answer()
        async with Connection(f"127.0.0.1:{server.webhook_port}") as http:
            signing_in = await http.request(SESSION, _json({"token": ADMIN_TOKEN}))
    finally:
        await server.stop(0.2)
    assert page.status in (404, 405) and b"kxm hub" not in page.body
    assert signing_in.status == 404 and "set-cookie" not in signing_in.headers
