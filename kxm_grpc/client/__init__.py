"""The thin Python client: HubClient (async) and SyncHubClient (blocking)."""

from kxm_grpc.client.hub import HubClient
from kxm_grpc.client.sync import SyncHubClient

__all__ = ["HubClient", "SyncHubClient"]
