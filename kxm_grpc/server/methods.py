"""Which callers each RPC admits. Every kxm RPC must be listed (the interceptor fails closed)."""

from __future__ import annotations

from kxm_grpc.services.auth import Access

ACCESS: dict[str, Access] = {
    "/kxm.v1.AdminService/CreateProject": Access.ADMIN,
    "/kxm.v1.AdminService/ListProjects": Access.ADMIN,
    "/kxm.v1.AdminService/RotateProjectToken": Access.ADMIN,
    "/kxm.v1.AgentService/RegisterAgent": Access.PROJECT_TOKEN,
    "/kxm.v1.AgentService/Heartbeat": Access.AGENT,
    "/kxm.v1.AgentService/UnregisterAgent": Access.AGENT,
    "/kxm.v1.AgentService/ListAgents": Access.PROJECT_TOKEN,
    "/kxm.v1.AgentService/GetCallerIdentity": Access.ANY,
    "/kxm.v1.MessageService/SendMessage": Access.AGENT,
    "/kxm.v1.MessageService/GetMessage": Access.AGENT,
    "/kxm.v1.MessageService/CancelMessage": Access.AGENT,
    "/kxm.v1.MessageService/ReplyToMessage": Access.AGENT,
    "/kxm.v1.MessageService/AckMessages": Access.AGENT,
    "/kxm.v1.MessageService/ListInbox": Access.AGENT,
    "/kxm.v1.MessageService/WaitMessage": Access.AGENT,
    "/kxm.v1.MessageService/FanoutMessages": Access.AGENT,
    "/kxm.v1.MessageService/Subscribe": Access.AGENT,
    "/kxm.v1.LeaseService/AcquireLease": Access.AGENT,
    "/kxm.v1.LeaseService/RenewLease": Access.AGENT,
    "/kxm.v1.LeaseService/ReleaseLease": Access.AGENT,
    "/kxm.v1.LeaseService/GetLease": Access.PROJECT,
    "/kxm.v1.LeaseService/ListLeases": Access.PROJECT,
    "/kxm.v1.LeaseService/CheckFence": Access.PROJECT,
    "/kxm.v1.RuntimeService/RegisterRuntime": Access.PROJECT_TOKEN,
    "/kxm.v1.RuntimeService/RuntimeHeartbeat": Access.RUNTIME,
    "/kxm.v1.RuntimeService/ListRuntimes": Access.PROJECT,
    "/kxm.v1.RuntimeService/PushSyncEvents": Access.RUNTIME,
    "/kxm.v1.RuntimeService/ListRunEvents": Access.PROJECT,
    "/kxm.v1.RuntimeService/ReassignSyncProject": Access.ADMIN,
}
