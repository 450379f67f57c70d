package dev.kxm.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * AdminService manages projects and their tokens. Every RPC needs the admin token.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class AdminServiceGrpc {

  private AdminServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "kxm.v1.AdminService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.CreateProjectRequest,
      dev.kxm.v1.CreateProjectResponse> getCreateProjectMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateProject",
      requestType = dev.kxm.v1.CreateProjectRequest.class,
      responseType = dev.kxm.v1.CreateProjectResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.CreateProjectRequest,
      dev.kxm.v1.CreateProjectResponse> getCreateProjectMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.CreateProjectRequest, dev.kxm.v1.CreateProjectResponse> getCreateProjectMethod;
    if ((getCreateProjectMethod = AdminServiceGrpc.getCreateProjectMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getCreateProjectMethod = AdminServiceGrpc.getCreateProjectMethod) == null) {
          AdminServiceGrpc.getCreateProjectMethod = getCreateProjectMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.CreateProjectRequest, dev.kxm.v1.CreateProjectResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateProject"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.CreateProjectRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.CreateProjectResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("CreateProject"))
              .build();
        }
      }
    }
    return getCreateProjectMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListProjectsRequest,
      dev.kxm.v1.ListProjectsResponse> getListProjectsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListProjects",
      requestType = dev.kxm.v1.ListProjectsRequest.class,
      responseType = dev.kxm.v1.ListProjectsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListProjectsRequest,
      dev.kxm.v1.ListProjectsResponse> getListProjectsMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListProjectsRequest, dev.kxm.v1.ListProjectsResponse> getListProjectsMethod;
    if ((getListProjectsMethod = AdminServiceGrpc.getListProjectsMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListProjectsMethod = AdminServiceGrpc.getListProjectsMethod) == null) {
          AdminServiceGrpc.getListProjectsMethod = getListProjectsMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListProjectsRequest, dev.kxm.v1.ListProjectsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListProjects"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListProjectsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListProjectsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("ListProjects"))
              .build();
        }
      }
    }
    return getListProjectsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.RotateProjectTokenRequest,
      dev.kxm.v1.RotateProjectTokenResponse> getRotateProjectTokenMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RotateProjectToken",
      requestType = dev.kxm.v1.RotateProjectTokenRequest.class,
      responseType = dev.kxm.v1.RotateProjectTokenResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.RotateProjectTokenRequest,
      dev.kxm.v1.RotateProjectTokenResponse> getRotateProjectTokenMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.RotateProjectTokenRequest, dev.kxm.v1.RotateProjectTokenResponse> getRotateProjectTokenMethod;
    if ((getRotateProjectTokenMethod = AdminServiceGrpc.getRotateProjectTokenMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getRotateProjectTokenMethod = AdminServiceGrpc.getRotateProjectTokenMethod) == null) {
          AdminServiceGrpc.getRotateProjectTokenMethod = getRotateProjectTokenMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.RotateProjectTokenRequest, dev.kxm.v1.RotateProjectTokenResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RotateProjectToken"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RotateProjectTokenRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RotateProjectTokenResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("RotateProjectToken"))
              .build();
        }
      }
    }
    return getRotateProjectTokenMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static AdminServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceStub>() {
        @java.lang.Override
        public AdminServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceStub(channel, callOptions);
        }
      };
    return AdminServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static AdminServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceBlockingV2Stub>() {
        @java.lang.Override
        public AdminServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return AdminServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static AdminServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceBlockingStub>() {
        @java.lang.Override
        public AdminServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceBlockingStub(channel, callOptions);
        }
      };
    return AdminServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static AdminServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AdminServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AdminServiceFutureStub>() {
        @java.lang.Override
        public AdminServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AdminServiceFutureStub(channel, callOptions);
        }
      };
    return AdminServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * AdminService manages projects and their tokens. Every RPC needs the admin token.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * CreateProject creates a project and issues its first project token.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty, too long or has other characters.
     * - ALREADY_EXISTS (ERROR_REASON_PROJECT_ALREADY_EXISTS): a project has this name.
     * </pre>
     */
    default void createProject(dev.kxm.v1.CreateProjectRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.CreateProjectResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateProjectMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListProjects lists projects by name.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * </pre>
     */
    default void listProjects(dev.kxm.v1.ListProjectsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListProjectsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListProjectsMethod(), responseObserver);
    }

    /**
     * <pre>
     * RotateProjectToken issues a new project token; the old one stops working at once.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    default void rotateProjectToken(dev.kxm.v1.RotateProjectTokenRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RotateProjectTokenResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRotateProjectTokenMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service AdminService.
   * <pre>
   * AdminService manages projects and their tokens. Every RPC needs the admin token.
   * </pre>
   */
  public static abstract class AdminServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return AdminServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service AdminService.
   * <pre>
   * AdminService manages projects and their tokens. Every RPC needs the admin token.
   * </pre>
   */
  public static final class AdminServiceStub
      extends io.grpc.stub.AbstractAsyncStub<AdminServiceStub> {
    private AdminServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * CreateProject creates a project and issues its first project token.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty, too long or has other characters.
     * - ALREADY_EXISTS (ERROR_REASON_PROJECT_ALREADY_EXISTS): a project has this name.
     * </pre>
     */
    public void createProject(dev.kxm.v1.CreateProjectRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.CreateProjectResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateProjectMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListProjects lists projects by name.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * </pre>
     */
    public void listProjects(dev.kxm.v1.ListProjectsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListProjectsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListProjectsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * RotateProjectToken issues a new project token; the old one stops working at once.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    public void rotateProjectToken(dev.kxm.v1.RotateProjectTokenRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RotateProjectTokenResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRotateProjectTokenMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service AdminService.
   * <pre>
   * AdminService manages projects and their tokens. Every RPC needs the admin token.
   * </pre>
   */
  public static final class AdminServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<AdminServiceBlockingV2Stub> {
    private AdminServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * CreateProject creates a project and issues its first project token.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty, too long or has other characters.
     * - ALREADY_EXISTS (ERROR_REASON_PROJECT_ALREADY_EXISTS): a project has this name.
     * </pre>
     */
    public dev.kxm.v1.CreateProjectResponse createProject(dev.kxm.v1.CreateProjectRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCreateProjectMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListProjects lists projects by name.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * </pre>
     */
    public dev.kxm.v1.ListProjectsResponse listProjects(dev.kxm.v1.ListProjectsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListProjectsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RotateProjectToken issues a new project token; the old one stops working at once.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    public dev.kxm.v1.RotateProjectTokenResponse rotateProjectToken(dev.kxm.v1.RotateProjectTokenRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRotateProjectTokenMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service AdminService.
   * <pre>
   * AdminService manages projects and their tokens. Every RPC needs the admin token.
   * </pre>
   */
  public static final class AdminServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<AdminServiceBlockingStub> {
    private AdminServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * CreateProject creates a project and issues its first project token.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty, too long or has other characters.
     * - ALREADY_EXISTS (ERROR_REASON_PROJECT_ALREADY_EXISTS): a project has this name.
     * </pre>
     */
    public dev.kxm.v1.CreateProjectResponse createProject(dev.kxm.v1.CreateProjectRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateProjectMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListProjects lists projects by name.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * </pre>
     */
    public dev.kxm.v1.ListProjectsResponse listProjects(dev.kxm.v1.ListProjectsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListProjectsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RotateProjectToken issues a new project token; the old one stops working at once.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    public dev.kxm.v1.RotateProjectTokenResponse rotateProjectToken(dev.kxm.v1.RotateProjectTokenRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRotateProjectTokenMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service AdminService.
   * <pre>
   * AdminService manages projects and their tokens. Every RPC needs the admin token.
   * </pre>
   */
  public static final class AdminServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<AdminServiceFutureStub> {
    private AdminServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AdminServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AdminServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * CreateProject creates a project and issues its first project token.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty, too long or has other characters.
     * - ALREADY_EXISTS (ERROR_REASON_PROJECT_ALREADY_EXISTS): a project has this name.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.CreateProjectResponse> createProject(
        dev.kxm.v1.CreateProjectRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateProjectMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListProjects lists projects by name.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListProjectsResponse> listProjects(
        dev.kxm.v1.ListProjectsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListProjectsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * RotateProjectToken issues a new project token; the old one stops working at once.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RotateProjectTokenResponse> rotateProjectToken(
        dev.kxm.v1.RotateProjectTokenRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRotateProjectTokenMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_CREATE_PROJECT = 0;
  private static final int METHODID_LIST_PROJECTS = 1;
  private static final int METHODID_ROTATE_PROJECT_TOKEN = 2;

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
        case METHODID_CREATE_PROJECT:
          serviceImpl.createProject((dev.kxm.v1.CreateProjectRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.CreateProjectResponse>) responseObserver);
          break;
        case METHODID_LIST_PROJECTS:
          serviceImpl.listProjects((dev.kxm.v1.ListProjectsRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListProjectsResponse>) responseObserver);
          break;
        case METHODID_ROTATE_PROJECT_TOKEN:
          serviceImpl.rotateProjectToken((dev.kxm.v1.RotateProjectTokenRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.RotateProjectTokenResponse>) responseObserver);
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
          getCreateProjectMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.CreateProjectRequest,
              dev.kxm.v1.CreateProjectResponse>(
                service, METHODID_CREATE_PROJECT)))
        .addMethod(
          getListProjectsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListProjectsRequest,
              dev.kxm.v1.ListProjectsResponse>(
                service, METHODID_LIST_PROJECTS)))
        .addMethod(
          getRotateProjectTokenMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.RotateProjectTokenRequest,
              dev.kxm.v1.RotateProjectTokenResponse>(
                service, METHODID_ROTATE_PROJECT_TOKEN)))
        .build();
  }

  private static abstract class AdminServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    AdminServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.kxm.v1.AdminServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("AdminService");
    }
  }

  private static final class AdminServiceFileDescriptorSupplier
      extends AdminServiceBaseDescriptorSupplier {
    AdminServiceFileDescriptorSupplier() {}
  }

  private static final class AdminServiceMethodDescriptorSupplier
      extends AdminServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    AdminServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (AdminServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new AdminServiceFileDescriptorSupplier())
              .addMethod(getCreateProjectMethod())
              .addMethod(getListProjectsMethod())
              .addMethod(getRotateProjectTokenMethod())
              .build();
        }
      }
    }
    return result;
  }
}
