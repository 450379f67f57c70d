"""Use cases, one module per area. Each takes the store, the caller and ``now`` explicitly."""
