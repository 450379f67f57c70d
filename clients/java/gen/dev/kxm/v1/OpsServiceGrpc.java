package dev.kxm.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * OpsService gives operators the view of a project that an operations dashboard shows: its agents,
 * open messages, live leases, runtimes and newest workflow runs. Metadata only: never a message's
 * content, a reply, a run's payload or a secret.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class OpsServiceGrpc {

  private OpsServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "kxm.v1.OpsService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.GetOpsSnapshotRequest,
      dev.kxm.v1.GetOpsSnapshotResponse> getGetOpsSnapshotMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetOpsSnapshot",
      requestType = dev.kxm.v1.GetOpsSnapshotRequest.class,
      responseType = dev.kxm.v1.GetOpsSnapshotResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.GetOpsSnapshotRequest,
      dev.kxm.v1.GetOpsSnapshotResponse> getGetOpsSnapshotMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.GetOpsSnapshotRequest, dev.kxm.v1.GetOpsSnapshotResponse> getGetOpsSnapshotMethod;
    if ((getGetOpsSnapshotMethod = OpsServiceGrpc.getGetOpsSnapshotMethod) == null) {
      synchronized (OpsServiceGrpc.class) {
        if ((getGetOpsSnapshotMethod = OpsServiceGrpc.getGetOpsSnapshotMethod) == null) {
          OpsServiceGrpc.getGetOpsSnapshotMethod = getGetOpsSnapshotMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.GetOpsSnapshotRequest, dev.kxm.v1.GetOpsSnapshotResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetOpsSnapshot"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetOpsSnapshotRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetOpsSnapshotResponse.getDefaultInstance()))
              .setSchemaDescriptor(new OpsServiceMethodDescriptorSupplier("GetOpsSnapshot"))
              .build();
        }
      }
    }
    return getGetOpsSnapshotMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.WatchOpsRequest,
      dev.kxm.v1.WatchOpsResponse> getWatchOpsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "WatchOps",
      requestType = dev.kxm.v1.WatchOpsRequest.class,
      responseType = dev.kxm.v1.WatchOpsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.WatchOpsRequest,
      dev.kxm.v1.WatchOpsResponse> getWatchOpsMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.WatchOpsRequest, dev.kxm.v1.WatchOpsResponse> getWatchOpsMethod;
    if ((getWatchOpsMethod = OpsServiceGrpc.getWatchOpsMethod) == null) {
      synchronized (OpsServiceGrpc.class) {
        if ((getWatchOpsMethod = OpsServiceGrpc.getWatchOpsMethod) == null) {
          OpsServiceGrpc.getWatchOpsMethod = getWatchOpsMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.WatchOpsRequest, dev.kxm.v1.WatchOpsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "WatchOps"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.WatchOpsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.WatchOpsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new OpsServiceMethodDescriptorSupplier("WatchOps"))
              .build();
        }
      }
    }
    return getWatchOpsMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static OpsServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<OpsServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<OpsServiceStub>() {
        @java.lang.Override
        public OpsServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new OpsServiceStub(channel, callOptions);
        }
      };
    return OpsServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static OpsServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<OpsServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<OpsServiceBlockingV2Stub>() {
        @java.lang.Override
        public OpsServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new OpsServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return OpsServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static OpsServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<OpsServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<OpsServiceBlockingStub>() {
        @java.lang.Override
        public OpsServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new OpsServiceBlockingStub(channel, callOptions);
        }
      };
    return OpsServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static OpsServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<OpsServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<OpsServiceFutureStub>() {
        @java.lang.Override
        public OpsServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new OpsServiceFutureStub(channel, callOptions);
        }
      };
    return OpsServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * OpsService gives operators the view of a project that an operations dashboard shows: its agents,
   * open messages, live leases, runtimes and newest workflow runs. Metadata only: never a message's
   * content, a reply, a run's payload or a secret.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * GetOpsSnapshot returns one project's state as one read sees it: its agents (online first, then by
     * name), its newest open messages, its live leases, its runtimes and its newest workflow runs, each
     * list capped and counted (WorkflowService.ListWorkflowRuns pages through every run).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    default void getOpsSnapshot(dev.kxm.v1.GetOpsSnapshotRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetOpsSnapshotResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetOpsSnapshotMethod(), responseObserver);
    }

    /**
     * <pre>
     * WatchOps streams one project's ops snapshot: the current one first, then a new one each time what
     * it shows changes (a write to the project's agents, messages, leases, runtimes or workflow runs on
     * any replica, or a presence window or lease lapsing on the hub's clock), at most about ten a second.
     * It is level-triggered: a consumer too slow for every state gets the newest, never a backlog. To
     * resume (after a cut, on another replica), pass the last version received as `after_version`:
     * nothing is sent until the state differs from it.
     * The stream ends with UNAVAILABLE (ERROR_REASON_SHUTTING_DOWN) when the hub stops, and with
     * UNAUTHENTICATED (ERROR_REASON_INVALID_AUTH) when the named operator watching is revoked.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED, INVALID_ARGUMENT, NOT_FOUND: as for GetOpsSnapshot.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_STREAM_LIMIT_REACHED): the hub process serves its maximum of ops watches.
     * - UNAVAILABLE (ERROR_REASON_SHUTTING_DOWN): the hub is stopping; watch again (another replica) with the last version.
     * </pre>
     */
    default void watchOps(dev.kxm.v1.WatchOpsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.WatchOpsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getWatchOpsMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service OpsService.
   * <pre>
   * OpsService gives operators the view of a project that an operations dashboard shows: its agents,
   * open messages, live leases, runtimes and newest workflow runs. Metadata only: never a message's
   * content, a reply, a run's payload or a secret.
   * </pre>
   */
  public static abstract class OpsServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return OpsServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service OpsService.
   * <pre>
   * OpsService gives operators the view of a project that an operations dashboard shows: its agents,
   * open messages, live leases, runtimes and newest workflow runs. Metadata only: never a message's
   * content, a reply, a run's payload or a secret.
   * </pre>
   */
  public static final class OpsServiceStub
      extends io.grpc.stub.AbstractAsyncStub<OpsServiceStub> {
    private OpsServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected OpsServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new OpsServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * GetOpsSnapshot returns one project's state as one read sees it: its agents (online first, then by
     * name), its newest open messages, its live leases, its runtimes and its newest workflow runs, each
     * list capped and counted (WorkflowService.ListWorkflowRuns pages through every run).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    public void getOpsSnapshot(dev.kxm.v1.GetOpsSnapshotRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetOpsSnapshotResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetOpsSnapshotMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * WatchOps streams one project's ops snapshot: the current one first, then a new one each time what
     * it shows changes (a write to the project's agents, messages, leases, runtimes or workflow runs on
     * any replica, or a presence window or lease lapsing on the hub's clock), at most about ten a second.
     * It is level-triggered: a consumer too slow for every state gets the newest, never a backlog. To
     * resume (after a cut, on another replica), pass the last version received as `after_version`:
     * nothing is sent until the state differs from it.
     * The stream ends with UNAVAILABLE (ERROR_REASON_SHUTTING_DOWN) when the hub stops, and with
     * UNAUTHENTICATED (ERROR_REASON_INVALID_AUTH) when the named operator watching is revoked.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED, INVALID_ARGUMENT, NOT_FOUND: as for GetOpsSnapshot.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_STREAM_LIMIT_REACHED): the hub process serves its maximum of ops watches.
     * - UNAVAILABLE (ERROR_REASON_SHUTTING_DOWN): the hub is stopping; watch again (another replica) with the last version.
     * </pre>
     */
    public void watchOps(dev.kxm.v1.WatchOpsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.WatchOpsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getWatchOpsMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service OpsService.
   * <pre>
   * OpsService gives operators the view of a project that an operations dashboard shows: its agents,
   * open messages, live leases, runtimes and newest workflow runs. Metadata only: never a message's
   * content, a reply, a run's payload or a secret.
   * </pre>
   */
  public static final class OpsServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<OpsServiceBlockingV2Stub> {
    private OpsServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected OpsServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new OpsServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * GetOpsSnapshot returns one project's state as one read sees it: its agents (online first, then by
     * name), its newest open messages, its live leases, its runtimes and its newest workflow runs, each
     * list capped and counted (WorkflowService.ListWorkflowRuns pages through every run).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    public dev.kxm.v1.GetOpsSnapshotResponse getOpsSnapshot(dev.kxm.v1.GetOpsSnapshotRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetOpsSnapshotMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * WatchOps streams one project's ops snapshot: the current one first, then a new one each time what
     * it shows changes (a write to the project's agents, messages, leases, runtimes or workflow runs on
     * any replica, or a presence window or lease lapsing on the hub's clock), at most about ten a second.
     * It is level-triggered: a consumer too slow for every state gets the newest, never a backlog. To
     * resume (after a cut, on another replica), pass the last version received as `after_version`:
     * nothing is sent until the state differs from it.
     * The stream ends with UNAVAILABLE (ERROR_REASON_SHUTTING_DOWN) when the hub stops, and with
     * UNAUTHENTICATED (ERROR_REASON_INVALID_AUTH) when the named operator watching is revoked.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED, INVALID_ARGUMENT, NOT_FOUND: as for GetOpsSnapshot.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_STREAM_LIMIT_REACHED): the hub process serves its maximum of ops watches.
     * - UNAVAILABLE (ERROR_REASON_SHUTTING_DOWN): the hub is stopping; watch again (another replica) with the last version.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<?, dev.kxm.v1.WatchOpsResponse>
        watchOps(dev.kxm.v1.WatchOpsRequest request) {
      return io.grpc.stub.ClientCalls.blockingV2ServerStreamingCall(
          getChannel(), getWatchOpsMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service OpsService.
   * <pre>
   * OpsService gives operators the view of a project that an operations dashboard shows: its agents,
   * open messages, live leases, runtimes and newest workflow runs. Metadata only: never a message's
   * content, a reply, a run's payload or a secret.
   * </pre>
   */
  public static final class OpsServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<OpsServiceBlockingStub> {
    private OpsServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected OpsServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new OpsServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * GetOpsSnapshot returns one project's state as one read sees it: its agents (online first, then by
     * name), its newest open messages, its live leases, its runtimes and its newest workflow runs, each
     * list capped and counted (WorkflowService.ListWorkflowRuns pages through every run).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    public dev.kxm.v1.GetOpsSnapshotResponse getOpsSnapshot(dev.kxm.v1.GetOpsSnapshotRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetOpsSnapshotMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * WatchOps streams one project's ops snapshot: the current one first, then a new one each time what
     * it shows changes (a write to the project's agents, messages, leases, runtimes or workflow runs on
     * any replica, or a presence window or lease lapsing on the hub's clock), at most about ten a second.
     * It is level-triggered: a consumer too slow for every state gets the newest, never a backlog. To
     * resume (after a cut, on another replica), pass the last version received as `after_version`:
     * nothing is sent until the state differs from it.
     * The stream ends with UNAVAILABLE (ERROR_REASON_SHUTTING_DOWN) when the hub stops, and with
     * UNAUTHENTICATED (ERROR_REASON_INVALID_AUTH) when the named operator watching is revoked.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED, INVALID_ARGUMENT, NOT_FOUND: as for GetOpsSnapshot.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_STREAM_LIMIT_REACHED): the hub process serves its maximum of ops watches.
     * - UNAVAILABLE (ERROR_REASON_SHUTTING_DOWN): the hub is stopping; watch again (another replica) with the last version.
     * </pre>
     */
    public java.util.Iterator<dev.kxm.v1.WatchOpsResponse> watchOps(
        dev.kxm.v1.WatchOpsRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getWatchOpsMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service OpsService.
   * <pre>
   * OpsService gives operators the view of a project that an operations dashboard shows: its agents,
   * open messages, live leases, runtimes and newest workflow runs. Metadata only: never a message's
   * content, a reply, a run's payload or a secret.
   * </pre>
   */
  public static final class OpsServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<OpsServiceFutureStub> {
    private OpsServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected OpsServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new OpsServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * GetOpsSnapshot returns one project's state as one read sees it: its agents (online first, then by
     * name), its newest open messages, its live leases, its runtimes and its newest workflow runs, each
     * list capped and counted (WorkflowService.ListWorkflowRuns pages through every run).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.GetOpsSnapshotResponse> getOpsSnapshot(
        dev.kxm.v1.GetOpsSnapshotRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetOpsSnapshotMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_GET_OPS_SNAPSHOT = 0;
  private static final int METHODID_WATCH_OPS = 1;

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
        case METHODID_GET_OPS_SNAPSHOT:
          serviceImpl.getOpsSnapshot((dev.kxm.v1.GetOpsSnapshotRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.GetOpsSnapshotResponse>) responseObserver);
          break;
        case METHODID_WATCH_OPS:
          serviceImpl.watchOps((dev.kxm.v1.WatchOpsRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.WatchOpsResponse>) responseObserver);
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
          getGetOpsSnapshotMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.GetOpsSnapshotRequest,
              dev.kxm.v1.GetOpsSnapshotResponse>(
                service, METHODID_GET_OPS_SNAPSHOT)))
        .addMethod(
          getWatchOpsMethod(),
          io.grpc.stub.ServerCalls.asyncServerStreamingCall(
            new MethodHandlers<
              dev.kxm.v1.WatchOpsRequest,
              dev.kxm.v1.WatchOpsResponse>(
                service, METHODID_WATCH_OPS)))
        .build();
  }

  private static abstract class OpsServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    OpsServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.kxm.v1.OpsServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("OpsService");
    }
  }

  private static final class OpsServiceFileDescriptorSupplier
      extends OpsServiceBaseDescriptorSupplier {
    OpsServiceFileDescriptorSupplier() {}
  }

  private static final class OpsServiceMethodDescriptorSupplier
      extends OpsServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    OpsServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (OpsServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new OpsServiceFileDescriptorSupplier())
              .addMethod(getGetOpsSnapshotMethod())
              .addMethod(getWatchOpsMethod())
              .build();
        }
      }
    }
    return result;
  }
}
