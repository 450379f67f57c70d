"""The grpc.aio edge of the hub: settings, wiring, interceptors, servicers, sweeps."""
