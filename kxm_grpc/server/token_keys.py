"""The hub's token keys: the keyring that signs and verifies attempt and session tokens.

Configuration shared by the replicas, never written to the database (``domain/tokens.py`` says
what a token proves), read as every keyring of the hub is (``server/keyfiles.py``):
``--token-key-file PATH`` (the first key signs new tokens; keep a retired key until the tokens it
signed expired: 30 days at most for a session token), else one key derived from the admin token
under the tokens' own label, so it is never the journal's key. Changing the admin token without a
key file retires the derived key: the tokens it signed are refused as ``unknown_key``.

The step dispatcher mints attempt tokens with ``domain.tokens.mint_attempt_token(hub.token_keys, ...)``.
"""

from __future__ import annotations

from kxm_grpc.server.keyfiles import KeySource

DERIVATION_LABEL = b"kxm.token-key.v1"

TOKEN_KEYS = KeySource("token key file", DERIVATION_LABEL, "token_key")
"""The token keyring's source: ``--token-key-file``, else derived from the admin token."""
