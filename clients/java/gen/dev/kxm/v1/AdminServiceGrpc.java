package dev.kxm.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * AdminService manages projects, their tokens, agents' session tokens and the hub's operators, and reads the audit.
 * Project management and session tokens need an operator: the bootstrap admin (the admin token) or a
 * named operator (a `kxm_op_…` token from CreateOperator). Managing operators and reading the audit
 * need the bootstrap admin. Every mutating call is attributed to the operator who made it, in the log and in
 * an audit record written in the transaction of the change.
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

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.CreateOperatorRequest,
      dev.kxm.v1.CreateOperatorResponse> getCreateOperatorMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateOperator",
      requestType = dev.kxm.v1.CreateOperatorRequest.class,
      responseType = dev.kxm.v1.CreateOperatorResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.CreateOperatorRequest,
      dev.kxm.v1.CreateOperatorResponse> getCreateOperatorMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.CreateOperatorRequest, dev.kxm.v1.CreateOperatorResponse> getCreateOperatorMethod;
    if ((getCreateOperatorMethod = AdminServiceGrpc.getCreateOperatorMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getCreateOperatorMethod = AdminServiceGrpc.getCreateOperatorMethod) == null) {
          AdminServiceGrpc.getCreateOperatorMethod = getCreateOperatorMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.CreateOperatorRequest, dev.kxm.v1.CreateOperatorResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateOperator"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.CreateOperatorRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.CreateOperatorResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("CreateOperator"))
              .build();
        }
      }
    }
    return getCreateOperatorMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListOperatorsRequest,
      dev.kxm.v1.ListOperatorsResponse> getListOperatorsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListOperators",
      requestType = dev.kxm.v1.ListOperatorsRequest.class,
      responseType = dev.kxm.v1.ListOperatorsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListOperatorsRequest,
      dev.kxm.v1.ListOperatorsResponse> getListOperatorsMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListOperatorsRequest, dev.kxm.v1.ListOperatorsResponse> getListOperatorsMethod;
    if ((getListOperatorsMethod = AdminServiceGrpc.getListOperatorsMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListOperatorsMethod = AdminServiceGrpc.getListOperatorsMethod) == null) {
          AdminServiceGrpc.getListOperatorsMethod = getListOperatorsMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListOperatorsRequest, dev.kxm.v1.ListOperatorsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListOperators"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListOperatorsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListOperatorsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("ListOperators"))
              .build();
        }
      }
    }
    return getListOperatorsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.RevokeOperatorRequest,
      dev.kxm.v1.RevokeOperatorResponse> getRevokeOperatorMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RevokeOperator",
      requestType = dev.kxm.v1.RevokeOperatorRequest.class,
      responseType = dev.kxm.v1.RevokeOperatorResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.RevokeOperatorRequest,
      dev.kxm.v1.RevokeOperatorResponse> getRevokeOperatorMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.RevokeOperatorRequest, dev.kxm.v1.RevokeOperatorResponse> getRevokeOperatorMethod;
    if ((getRevokeOperatorMethod = AdminServiceGrpc.getRevokeOperatorMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getRevokeOperatorMethod = AdminServiceGrpc.getRevokeOperatorMethod) == null) {
          AdminServiceGrpc.getRevokeOperatorMethod = getRevokeOperatorMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.RevokeOperatorRequest, dev.kxm.v1.RevokeOperatorResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RevokeOperator"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RevokeOperatorRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RevokeOperatorResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("RevokeOperator"))
              .build();
        }
      }
    }
    return getRevokeOperatorMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListAuditRecordsRequest,
      dev.kxm.v1.ListAuditRecordsResponse> getListAuditRecordsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListAuditRecords",
      requestType = dev.kxm.v1.ListAuditRecordsRequest.class,
      responseType = dev.kxm.v1.ListAuditRecordsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListAuditRecordsRequest,
      dev.kxm.v1.ListAuditRecordsResponse> getListAuditRecordsMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListAuditRecordsRequest, dev.kxm.v1.ListAuditRecordsResponse> getListAuditRecordsMethod;
    if ((getListAuditRecordsMethod = AdminServiceGrpc.getListAuditRecordsMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListAuditRecordsMethod = AdminServiceGrpc.getListAuditRecordsMethod) == null) {
          AdminServiceGrpc.getListAuditRecordsMethod = getListAuditRecordsMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListAuditRecordsRequest, dev.kxm.v1.ListAuditRecordsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListAuditRecords"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListAuditRecordsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListAuditRecordsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("ListAuditRecords"))
              .build();
        }
      }
    }
    return getListAuditRecordsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.MintSessionTokenRequest,
      dev.kxm.v1.MintSessionTokenResponse> getMintSessionTokenMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "MintSessionToken",
      requestType = dev.kxm.v1.MintSessionTokenRequest.class,
      responseType = dev.kxm.v1.MintSessionTokenResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.MintSessionTokenRequest,
      dev.kxm.v1.MintSessionTokenResponse> getMintSessionTokenMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.MintSessionTokenRequest, dev.kxm.v1.MintSessionTokenResponse> getMintSessionTokenMethod;
    if ((getMintSessionTokenMethod = AdminServiceGrpc.getMintSessionTokenMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getMintSessionTokenMethod = AdminServiceGrpc.getMintSessionTokenMethod) == null) {
          AdminServiceGrpc.getMintSessionTokenMethod = getMintSessionTokenMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.MintSessionTokenRequest, dev.kxm.v1.MintSessionTokenResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "MintSessionToken"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.MintSessionTokenRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.MintSessionTokenResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("MintSessionToken"))
              .build();
        }
      }
    }
    return getMintSessionTokenMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.RevokeSessionTokenRequest,
      dev.kxm.v1.RevokeSessionTokenResponse> getRevokeSessionTokenMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RevokeSessionToken",
      requestType = dev.kxm.v1.RevokeSessionTokenRequest.class,
      responseType = dev.kxm.v1.RevokeSessionTokenResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.RevokeSessionTokenRequest,
      dev.kxm.v1.RevokeSessionTokenResponse> getRevokeSessionTokenMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.RevokeSessionTokenRequest, dev.kxm.v1.RevokeSessionTokenResponse> getRevokeSessionTokenMethod;
    if ((getRevokeSessionTokenMethod = AdminServiceGrpc.getRevokeSessionTokenMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getRevokeSessionTokenMethod = AdminServiceGrpc.getRevokeSessionTokenMethod) == null) {
          AdminServiceGrpc.getRevokeSessionTokenMethod = getRevokeSessionTokenMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.RevokeSessionTokenRequest, dev.kxm.v1.RevokeSessionTokenResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RevokeSessionToken"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RevokeSessionTokenRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RevokeSessionTokenResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("RevokeSessionToken"))
              .build();
        }
      }
    }
    return getRevokeSessionTokenMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListSessionTokensRequest,
      dev.kxm.v1.ListSessionTokensResponse> getListSessionTokensMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListSessionTokens",
      requestType = dev.kxm.v1.ListSessionTokensRequest.class,
      responseType = dev.kxm.v1.ListSessionTokensResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListSessionTokensRequest,
      dev.kxm.v1.ListSessionTokensResponse> getListSessionTokensMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListSessionTokensRequest, dev.kxm.v1.ListSessionTokensResponse> getListSessionTokensMethod;
    if ((getListSessionTokensMethod = AdminServiceGrpc.getListSessionTokensMethod) == null) {
      synchronized (AdminServiceGrpc.class) {
        if ((getListSessionTokensMethod = AdminServiceGrpc.getListSessionTokensMethod) == null) {
          AdminServiceGrpc.getListSessionTokensMethod = getListSessionTokensMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListSessionTokensRequest, dev.kxm.v1.ListSessionTokensResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListSessionTokens"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListSessionTokensRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListSessionTokensResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AdminServiceMethodDescriptorSupplier("ListSessionTokens"))
              .build();
        }
      }
    }
    return getListSessionTokensMethod;
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
   * AdminService manages projects, their tokens, agents' session tokens and the hub's operators, and reads the audit.
   * Project management and session tokens need an operator: the bootstrap admin (the admin token) or a
   * named operator (a `kxm_op_…` token from CreateOperator). Managing operators and reading the audit
   * need the bootstrap admin. Every mutating call is attributed to the operator who made it, in the log and in
   * an audit record written in the transaction of the change.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * CreateProject creates a project and issues its first project token.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
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
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
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
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    default void rotateProjectToken(dev.kxm.v1.RotateProjectTokenRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RotateProjectTokenResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRotateProjectTokenMethod(), responseObserver);
    }

    /**
     * <pre>
     * CreateOperator creates a named operator and issues its token (`kxm_op_…`, shown once).
     * Names are never reused: a revoked operator keeps its name, so the audit names one person.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token (a named operator cannot manage operators).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty, too long or has other characters.
     * - ALREADY_EXISTS (ERROR_REASON_OPERATOR_ALREADY_EXISTS): an operator has (or had) this name, or it is `admin`, the bootstrap admin's.
     * </pre>
     */
    default void createOperator(dev.kxm.v1.CreateOperatorRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.CreateOperatorResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateOperatorMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListOperators lists the named operators by name, revoked ones too; never their tokens.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * </pre>
     */
    default void listOperators(dev.kxm.v1.ListOperatorsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListOperatorsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListOperatorsMethod(), responseObserver);
    }

    /**
     * <pre>
     * RevokeOperator revokes a named operator's token; it stops working at once. Revoking a revoked operator changes nothing.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_OPERATOR_NOT_FOUND): no named operator has this name (the bootstrap admin is not one: change its token instead).
     * </pre>
     */
    default void revokeOperator(dev.kxm.v1.RevokeOperatorRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RevokeOperatorResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRevokeOperatorMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListAuditRecords lists the audit records, newest first, optionally of one operator and/or one action.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token, malformed operator or action.
     * </pre>
     */
    default void listAuditRecords(dev.kxm.v1.ListAuditRecordsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListAuditRecordsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListAuditRecordsMethod(), responseObserver);
    }

    /**
     * <pre>
     * MintSessionToken issues a hub-signed session token (`kxm.session-token.v1`) for one agent of a project, with a tool policy.
     * The token is shown once; the hub keeps its facts, never the token. From then until it expires or is revoked, every
     * agent of the project with that agent's name must present a session token of its own (`x-kxm-session-token`) on each
     * call of an RPC with a tool name, and the token's policy decides which tools it may call (docs/tool-policy.md). The
     * project is the one the call names (`x-kxm-project`), else `project`.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names; agent_id is empty or malformed; ttl is below 1 minute or above 30 days; the tool policy names an unknown preset or has a malformed or surplus entry.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * - NOT_FOUND (ERROR_REASON_AGENT_NOT_FOUND): no agent of the project has this id.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_SESSION_TOKEN_LIMIT_REACHED): agents of that name already hold 16 active session tokens.
     * </pre>
     */
    default void mintSessionToken(dev.kxm.v1.MintSessionTokenRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.MintSessionTokenResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getMintSessionTokenMethod(), responseObserver);
    }

    /**
     * <pre>
     * RevokeSessionToken revokes a session token; it stops being accepted at once on this hub and within a second on every replica. Revoking a revoked one changes nothing.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names; session_id is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * - NOT_FOUND (ERROR_REASON_SESSION_TOKEN_NOT_FOUND): no session token of the project has this id (another project's reads as none).
     * </pre>
     */
    default void revokeSessionToken(dev.kxm.v1.RevokeSessionTokenRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RevokeSessionTokenResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRevokeSessionTokenMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListSessionTokens lists a project's session tokens, newest first, revoked and expired ones too; never the tokens.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names; a bad page size.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or of another query.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    default void listSessionTokens(dev.kxm.v1.ListSessionTokensRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListSessionTokensResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListSessionTokensMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service AdminService.
   * <pre>
   * AdminService manages projects, their tokens, agents' session tokens and the hub's operators, and reads the audit.
   * Project management and session tokens need an operator: the bootstrap admin (the admin token) or a
   * named operator (a `kxm_op_…` token from CreateOperator). Managing operators and reading the audit
   * need the bootstrap admin. Every mutating call is attributed to the operator who made it, in the log and in
   * an audit record written in the transaction of the change.
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
   * AdminService manages projects, their tokens, agents' session tokens and the hub's operators, and reads the audit.
   * Project management and session tokens need an operator: the bootstrap admin (the admin token) or a
   * named operator (a `kxm_op_…` token from CreateOperator). Managing operators and reading the audit
   * need the bootstrap admin. Every mutating call is attributed to the operator who made it, in the log and in
   * an audit record written in the transaction of the change.
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
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
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
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
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
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    public void rotateProjectToken(dev.kxm.v1.RotateProjectTokenRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RotateProjectTokenResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRotateProjectTokenMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * CreateOperator creates a named operator and issues its token (`kxm_op_…`, shown once).
     * Names are never reused: a revoked operator keeps its name, so the audit names one person.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token (a named operator cannot manage operators).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty, too long or has other characters.
     * - ALREADY_EXISTS (ERROR_REASON_OPERATOR_ALREADY_EXISTS): an operator has (or had) this name, or it is `admin`, the bootstrap admin's.
     * </pre>
     */
    public void createOperator(dev.kxm.v1.CreateOperatorRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.CreateOperatorResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateOperatorMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListOperators lists the named operators by name, revoked ones too; never their tokens.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * </pre>
     */
    public void listOperators(dev.kxm.v1.ListOperatorsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListOperatorsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListOperatorsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * RevokeOperator revokes a named operator's token; it stops working at once. Revoking a revoked operator changes nothing.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_OPERATOR_NOT_FOUND): no named operator has this name (the bootstrap admin is not one: change its token instead).
     * </pre>
     */
    public void revokeOperator(dev.kxm.v1.RevokeOperatorRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RevokeOperatorResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRevokeOperatorMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListAuditRecords lists the audit records, newest first, optionally of one operator and/or one action.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token, malformed operator or action.
     * </pre>
     */
    public void listAuditRecords(dev.kxm.v1.ListAuditRecordsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListAuditRecordsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListAuditRecordsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * MintSessionToken issues a hub-signed session token (`kxm.session-token.v1`) for one agent of a project, with a tool policy.
     * The token is shown once; the hub keeps its facts, never the token. From then until it expires or is revoked, every
     * agent of the project with that agent's name must present a session token of its own (`x-kxm-session-token`) on each
     * call of an RPC with a tool name, and the token's policy decides which tools it may call (docs/tool-policy.md). The
     * project is the one the call names (`x-kxm-project`), else `project`.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names; agent_id is empty or malformed; ttl is below 1 minute or above 30 days; the tool policy names an unknown preset or has a malformed or surplus entry.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * - NOT_FOUND (ERROR_REASON_AGENT_NOT_FOUND): no agent of the project has this id.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_SESSION_TOKEN_LIMIT_REACHED): agents of that name already hold 16 active session tokens.
     * </pre>
     */
    public void mintSessionToken(dev.kxm.v1.MintSessionTokenRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.MintSessionTokenResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getMintSessionTokenMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * RevokeSessionToken revokes a session token; it stops being accepted at once on this hub and within a second on every replica. Revoking a revoked one changes nothing.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names; session_id is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * - NOT_FOUND (ERROR_REASON_SESSION_TOKEN_NOT_FOUND): no session token of the project has this id (another project's reads as none).
     * </pre>
     */
    public void revokeSessionToken(dev.kxm.v1.RevokeSessionTokenRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RevokeSessionTokenResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRevokeSessionTokenMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListSessionTokens lists a project's session tokens, newest first, revoked and expired ones too; never the tokens.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names; a bad page size.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or of another query.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    public void listSessionTokens(dev.kxm.v1.ListSessionTokensRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListSessionTokensResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListSessionTokensMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service AdminService.
   * <pre>
   * AdminService manages projects, their tokens, agents' session tokens and the hub's operators, and reads the audit.
   * Project management and session tokens need an operator: the bootstrap admin (the admin token) or a
   * named operator (a `kxm_op_…` token from CreateOperator). Managing operators and reading the audit
   * need the bootstrap admin. Every mutating call is attributed to the operator who made it, in the log and in
   * an audit record written in the transaction of the change.
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
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
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
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
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
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    public dev.kxm.v1.RotateProjectTokenResponse rotateProjectToken(dev.kxm.v1.RotateProjectTokenRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRotateProjectTokenMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * CreateOperator creates a named operator and issues its token (`kxm_op_…`, shown once).
     * Names are never reused: a revoked operator keeps its name, so the audit names one person.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token (a named operator cannot manage operators).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty, too long or has other characters.
     * - ALREADY_EXISTS (ERROR_REASON_OPERATOR_ALREADY_EXISTS): an operator has (or had) this name, or it is `admin`, the bootstrap admin's.
     * </pre>
     */
    public dev.kxm.v1.CreateOperatorResponse createOperator(dev.kxm.v1.CreateOperatorRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCreateOperatorMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListOperators lists the named operators by name, revoked ones too; never their tokens.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * </pre>
     */
    public dev.kxm.v1.ListOperatorsResponse listOperators(dev.kxm.v1.ListOperatorsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListOperatorsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RevokeOperator revokes a named operator's token; it stops working at once. Revoking a revoked operator changes nothing.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_OPERATOR_NOT_FOUND): no named operator has this name (the bootstrap admin is not one: change its token instead).
     * </pre>
     */
    public dev.kxm.v1.RevokeOperatorResponse revokeOperator(dev.kxm.v1.RevokeOperatorRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRevokeOperatorMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListAuditRecords lists the audit records, newest first, optionally of one operator and/or one action.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token, malformed operator or action.
     * </pre>
     */
    public dev.kxm.v1.ListAuditRecordsResponse listAuditRecords(dev.kxm.v1.ListAuditRecordsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListAuditRecordsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * MintSessionToken issues a hub-signed session token (`kxm.session-token.v1`) for one agent of a project, with a tool policy.
     * The token is shown once; the hub keeps its facts, never the token. From then until it expires or is revoked, every
     * agent of the project with that agent's name must present a session token of its own (`x-kxm-session-token`) on each
     * call of an RPC with a tool name, and the token's policy decides which tools it may call (docs/tool-policy.md). The
     * project is the one the call names (`x-kxm-project`), else `project`.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names; agent_id is empty or malformed; ttl is below 1 minute or above 30 days; the tool policy names an unknown preset or has a malformed or surplus entry.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * - NOT_FOUND (ERROR_REASON_AGENT_NOT_FOUND): no agent of the project has this id.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_SESSION_TOKEN_LIMIT_REACHED): agents of that name already hold 16 active session tokens.
     * </pre>
     */
    public dev.kxm.v1.MintSessionTokenResponse mintSessionToken(dev.kxm.v1.MintSessionTokenRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getMintSessionTokenMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RevokeSessionToken revokes a session token; it stops being accepted at once on this hub and within a second on every replica. Revoking a revoked one changes nothing.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names; session_id is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * - NOT_FOUND (ERROR_REASON_SESSION_TOKEN_NOT_FOUND): no session token of the project has this id (another project's reads as none).
     * </pre>
     */
    public dev.kxm.v1.RevokeSessionTokenResponse revokeSessionToken(dev.kxm.v1.RevokeSessionTokenRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRevokeSessionTokenMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListSessionTokens lists a project's session tokens, newest first, revoked and expired ones too; never the tokens.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names; a bad page size.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or of another query.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    public dev.kxm.v1.ListSessionTokensResponse listSessionTokens(dev.kxm.v1.ListSessionTokensRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListSessionTokensMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service AdminService.
   * <pre>
   * AdminService manages projects, their tokens, agents' session tokens and the hub's operators, and reads the audit.
   * Project management and session tokens need an operator: the bootstrap admin (the admin token) or a
   * named operator (a `kxm_op_…` token from CreateOperator). Managing operators and reading the audit
   * need the bootstrap admin. Every mutating call is attributed to the operator who made it, in the log and in
   * an audit record written in the transaction of the change.
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
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
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
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
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
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    public dev.kxm.v1.RotateProjectTokenResponse rotateProjectToken(dev.kxm.v1.RotateProjectTokenRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRotateProjectTokenMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * CreateOperator creates a named operator and issues its token (`kxm_op_…`, shown once).
     * Names are never reused: a revoked operator keeps its name, so the audit names one person.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token (a named operator cannot manage operators).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty, too long or has other characters.
     * - ALREADY_EXISTS (ERROR_REASON_OPERATOR_ALREADY_EXISTS): an operator has (or had) this name, or it is `admin`, the bootstrap admin's.
     * </pre>
     */
    public dev.kxm.v1.CreateOperatorResponse createOperator(dev.kxm.v1.CreateOperatorRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateOperatorMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListOperators lists the named operators by name, revoked ones too; never their tokens.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * </pre>
     */
    public dev.kxm.v1.ListOperatorsResponse listOperators(dev.kxm.v1.ListOperatorsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListOperatorsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RevokeOperator revokes a named operator's token; it stops working at once. Revoking a revoked operator changes nothing.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_OPERATOR_NOT_FOUND): no named operator has this name (the bootstrap admin is not one: change its token instead).
     * </pre>
     */
    public dev.kxm.v1.RevokeOperatorResponse revokeOperator(dev.kxm.v1.RevokeOperatorRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRevokeOperatorMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListAuditRecords lists the audit records, newest first, optionally of one operator and/or one action.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token, malformed operator or action.
     * </pre>
     */
    public dev.kxm.v1.ListAuditRecordsResponse listAuditRecords(dev.kxm.v1.ListAuditRecordsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListAuditRecordsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * MintSessionToken issues a hub-signed session token (`kxm.session-token.v1`) for one agent of a project, with a tool policy.
     * The token is shown once; the hub keeps its facts, never the token. From then until it expires or is revoked, every
     * agent of the project with that agent's name must present a session token of its own (`x-kxm-session-token`) on each
     * call of an RPC with a tool name, and the token's policy decides which tools it may call (docs/tool-policy.md). The
     * project is the one the call names (`x-kxm-project`), else `project`.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names; agent_id is empty or malformed; ttl is below 1 minute or above 30 days; the tool policy names an unknown preset or has a malformed or surplus entry.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * - NOT_FOUND (ERROR_REASON_AGENT_NOT_FOUND): no agent of the project has this id.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_SESSION_TOKEN_LIMIT_REACHED): agents of that name already hold 16 active session tokens.
     * </pre>
     */
    public dev.kxm.v1.MintSessionTokenResponse mintSessionToken(dev.kxm.v1.MintSessionTokenRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getMintSessionTokenMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RevokeSessionToken revokes a session token; it stops being accepted at once on this hub and within a second on every replica. Revoking a revoked one changes nothing.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names; session_id is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * - NOT_FOUND (ERROR_REASON_SESSION_TOKEN_NOT_FOUND): no session token of the project has this id (another project's reads as none).
     * </pre>
     */
    public dev.kxm.v1.RevokeSessionTokenResponse revokeSessionToken(dev.kxm.v1.RevokeSessionTokenRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRevokeSessionTokenMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListSessionTokens lists a project's session tokens, newest first, revoked and expired ones too; never the tokens.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names; a bad page size.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or of another query.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    public dev.kxm.v1.ListSessionTokensResponse listSessionTokens(dev.kxm.v1.ListSessionTokensRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListSessionTokensMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service AdminService.
   * <pre>
   * AdminService manages projects, their tokens, agents' session tokens and the hub's operators, and reads the audit.
   * Project management and session tokens need an operator: the bootstrap admin (the admin token) or a
   * named operator (a `kxm_op_…` token from CreateOperator). Managing operators and reading the audit
   * need the bootstrap admin. Every mutating call is attributed to the operator who made it, in the log and in
   * an audit record written in the transaction of the change.
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
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
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
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
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
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RotateProjectTokenResponse> rotateProjectToken(
        dev.kxm.v1.RotateProjectTokenRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRotateProjectTokenMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * CreateOperator creates a named operator and issues its token (`kxm_op_…`, shown once).
     * Names are never reused: a revoked operator keeps its name, so the audit names one person.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token (a named operator cannot manage operators).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty, too long or has other characters.
     * - ALREADY_EXISTS (ERROR_REASON_OPERATOR_ALREADY_EXISTS): an operator has (or had) this name, or it is `admin`, the bootstrap admin's.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.CreateOperatorResponse> createOperator(
        dev.kxm.v1.CreateOperatorRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateOperatorMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListOperators lists the named operators by name, revoked ones too; never their tokens.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListOperatorsResponse> listOperators(
        dev.kxm.v1.ListOperatorsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListOperatorsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * RevokeOperator revokes a named operator's token; it stops working at once. Revoking a revoked operator changes nothing.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_OPERATOR_NOT_FOUND): no named operator has this name (the bootstrap admin is not one: change its token instead).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RevokeOperatorResponse> revokeOperator(
        dev.kxm.v1.RevokeOperatorRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRevokeOperatorMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListAuditRecords lists the audit records, newest first, optionally of one operator and/or one action.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not the admin token.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token, malformed operator or action.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListAuditRecordsResponse> listAuditRecords(
        dev.kxm.v1.ListAuditRecordsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListAuditRecordsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * MintSessionToken issues a hub-signed session token (`kxm.session-token.v1`) for one agent of a project, with a tool policy.
     * The token is shown once; the hub keeps its facts, never the token. From then until it expires or is revoked, every
     * agent of the project with that agent's name must present a session token of its own (`x-kxm-session-token`) on each
     * call of an RPC with a tool name, and the token's policy decides which tools it may call (docs/tool-policy.md). The
     * project is the one the call names (`x-kxm-project`), else `project`.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names; agent_id is empty or malformed; ttl is below 1 minute or above 30 days; the tool policy names an unknown preset or has a malformed or surplus entry.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * - NOT_FOUND (ERROR_REASON_AGENT_NOT_FOUND): no agent of the project has this id.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_SESSION_TOKEN_LIMIT_REACHED): agents of that name already hold 16 active session tokens.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.MintSessionTokenResponse> mintSessionToken(
        dev.kxm.v1.MintSessionTokenRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getMintSessionTokenMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * RevokeSessionToken revokes a session token; it stops being accepted at once on this hub and within a second on every replica. Revoking a revoked one changes nothing.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names; session_id is empty or malformed.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * - NOT_FOUND (ERROR_REASON_SESSION_TOKEN_NOT_FOUND): no session token of the project has this id (another project's reads as none).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RevokeSessionTokenResponse> revokeSessionToken(
        dev.kxm.v1.RevokeSessionTokenRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRevokeSessionTokenMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListSessionTokens lists a project's session tokens, newest first, revoked and expired ones too; never the tokens.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not an operator's (the admin token or a named operator's).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the project is missing, malformed or not the one the call names; a bad page size.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or of another query.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): no project has this name.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListSessionTokensResponse> listSessionTokens(
        dev.kxm.v1.ListSessionTokensRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListSessionTokensMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_CREATE_PROJECT = 0;
  private static final int METHODID_LIST_PROJECTS = 1;
  private static final int METHODID_ROTATE_PROJECT_TOKEN = 2;
  private static final int METHODID_CREATE_OPERATOR = 3;
  private static final int METHODID_LIST_OPERATORS = 4;
  private static final int METHODID_REVOKE_OPERATOR = 5;
  private static final int METHODID_LIST_AUDIT_RECORDS = 6;
  private static final int METHODID_MINT_SESSION_TOKEN = 7;
  private static final int METHODID_REVOKE_SESSION_TOKEN = 8;
  private static final int METHODID_LIST_SESSION_TOKENS = 9;

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
        case METHODID_CREATE_OPERATOR:
          serviceImpl.createOperator((dev.kxm.v1.CreateOperatorRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.CreateOperatorResponse>) responseObserver);
          break;
        case METHODID_LIST_OPERATORS:
          serviceImpl.listOperators((dev.kxm.v1.ListOperatorsRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListOperatorsResponse>) responseObserver);
          break;
        case METHODID_REVOKE_OPERATOR:
          serviceImpl.revokeOperator((dev.kxm.v1.RevokeOperatorRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.RevokeOperatorResponse>) responseObserver);
          break;
        case METHODID_LIST_AUDIT_RECORDS:
          serviceImpl.listAuditRecords((dev.kxm.v1.ListAuditRecordsRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListAuditRecordsResponse>) responseObserver);
          break;
        case METHODID_MINT_SESSION_TOKEN:
          serviceImpl.mintSessionToken((dev.kxm.v1.MintSessionTokenRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.MintSessionTokenResponse>) responseObserver);
          break;
        case METHODID_REVOKE_SESSION_TOKEN:
          serviceImpl.revokeSessionToken((dev.kxm.v1.RevokeSessionTokenRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.RevokeSessionTokenResponse>) responseObserver);
          break;
        case METHODID_LIST_SESSION_TOKENS:
          serviceImpl.listSessionTokens((dev.kxm.v1.ListSessionTokensRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListSessionTokensResponse>) responseObserver);
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
        .addMethod(
          getCreateOperatorMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.CreateOperatorRequest,
              dev.kxm.v1.CreateOperatorResponse>(
                service, METHODID_CREATE_OPERATOR)))
        .addMethod(
          getListOperatorsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListOperatorsRequest,
              dev.kxm.v1.ListOperatorsResponse>(
                service, METHODID_LIST_OPERATORS)))
        .addMethod(
          getRevokeOperatorMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.RevokeOperatorRequest,
              dev.kxm.v1.RevokeOperatorResponse>(
                service, METHODID_REVOKE_OPERATOR)))
        .addMethod(
          getListAuditRecordsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListAuditRecordsRequest,
              dev.kxm.v1.ListAuditRecordsResponse>(
                service, METHODID_LIST_AUDIT_RECORDS)))
        .addMethod(
          getMintSessionTokenMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.MintSessionTokenRequest,
              dev.kxm.v1.MintSessionTokenResponse>(
                service, METHODID_MINT_SESSION_TOKEN)))
        .addMethod(
          getRevokeSessionTokenMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.RevokeSessionTokenRequest,
              dev.kxm.v1.RevokeSessionTokenResponse>(
                service, METHODID_REVOKE_SESSION_TOKEN)))
        .addMethod(
          getListSessionTokensMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListSessionTokensRequest,
              dev.kxm.v1.ListSessionTokensResponse>(
                service, METHODID_LIST_SESSION_TOKENS)))
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
              .addMethod(getCreateOperatorMethod())
              .addMethod(getListOperatorsMethod())
              .addMethod(getRevokeOperatorMethod())
              .addMethod(getListAuditRecordsMethod())
              .addMethod(getMintSessionTokenMethod())
              .addMethod(getRevokeSessionTokenMethod())
              .addMethod(getListSessionTokensMethod())
              .build();
        }
      }
    }
    return result;
  }
}
