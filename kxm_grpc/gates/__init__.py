"""Gate execution on the worker side (spec §6): never imported by the hub's layers.

``runner`` runs one check without a shell in its own process group and observes it (hashes of its
output, never the output), once the domain's argv rules and seatbelt
(``domain.workflows.plans.commands``, which also refuse a command at registration) let it;
``outcome`` turns observations into evidence outcomes and runs a gate's checks in order,
fail-closed; ``result`` builds the ``kxm.worker-result.v1`` document and its content hash;
``workspace`` checks an assignment's exact commit out into a fresh directory.
The import contracts in ``pyproject.toml`` keep the hub's ``server``, ``services``, ``store`` and
``domain`` from importing this package, and this package from importing them (but the pure domain).
"""
