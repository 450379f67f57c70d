"""Evidence-gated workflow runs: definitions, runs and checkpoints, peer evidence, signatures.

Pure rules (no I/O): the services load and store runs and call these to decide.
"""
