package dev.kxm.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * LeaseService grants fenced, project-scoped leases on named resources to agents.
 * Every grant carries a fencing token that only grows for its name, across releases and hub restarts.
 * A resource protected by a lease must refuse writes that present an older token (see CheckFence).
 * Every RPC needs the project token plus the calling agent's identity, except GetLease, ListLeases and
 * CheckFence, which a project token alone may call.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class LeaseServiceGrpc {

  private LeaseServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "kxm.v1.LeaseService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.AcquireLeaseRequest,
      dev.kxm.v1.AcquireLeaseResponse> getAcquireLeaseMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AcquireLease",
      requestType = dev.kxm.v1.AcquireLeaseRequest.class,
      responseType = dev.kxm.v1.AcquireLeaseResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.AcquireLeaseRequest,
      dev.kxm.v1.AcquireLeaseResponse> getAcquireLeaseMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.AcquireLeaseRequest, dev.kxm.v1.AcquireLeaseResponse> getAcquireLeaseMethod;
    if ((getAcquireLeaseMethod = LeaseServiceGrpc.getAcquireLeaseMethod) == null) {
      synchronized (LeaseServiceGrpc.class) {
        if ((getAcquireLeaseMethod = LeaseServiceGrpc.getAcquireLeaseMethod) == null) {
          LeaseServiceGrpc.getAcquireLeaseMethod = getAcquireLeaseMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.AcquireLeaseRequest, dev.kxm.v1.AcquireLeaseResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AcquireLease"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.AcquireLeaseRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.AcquireLeaseResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LeaseServiceMethodDescriptorSupplier("AcquireLease"))
              .build();
        }
      }
    }
    return getAcquireLeaseMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.RenewLeaseRequest,
      dev.kxm.v1.RenewLeaseResponse> getRenewLeaseMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RenewLease",
      requestType = dev.kxm.v1.RenewLeaseRequest.class,
      responseType = dev.kxm.v1.RenewLeaseResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.RenewLeaseRequest,
      dev.kxm.v1.RenewLeaseResponse> getRenewLeaseMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.RenewLeaseRequest, dev.kxm.v1.RenewLeaseResponse> getRenewLeaseMethod;
    if ((getRenewLeaseMethod = LeaseServiceGrpc.getRenewLeaseMethod) == null) {
      synchronized (LeaseServiceGrpc.class) {
        if ((getRenewLeaseMethod = LeaseServiceGrpc.getRenewLeaseMethod) == null) {
          LeaseServiceGrpc.getRenewLeaseMethod = getRenewLeaseMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.RenewLeaseRequest, dev.kxm.v1.RenewLeaseResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RenewLease"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RenewLeaseRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RenewLeaseResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LeaseServiceMethodDescriptorSupplier("RenewLease"))
              .build();
        }
      }
    }
    return getRenewLeaseMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ReleaseLeaseRequest,
      dev.kxm.v1.ReleaseLeaseResponse> getReleaseLeaseMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReleaseLease",
      requestType = dev.kxm.v1.ReleaseLeaseRequest.class,
      responseType = dev.kxm.v1.ReleaseLeaseResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ReleaseLeaseRequest,
      dev.kxm.v1.ReleaseLeaseResponse> getReleaseLeaseMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ReleaseLeaseRequest, dev.kxm.v1.ReleaseLeaseResponse> getReleaseLeaseMethod;
    if ((getReleaseLeaseMethod = LeaseServiceGrpc.getReleaseLeaseMethod) == null) {
      synchronized (LeaseServiceGrpc.class) {
        if ((getReleaseLeaseMethod = LeaseServiceGrpc.getReleaseLeaseMethod) == null) {
          LeaseServiceGrpc.getReleaseLeaseMethod = getReleaseLeaseMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ReleaseLeaseRequest, dev.kxm.v1.ReleaseLeaseResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReleaseLease"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ReleaseLeaseRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ReleaseLeaseResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LeaseServiceMethodDescriptorSupplier("ReleaseLease"))
              .build();
        }
      }
    }
    return getReleaseLeaseMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.GetLeaseRequest,
      dev.kxm.v1.GetLeaseResponse> getGetLeaseMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetLease",
      requestType = dev.kxm.v1.GetLeaseRequest.class,
      responseType = dev.kxm.v1.GetLeaseResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.GetLeaseRequest,
      dev.kxm.v1.GetLeaseResponse> getGetLeaseMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.GetLeaseRequest, dev.kxm.v1.GetLeaseResponse> getGetLeaseMethod;
    if ((getGetLeaseMethod = LeaseServiceGrpc.getGetLeaseMethod) == null) {
      synchronized (LeaseServiceGrpc.class) {
        if ((getGetLeaseMethod = LeaseServiceGrpc.getGetLeaseMethod) == null) {
          LeaseServiceGrpc.getGetLeaseMethod = getGetLeaseMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.GetLeaseRequest, dev.kxm.v1.GetLeaseResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetLease"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetLeaseRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetLeaseResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LeaseServiceMethodDescriptorSupplier("GetLease"))
              .build();
        }
      }
    }
    return getGetLeaseMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListLeasesRequest,
      dev.kxm.v1.ListLeasesResponse> getListLeasesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListLeases",
      requestType = dev.kxm.v1.ListLeasesRequest.class,
      responseType = dev.kxm.v1.ListLeasesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListLeasesRequest,
      dev.kxm.v1.ListLeasesResponse> getListLeasesMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListLeasesRequest, dev.kxm.v1.ListLeasesResponse> getListLeasesMethod;
    if ((getListLeasesMethod = LeaseServiceGrpc.getListLeasesMethod) == null) {
      synchronized (LeaseServiceGrpc.class) {
        if ((getListLeasesMethod = LeaseServiceGrpc.getListLeasesMethod) == null) {
          LeaseServiceGrpc.getListLeasesMethod = getListLeasesMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListLeasesRequest, dev.kxm.v1.ListLeasesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListLeases"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListLeasesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListLeasesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LeaseServiceMethodDescriptorSupplier("ListLeases"))
              .build();
        }
      }
    }
    return getListLeasesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.CheckFenceRequest,
      dev.kxm.v1.CheckFenceResponse> getCheckFenceMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CheckFence",
      requestType = dev.kxm.v1.CheckFenceRequest.class,
      responseType = dev.kxm.v1.CheckFenceResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.CheckFenceRequest,
      dev.kxm.v1.CheckFenceResponse> getCheckFenceMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.CheckFenceRequest, dev.kxm.v1.CheckFenceResponse> getCheckFenceMethod;
    if ((getCheckFenceMethod = LeaseServiceGrpc.getCheckFenceMethod) == null) {
      synchronized (LeaseServiceGrpc.class) {
        if ((getCheckFenceMethod = LeaseServiceGrpc.getCheckFenceMethod) == null) {
          LeaseServiceGrpc.getCheckFenceMethod = getCheckFenceMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.CheckFenceRequest, dev.kxm.v1.CheckFenceResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CheckFence"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.CheckFenceRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.CheckFenceResponse.getDefaultInstance()))
              .setSchemaDescriptor(new LeaseServiceMethodDescriptorSupplier("CheckFence"))
              .build();
        }
      }
    }
    return getCheckFenceMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static LeaseServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<LeaseServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<LeaseServiceStub>() {
        @java.lang.Override
        public LeaseServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new LeaseServiceStub(channel, callOptions);
        }
      };
    return LeaseServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static LeaseServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<LeaseServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<LeaseServiceBlockingV2Stub>() {
        @java.lang.Override
        public LeaseServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new LeaseServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return LeaseServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static LeaseServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<LeaseServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<LeaseServiceBlockingStub>() {
        @java.lang.Override
        public LeaseServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new LeaseServiceBlockingStub(channel, callOptions);
        }
      };
    return LeaseServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static LeaseServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<LeaseServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<LeaseServiceFutureStub>() {
        @java.lang.Override
        public LeaseServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new LeaseServiceFutureStub(channel, callOptions);
        }
      };
    return LeaseServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * LeaseService grants fenced, project-scoped leases on named resources to agents.
   * Every grant carries a fencing token that only grows for its name, across releases and hub restarts.
   * A resource protected by a lease must refuse writes that present an older token (see CheckFence).
   * Every RPC needs the project token plus the calling agent's identity, except GetLease, ListLeases and
   * CheckFence, which a project token alone may call.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * AcquireLease grants a free or lapsed lease, or extends the caller's own live lease (same token).
     * With `wait`, the call blocks until the lease is free or the wait ends; waiters are served in arrival order.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or too long, ttl or wait out of range.
     * - FAILED_PRECONDITION (ERROR_REASON_LEASE_HELD): another agent holds a live lease (after the wait, if any);
     *   metadata: name, holderAgentId, holderAgentName, expireTime, fencingToken.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void acquireLease(dev.kxm.v1.AcquireLeaseRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.AcquireLeaseResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAcquireLeaseMethod(), responseObserver);
    }

    /**
     * <pre>
     * RenewLease extends the caller's live lease; the token and acquire time stay the same.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_LEASE_TOKEN_REQUIRED): bad name or ttl, or no token.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): the name was never leased in the project.
     * - ABORTED (ERROR_REASON_LEASE_SUPERSEDED): the caller is not the holder or the token is not current.
     * - FAILED_PRECONDITION (ERROR_REASON_LEASE_EXPIRED): the lease lapsed; re-acquire it.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void renewLease(dev.kxm.v1.RenewLeaseRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RenewLeaseResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRenewLeaseMethod(), responseObserver);
    }

    /**
     * <pre>
     * ReleaseLease ends the caller's lease; the name's fencing token keeps its high-water mark.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_LEASE_TOKEN_REQUIRED): bad name, or no token.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): no lease is held on the name.
     * - ABORTED (ERROR_REASON_LEASE_SUPERSEDED): the caller is not the holder or the token is not current.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void releaseLease(dev.kxm.v1.ReleaseLeaseRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ReleaseLeaseResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReleaseLeaseMethod(), responseObserver);
    }

    /**
     * <pre>
     * GetLease reads the current grant of a name, live or lapsed.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or too long.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): no lease is held on the name.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void getLease(dev.kxm.v1.GetLeaseRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetLeaseResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetLeaseMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListLeases lists the project's leases by name, live ones only unless include_lapsed is set.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void listLeases(dev.kxm.v1.ListLeasesRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListLeasesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListLeasesMethod(), responseObserver);
    }

    /**
     * <pre>
     * CheckFence tells a resource whether a fencing token is still the current, live grant of a name.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_LEASE_TOKEN_REQUIRED): bad name, or no token.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): no lease is held on the name.
     * - ABORTED (ERROR_REASON_LEASE_SUPERSEDED): a newer token was granted; metadata: name, fencingToken, presentedToken.
     * - FAILED_PRECONDITION (ERROR_REASON_LEASE_EXPIRED): the token is the latest but its lease lapsed.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void checkFence(dev.kxm.v1.CheckFenceRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.CheckFenceResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCheckFenceMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service LeaseService.
   * <pre>
   * LeaseService grants fenced, project-scoped leases on named resources to agents.
   * Every grant carries a fencing token that only grows for its name, across releases and hub restarts.
   * A resource protected by a lease must refuse writes that present an older token (see CheckFence).
   * Every RPC needs the project token plus the calling agent's identity, except GetLease, ListLeases and
   * CheckFence, which a project token alone may call.
   * </pre>
   */
  public static abstract class LeaseServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return LeaseServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service LeaseService.
   * <pre>
   * LeaseService grants fenced, project-scoped leases on named resources to agents.
   * Every grant carries a fencing token that only grows for its name, across releases and hub restarts.
   * A resource protected by a lease must refuse writes that present an older token (see CheckFence).
   * Every RPC needs the project token plus the calling agent's identity, except GetLease, ListLeases and
   * CheckFence, which a project token alone may call.
   * </pre>
   */
  public static final class LeaseServiceStub
      extends io.grpc.stub.AbstractAsyncStub<LeaseServiceStub> {
    private LeaseServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected LeaseServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new LeaseServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * AcquireLease grants a free or lapsed lease, or extends the caller's own live lease (same token).
     * With `wait`, the call blocks until the lease is free or the wait ends; waiters are served in arrival order.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or too long, ttl or wait out of range.
     * - FAILED_PRECONDITION (ERROR_REASON_LEASE_HELD): another agent holds a live lease (after the wait, if any);
     *   metadata: name, holderAgentId, holderAgentName, expireTime, fencingToken.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void acquireLease(dev.kxm.v1.AcquireLeaseRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.AcquireLeaseResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAcquireLeaseMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * RenewLease extends the caller's live lease; the token and acquire time stay the same.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_LEASE_TOKEN_REQUIRED): bad name or ttl, or no token.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): the name was never leased in the project.
     * - ABORTED (ERROR_REASON_LEASE_SUPERSEDED): the caller is not the holder or the token is not current.
     * - FAILED_PRECONDITION (ERROR_REASON_LEASE_EXPIRED): the lease lapsed; re-acquire it.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void renewLease(dev.kxm.v1.RenewLeaseRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RenewLeaseResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRenewLeaseMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ReleaseLease ends the caller's lease; the name's fencing token keeps its high-water mark.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_LEASE_TOKEN_REQUIRED): bad name, or no token.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): no lease is held on the name.
     * - ABORTED (ERROR_REASON_LEASE_SUPERSEDED): the caller is not the holder or the token is not current.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void releaseLease(dev.kxm.v1.ReleaseLeaseRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ReleaseLeaseResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReleaseLeaseMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * GetLease reads the current grant of a name, live or lapsed.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or too long.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): no lease is held on the name.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void getLease(dev.kxm.v1.GetLeaseRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetLeaseResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetLeaseMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListLeases lists the project's leases by name, live ones only unless include_lapsed is set.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void listLeases(dev.kxm.v1.ListLeasesRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListLeasesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListLeasesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * CheckFence tells a resource whether a fencing token is still the current, live grant of a name.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_LEASE_TOKEN_REQUIRED): bad name, or no token.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): no lease is held on the name.
     * - ABORTED (ERROR_REASON_LEASE_SUPERSEDED): a newer token was granted; metadata: name, fencingToken, presentedToken.
     * - FAILED_PRECONDITION (ERROR_REASON_LEASE_EXPIRED): the token is the latest but its lease lapsed.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void checkFence(dev.kxm.v1.CheckFenceRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.CheckFenceResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCheckFenceMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service LeaseService.
   * <pre>
   * LeaseService grants fenced, project-scoped leases on named resources to agents.
   * Every grant carries a fencing token that only grows for its name, across releases and hub restarts.
   * A resource protected by a lease must refuse writes that present an older token (see CheckFence).
   * Every RPC needs the project token plus the calling agent's identity, except GetLease, ListLeases and
   * CheckFence, which a project token alone may call.
   * </pre>
   */
  public static final class LeaseServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<LeaseServiceBlockingV2Stub> {
    private LeaseServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected LeaseServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new LeaseServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * AcquireLease grants a free or lapsed lease, or extends the caller's own live lease (same token).
     * With `wait`, the call blocks until the lease is free or the wait ends; waiters are served in arrival order.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or too long, ttl or wait out of range.
     * - FAILED_PRECONDITION (ERROR_REASON_LEASE_HELD): another agent holds a live lease (after the wait, if any);
     *   metadata: name, holderAgentId, holderAgentName, expireTime, fencingToken.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.AcquireLeaseResponse acquireLease(dev.kxm.v1.AcquireLeaseRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getAcquireLeaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RenewLease extends the caller's live lease; the token and acquire time stay the same.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_LEASE_TOKEN_REQUIRED): bad name or ttl, or no token.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): the name was never leased in the project.
     * - ABORTED (ERROR_REASON_LEASE_SUPERSEDED): the caller is not the holder or the token is not current.
     * - FAILED_PRECONDITION (ERROR_REASON_LEASE_EXPIRED): the lease lapsed; re-acquire it.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.RenewLeaseResponse renewLease(dev.kxm.v1.RenewLeaseRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRenewLeaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ReleaseLease ends the caller's lease; the name's fencing token keeps its high-water mark.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_LEASE_TOKEN_REQUIRED): bad name, or no token.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): no lease is held on the name.
     * - ABORTED (ERROR_REASON_LEASE_SUPERSEDED): the caller is not the holder or the token is not current.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.ReleaseLeaseResponse releaseLease(dev.kxm.v1.ReleaseLeaseRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getReleaseLeaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetLease reads the current grant of a name, live or lapsed.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or too long.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): no lease is held on the name.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.GetLeaseResponse getLease(dev.kxm.v1.GetLeaseRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetLeaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListLeases lists the project's leases by name, live ones only unless include_lapsed is set.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.ListLeasesResponse listLeases(dev.kxm.v1.ListLeasesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListLeasesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * CheckFence tells a resource whether a fencing token is still the current, live grant of a name.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_LEASE_TOKEN_REQUIRED): bad name, or no token.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): no lease is held on the name.
     * - ABORTED (ERROR_REASON_LEASE_SUPERSEDED): a newer token was granted; metadata: name, fencingToken, presentedToken.
     * - FAILED_PRECONDITION (ERROR_REASON_LEASE_EXPIRED): the token is the latest but its lease lapsed.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.CheckFenceResponse checkFence(dev.kxm.v1.CheckFenceRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCheckFenceMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service LeaseService.
   * <pre>
   * LeaseService grants fenced, project-scoped leases on named resources to agents.
   * Every grant carries a fencing token that only grows for its name, across releases and hub restarts.
   * A resource protected by a lease must refuse writes that present an older token (see CheckFence).
   * Every RPC needs the project token plus the calling agent's identity, except GetLease, ListLeases and
   * CheckFence, which a project token alone may call.
   * </pre>
   */
  public static final class LeaseServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<LeaseServiceBlockingStub> {
    private LeaseServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected LeaseServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new LeaseServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * AcquireLease grants a free or lapsed lease, or extends the caller's own live lease (same token).
     * With `wait`, the call blocks until the lease is free or the wait ends; waiters are served in arrival order.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or too long, ttl or wait out of range.
     * - FAILED_PRECONDITION (ERROR_REASON_LEASE_HELD): another agent holds a live lease (after the wait, if any);
     *   metadata: name, holderAgentId, holderAgentName, expireTime, fencingToken.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.AcquireLeaseResponse acquireLease(dev.kxm.v1.AcquireLeaseRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAcquireLeaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RenewLease extends the caller's live lease; the token and acquire time stay the same.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_LEASE_TOKEN_REQUIRED): bad name or ttl, or no token.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): the name was never leased in the project.
     * - ABORTED (ERROR_REASON_LEASE_SUPERSEDED): the caller is not the holder or the token is not current.
     * - FAILED_PRECONDITION (ERROR_REASON_LEASE_EXPIRED): the lease lapsed; re-acquire it.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.RenewLeaseResponse renewLease(dev.kxm.v1.RenewLeaseRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRenewLeaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ReleaseLease ends the caller's lease; the name's fencing token keeps its high-water mark.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_LEASE_TOKEN_REQUIRED): bad name, or no token.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): no lease is held on the name.
     * - ABORTED (ERROR_REASON_LEASE_SUPERSEDED): the caller is not the holder or the token is not current.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.ReleaseLeaseResponse releaseLease(dev.kxm.v1.ReleaseLeaseRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReleaseLeaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetLease reads the current grant of a name, live or lapsed.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or too long.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): no lease is held on the name.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.GetLeaseResponse getLease(dev.kxm.v1.GetLeaseRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetLeaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListLeases lists the project's leases by name, live ones only unless include_lapsed is set.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.ListLeasesResponse listLeases(dev.kxm.v1.ListLeasesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListLeasesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * CheckFence tells a resource whether a fencing token is still the current, live grant of a name.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_LEASE_TOKEN_REQUIRED): bad name, or no token.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): no lease is held on the name.
     * - ABORTED (ERROR_REASON_LEASE_SUPERSEDED): a newer token was granted; metadata: name, fencingToken, presentedToken.
     * - FAILED_PRECONDITION (ERROR_REASON_LEASE_EXPIRED): the token is the latest but its lease lapsed.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.CheckFenceResponse checkFence(dev.kxm.v1.CheckFenceRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCheckFenceMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service LeaseService.
   * <pre>
   * LeaseService grants fenced, project-scoped leases on named resources to agents.
   * Every grant carries a fencing token that only grows for its name, across releases and hub restarts.
   * A resource protected by a lease must refuse writes that present an older token (see CheckFence).
   * Every RPC needs the project token plus the calling agent's identity, except GetLease, ListLeases and
   * CheckFence, which a project token alone may call.
   * </pre>
   */
  public static final class LeaseServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<LeaseServiceFutureStub> {
    private LeaseServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected LeaseServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new LeaseServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * AcquireLease grants a free or lapsed lease, or extends the caller's own live lease (same token).
     * With `wait`, the call blocks until the lease is free or the wait ends; waiters are served in arrival order.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or too long, ttl or wait out of range.
     * - FAILED_PRECONDITION (ERROR_REASON_LEASE_HELD): another agent holds a live lease (after the wait, if any);
     *   metadata: name, holderAgentId, holderAgentName, expireTime, fencingToken.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.AcquireLeaseResponse> acquireLease(
        dev.kxm.v1.AcquireLeaseRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAcquireLeaseMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * RenewLease extends the caller's live lease; the token and acquire time stay the same.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_LEASE_TOKEN_REQUIRED): bad name or ttl, or no token.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): the name was never leased in the project.
     * - ABORTED (ERROR_REASON_LEASE_SUPERSEDED): the caller is not the holder or the token is not current.
     * - FAILED_PRECONDITION (ERROR_REASON_LEASE_EXPIRED): the lease lapsed; re-acquire it.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RenewLeaseResponse> renewLease(
        dev.kxm.v1.RenewLeaseRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRenewLeaseMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ReleaseLease ends the caller's lease; the name's fencing token keeps its high-water mark.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_LEASE_TOKEN_REQUIRED): bad name, or no token.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): no lease is held on the name.
     * - ABORTED (ERROR_REASON_LEASE_SUPERSEDED): the caller is not the holder or the token is not current.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ReleaseLeaseResponse> releaseLease(
        dev.kxm.v1.ReleaseLeaseRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReleaseLeaseMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * GetLease reads the current grant of a name, live or lapsed.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or too long.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): no lease is held on the name.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.GetLeaseResponse> getLease(
        dev.kxm.v1.GetLeaseRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetLeaseMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListLeases lists the project's leases by name, live ones only unless include_lapsed is set.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListLeasesResponse> listLeases(
        dev.kxm.v1.ListLeasesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListLeasesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * CheckFence tells a resource whether a fencing token is still the current, live grant of a name.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_LEASE_TOKEN_REQUIRED): bad name, or no token.
     * - NOT_FOUND (ERROR_REASON_LEASE_NOT_FOUND): no lease is held on the name.
     * - ABORTED (ERROR_REASON_LEASE_SUPERSEDED): a newer token was granted; metadata: name, fencingToken, presentedToken.
     * - FAILED_PRECONDITION (ERROR_REASON_LEASE_EXPIRED): the token is the latest but its lease lapsed.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.CheckFenceResponse> checkFence(
        dev.kxm.v1.CheckFenceRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCheckFenceMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_ACQUIRE_LEASE = 0;
  private static final int METHODID_RENEW_LEASE = 1;
  private static final int METHODID_RELEASE_LEASE = 2;
  private static final int METHODID_GET_LEASE = 3;
  private static final int METHODID_LIST_LEASES = 4;
  private static final int METHODID_CHECK_FENCE = 5;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final AsyncService serviceImpl;
    private final int methodId;

    MethodHandlers(AsyncService serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_ACQUIRE_LEASE:
          serviceImpl.acquireLease((dev.kxm.v1.AcquireLeaseRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.AcquireLeaseResponse>) responseObserver);
          break;
        case METHODID_RENEW_LEASE:
          serviceImpl.renewLease((dev.kxm.v1.RenewLeaseRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.RenewLeaseResponse>) responseObserver);
          break;
        case METHODID_RELEASE_LEASE:
          serviceImpl.releaseLease((dev.kxm.v1.ReleaseLeaseRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ReleaseLeaseResponse>) responseObserver);
          break;
        case METHODID_GET_LEASE:
          serviceImpl.getLease((dev.kxm.v1.GetLeaseRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.GetLeaseResponse>) responseObserver);
          break;
        case METHODID_LIST_LEASES:
          serviceImpl.listLeases((dev.kxm.v1.ListLeasesRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListLeasesResponse>) responseObserver);
          break;
        case METHODID_CHECK_FENCE:
          serviceImpl.checkFence((dev.kxm.v1.CheckFenceRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.CheckFenceResponse>) responseObserver);
          break;
        default:
          throw new AssertionError();
      }
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public io.grpc.stub.StreamObserver<Req> invoke(
        io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        default:
          throw new AssertionError();
      }
    }
  }

  public static final io.grpc.ServerServiceDefinition bindService(AsyncService service) {
    return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
        .addMethod(
          getAcquireLeaseMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.AcquireLeaseRequest,
              dev.kxm.v1.AcquireLeaseResponse>(
                service, METHODID_ACQUIRE_LEASE)))
        .addMethod(
          getRenewLeaseMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.RenewLeaseRequest,
              dev.kxm.v1.RenewLeaseResponse>(
                service, METHODID_RENEW_LEASE)))
        .addMethod(
          getReleaseLeaseMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ReleaseLeaseRequest,
              dev.kxm.v1.ReleaseLeaseResponse>(
                service, METHODID_RELEASE_LEASE)))
        .addMethod(
          getGetLeaseMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.GetLeaseRequest,
              dev.kxm.v1.GetLeaseResponse>(
                service, METHODID_GET_LEASE)))
        .addMethod(
          getListLeasesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListLeasesRequest,
              dev.kxm.v1.ListLeasesResponse>(
                service, METHODID_LIST_LEASES)))
        .addMethod(
          getCheckFenceMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.CheckFenceRequest,
              dev.kxm.v1.CheckFenceResponse>(
                service, METHODID_CHECK_FENCE)))
        .build();
  }

  private static abstract class LeaseServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    LeaseServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.kxm.v1.LeaseServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("LeaseService");
    }
  }

  private static final class LeaseServiceFileDescriptorSupplier
      extends LeaseServiceBaseDescriptorSupplier {
    LeaseServiceFileDescriptorSupplier() {}
  }

  private static final class LeaseServiceMethodDescriptorSupplier
      extends LeaseServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    LeaseServiceMethodDescriptorSupplier(java.lang.String methodName) {
      this.methodName = methodName;
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.MethodDescriptor getMethodDescriptor() {
      return getServiceDescriptor().findMethodByName(methodName);
    }
  }

  private static volatile io.grpc.ServiceDescriptor serviceDescriptor;

  public static io.grpc.ServiceDescriptor getServiceDescriptor() {
    io.grpc.ServiceDescriptor result = serviceDescriptor;
    if (result == null) {
      synchronized (LeaseServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new LeaseServiceFileDescriptorSupplier())
              .addMethod(getAcquireLeaseMethod())
              .addMethod(getRenewLeaseMethod())
              .addMethod(getReleaseLeaseMethod())
              .addMethod(getGetLeaseMethod())
              .addMethod(getListLeasesMethod())
              .addMethod(getCheckFenceMethod())
              .build();
        }
      }
    }
    return result;
  }
}
