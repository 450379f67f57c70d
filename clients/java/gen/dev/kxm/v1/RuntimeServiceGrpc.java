package dev.kxm.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * RuntimeService lets machine clients (runtimes) report presence and push their run events.
 * A runtime has its own credential, issued by RegisterRuntime and sent as the bearer token; it can
 * heartbeat and push only as itself.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class RuntimeServiceGrpc {

  private RuntimeServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "kxm.v1.RuntimeService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.RegisterRuntimeRequest,
      dev.kxm.v1.RegisterRuntimeResponse> getRegisterRuntimeMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RegisterRuntime",
      requestType = dev.kxm.v1.RegisterRuntimeRequest.class,
      responseType = dev.kxm.v1.RegisterRuntimeResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.RegisterRuntimeRequest,
      dev.kxm.v1.RegisterRuntimeResponse> getRegisterRuntimeMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.RegisterRuntimeRequest, dev.kxm.v1.RegisterRuntimeResponse> getRegisterRuntimeMethod;
    if ((getRegisterRuntimeMethod = RuntimeServiceGrpc.getRegisterRuntimeMethod) == null) {
      synchronized (RuntimeServiceGrpc.class) {
        if ((getRegisterRuntimeMethod = RuntimeServiceGrpc.getRegisterRuntimeMethod) == null) {
          RuntimeServiceGrpc.getRegisterRuntimeMethod = getRegisterRuntimeMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.RegisterRuntimeRequest, dev.kxm.v1.RegisterRuntimeResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RegisterRuntime"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RegisterRuntimeRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RegisterRuntimeResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RuntimeServiceMethodDescriptorSupplier("RegisterRuntime"))
              .build();
        }
      }
    }
    return getRegisterRuntimeMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.RuntimeHeartbeatRequest,
      dev.kxm.v1.RuntimeHeartbeatResponse> getRuntimeHeartbeatMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RuntimeHeartbeat",
      requestType = dev.kxm.v1.RuntimeHeartbeatRequest.class,
      responseType = dev.kxm.v1.RuntimeHeartbeatResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.RuntimeHeartbeatRequest,
      dev.kxm.v1.RuntimeHeartbeatResponse> getRuntimeHeartbeatMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.RuntimeHeartbeatRequest, dev.kxm.v1.RuntimeHeartbeatResponse> getRuntimeHeartbeatMethod;
    if ((getRuntimeHeartbeatMethod = RuntimeServiceGrpc.getRuntimeHeartbeatMethod) == null) {
      synchronized (RuntimeServiceGrpc.class) {
        if ((getRuntimeHeartbeatMethod = RuntimeServiceGrpc.getRuntimeHeartbeatMethod) == null) {
          RuntimeServiceGrpc.getRuntimeHeartbeatMethod = getRuntimeHeartbeatMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.RuntimeHeartbeatRequest, dev.kxm.v1.RuntimeHeartbeatResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RuntimeHeartbeat"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RuntimeHeartbeatRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RuntimeHeartbeatResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RuntimeServiceMethodDescriptorSupplier("RuntimeHeartbeat"))
              .build();
        }
      }
    }
    return getRuntimeHeartbeatMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListRuntimesRequest,
      dev.kxm.v1.ListRuntimesResponse> getListRuntimesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListRuntimes",
      requestType = dev.kxm.v1.ListRuntimesRequest.class,
      responseType = dev.kxm.v1.ListRuntimesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListRuntimesRequest,
      dev.kxm.v1.ListRuntimesResponse> getListRuntimesMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListRuntimesRequest, dev.kxm.v1.ListRuntimesResponse> getListRuntimesMethod;
    if ((getListRuntimesMethod = RuntimeServiceGrpc.getListRuntimesMethod) == null) {
      synchronized (RuntimeServiceGrpc.class) {
        if ((getListRuntimesMethod = RuntimeServiceGrpc.getListRuntimesMethod) == null) {
          RuntimeServiceGrpc.getListRuntimesMethod = getListRuntimesMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListRuntimesRequest, dev.kxm.v1.ListRuntimesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListRuntimes"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListRuntimesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListRuntimesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RuntimeServiceMethodDescriptorSupplier("ListRuntimes"))
              .build();
        }
      }
    }
    return getListRuntimesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.PushSyncEventsRequest,
      dev.kxm.v1.PushSyncEventsResponse> getPushSyncEventsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "PushSyncEvents",
      requestType = dev.kxm.v1.PushSyncEventsRequest.class,
      responseType = dev.kxm.v1.PushSyncEventsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.PushSyncEventsRequest,
      dev.kxm.v1.PushSyncEventsResponse> getPushSyncEventsMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.PushSyncEventsRequest, dev.kxm.v1.PushSyncEventsResponse> getPushSyncEventsMethod;
    if ((getPushSyncEventsMethod = RuntimeServiceGrpc.getPushSyncEventsMethod) == null) {
      synchronized (RuntimeServiceGrpc.class) {
        if ((getPushSyncEventsMethod = RuntimeServiceGrpc.getPushSyncEventsMethod) == null) {
          RuntimeServiceGrpc.getPushSyncEventsMethod = getPushSyncEventsMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.PushSyncEventsRequest, dev.kxm.v1.PushSyncEventsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "PushSyncEvents"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.PushSyncEventsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.PushSyncEventsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RuntimeServiceMethodDescriptorSupplier("PushSyncEvents"))
              .build();
        }
      }
    }
    return getPushSyncEventsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListRunEventsRequest,
      dev.kxm.v1.ListRunEventsResponse> getListRunEventsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListRunEvents",
      requestType = dev.kxm.v1.ListRunEventsRequest.class,
      responseType = dev.kxm.v1.ListRunEventsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListRunEventsRequest,
      dev.kxm.v1.ListRunEventsResponse> getListRunEventsMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListRunEventsRequest, dev.kxm.v1.ListRunEventsResponse> getListRunEventsMethod;
    if ((getListRunEventsMethod = RuntimeServiceGrpc.getListRunEventsMethod) == null) {
      synchronized (RuntimeServiceGrpc.class) {
        if ((getListRunEventsMethod = RuntimeServiceGrpc.getListRunEventsMethod) == null) {
          RuntimeServiceGrpc.getListRunEventsMethod = getListRunEventsMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListRunEventsRequest, dev.kxm.v1.ListRunEventsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListRunEvents"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListRunEventsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListRunEventsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RuntimeServiceMethodDescriptorSupplier("ListRunEvents"))
              .build();
        }
      }
    }
    return getListRunEventsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ReassignSyncProjectRequest,
      dev.kxm.v1.ReassignSyncProjectResponse> getReassignSyncProjectMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReassignSyncProject",
      requestType = dev.kxm.v1.ReassignSyncProjectRequest.class,
      responseType = dev.kxm.v1.ReassignSyncProjectResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ReassignSyncProjectRequest,
      dev.kxm.v1.ReassignSyncProjectResponse> getReassignSyncProjectMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ReassignSyncProjectRequest, dev.kxm.v1.ReassignSyncProjectResponse> getReassignSyncProjectMethod;
    if ((getReassignSyncProjectMethod = RuntimeServiceGrpc.getReassignSyncProjectMethod) == null) {
      synchronized (RuntimeServiceGrpc.class) {
        if ((getReassignSyncProjectMethod = RuntimeServiceGrpc.getReassignSyncProjectMethod) == null) {
          RuntimeServiceGrpc.getReassignSyncProjectMethod = getReassignSyncProjectMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ReassignSyncProjectRequest, dev.kxm.v1.ReassignSyncProjectResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReassignSyncProject"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ReassignSyncProjectRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ReassignSyncProjectResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RuntimeServiceMethodDescriptorSupplier("ReassignSyncProject"))
              .build();
        }
      }
    }
    return getReassignSyncProjectMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static RuntimeServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RuntimeServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RuntimeServiceStub>() {
        @java.lang.Override
        public RuntimeServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RuntimeServiceStub(channel, callOptions);
        }
      };
    return RuntimeServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static RuntimeServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RuntimeServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RuntimeServiceBlockingV2Stub>() {
        @java.lang.Override
        public RuntimeServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RuntimeServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return RuntimeServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static RuntimeServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RuntimeServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RuntimeServiceBlockingStub>() {
        @java.lang.Override
        public RuntimeServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RuntimeServiceBlockingStub(channel, callOptions);
        }
      };
    return RuntimeServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static RuntimeServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RuntimeServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RuntimeServiceFutureStub>() {
        @java.lang.Override
        public RuntimeServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RuntimeServiceFutureStub(channel, callOptions);
        }
      };
    return RuntimeServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * RuntimeService lets machine clients (runtimes) report presence and push their run events.
   * A runtime has its own credential, issued by RegisterRuntime and sent as the bearer token; it can
   * heartbeat and push only as itself.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * RegisterRuntime registers a runtime in the caller's project and issues its runtime key.
     * A project token may register a new runtime id; re-registering an existing id (which revokes its
     * old key) needs an operator's token (the admin token or a named operator's) with `x-kxm-project`.
     * A registration by an operator is audited (AdminService.ListAuditRecords).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a project token, nor an operator's naming the project.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_RUNTIME_ID, ERROR_REASON_PROTOCOL_ERROR): bad runtime id or host.
     * - ALREADY_EXISTS (ERROR_REASON_RUNTIME_ALREADY_EXISTS): the id is registered and the caller is not an operator.
     * </pre>
     */
    default void registerRuntime(dev.kxm.v1.RegisterRuntimeRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RegisterRuntimeResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRegisterRuntimeMethod(), responseObserver);
    }

    /**
     * <pre>
     * RuntimeHeartbeat renews the calling runtime's presence.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown runtime key.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a runtime key.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): host is too long.
     * </pre>
     */
    default void runtimeHeartbeat(dev.kxm.v1.RuntimeHeartbeatRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RuntimeHeartbeatResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRuntimeHeartbeatMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListRuntimes lists the runtimes of the caller's project by id.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * </pre>
     */
    default void listRuntimes(dev.kxm.v1.ListRuntimesRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListRuntimesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListRuntimesMethod(), responseObserver);
    }

    /**
     * <pre>
     * PushSyncEvents ingests a batch of run events from the calling runtime, one outcome per event in order.
     * Each event is validated, canonicalised and hashed (SHA-256). Outcomes: accepted, duplicate (same
     * bytes at the same slot), conflict (sequence reused, project mismatch, home runtime mismatch) or
     * rejected (invalid). Events are decided one by one; the batch is not atomic.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown runtime key.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a runtime key.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SYNC_BATCH): the batch is empty.
     * - INVALID_ARGUMENT (ERROR_REASON_SYNC_BATCH_TOO_LARGE): the batch has more than 100 events.
     * </pre>
     */
    default void pushSyncEvents(dev.kxm.v1.PushSyncEventsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.PushSyncEventsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getPushSyncEventsMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListRunEvents reads back a run's accepted events in sequence order, after a cursor.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_RUNTIME_ID): bad ids or page size.
     * </pre>
     */
    default void listRunEvents(dev.kxm.v1.ListRunEventsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListRunEventsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListRunEventsMethod(), responseObserver);
    }

    /**
     * <pre>
     * ReassignSyncProject moves ownership of a runtime-side project id to another hub project (audited).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_RUNTIME_ID, ERROR_REASON_PROTOCOL_ERROR): bad project id or project.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): the target hub project does not exist.
     * </pre>
     */
    default void reassignSyncProject(dev.kxm.v1.ReassignSyncProjectRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ReassignSyncProjectResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReassignSyncProjectMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service RuntimeService.
   * <pre>
   * RuntimeService lets machine clients (runtimes) report presence and push their run events.
   * A runtime has its own credential, issued by RegisterRuntime and sent as the bearer token; it can
   * heartbeat and push only as itself.
   * </pre>
   */
  public static abstract class RuntimeServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return RuntimeServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service RuntimeService.
   * <pre>
   * RuntimeService lets machine clients (runtimes) report presence and push their run events.
   * A runtime has its own credential, issued by RegisterRuntime and sent as the bearer token; it can
   * heartbeat and push only as itself.
   * </pre>
   */
  public static final class RuntimeServiceStub
      extends io.grpc.stub.AbstractAsyncStub<RuntimeServiceStub> {
    private RuntimeServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RuntimeServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RuntimeServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * RegisterRuntime registers a runtime in the caller's project and issues its runtime key.
     * A project token may register a new runtime id; re-registering an existing id (which revokes its
     * old key) needs an operator's token (the admin token or a named operator's) with `x-kxm-project`.
     * A registration by an operator is audited (AdminService.ListAuditRecords).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a project token, nor an operator's naming the project.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_RUNTIME_ID, ERROR_REASON_PROTOCOL_ERROR): bad runtime id or host.
     * - ALREADY_EXISTS (ERROR_REASON_RUNTIME_ALREADY_EXISTS): the id is registered and the caller is not an operator.
     * </pre>
     */
    public void registerRuntime(dev.kxm.v1.RegisterRuntimeRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RegisterRuntimeResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRegisterRuntimeMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * RuntimeHeartbeat renews the calling runtime's presence.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown runtime key.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a runtime key.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): host is too long.
     * </pre>
     */
    public void runtimeHeartbeat(dev.kxm.v1.RuntimeHeartbeatRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RuntimeHeartbeatResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRuntimeHeartbeatMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListRuntimes lists the runtimes of the caller's project by id.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * </pre>
     */
    public void listRuntimes(dev.kxm.v1.ListRuntimesRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListRuntimesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListRuntimesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * PushSyncEvents ingests a batch of run events from the calling runtime, one outcome per event in order.
     * Each event is validated, canonicalised and hashed (SHA-256). Outcomes: accepted, duplicate (same
     * bytes at the same slot), conflict (sequence reused, project mismatch, home runtime mismatch) or
     * rejected (invalid). Events are decided one by one; the batch is not atomic.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown runtime key.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a runtime key.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SYNC_BATCH): the batch is empty.
     * - INVALID_ARGUMENT (ERROR_REASON_SYNC_BATCH_TOO_LARGE): the batch has more than 100 events.
     * </pre>
     */
    public void pushSyncEvents(dev.kxm.v1.PushSyncEventsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.PushSyncEventsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getPushSyncEventsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListRunEvents reads back a run's accepted events in sequence order, after a cursor.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_RUNTIME_ID): bad ids or page size.
     * </pre>
     */
    public void listRunEvents(dev.kxm.v1.ListRunEventsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListRunEventsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListRunEventsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ReassignSyncProject moves ownership of a runtime-side project id to another hub project (audited).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_RUNTIME_ID, ERROR_REASON_PROTOCOL_ERROR): bad project id or project.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): the target hub project does not exist.
     * </pre>
     */
    public void reassignSyncProject(dev.kxm.v1.ReassignSyncProjectRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ReassignSyncProjectResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReassignSyncProjectMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service RuntimeService.
   * <pre>
   * RuntimeService lets machine clients (runtimes) report presence and push their run events.
   * A runtime has its own credential, issued by RegisterRuntime and sent as the bearer token; it can
   * heartbeat and push only as itself.
   * </pre>
   */
  public static final class RuntimeServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<RuntimeServiceBlockingV2Stub> {
    private RuntimeServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RuntimeServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RuntimeServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * RegisterRuntime registers a runtime in the caller's project and issues its runtime key.
     * A project token may register a new runtime id; re-registering an existing id (which revokes its
     * old key) needs an operator's token (the admin token or a named operator's) with `x-kxm-project`.
     * A registration by an operator is audited (AdminService.ListAuditRecords).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a project token, nor an operator's naming the project.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_RUNTIME_ID, ERROR_REASON_PROTOCOL_ERROR): bad runtime id or host.
     * - ALREADY_EXISTS (ERROR_REASON_RUNTIME_ALREADY_EXISTS): the id is registered and the caller is not an operator.
     * </pre>
     */
    public dev.kxm.v1.RegisterRuntimeResponse registerRuntime(dev.kxm.v1.RegisterRuntimeRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRegisterRuntimeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RuntimeHeartbeat renews the calling runtime's presence.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown runtime key.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a runtime key.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): host is too long.
     * </pre>
     */
    public dev.kxm.v1.RuntimeHeartbeatResponse runtimeHeartbeat(dev.kxm.v1.RuntimeHeartbeatRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRuntimeHeartbeatMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListRuntimes lists the runtimes of the caller's project by id.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * </pre>
     */
    public dev.kxm.v1.ListRuntimesResponse listRuntimes(dev.kxm.v1.ListRuntimesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListRuntimesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * PushSyncEvents ingests a batch of run events from the calling runtime, one outcome per event in order.
     * Each event is validated, canonicalised and hashed (SHA-256). Outcomes: accepted, duplicate (same
     * bytes at the same slot), conflict (sequence reused, project mismatch, home runtime mismatch) or
     * rejected (invalid). Events are decided one by one; the batch is not atomic.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown runtime key.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a runtime key.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SYNC_BATCH): the batch is empty.
     * - INVALID_ARGUMENT (ERROR_REASON_SYNC_BATCH_TOO_LARGE): the batch has more than 100 events.
     * </pre>
     */
    public dev.kxm.v1.PushSyncEventsResponse pushSyncEvents(dev.kxm.v1.PushSyncEventsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getPushSyncEventsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListRunEvents reads back a run's accepted events in sequence order, after a cursor.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_RUNTIME_ID): bad ids or page size.
     * </pre>
     */
    public dev.kxm.v1.ListRunEventsResponse listRunEvents(dev.kxm.v1.ListRunEventsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListRunEventsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ReassignSyncProject moves ownership of a runtime-side project id to another hub project (audited).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_RUNTIME_ID, ERROR_REASON_PROTOCOL_ERROR): bad project id or project.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): the target hub project does not exist.
     * </pre>
     */
    public dev.kxm.v1.ReassignSyncProjectResponse reassignSyncProject(dev.kxm.v1.ReassignSyncProjectRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getReassignSyncProjectMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service RuntimeService.
   * <pre>
   * RuntimeService lets machine clients (runtimes) report presence and push their run events.
   * A runtime has its own credential, issued by RegisterRuntime and sent as the bearer token; it can
   * heartbeat and push only as itself.
   * </pre>
   */
  public static final class RuntimeServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<RuntimeServiceBlockingStub> {
    private RuntimeServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RuntimeServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RuntimeServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * RegisterRuntime registers a runtime in the caller's project and issues its runtime key.
     * A project token may register a new runtime id; re-registering an existing id (which revokes its
     * old key) needs an operator's token (the admin token or a named operator's) with `x-kxm-project`.
     * A registration by an operator is audited (AdminService.ListAuditRecords).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a project token, nor an operator's naming the project.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_RUNTIME_ID, ERROR_REASON_PROTOCOL_ERROR): bad runtime id or host.
     * - ALREADY_EXISTS (ERROR_REASON_RUNTIME_ALREADY_EXISTS): the id is registered and the caller is not an operator.
     * </pre>
     */
    public dev.kxm.v1.RegisterRuntimeResponse registerRuntime(dev.kxm.v1.RegisterRuntimeRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRegisterRuntimeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RuntimeHeartbeat renews the calling runtime's presence.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown runtime key.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a runtime key.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): host is too long.
     * </pre>
     */
    public dev.kxm.v1.RuntimeHeartbeatResponse runtimeHeartbeat(dev.kxm.v1.RuntimeHeartbeatRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRuntimeHeartbeatMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListRuntimes lists the runtimes of the caller's project by id.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * </pre>
     */
    public dev.kxm.v1.ListRuntimesResponse listRuntimes(dev.kxm.v1.ListRuntimesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListRuntimesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * PushSyncEvents ingests a batch of run events from the calling runtime, one outcome per event in order.
     * Each event is validated, canonicalised and hashed (SHA-256). Outcomes: accepted, duplicate (same
     * bytes at the same slot), conflict (sequence reused, project mismatch, home runtime mismatch) or
     * rejected (invalid). Events are decided one by one; the batch is not atomic.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown runtime key.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a runtime key.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SYNC_BATCH): the batch is empty.
     * - INVALID_ARGUMENT (ERROR_REASON_SYNC_BATCH_TOO_LARGE): the batch has more than 100 events.
     * </pre>
     */
    public dev.kxm.v1.PushSyncEventsResponse pushSyncEvents(dev.kxm.v1.PushSyncEventsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getPushSyncEventsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListRunEvents reads back a run's accepted events in sequence order, after a cursor.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_RUNTIME_ID): bad ids or page size.
     * </pre>
     */
    public dev.kxm.v1.ListRunEventsResponse listRunEvents(dev.kxm.v1.ListRunEventsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListRunEventsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ReassignSyncProject moves ownership of a runtime-side project id to another hub project (audited).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_RUNTIME_ID, ERROR_REASON_PROTOCOL_ERROR): bad project id or project.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): the target hub project does not exist.
     * </pre>
     */
    public dev.kxm.v1.ReassignSyncProjectResponse reassignSyncProject(dev.kxm.v1.ReassignSyncProjectRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReassignSyncProjectMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service RuntimeService.
   * <pre>
   * RuntimeService lets machine clients (runtimes) report presence and push their run events.
   * A runtime has its own credential, issued by RegisterRuntime and sent as the bearer token; it can
   * heartbeat and push only as itself.
   * </pre>
   */
  public static final class RuntimeServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<RuntimeServiceFutureStub> {
    private RuntimeServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RuntimeServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RuntimeServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * RegisterRuntime registers a runtime in the caller's project and issues its runtime key.
     * A project token may register a new runtime id; re-registering an existing id (which revokes its
     * old key) needs an operator's token (the admin token or a named operator's) with `x-kxm-project`.
     * A registration by an operator is audited (AdminService.ListAuditRecords).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a project token, nor an operator's naming the project.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_RUNTIME_ID, ERROR_REASON_PROTOCOL_ERROR): bad runtime id or host.
     * - ALREADY_EXISTS (ERROR_REASON_RUNTIME_ALREADY_EXISTS): the id is registered and the caller is not an operator.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RegisterRuntimeResponse> registerRuntime(
        dev.kxm.v1.RegisterRuntimeRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRegisterRuntimeMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * RuntimeHeartbeat renews the calling runtime's presence.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown runtime key.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a runtime key.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): host is too long.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RuntimeHeartbeatResponse> runtimeHeartbeat(
        dev.kxm.v1.RuntimeHeartbeatRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRuntimeHeartbeatMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListRuntimes lists the runtimes of the caller's project by id.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListRuntimesResponse> listRuntimes(
        dev.kxm.v1.ListRuntimesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListRuntimesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * PushSyncEvents ingests a batch of run events from the calling runtime, one outcome per event in order.
     * Each event is validated, canonicalised and hashed (SHA-256). Outcomes: accepted, duplicate (same
     * bytes at the same slot), conflict (sequence reused, project mismatch, home runtime mismatch) or
     * rejected (invalid). Events are decided one by one; the batch is not atomic.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown runtime key.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a runtime key.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SYNC_BATCH): the batch is empty.
     * - INVALID_ARGUMENT (ERROR_REASON_SYNC_BATCH_TOO_LARGE): the batch has more than 100 events.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.PushSyncEventsResponse> pushSyncEvents(
        dev.kxm.v1.PushSyncEventsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getPushSyncEventsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListRunEvents reads back a run's accepted events in sequence order, after a cursor.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad or insufficient credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_RUNTIME_ID): bad ids or page size.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListRunEventsResponse> listRunEvents(
        dev.kxm.v1.ListRunEventsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListRunEventsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ReassignSyncProject moves ownership of a runtime-side project id to another hub project (audited).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_RUNTIME_ID, ERROR_REASON_PROTOCOL_ERROR): bad project id or project.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): the target hub project does not exist.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ReassignSyncProjectResponse> reassignSyncProject(
        dev.kxm.v1.ReassignSyncProjectRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReassignSyncProjectMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_REGISTER_RUNTIME = 0;
  private static final int METHODID_RUNTIME_HEARTBEAT = 1;
  private static final int METHODID_LIST_RUNTIMES = 2;
  private static final int METHODID_PUSH_SYNC_EVENTS = 3;
  private static final int METHODID_LIST_RUN_EVENTS = 4;
  private static final int METHODID_REASSIGN_SYNC_PROJECT = 5;

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
        case METHODID_REGISTER_RUNTIME:
          serviceImpl.registerRuntime((dev.kxm.v1.RegisterRuntimeRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.RegisterRuntimeResponse>) responseObserver);
          break;
        case METHODID_RUNTIME_HEARTBEAT:
          serviceImpl.runtimeHeartbeat((dev.kxm.v1.RuntimeHeartbeatRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.RuntimeHeartbeatResponse>) responseObserver);
          break;
        case METHODID_LIST_RUNTIMES:
          serviceImpl.listRuntimes((dev.kxm.v1.ListRuntimesRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListRuntimesResponse>) responseObserver);
          break;
        case METHODID_PUSH_SYNC_EVENTS:
          serviceImpl.pushSyncEvents((dev.kxm.v1.PushSyncEventsRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.PushSyncEventsResponse>) responseObserver);
          break;
        case METHODID_LIST_RUN_EVENTS:
          serviceImpl.listRunEvents((dev.kxm.v1.ListRunEventsRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListRunEventsResponse>) responseObserver);
          break;
        case METHODID_REASSIGN_SYNC_PROJECT:
          serviceImpl.reassignSyncProject((dev.kxm.v1.ReassignSyncProjectRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ReassignSyncProjectResponse>) responseObserver);
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
          getRegisterRuntimeMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.RegisterRuntimeRequest,
              dev.kxm.v1.RegisterRuntimeResponse>(
                service, METHODID_REGISTER_RUNTIME)))
        .addMethod(
          getRuntimeHeartbeatMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.RuntimeHeartbeatRequest,
              dev.kxm.v1.RuntimeHeartbeatResponse>(
                service, METHODID_RUNTIME_HEARTBEAT)))
        .addMethod(
          getListRuntimesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListRuntimesRequest,
              dev.kxm.v1.ListRuntimesResponse>(
                service, METHODID_LIST_RUNTIMES)))
        .addMethod(
          getPushSyncEventsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.PushSyncEventsRequest,
              dev.kxm.v1.PushSyncEventsResponse>(
                service, METHODID_PUSH_SYNC_EVENTS)))
        .addMethod(
          getListRunEventsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListRunEventsRequest,
              dev.kxm.v1.ListRunEventsResponse>(
                service, METHODID_LIST_RUN_EVENTS)))
        .addMethod(
          getReassignSyncProjectMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ReassignSyncProjectRequest,
              dev.kxm.v1.ReassignSyncProjectResponse>(
                service, METHODID_REASSIGN_SYNC_PROJECT)))
        .build();
  }

  private static abstract class RuntimeServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    RuntimeServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.kxm.v1.RuntimeServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("RuntimeService");
    }
  }

  private static final class RuntimeServiceFileDescriptorSupplier
      extends RuntimeServiceBaseDescriptorSupplier {
    RuntimeServiceFileDescriptorSupplier() {}
  }

  private static final class RuntimeServiceMethodDescriptorSupplier
      extends RuntimeServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    RuntimeServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (RuntimeServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new RuntimeServiceFileDescriptorSupplier())
              .addMethod(getRegisterRuntimeMethod())
              .addMethod(getRuntimeHeartbeatMethod())
              .addMethod(getListRuntimesMethod())
              .addMethod(getPushSyncEventsMethod())
              .addMethod(getListRunEventsMethod())
              .addMethod(getReassignSyncProjectMethod())
              .build();
        }
      }
    }
    return result;
  }
}
