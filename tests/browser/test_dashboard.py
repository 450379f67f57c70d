"""The dashboard in a real browser (headless Chromium) against a live hub with real agents: sign-in
refused without a token and kept in an HttpOnly cookie with one; agents, messages (never their
content), leases and a workflow run moving through a back-edge appearing without a reload; an
operator's ruling given from the page; axe-core finding nothing serious at laptop and phone widths.

The time from an event on the hub to its appearance on the page is printed, not asserted (the
figures are ``bench.dashboard``'s). With ``KXM_DASHBOARD_SCREENSHOTS=<dir>`` the main views are
saved there (``docs/dashboard/`` holds the committed ones: docs/dashboard.md).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kxm_grpc.client import HubClient
from kxm_grpc.v1 import workflow_types_pb2
from tests.api.test_runtimes import sync_event
from tests.browser.conftest import LAPTOP, PHONE, axe_violations, dashboard_url
from tests.conftest import ADMIN_TOKEN, AgentFactory, Hub, Project
from tests.workflows import define, start_run

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

SECRET_CONTENT = "the content no operator view may carry"
WAIT_MS = 10_000
"""How long a test waits for a change to show on the page (the latency is measured, not asserted)."""


async def open_page(browser: Any, hub: Hub, *, viewport: dict[str, int] = LAPTOP, bypass_csp: bool = False) -> Any:
    context = await browser.new_context(viewport=viewport, bypass_csp=bypass_csp)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    await page.goto(dashboard_url(hub))
    return page


async def sign_in(page: Any, token: str = ADMIN_TOKEN) -> None:
    await page.get_by_label("Operator token").fill(token)
    await page.get_by_role("button", name="Sign in").click()
    await page.locator("#overview").wait_for(state="visible", timeout=WAIT_MS)


async def shown(page: Any, selector: str, what: str) -> float:
    """Seconds until ``selector`` is on the page; printed as the latency of ``what``."""
    started = time.monotonic()
    await page.locator(selector).first.wait_for(state="visible", timeout=WAIT_MS)
    took = time.monotonic() - started
    print(f"dashboard: {what} shown after {took * 1000:.0f} ms", file=sys.stderr)
    return took


def _screenshot_path(name: str) -> str | None:
    folder = os.environ.get("KXM_DASHBOARD_SCREENSHOTS")
    if not folder:
        return None
    Path(folder).mkdir(parents=True, exist_ok=True)
    return str(Path(folder) / f"{name}.png")


async def screenshot(page: Any, name: str) -> None:
    """Save the page as ``<name>.png`` in ``KXM_DASHBOARD_SCREENSHOTS``, when it names a folder."""
    path = _screenshot_path(name)
    if path is not None:
        await page.screenshot(path=path, full_page=True)


async def test_the_page_refuses_without_a_token_and_keeps_a_session_the_page_cannot_read(
    browser: Any, hub: Hub, project: Project
) -> None:
    page = await open_page(browser, hub)
    await page.locator("#sign-in").wait_for(state="visible")
    assert await page.locator("#overview").is_hidden() and await page.locator("#session").is_hidden()
    unsigned = await page.evaluate(
        "async () => (await fetch('/kxm.v1.AdminService/ListProjects', {method: 'POST', "
        "headers: {'Content-Type': 'application/json'}, body: '{}'})).status"
    )
    await screenshot(page, "sign-in")

    await page.get_by_label("Operator token").fill("not-a-token")
    await page.keyboard.press("Enter")
    await page.get_by_text("the bearer token is not valid").wait_for(timeout=WAIT_MS)
    assert await page.locator("#overview").is_hidden()
    async with HubClient(hub.address, token=project.token):
        await page.get_by_label("Operator token").fill(project.token)
        await page.keyboard.press("Enter")
        await page.get_by_text("the dashboard is for operators").wait_for(timeout=WAIT_MS)

    # The keyboard alone: the token field has the focus after a refusal; Enter submits.
    await page.get_by_label("Operator token").fill(ADMIN_TOKEN)
    await page.keyboard.press("Enter")
    await page.locator("#overview").wait_for(state="visible", timeout=WAIT_MS)
    cookies = await page.context.cookies()
    readable = await page.evaluate("document.cookie")
    without_csrf = await page.evaluate(
        "async () => (await fetch('/kxm.v1.AdminService/ListProjects', {method: 'POST', "
        "headers: {'Content-Type': 'application/json'}, body: '{}'})).status"
    )
    assert unsigned == 401
    assert [(c["name"], c["httpOnly"], c["sameSite"]) for c in cookies] == [("kxm_session", True, "Strict")]
    assert readable == "" and ADMIN_TOKEN not in await page.content()
    assert without_csrf == 403, "a call without the session's CSRF value is refused even from the page's origin"
    assert await page.locator("#operator").text_content() == "signed in as admin"

    await page.get_by_role("button", name="Sign out").click()
    await page.locator("#sign-in").wait_for(state="visible", timeout=WAIT_MS)
    assert await page.context.cookies() == []
    assert page.errors == []


async def test_agents_messages_and_leases_appear_live_without_their_content(
    browser: Any, hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    alice = await make_agent("alice")
    page = await open_page(browser, hub)
    await sign_in(page)
    await shown(page, "#agents tbody tr:has-text('alice')", "the first snapshot")
    assert await page.locator("#live").text_content() == "live"

    bob = await make_agent("bob")
    await shown(page, "#agents tbody tr:has-text('bob')", "an agent registering")

    sent = await alice.messages.send("bob", SECRET_CONTENT)
    await shown(page, f"#flow li[data-message='{sent.message.id}']", "a message sent")
    message_cells = await page.locator("#messages tbody tr").first.locator("td").all_text_contents()
    assert message_cells[:3] == ["alice", "bob", "queued"]
    await alice.leases.acquire("deploy", ttl=60)
    await shown(page, "#leases tbody tr:has-text('deploy')", "a lease taken")
    lease_cells = await page.locator("#leases tbody tr").first.locator("td").all_text_contents()
    await screenshot(page, "overview")
    await bob.messages.reply(sent.message.id, "a reply no operator view may carry either")
    await shown(page, "#flow li:has-text('ended')", "a message answered")
    lease = await alice.leases.get("deploy")
    await alice.leases.release("deploy", lease.lease.fencing_token)
    await shown(page, "#leases tbody tr:has-text('No live leases')", "a lease released")
    async with HubClient(hub.address, token=project.token) as laptop:
        await laptop.runtimes.register("rtm_laptop000001", host="laptop", adopt=True)
        await laptop.runtimes.push_sync_events([sync_event(1), sync_event(3)])  # 2 is missing
    await shown(page, "#runtimes tbody tr:has-text('1 (1 with a gap)')", "a runtime's run with a gap")

    content = await page.content()
    assert lease_cells[:3] == ["deploy", "alice", str(lease.lease.fencing_token)]
    assert SECRET_CONTENT not in content and "no operator view" not in content
    assert page.errors == []


async def test_a_run_moving_through_a_back_edge_and_an_operators_ruling_from_the_page(
    browser: Any, hub: Hub, project: Project, make_agent: AgentFactory
) -> None:
    coordinator = await make_agent("coordinator")
    document = define(stages=("fix", "verify"))
    document["stages"][1]["on"] = {"failed": {"target": "fix", "maxTransitions": 2}}
    document["maxTransitions"] = 4
    run = await start_run(hub, document)
    page = await open_page(browser, hub)
    await sign_in(page)
    await page.get_by_role("link", name=run.id).click()
    await shown(page, "#stages tbody tr:has-text('fix')", "the run's page")

    await coordinator.workflows.checkpoint(run.id, "fix", "passed", summary="patched")
    await coordinator.workflows.checkpoint(run.id, "verify", "failed", summary="the tests still fail")
    await shown(page, "#transitions li:has-text('verify → fix')", "a back-edge taken")
    await coordinator.workflows.escalate_stage(run.id, "fix", "the fix needs a human's look")
    await shown(page, "#rule-form:not([hidden])", "an escalation")
    forms = {
        name: await page.locator(f"#{name}-form").is_visible() for name in ("rule", "degrade", "approve", "cancel")
    }
    assert forms == {"rule": True, "degrade": True, "approve": False, "cancel": True}, (
        "a stage run has no approval step"
    )
    await screenshot(page, "run")

    await page.get_by_label("Ruling").select_option("CHECKPOINT_STATUS_PASSED")
    await page.get_by_label("Why", exact=True).first.fill("read the patch: it is right")
    await page.get_by_role("button", name="Rule").click()
    await page.locator("#action-result:has-text('Ruled.')").wait_for(timeout=WAIT_MS)
    await shown(page, "#run-facts dd:has-text('verify')", "the run moving on after the ruling")

    async with hub.admin() as admin:
        after = (await admin.workflows.get_run(run.id)).run
        records = (await admin.admin.list_audit_records(operator="admin")).audit_records
    audited = [record for record in records if record.action == "workflow.rule"]
    (fix,) = [stage for stage in after.stages if stage.id == "fix"]
    assert fix.escalation.ruled_by == "admin" and after.current_stage_id == "verify"
    assert [(t.from_stage_id, t.to_stage_id) for t in after.transitions] == [("verify", "fix")]
    assert after.status == workflow_types_pb2.WORKFLOW_RUN_STATUS_RUNNING
    assert [(r.operator, r.target) for r in audited] == [("admin", f"run:{run.id}")]
    assert page.errors == []


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
async def test_every_view_has_no_serious_accessibility_violation(
    browser: Any, hub: Hub, project: Project, make_agent: AgentFactory, viewport: dict[str, int]
) -> None:
    alice = await make_agent("alice")
    await make_agent("bob")
    await make_agent("coordinator")
    await alice.messages.send("bob", "hello")
    await alice.leases.acquire("deploy", ttl=60)
    run = await start_run(hub, define())
    page = await open_page(browser, hub, viewport=viewport, bypass_csp=True)
    await page.locator("#sign-in").wait_for(state="visible")
    found = {"sign-in": await axe_violations(page)}
    await sign_in(page)
    await page.locator(f"#runs a:has-text('{run.id}')").wait_for(timeout=WAIT_MS)
    found["overview"] = await axe_violations(page)
    if viewport is PHONE:
        await screenshot(page, "overview-phone")
    await page.get_by_role("link", name=run.id).click()
    await page.locator("#stages tbody tr:has-text('review')").wait_for(timeout=WAIT_MS)
    found["run"] = await axe_violations(page)
    wide = await page.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1")
    assert found == {"sign-in": [], "overview": [], "run": []}
    assert not wide, "the page scrolls sideways"
