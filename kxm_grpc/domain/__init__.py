"""Pure rules of the hub: no I/O, no grpc, no storage."""
