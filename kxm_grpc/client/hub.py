"""HubClient: a thin async client over the generated stubs, one sub-client per service area.

``hub.agents``, ``hub.messages``, ``hub.leases``, ``hub.runtimes``, ``hub.admin``, ``hub.workflows``
and ``hub.context`` each have one method per RPC of their service, named after it without the area's
noun (``messages.send`` for SendMessage, ``leases.acquire`` for AcquireLease, ``workflows.start_run``
for StartWorkflowRun), plus the helpers on top (``messages.subscribe`` resumes by cursor,
``leases.hold``, ``agents.register(remember=True)``, ``agents.caller_project``,
``workflows.request_review`` sends a peer review request under a run's workflow context).
All areas share the client's channel, credentials, default deadline and error mapping. Errors arrive
as the same HubError subclasses the server raised (``reason``, ``metadata``, ``field_violations``,
``retry_after``); transport failures arrive as ``Unavailable`` or ``DeadlineExceeded``.

The flat names of the first client (``hub.send_message``, ``hub.send``, ...) still work for one
release and emit DeprecationWarning (``kxm_grpc.client.deprecated``).
"""

from __future__ import annotations

from kxm_grpc.client.deprecated import FlatCalls


class HubClient(FlatCalls):
    """An async client for one hub, acting as one caller (admin, project, agent or runtime).

    Arguments left out are read from ``KXM_ADDR``, ``KXM_TOKEN`` (``KXM_ADMIN_TOKEN`` with
    ``admin=True``), ``KXM_PROJECT``, ``KXM_AGENT_ID``, ``KXM_AGENT_KEY``, then from the
    credentials file a zero-configuration hub wrote (``.kxm/credentials.json``) or the per-user
    profile's (``~/.config/kxm/credentials.json``, ``kxm profile save``; only for the profile's own
    hub), as ``kxm_grpc.client.config.state_for`` decides (docs/api.md); a CREDENTIAL_MISSING
    refusal of a client that found no token notes where it looked. ``timeout`` is the
    default deadline of every unary call, in seconds. ``attempt_token`` and ``session_token`` (else
    ``KXM_ATTEMPT_TOKEN`` and ``KXM_SESSION_TOKEN``) are presented on every call
    (``x-kxm-attempt-token``, ``x-kxm-session-token``; docs/tool-policy.md); they are never logged.

    ``address`` is one ``host:port``, or the replicas of one hub: ``"10.0.0.1:7331,10.0.0.2:7331"``,
    a list of such strings, or one DNS name with several records as ``"dns:///hub.example:7331"``
    (``kxm_grpc.client.addresses``; ``KXM_ADDR`` takes the same strings). With several, the client
    uses the first that connects, moves to another when it goes away, and retries on UNAVAILABLE the
    calls that are safe to repeat (``kxm_grpc.client.retries``); ``messages.subscribe`` resumes on
    the next one by cursor. Raises ``AddressError`` (a ValueError) for addresses it cannot dial.
    With ``agent_channel=True`` an agent's ``messages.send``, ``reply``, ``ack``, ``cancel``, ``get``
    and ``wait`` ride one ``AgentService.OpenChannel`` stream (opened at the first of them,
    reconnecting and replaying by command id; ``timeout`` bounds each command's answer), with the
    same arguments, responses and errors; on a hub without channels they stay unary.
    """
