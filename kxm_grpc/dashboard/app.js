// The kxm hub dashboard. It signs in once (POST /dashboard/session: the browser then holds an
// HttpOnly session cookie), watches the chosen project live (OpsService.WatchOps over the Connect
// streaming protocol, resumed by version after a cut), reads a run's detail, journal and the
// improvement report, and acts through the operator RPCs the CLI calls. Every call sends the
// session's CSRF value in x-kxm-csrf. No data is ever written into the page as HTML.

const CSRF_HEADER = "x-kxm-csrf";
const FLOW_LENGTH = 50;
const MAX_BACKOFF_MS = 5000;

const state = {
  csrf: "",
  operator: "",
  project: "",
  snapshot: null,
  version: "",
  watching: null, // the AbortController of the open watch
  openMessages: new Map(), // id -> message, as the last update showed them
  flow: [],
  run: null,
  runUpdateTime: "",
};

const $ = (id) => document.getElementById(id);

// -- calls ------------------------------------------------------------------------------------

class RpcError extends Error {
  constructor(code, message, reason) {
    super(message);
    this.code = code;
    this.reason = reason || "";
  }
}

function errorOf(body, status) {
  const info = (body.details || []).find((d) => d.type === "google.rpc.ErrorInfo");
  return new RpcError(body.code || `http ${status}`, body.message || `the hub answered ${status}`, info?.debug?.reason);
}

function headers(contentType, inProject = true) {
  const sent = { "Content-Type": contentType, [CSRF_HEADER]: state.csrf };
  if (inProject && state.project) sent["x-kxm-project"] = state.project;
  return sent;
}

// A unary RPC over Connect JSON; in the chosen project (x-kxm-project) unless inProject is false.
async function call(method, request = {}, inProject = true) {
  const response = await fetch(`/kxm.v1.${method}`, {
    method: "POST",
    headers: headers("application/json", inProject),
    body: JSON.stringify(request),
    credentials: "same-origin",
  });
  const text = await response.text();
  const body = text ? JSON.parse(text) : {};
  if (!response.ok) throw errorOf(body, response.status);
  return body;
}

function envelope(message) {
  const data = new TextEncoder().encode(JSON.stringify(message));
  const framed = new Uint8Array(5 + data.length);
  new DataView(framed.buffer).setUint32(1, data.length);
  framed.set(data, 5);
  return framed;
}

// Reads a Connect server stream: each enveloped message to onMessage; the end-of-stream's error thrown.
async function readStream(response, onMessage) {
  const reader = response.body.getReader();
  let buffer = new Uint8Array(0);
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new RpcError("unavailable", "the watch ended without its end-of-stream");
    const joined = new Uint8Array(buffer.length + value.length);
    joined.set(buffer);
    joined.set(value, buffer.length);
    buffer = joined;
    while (buffer.length >= 5) {
      const flags = buffer[0];
      const length = new DataView(buffer.buffer, buffer.byteOffset).getUint32(1);
      if (buffer.length < 5 + length) break;
      const message = JSON.parse(new TextDecoder().decode(buffer.subarray(5, 5 + length)));
      buffer = buffer.slice(5 + length);
      if (flags & 0x02) {
        if (message.error) throw errorOf(message.error, 200);
        return;
      }
      onMessage(message);
    }
  }
}

// -- session ----------------------------------------------------------------------------------

