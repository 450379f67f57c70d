"""Durable workflow runs: definitions, runs, coordinator steps, signals, peer provenance.

``definitions``: register, read and import the operator's definitions (stored in the database,
so every replica serves one set). ``runs``: start (from a signed webhook or an operator), read,
list, cancel and rerun. ``steps``: the coordinator's checkpoints, waits and escalations, an
operator's approvals and rulings, and signals; each one transaction over the pure rules of
``kxm_grpc.domain.workflows`` (checkpoints, waits, approvals), idempotent by request id. ``provenance``: the send-side
authorisation of a message's workflow context and the verification of cited replies.
``events``: what a step reports, handed to the journal (a later issue) and the outbound
notifications in the step's transaction.
"""
