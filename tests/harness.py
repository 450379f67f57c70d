"""The subprocess hub for fault tests lives in the package (``kxm_grpc.testing``); tests import it from here."""

from kxm_grpc.testing import ADMIN_TOKEN, HubProcess

__all__ = ["ADMIN_TOKEN", "HubProcess"]