async function session(method, body) {
  const init = { method, credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  if (state.csrf) init.headers[CSRF_HEADER] = state.csrf;
  const response = await fetch("/dashboard/session", init);
  const text = await response.text();
  const answer = text ? JSON.parse(text) : {};
  if (!response.ok) throw errorOf(answer, response.status);
  return answer;
}

function showSignIn(message) {
  stopWatching();
  state.csrf = "";
  state.project = "";
  $("session").hidden = true;
  $("overview").hidden = true;
  $("run-page").hidden = true;
  $("sign-in").hidden = false;
  $("sign-in-error").textContent = message || "";
  $("token").focus();
}

async function signedIn(answer) {
  state.csrf = answer.csrfToken;
  state.operator = answer.operator;
  $("sign-in").hidden = true;
  $("session").hidden = false;
  $("operator").textContent = `signed in as ${answer.operator}`;
  await loadProjects();
  route();
}

function isSignedOut(error) {
  return error instanceof RpcError && (error.code === "unauthenticated" || error.reason === "ERROR_REASON_CSRF_REJECTED");
}

// -- projects and the watch -------------------------------------------------------------------

async function loadProjects() {
  const saved = sessionStorage.getItem("kxm.project");
  const select = $("project");
  select.replaceChildren();
  const listed = await call("AdminService/ListProjects", { pageSize: 500 }, false);
  for (const project of listed.projects || []) {
    const option = document.createElement("option");
    option.value = option.textContent = project.name;
    select.append(option);
  }
  const names = (listed.projects || []).map((p) => p.name);
  select.value = names.includes(saved) ? saved : names[0] || "";
  choose(select.value);
}

function choose(project) {
  if (project === state.project && state.watching) return;
  stopWatching();
  state.project = project;
  state.version = "";
  state.reportKey = "";
  state.snapshot = null;
  state.openMessages = new Map();
  state.flow = [];
  sessionStorage.setItem("kxm.project", project);
  if (project) watch();
}

function stopWatching() {
  if (state.watching) state.watching.abort();
  state.watching = null;
}

function setLive(text, kind) {
  const live = $("live");
  live.textContent = text;
  live.className = `live ${kind}`;
}

async function watch() {
  const controller = new AbortController();
  state.watching = controller;
  let backoff = 200;
  while (!controller.signal.aborted) {
    try {
      const response = await fetch("/kxm.v1.OpsService/WatchOps", {
        method: "POST",
        headers: headers("application/connect+json"),
        body: envelope({ project: state.project, afterVersion: state.version }),
        credentials: "same-origin",
        signal: controller.signal,
      });
      if (!response.ok) throw errorOf(await response.json().catch(() => ({})), response.status);
      setLive("live", "on");
      await readStream(response, (update) => {
        backoff = 200;
        state.version = update.version;
        showSnapshot(update.snapshot || {});
      });
    } catch (error) {
      if (controller.signal.aborted) return;
      if (isSignedOut(error)) return showSignIn("Your session ended: sign in again.");
      if (error instanceof RpcError && ["not_found", "permission_denied", "invalid_argument"].includes(error.code)) {
        setLive("stopped", "off");
        $("overview-error").textContent = error.message;
        return;
      }
      setLive("reconnecting", "off");
    }
    await new Promise((resolve) => setTimeout(resolve, backoff + Math.random() * backoff));
    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
  }
}

// -- rendering --------------------------------------------------------------------------------

function cell(text, className) {
  const td = document.createElement("td");
  td.textContent = text ?? "";
  if (className) td.className = className;
  return td;
}

function row(...cells) {
  const tr = document.createElement("tr");
  tr.append(...cells);
  return tr;
}

function fill(tableId, rows, empty) {
  const body = $(tableId).tBodies[0];
  if (!rows.length) {
    const td = cell(empty, "muted");
    td.colSpan = $(tableId).tHead.rows[0].cells.length;
    body.replaceChildren(row(td));
  } else {
    body.replaceChildren(...rows);
  }
}

function word(value, prefix) {
  return (value || "").replace(prefix, "").toLowerCase().replaceAll("_", " ");
}

function badge(text, kind) {
  const td = document.createElement("td");
  const span = document.createElement("span");
  span.className = `badge ${kind}`;
  span.textContent = text;
  td.append(span);
  return td;
}

// Times are shown against the hub's clock (the snapshot's time), never the browser's.
function ago(time, now) {
  if (!time) return "";
  const seconds = Math.round((Date.parse(now) - Date.parse(time)) / 1000);
  if (Math.abs(seconds) < 90) return seconds >= 0 ? `${seconds} s ago` : `in ${-seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (Math.abs(minutes) < 90) return minutes >= 0 ? `${minutes} min ago` : `in ${-minutes} min`;
  return new Date(time).toISOString().replace("T", " ").slice(0, 19);
}

function count(id, shown, total) {
  $(id).textContent = `(${shown} of ${total})`;
}

const PRESENCE_KIND = { online: "ok", stale: "warn", offline: "muted", expired: "muted", unknown: "muted" };
const RUN_KIND = { running: "ok", waiting: "warn", queued: "muted", blocked: "bad", completed: "ok", failed: "bad", cancelled: "muted" };

function showSnapshot(snapshot) {
  state.snapshot = snapshot;
  const now = snapshot.snapshotTime;
  $("overview-error").textContent = "";
  const agents = snapshot.agents || [];
  count("agents-count", agents.length, snapshot.agentTotal || 0);
  fill("agents", agents.map((a) => {
    const presence = word(a.presence, "PRESENCE_");
    return row(cell(a.name), badge(presence, PRESENCE_KIND[presence] || ""), cell(a.model, "hide-narrow"), cell(ago(a.lastSeenTime, now)));
  }), "No agents.");

  const messages = snapshot.openMessages || [];
  count("messages-count", messages.length, snapshot.openMessageTotal || 0);
  fill("messages", messages.map((m) => row(
    cell(m.fromAgentName), cell(m.toAgentName), cell(word(m.state, "MESSAGE_STATE_")), cell(ago(m.createTime, now)),
  )), "No open messages.");
  showFlow(messages, now);

  const leases = snapshot.leases || [];
  count("leases-count", leases.length, snapshot.leaseTotal || 0);
  fill("leases", leases.map((l) => row(
    cell(l.name, "mono"), cell(l.holderAgentName), cell(String(l.fencingToken || "0"), "mono"), cell(ago(l.expireTime, now)),
  )), "No live leases.");

  const runtimes = snapshot.runtimes || [];
  const homes = new Map((snapshot.runtimeRuns || []).map((h) => [h.runtimeId, h]));
  count("runtimes-count", runtimes.length, snapshot.runtimeTotal || 0);
  fill("runtimes", runtimes.map((r) => {
    const presence = word(r.presence, "RUNTIME_PRESENCE_STATE_");
    return row(cell(r.id, "mono"), cell(r.host), badge(presence, PRESENCE_KIND[presence] || ""), syncRuns(homes.get(r.id)), cell(ago(r.heartbeatTime, now), "hide-narrow"));
  }), "No runtimes.");

  const runs = snapshot.runs || [];
  count("runs-count", runs.length, snapshot.runTotal || 0);
  fill("runs", runs.map((r) => {
    const link = document.createElement("a");
    link.href = `#/runs/${encodeURIComponent(r.id)}`;
    link.textContent = r.id;
    const first = document.createElement("td");
    first.className = "mono";
    first.append(link);
    const status = word(r.status, "WORKFLOW_RUN_STATUS_");
    return row(first, cell(r.definitionId), badge(status, RUN_KIND[status] || ""), cell(r.currentStageId), cell(ago(r.updateTime, now), "hide-narrow"));
  }), "No workflow runs.");

  const plans = snapshot.plans || [];
  $("plans").replaceChildren(...(plans.length ? plans.map((p) => {
    const li = document.createElement("li");
    li.textContent = `${ago(p.createTime, now)} ${p.runId}${p.stageId ? ` (${p.stageId})` : ""}: ${p.summary}`;
    return li;
  }) : [placeholder("No plans recorded yet.")]));

  const shownRun = state.run && runs.find((r) => r.id === state.run);
  if (shownRun && shownRun.updateTime !== state.runUpdateTime) loadRun(state.run);
  const ended = runs.filter((r) => !["running", "waiting", "queued", "blocked"].includes(word(r.status, "WORKFLOW_RUN_STATUS_"))).length;
  const reportKey = `${snapshot.runTotal || 0}/${ended}`;
  if (reportKey !== state.reportKey) {
    state.reportKey = reportKey;
    loadReport();
  }
}

// The improvement report: the project's journal across its runs, by area, and its strongest signals.
async function loadReport() {
  try {
    const report = await call("WorkflowService/GetImprovementReport", { project: state.project, maxEntries: 500 });
    const areas = (report.areas || []).map((a) => {
      const li = document.createElement("li");
      li.textContent = `${word(a.area, "IMPROVEMENT_AREA_")}: ${a.total || 0} entries (${a.errors || 0} errors, ${a.contradictions || 0} contradictions, ${a.lessons || 0} lessons)`;
      return li;
    });
    const signals = (report.signals || []).slice(0, 5).map((s) => {
      const li = document.createElement("li");
      li.textContent = `${s.key}: seen ${s.frequency || 0} times, priority ${(s.priority || 0).toFixed(2)}`;
      return li;
    });
    $("report-count").textContent = `(${report.entries || 0} entries)`;
    $("report").replaceChildren(...(areas.length || signals.length ? [...areas, ...signals] : [placeholder("No journal entries yet.")]));
  } catch (error) {
    if (isSignedOut(error)) return showSignIn("Your session ended: sign in again.");
    $("report").replaceChildren(placeholder(error.message));
  }
}

// A runtime's sync runs: how many, how many wait behind a gap, and each one's cursor on hover.
function syncRuns(home) {
  if (!home) return cell("none", "muted");
  const runs = home.runs || [];
  const gaps = runs.filter((r) => r.pendingGap).length;
  const td = cell(`${home.runTotal || 0}${gaps ? ` (${gaps} with a gap)` : ""}`, gaps ? "warn" : "");
  td.title = runs.map((r) => `${r.projectId}/${r.runId}: ingested to ${r.cursor || 0} of ${r.lastSequence || 0}`).join("\n");
  return td;
}

// The flow: messages as they appear between agents and as they end (answered, cancelled or expired).
function showFlow(messages, now) {
  const open = new Map(messages.map((m) => [m.id, m]));
  const when = new Date(now || Date.now()).toISOString().slice(11, 19);
  for (const [id, m] of open) {
    if (!state.openMessages.has(id)) state.flow.unshift({ when, text: `${m.fromAgentName} → ${m.toAgentName}: sent`, id });
  }
  for (const [id, m] of state.openMessages) {
    if (!open.has(id)) state.flow.unshift({ when, text: `${m.fromAgentName} → ${m.toAgentName}: ended`, id });
  }
  state.openMessages = open;
  state.flow.length = Math.min(state.flow.length, FLOW_LENGTH);
  const items = state.flow.map((entry) => {
    const li = document.createElement("li");
    li.textContent = `${entry.when}  ${entry.text}`;
    li.dataset.message = entry.id;
    return li;
  });
  if (!items.length) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = "Messages appear here as agents send them.";
    items.push(li);
  }
  $("flow").replaceChildren(...items);
}

// -- a run's page -----------------------------------------------------------------------------

function fact(list, name, value) {
  const dt = document.createElement("dt");
  dt.textContent = name;
  const dd = document.createElement("dd");
  dd.textContent = value || "—";
  list.append(dt, dd);
}

async function loadRun(runId) {
  try {
    const [got, journal] = await Promise.all([
      call("WorkflowService/GetWorkflowRun", { runId }),
      call("WorkflowService/ListJournal", { runId, pageSize: 50 }).catch(() => ({ records: [] })),
    ]);
    if (state.run !== runId) return;
    showRun(got.run || {}, journal.records || []);
  } catch (error) {
    if (isSignedOut(error)) return showSignIn("Your session ended: sign in again.");
    $("run-error").textContent = error.message;
  }
}

function showRun(run, records) {
  state.runUpdateTime = run.updateTime || "";
  $("run-error").textContent = "";
  $("run-title").textContent = `Run ${run.id}`;
  const status = word(run.status, "WORKFLOW_RUN_STATUS_");
  const facts = $("run-facts");
  facts.replaceChildren();
  fact(facts, "Definition", run.definitionId);
  fact(facts, "Status", status);
  fact(facts, "Current stage", run.currentStageId || run.steps?.currentStepId);
  fact(facts, "Coordinator", run.coordinatorName);
  fact(facts, "Waiting for", run.wait ? `${run.wait.signalKey || "a ruling"} on ${run.wait.stageId}: ${run.wait.summary || ""}` : "");
  fact(facts, "Ended", run.endTime ? `${run.endTime} ${run.endReason || ""}` : "");

  const stages = run.stages || [];
  fill("stages", stages.map((s) => {
    const evidence = (s.requiredEvidence || []).map((key) => `${key}${(s.evidence || {})[key] ? " ✓" : ""}`).join(", ");
    const quorum = (s.quorum || []).map((q) => `${q.requirementKey}: ${q.counted || 0}/${q.required || 0}${q.met ? " met" : ""}${q.degraded ? " (degraded)" : ""}`).join("; ");
    const stageStatus = word(s.status, "WORKFLOW_STAGE_STATUS_");
    return row(cell(s.label || s.id), badge(stageStatus, stageStatus === "passed" ? "ok" : stageStatus === "failed" ? "bad" : ""), cell(String(s.attempts || 0)), cell(evidence), cell(quorum));
  }), run.steps ? "A step run: its steps are below." : "No stages.");
  const steps = $("steps");
  steps.replaceChildren();
  if (run.steps) {
    const list = document.createElement("dl");
    list.className = "facts";
    fact(list, "Current step", run.steps.currentStepId);
    fact(list, "Phase", word(run.steps.phase, "STEP_PHASE_"));
    fact(list, "Transitions", `${run.steps.transitions || 0} of ${run.steps.transitionBudget || 0}`);
    fact(list, "Assignments", (run.steps.assignments || []).map((a) => `${a.stepId}#${a.index || 0} ${a.agentName} ${word(a.state, "ASSIGNMENT_STATE_")}`).join("; "));
    steps.append(list);
  }

  const transitions = run.transitions || [];
  $("transitions").replaceChildren(...(transitions.length ? transitions.map((t) => {
    const li = document.createElement("li");
    li.textContent = `${t.fromStageId} → ${t.toStageId} (${t.outcome || "moved"}, attempt ${t.attempt || 0})`;
    return li;
  }) : [placeholder("No transitions yet.")]));

  const entries = records.map((r) => r.entry).filter(Boolean);
  $("journal").replaceChildren(...(entries.length ? entries.map((e) => {
    const li = document.createElement("li");
    li.textContent = `${word(e.category, "JOURNAL_CATEGORY_")}: ${e.summary}`;
    return li;
  }) : [placeholder("No journal entries.")]));

  const active = ["running", "waiting", "queued", "blocked"].includes(status);
  const current = stages.find((s) => s.id === run.currentStageId);
  $("rule-form").hidden = !(current?.escalation && !current.escalation.ruledBy);
  $("degrade-form").hidden = !(active && current);
  $("approve-form").hidden = run.steps?.phase !== "STEP_PHASE_AWAITING_APPROVAL";
  $("cancel-form").hidden = !active;
  state.runView = run;
}

function placeholder(text) {
  const li = document.createElement("li");
  li.className = "muted";
  li.textContent = text;
  return li;
}

async function act(method, request, done) {
  const result = $("action-result");
  try {
    await call(method, request);
    result.textContent = done;
    result.className = "ok";
    await loadRun(state.run);
  } catch (error) {
    if (isSignedOut(error)) return showSignIn("Your session ended: sign in again.");
    result.textContent = `${error.message}${error.reason ? ` (${error.reason})` : ""}`;
    result.className = "bad";
  }
}

// -- routing and wiring -----------------------------------------------------------------------

function route() {
  if (!state.csrf) return;
  const match = location.hash.match(/^#\/runs\/(.+)$/);
  state.run = match ? decodeURIComponent(match[1]) : null;
  $("overview").hidden = Boolean(state.run);
  $("run-page").hidden = !state.run;
  $("action-result").textContent = "";
  if (state.run) {
    state.runUpdateTime = "";
    loadRun(state.run);
  }
  $("main").focus();
}

function formValues(form) {
  return Object.fromEntries(new FormData(form).entries());
}

function wire() {
  $("sign-in-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const answer = await session("POST", { token: $("token").value });
      $("token").value = "";
      await signedIn(answer);
    } catch (error) {
      $("sign-in-error").textContent = error.message;
    }
  });
  $("sign-out").addEventListener("click", async () => {
    try {
      await session("DELETE");
    } finally {
      showSignIn("Signed out.");
    }
  });
  $("project").addEventListener("change", (event) => {
    location.hash = "#/";
    choose(event.target.value);
  });
  window.addEventListener("hashchange", route);
  $("rule-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const values = formValues(event.target);
    act("WorkflowService/ResolveEscalation", { runId: state.run, ruling: values.ruling, status: values.status }, "Ruled.");
  });
  $("degrade-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const values = formValues(event.target);
    act("WorkflowService/ApproveDegradation", {
      runId: state.run, stageId: state.runView?.currentStageId, requirementKey: values.requirement, reason: values.reason,
    }, "Degradation approved.");
  });
  $("approve-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const values = formValues(event.target);
    act("WorkflowService/ApproveStep", {
      runId: state.run, stepId: state.runView?.steps?.currentStepId, outcome: values.outcome, reason: values.reason,
    }, "Decided.");
  });
  $("cancel-form").addEventListener("submit", (event) => {
    event.preventDefault();
    act("WorkflowService/CancelWorkflowRun", { runId: state.run, reason: formValues(event.target).reason }, "Cancelled.");
  });
}

async function start() {
  wire();
  try {
    await signedIn(await session("GET"));
  } catch {
    showSignIn("");
  }
}

start();
