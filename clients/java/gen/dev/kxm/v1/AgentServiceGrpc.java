package dev.kxm.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * AgentService registers agents, reports their presence and carries each agent's channel.
 * RegisterAgent needs a project token (`authorization: Bearer &lt;project token&gt;`); the project is the
 * token's. Heartbeat and UnregisterAgent need the project token plus the agent's identity
 * (`x-kxm-agent-id` and `x-kxm-agent-key` metadata). GetCallerIdentity admits any valid credential.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class AgentServiceGrpc {

  private AgentServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "kxm.v1.AgentService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.RegisterAgentRequest,
      dev.kxm.v1.RegisterAgentResponse> getRegisterAgentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RegisterAgent",
      requestType = dev.kxm.v1.RegisterAgentRequest.class,
      responseType = dev.kxm.v1.RegisterAgentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.RegisterAgentRequest,
      dev.kxm.v1.RegisterAgentResponse> getRegisterAgentMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.RegisterAgentRequest, dev.kxm.v1.RegisterAgentResponse> getRegisterAgentMethod;
    if ((getRegisterAgentMethod = AgentServiceGrpc.getRegisterAgentMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getRegisterAgentMethod = AgentServiceGrpc.getRegisterAgentMethod) == null) {
          AgentServiceGrpc.getRegisterAgentMethod = getRegisterAgentMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.RegisterAgentRequest, dev.kxm.v1.RegisterAgentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RegisterAgent"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RegisterAgentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RegisterAgentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("RegisterAgent"))
              .build();
        }
      }
    }
    return getRegisterAgentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.HeartbeatRequest,
      dev.kxm.v1.HeartbeatResponse> getHeartbeatMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Heartbeat",
      requestType = dev.kxm.v1.HeartbeatRequest.class,
      responseType = dev.kxm.v1.HeartbeatResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.HeartbeatRequest,
      dev.kxm.v1.HeartbeatResponse> getHeartbeatMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.HeartbeatRequest, dev.kxm.v1.HeartbeatResponse> getHeartbeatMethod;
    if ((getHeartbeatMethod = AgentServiceGrpc.getHeartbeatMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getHeartbeatMethod = AgentServiceGrpc.getHeartbeatMethod) == null) {
          AgentServiceGrpc.getHeartbeatMethod = getHeartbeatMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.HeartbeatRequest, dev.kxm.v1.HeartbeatResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Heartbeat"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.HeartbeatRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.HeartbeatResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("Heartbeat"))
              .build();
        }
      }
    }
    return getHeartbeatMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.UnregisterAgentRequest,
      dev.kxm.v1.UnregisterAgentResponse> getUnregisterAgentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "UnregisterAgent",
      requestType = dev.kxm.v1.UnregisterAgentRequest.class,
      responseType = dev.kxm.v1.UnregisterAgentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.UnregisterAgentRequest,
      dev.kxm.v1.UnregisterAgentResponse> getUnregisterAgentMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.UnregisterAgentRequest, dev.kxm.v1.UnregisterAgentResponse> getUnregisterAgentMethod;
    if ((getUnregisterAgentMethod = AgentServiceGrpc.getUnregisterAgentMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getUnregisterAgentMethod = AgentServiceGrpc.getUnregisterAgentMethod) == null) {
          AgentServiceGrpc.getUnregisterAgentMethod = getUnregisterAgentMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.UnregisterAgentRequest, dev.kxm.v1.UnregisterAgentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "UnregisterAgent"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.UnregisterAgentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.UnregisterAgentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("UnregisterAgent"))
              .build();
        }
      }
    }
    return getUnregisterAgentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListAgentsRequest,
      dev.kxm.v1.ListAgentsResponse> getListAgentsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListAgents",
      requestType = dev.kxm.v1.ListAgentsRequest.class,
      responseType = dev.kxm.v1.ListAgentsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListAgentsRequest,
      dev.kxm.v1.ListAgentsResponse> getListAgentsMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListAgentsRequest, dev.kxm.v1.ListAgentsResponse> getListAgentsMethod;
    if ((getListAgentsMethod = AgentServiceGrpc.getListAgentsMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getListAgentsMethod = AgentServiceGrpc.getListAgentsMethod) == null) {
          AgentServiceGrpc.getListAgentsMethod = getListAgentsMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListAgentsRequest, dev.kxm.v1.ListAgentsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListAgents"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListAgentsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListAgentsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ListAgents"))
              .build();
        }
      }
    }
    return getListAgentsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.GetCallerIdentityRequest,
      dev.kxm.v1.GetCallerIdentityResponse> getGetCallerIdentityMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetCallerIdentity",
      requestType = dev.kxm.v1.GetCallerIdentityRequest.class,
      responseType = dev.kxm.v1.GetCallerIdentityResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.GetCallerIdentityRequest,
      dev.kxm.v1.GetCallerIdentityResponse> getGetCallerIdentityMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.GetCallerIdentityRequest, dev.kxm.v1.GetCallerIdentityResponse> getGetCallerIdentityMethod;
    if ((getGetCallerIdentityMethod = AgentServiceGrpc.getGetCallerIdentityMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getGetCallerIdentityMethod = AgentServiceGrpc.getGetCallerIdentityMethod) == null) {
          AgentServiceGrpc.getGetCallerIdentityMethod = getGetCallerIdentityMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.GetCallerIdentityRequest, dev.kxm.v1.GetCallerIdentityResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetCallerIdentity"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetCallerIdentityRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetCallerIdentityResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("GetCallerIdentity"))
              .build();
        }
      }
    }
    return getGetCallerIdentityMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.OpenChannelRequest,
      dev.kxm.v1.OpenChannelResponse> getOpenChannelMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "OpenChannel",
      requestType = dev.kxm.v1.OpenChannelRequest.class,
      responseType = dev.kxm.v1.OpenChannelResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.OpenChannelRequest,
      dev.kxm.v1.OpenChannelResponse> getOpenChannelMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.OpenChannelRequest, dev.kxm.v1.OpenChannelResponse> getOpenChannelMethod;
    if ((getOpenChannelMethod = AgentServiceGrpc.getOpenChannelMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getOpenChannelMethod = AgentServiceGrpc.getOpenChannelMethod) == null) {
          AgentServiceGrpc.getOpenChannelMethod = getOpenChannelMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.OpenChannelRequest, dev.kxm.v1.OpenChannelResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "OpenChannel"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.OpenChannelRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.OpenChannelResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("OpenChannel"))
              .build();
        }
      }
    }
    return getOpenChannelMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static AgentServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AgentServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AgentServiceStub>() {
        @java.lang.Override
        public AgentServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AgentServiceStub(channel, callOptions);
        }
      };
    return AgentServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static AgentServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AgentServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AgentServiceBlockingV2Stub>() {
        @java.lang.Override
        public AgentServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AgentServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return AgentServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static AgentServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AgentServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AgentServiceBlockingStub>() {
        @java.lang.Override
        public AgentServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AgentServiceBlockingStub(channel, callOptions);
        }
      };
    return AgentServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static AgentServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AgentServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AgentServiceFutureStub>() {
        @java.lang.Override
        public AgentServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AgentServiceFutureStub(channel, callOptions);
        }
      };
    return AgentServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * AgentService registers agents, reports their presence and carries each agent's channel.
   * RegisterAgent needs a project token (`authorization: Bearer &lt;project token&gt;`); the project is the
   * token's. Heartbeat and UnregisterAgent need the project token plus the agent's identity
   * (`x-kxm-agent-id` and `x-kxm-agent-key` metadata). GetCallerIdentity admits any valid credential.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * RegisterAgent registers a new agent, or resumes the offline agent that had this name, and issues
     * a fresh agent key; any previous key of that agent stops working at once.
     * Resuming a name needs proof of being that agent: its last key in `previous_key` while that key is
     * active (which also lets a crashed agent take its still-online name back), or an operator's token
     * (the admin token or a named operator's) as the bearer with `x-kxm-project`. A key revoked by
     * UnregisterAgent proves nothing: registering an unregistered agent's name without an operator's
     * token creates a fresh agent (new id, empty inbox, no leases, `resumed` false) and retires the
     * unregistered one. A registration by an operator is audited (AdminService.ListAuditRecords).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a project token, nor an operator's naming the project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name, purpose, model or host is empty or too long.
     * - ALREADY_EXISTS (ERROR_REASON_DUPLICATE_AGENT_NAME): a live agent of the project has this name.
     * - PERMISSION_DENIED (ERROR_REASON_AGENT_RECLAIM_FORBIDDEN): the name belongs to an offline agent whose key is still active and no proof of it was given.
     * </pre>
     */
    default void registerAgent(dev.kxm.v1.RegisterAgentRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RegisterAgentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRegisterAgentMethod(), responseObserver);
    }

    /**
     * <pre>
     * Heartbeat renews the calling agent's presence lease.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * </pre>
     */
    default void heartbeat(dev.kxm.v1.HeartbeatRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.HeartbeatResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getHeartbeatMethod(), responseObserver);
    }

    /**
     * <pre>
     * UnregisterAgent marks the calling agent offline and revokes its key for good: only an operator can
     * resume the agent afterwards, and a later registration of its name by anyone else is a fresh agent.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * </pre>
     */
    default void unregisterAgent(dev.kxm.v1.UnregisterAgentRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.UnregisterAgentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getUnregisterAgentMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListAgents lists the agents of the caller's project, online and stale ones by default.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a project token, nor an operator's naming the project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void listAgents(dev.kxm.v1.ListAgentsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListAgentsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListAgentsMethod(), responseObserver);
    }

    /**
     * <pre>
     * GetCallerIdentity tells the caller who its credentials make it: the credential's kind, the
     * project it admits, and the agent or runtime it identifies.
     * It reports only what the presented credentials establish (never another project), and writes
     * nothing but the presence renewal every agent call makes. Clients use it to file saved agent keys
     * under the project a token belongs to.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): `x-kxm-project` names another project than the credential's.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): an operator's token names, with `x-kxm-project`, a project that does not exist.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void getCallerIdentity(dev.kxm.v1.GetCallerIdentityRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetCallerIdentityResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetCallerIdentityMethod(), responseObserver);
    }

    /**
     * <pre>
     * OpenChannel is one bidirectional stream on which an agent does its messaging: it sends commands
     * (send, reply, ack, cancel, wait, get), each with a command id, and receives each command's result
     * and, once it asks with `subscribe`, its inbox events exactly as Subscribe streams them.
     * Each command is admitted as its unary twin (MessageService.SendMessage for `send`, and so on) with
     * the channel's credentials and tokens: the same rules, rate limit, tool policy and errors, and a
     * failed command is answered with its error (ChannelError) while the channel stays open. Commands
     * are applied in the order they arrive; a wait (and the wait of a send with `wait`) runs beside the
     * commands that follow it. A command id repeated on this or a later channel of the agent is applied
     * once: the hub answers it with its first result (`replayed`), and a send without an idempotency key
     * is keyed by its command id, so a replay after a hub restart is still applied once. The first
     * response carries `ready`. The hub stops reading while `max_in_flight` commands are unanswered
     * (gRPC flow control then holds the client back). Inbox events follow Subscribe's rules: resume with
     * `subscribe.after_seq`; a channel whose reader falls more than the hub's subscriber queue behind ends
     * with RESOURCE_EXHAUSTED (ERROR_REASON_SUBSCRIBER_TOO_SLOW).
     * Errors (ending the channel):
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials, also when the agent's key is revoked while the channel is open.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a request carries more than 100 commands, a second `subscribe`, or is not a valid OpenChannelRequest.
     * - PERMISSION_DENIED (ERROR_REASON_PRESENCE_STREAM_FORBIDDEN): `subscribe.presence_only` asked for by a non-`tui` agent.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_STREAM_LIMIT_REACHED, ERROR_REASON_SUBSCRIBER_TOO_SLOW, ERROR_REASON_RATE_LIMITED): as for Subscribe, or the channel's opening was rate limited.
     * - UNAVAILABLE (ERROR_REASON_SHUTTING_DOWN): the hub is stopping; open a new channel and replay the unanswered commands.
     * </pre>
     */
    default io.grpc.stub.StreamObserver<dev.kxm.v1.OpenChannelRequest> openChannel(
        io.grpc.stub.StreamObserver<dev.kxm.v1.OpenChannelResponse> responseObserver) {
      return io.grpc.stub.ServerCalls.asyncUnimplementedStreamingCall(getOpenChannelMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service AgentService.
   * <pre>
   * AgentService registers agents, reports their presence and carries each agent's channel.
   * RegisterAgent needs a project token (`authorization: Bearer &lt;project token&gt;`); the project is the
   * token's. Heartbeat and UnregisterAgent need the project token plus the agent's identity
   * (`x-kxm-agent-id` and `x-kxm-agent-key` metadata). GetCallerIdentity admits any valid credential.
   * </pre>
   */
  public static abstract class AgentServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return AgentServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service AgentService.
   * <pre>
   * AgentService registers agents, reports their presence and carries each agent's channel.
   * RegisterAgent needs a project token (`authorization: Bearer &lt;project token&gt;`); the project is the
   * token's. Heartbeat and UnregisterAgent need the project token plus the agent's identity
   * (`x-kxm-agent-id` and `x-kxm-agent-key` metadata). GetCallerIdentity admits any valid credential.
   * </pre>
   */
  public static final class AgentServiceStub
      extends io.grpc.stub.AbstractAsyncStub<AgentServiceStub> {
    private AgentServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AgentServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AgentServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * RegisterAgent registers a new agent, or resumes the offline agent that had this name, and issues
     * a fresh agent key; any previous key of that agent stops working at once.
     * Resuming a name needs proof of being that agent: its last key in `previous_key` while that key is
     * active (which also lets a crashed agent take its still-online name back), or an operator's token
     * (the admin token or a named operator's) as the bearer with `x-kxm-project`. A key revoked by
     * UnregisterAgent proves nothing: registering an unregistered agent's name without an operator's
     * token creates a fresh agent (new id, empty inbox, no leases, `resumed` false) and retires the
     * unregistered one. A registration by an operator is audited (AdminService.ListAuditRecords).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a project token, nor an operator's naming the project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name, purpose, model or host is empty or too long.
     * - ALREADY_EXISTS (ERROR_REASON_DUPLICATE_AGENT_NAME): a live agent of the project has this name.
     * - PERMISSION_DENIED (ERROR_REASON_AGENT_RECLAIM_FORBIDDEN): the name belongs to an offline agent whose key is still active and no proof of it was given.
     * </pre>
     */
    public void registerAgent(dev.kxm.v1.RegisterAgentRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RegisterAgentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRegisterAgentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Heartbeat renews the calling agent's presence lease.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * </pre>
     */
    public void heartbeat(dev.kxm.v1.HeartbeatRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.HeartbeatResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getHeartbeatMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * UnregisterAgent marks the calling agent offline and revokes its key for good: only an operator can
     * resume the agent afterwards, and a later registration of its name by anyone else is a fresh agent.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * </pre>
     */
    public void unregisterAgent(dev.kxm.v1.UnregisterAgentRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.UnregisterAgentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getUnregisterAgentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListAgents lists the agents of the caller's project, online and stale ones by default.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a project token, nor an operator's naming the project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void listAgents(dev.kxm.v1.ListAgentsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListAgentsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListAgentsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * GetCallerIdentity tells the caller who its credentials make it: the credential's kind, the
     * project it admits, and the agent or runtime it identifies.
     * It reports only what the presented credentials establish (never another project), and writes
     * nothing but the presence renewal every agent call makes. Clients use it to file saved agent keys
     * under the project a token belongs to.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): `x-kxm-project` names another project than the credential's.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): an operator's token names, with `x-kxm-project`, a project that does not exist.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void getCallerIdentity(dev.kxm.v1.GetCallerIdentityRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetCallerIdentityResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetCallerIdentityMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * OpenChannel is one bidirectional stream on which an agent does its messaging: it sends commands
     * (send, reply, ack, cancel, wait, get), each with a command id, and receives each command's result
     * and, once it asks with `subscribe`, its inbox events exactly as Subscribe streams them.
     * Each command is admitted as its unary twin (MessageService.SendMessage for `send`, and so on) with
     * the channel's credentials and tokens: the same rules, rate limit, tool policy and errors, and a
     * failed command is answered with its error (ChannelError) while the channel stays open. Commands
     * are applied in the order they arrive; a wait (and the wait of a send with `wait`) runs beside the
     * commands that follow it. A command id repeated on this or a later channel of the agent is applied
     * once: the hub answers it with its first result (`replayed`), and a send without an idempotency key
     * is keyed by its command id, so a replay after a hub restart is still applied once. The first
     * response carries `ready`. The hub stops reading while `max_in_flight` commands are unanswered
     * (gRPC flow control then holds the client back). Inbox events follow Subscribe's rules: resume with
     * `subscribe.after_seq`; a channel whose reader falls more than the hub's subscriber queue behind ends
     * with RESOURCE_EXHAUSTED (ERROR_REASON_SUBSCRIBER_TOO_SLOW).
     * Errors (ending the channel):
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials, also when the agent's key is revoked while the channel is open.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a request carries more than 100 commands, a second `subscribe`, or is not a valid OpenChannelRequest.
     * - PERMISSION_DENIED (ERROR_REASON_PRESENCE_STREAM_FORBIDDEN): `subscribe.presence_only` asked for by a non-`tui` agent.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_STREAM_LIMIT_REACHED, ERROR_REASON_SUBSCRIBER_TOO_SLOW, ERROR_REASON_RATE_LIMITED): as for Subscribe, or the channel's opening was rate limited.
     * - UNAVAILABLE (ERROR_REASON_SHUTTING_DOWN): the hub is stopping; open a new channel and replay the unanswered commands.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<dev.kxm.v1.OpenChannelRequest> openChannel(
        io.grpc.stub.StreamObserver<dev.kxm.v1.OpenChannelResponse> responseObserver) {
      return io.grpc.stub.ClientCalls.asyncBidiStreamingCall(
          getChannel().newCall(getOpenChannelMethod(), getCallOptions()), responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service AgentService.
   * <pre>
   * AgentService registers agents, reports their presence and carries each agent's channel.
   * RegisterAgent needs a project token (`authorization: Bearer &lt;project token&gt;`); the project is the
   * token's. Heartbeat and UnregisterAgent need the project token plus the agent's identity
   * (`x-kxm-agent-id` and `x-kxm-agent-key` metadata). GetCallerIdentity admits any valid credential.
   * </pre>
   */
  public static final class AgentServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<AgentServiceBlockingV2Stub> {
    private AgentServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AgentServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AgentServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * RegisterAgent registers a new agent, or resumes the offline agent that had this name, and issues
     * a fresh agent key; any previous key of that agent stops working at once.
     * Resuming a name needs proof of being that agent: its last key in `previous_key` while that key is
     * active (which also lets a crashed agent take its still-online name back), or an operator's token
     * (the admin token or a named operator's) as the bearer with `x-kxm-project`. A key revoked by
     * UnregisterAgent proves nothing: registering an unregistered agent's name without an operator's
     * token creates a fresh agent (new id, empty inbox, no leases, `resumed` false) and retires the
     * unregistered one. A registration by an operator is audited (AdminService.ListAuditRecords).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a project token, nor an operator's naming the project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name, purpose, model or host is empty or too long.
     * - ALREADY_EXISTS (ERROR_REASON_DUPLICATE_AGENT_NAME): a live agent of the project has this name.
     * - PERMISSION_DENIED (ERROR_REASON_AGENT_RECLAIM_FORBIDDEN): the name belongs to an offline agent whose key is still active and no proof of it was given.
     * </pre>
     */
    public dev.kxm.v1.RegisterAgentResponse registerAgent(dev.kxm.v1.RegisterAgentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRegisterAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Heartbeat renews the calling agent's presence lease.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * </pre>
     */
    public dev.kxm.v1.HeartbeatResponse heartbeat(dev.kxm.v1.HeartbeatRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getHeartbeatMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * UnregisterAgent marks the calling agent offline and revokes its key for good: only an operator can
     * resume the agent afterwards, and a later registration of its name by anyone else is a fresh agent.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * </pre>
     */
    public dev.kxm.v1.UnregisterAgentResponse unregisterAgent(dev.kxm.v1.UnregisterAgentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getUnregisterAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListAgents lists the agents of the caller's project, online and stale ones by default.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a project token, nor an operator's naming the project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.ListAgentsResponse listAgents(dev.kxm.v1.ListAgentsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListAgentsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetCallerIdentity tells the caller who its credentials make it: the credential's kind, the
     * project it admits, and the agent or runtime it identifies.
     * It reports only what the presented credentials establish (never another project), and writes
     * nothing but the presence renewal every agent call makes. Clients use it to file saved agent keys
     * under the project a token belongs to.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): `x-kxm-project` names another project than the credential's.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): an operator's token names, with `x-kxm-project`, a project that does not exist.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.GetCallerIdentityResponse getCallerIdentity(dev.kxm.v1.GetCallerIdentityRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetCallerIdentityMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * OpenChannel is one bidirectional stream on which an agent does its messaging: it sends commands
     * (send, reply, ack, cancel, wait, get), each with a command id, and receives each command's result
     * and, once it asks with `subscribe`, its inbox events exactly as Subscribe streams them.
     * Each command is admitted as its unary twin (MessageService.SendMessage for `send`, and so on) with
     * the channel's credentials and tokens: the same rules, rate limit, tool policy and errors, and a
     * failed command is answered with its error (ChannelError) while the channel stays open. Commands
     * are applied in the order they arrive; a wait (and the wait of a send with `wait`) runs beside the
     * commands that follow it. A command id repeated on this or a later channel of the agent is applied
     * once: the hub answers it with its first result (`replayed`), and a send without an idempotency key
     * is keyed by its command id, so a replay after a hub restart is still applied once. The first
     * response carries `ready`. The hub stops reading while `max_in_flight` commands are unanswered
     * (gRPC flow control then holds the client back). Inbox events follow Subscribe's rules: resume with
     * `subscribe.after_seq`; a channel whose reader falls more than the hub's subscriber queue behind ends
     * with RESOURCE_EXHAUSTED (ERROR_REASON_SUBSCRIBER_TOO_SLOW).
     * Errors (ending the channel):
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials, also when the agent's key is revoked while the channel is open.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a request carries more than 100 commands, a second `subscribe`, or is not a valid OpenChannelRequest.
     * - PERMISSION_DENIED (ERROR_REASON_PRESENCE_STREAM_FORBIDDEN): `subscribe.presence_only` asked for by a non-`tui` agent.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_STREAM_LIMIT_REACHED, ERROR_REASON_SUBSCRIBER_TOO_SLOW, ERROR_REASON_RATE_LIMITED): as for Subscribe, or the channel's opening was rate limited.
     * - UNAVAILABLE (ERROR_REASON_SHUTTING_DOWN): the hub is stopping; open a new channel and replay the unanswered commands.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<dev.kxm.v1.OpenChannelRequest, dev.kxm.v1.OpenChannelResponse>
        openChannel() {
      return io.grpc.stub.ClientCalls.blockingBidiStreamingCall(
          getChannel(), getOpenChannelMethod(), getCallOptions());
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service AgentService.
   * <pre>
   * AgentService registers agents, reports their presence and carries each agent's channel.
   * RegisterAgent needs a project token (`authorization: Bearer &lt;project token&gt;`); the project is the
   * token's. Heartbeat and UnregisterAgent need the project token plus the agent's identity
   * (`x-kxm-agent-id` and `x-kxm-agent-key` metadata). GetCallerIdentity admits any valid credential.
   * </pre>
   */
  public static final class AgentServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<AgentServiceBlockingStub> {
    private AgentServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AgentServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AgentServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * RegisterAgent registers a new agent, or resumes the offline agent that had this name, and issues
     * a fresh agent key; any previous key of that agent stops working at once.
     * Resuming a name needs proof of being that agent: its last key in `previous_key` while that key is
     * active (which also lets a crashed agent take its still-online name back), or an operator's token
     * (the admin token or a named operator's) as the bearer with `x-kxm-project`. A key revoked by
     * UnregisterAgent proves nothing: registering an unregistered agent's name without an operator's
     * token creates a fresh agent (new id, empty inbox, no leases, `resumed` false) and retires the
     * unregistered one. A registration by an operator is audited (AdminService.ListAuditRecords).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a project token, nor an operator's naming the project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name, purpose, model or host is empty or too long.
     * - ALREADY_EXISTS (ERROR_REASON_DUPLICATE_AGENT_NAME): a live agent of the project has this name.
     * - PERMISSION_DENIED (ERROR_REASON_AGENT_RECLAIM_FORBIDDEN): the name belongs to an offline agent whose key is still active and no proof of it was given.
     * </pre>
     */
    public dev.kxm.v1.RegisterAgentResponse registerAgent(dev.kxm.v1.RegisterAgentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRegisterAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Heartbeat renews the calling agent's presence lease.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * </pre>
     */
    public dev.kxm.v1.HeartbeatResponse heartbeat(dev.kxm.v1.HeartbeatRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getHeartbeatMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * UnregisterAgent marks the calling agent offline and revokes its key for good: only an operator can
     * resume the agent afterwards, and a later registration of its name by anyone else is a fresh agent.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * </pre>
     */
    public dev.kxm.v1.UnregisterAgentResponse unregisterAgent(dev.kxm.v1.UnregisterAgentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getUnregisterAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListAgents lists the agents of the caller's project, online and stale ones by default.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a project token, nor an operator's naming the project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.ListAgentsResponse listAgents(dev.kxm.v1.ListAgentsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListAgentsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetCallerIdentity tells the caller who its credentials make it: the credential's kind, the
     * project it admits, and the agent or runtime it identifies.
     * It reports only what the presented credentials establish (never another project), and writes
     * nothing but the presence renewal every agent call makes. Clients use it to file saved agent keys
     * under the project a token belongs to.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): `x-kxm-project` names another project than the credential's.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): an operator's token names, with `x-kxm-project`, a project that does not exist.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.GetCallerIdentityResponse getCallerIdentity(dev.kxm.v1.GetCallerIdentityRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetCallerIdentityMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service AgentService.
   * <pre>
   * AgentService registers agents, reports their presence and carries each agent's channel.
   * RegisterAgent needs a project token (`authorization: Bearer &lt;project token&gt;`); the project is the
   * token's. Heartbeat and UnregisterAgent need the project token plus the agent's identity
   * (`x-kxm-agent-id` and `x-kxm-agent-key` metadata). GetCallerIdentity admits any valid credential.
   * </pre>
   */
  public static final class AgentServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<AgentServiceFutureStub> {
    private AgentServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AgentServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AgentServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * RegisterAgent registers a new agent, or resumes the offline agent that had this name, and issues
     * a fresh agent key; any previous key of that agent stops working at once.
     * Resuming a name needs proof of being that agent: its last key in `previous_key` while that key is
     * active (which also lets a crashed agent take its still-online name back), or an operator's token
     * (the admin token or a named operator's) as the bearer with `x-kxm-project`. A key revoked by
     * UnregisterAgent proves nothing: registering an unregistered agent's name without an operator's
     * token creates a fresh agent (new id, empty inbox, no leases, `resumed` false) and retires the
     * unregistered one. A registration by an operator is audited (AdminService.ListAuditRecords).
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH): no or an unknown bearer token.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a project token, nor an operator's naming the project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): name, purpose, model or host is empty or too long.
     * - ALREADY_EXISTS (ERROR_REASON_DUPLICATE_AGENT_NAME): a live agent of the project has this name.
     * - PERMISSION_DENIED (ERROR_REASON_AGENT_RECLAIM_FORBIDDEN): the name belongs to an offline agent whose key is still active and no proof of it was given.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RegisterAgentResponse> registerAgent(
        dev.kxm.v1.RegisterAgentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRegisterAgentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Heartbeat renews the calling agent's presence lease.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.HeartbeatResponse> heartbeat(
        dev.kxm.v1.HeartbeatRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getHeartbeatMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * UnregisterAgent marks the calling agent offline and revokes its key for good: only an operator can
     * resume the agent afterwards, and a later registration of its name by anyone else is a fresh agent.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.UnregisterAgentResponse> unregisterAgent(
        dev.kxm.v1.UnregisterAgentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getUnregisterAgentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListAgents lists the agents of the caller's project, online and stale ones by default.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the bearer is not a project token, nor an operator's naming the project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListAgentsResponse> listAgents(
        dev.kxm.v1.ListAgentsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListAgentsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * GetCallerIdentity tells the caller who its credentials make it: the credential's kind, the
     * project it admits, and the agent or runtime it identifies.
     * It reports only what the presented credentials establish (never another project), and writes
     * nothing but the presence renewal every agent call makes. Clients use it to file saved agent keys
     * under the project a token belongs to.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): `x-kxm-project` names another project than the credential's.
     * - NOT_FOUND (ERROR_REASON_PROJECT_NOT_FOUND): an operator's token names, with `x-kxm-project`, a project that does not exist.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.GetCallerIdentityResponse> getCallerIdentity(
        dev.kxm.v1.GetCallerIdentityRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetCallerIdentityMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_REGISTER_AGENT = 0;
  private static final int METHODID_HEARTBEAT = 1;
  private static final int METHODID_UNREGISTER_AGENT = 2;
  private static final int METHODID_LIST_AGENTS = 3;
  private static final int METHODID_GET_CALLER_IDENTITY = 4;
  private static final int METHODID_OPEN_CHANNEL = 5;

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
        case METHODID_REGISTER_AGENT:
          serviceImpl.registerAgent((dev.kxm.v1.RegisterAgentRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.RegisterAgentResponse>) responseObserver);
          break;
        case METHODID_HEARTBEAT:
          serviceImpl.heartbeat((dev.kxm.v1.HeartbeatRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.HeartbeatResponse>) responseObserver);
          break;
        case METHODID_UNREGISTER_AGENT:
          serviceImpl.unregisterAgent((dev.kxm.v1.UnregisterAgentRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.UnregisterAgentResponse>) responseObserver);
          break;
        case METHODID_LIST_AGENTS:
          serviceImpl.listAgents((dev.kxm.v1.ListAgentsRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListAgentsResponse>) responseObserver);
          break;
        case METHODID_GET_CALLER_IDENTITY:
          serviceImpl.getCallerIdentity((dev.kxm.v1.GetCallerIdentityRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.GetCallerIdentityResponse>) responseObserver);
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
        case METHODID_OPEN_CHANNEL:
          return (io.grpc.stub.StreamObserver<Req>) serviceImpl.openChannel(
              (io.grpc.stub.StreamObserver<dev.kxm.v1.OpenChannelResponse>) responseObserver);
        default:
          throw new AssertionError();
      }
    }
  }

  public static final io.grpc.ServerServiceDefinition bindService(AsyncService service) {
    return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
        .addMethod(
          getRegisterAgentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.RegisterAgentRequest,
              dev.kxm.v1.RegisterAgentResponse>(
                service, METHODID_REGISTER_AGENT)))
        .addMethod(
          getHeartbeatMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.HeartbeatRequest,
              dev.kxm.v1.HeartbeatResponse>(
                service, METHODID_HEARTBEAT)))
        .addMethod(
          getUnregisterAgentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.UnregisterAgentRequest,
              dev.kxm.v1.UnregisterAgentResponse>(
                service, METHODID_UNREGISTER_AGENT)))
        .addMethod(
          getListAgentsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListAgentsRequest,
              dev.kxm.v1.ListAgentsResponse>(
                service, METHODID_LIST_AGENTS)))
        .addMethod(
          getGetCallerIdentityMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.GetCallerIdentityRequest,
              dev.kxm.v1.GetCallerIdentityResponse>(
                service, METHODID_GET_CALLER_IDENTITY)))
        .addMethod(
          getOpenChannelMethod(),
          io.grpc.stub.ServerCalls.asyncBidiStreamingCall(
            new MethodHandlers<
              dev.kxm.v1.OpenChannelRequest,
              dev.kxm.v1.OpenChannelResponse>(
                service, METHODID_OPEN_CHANNEL)))
        .build();
  }

  private static abstract class AgentServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    AgentServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.kxm.v1.AgentServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("AgentService");
    }
  }

  private static final class AgentServiceFileDescriptorSupplier
      extends AgentServiceBaseDescriptorSupplier {
    AgentServiceFileDescriptorSupplier() {}
  }

  private static final class AgentServiceMethodDescriptorSupplier
      extends AgentServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    AgentServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (AgentServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new AgentServiceFileDescriptorSupplier())
              .addMethod(getRegisterAgentMethod())
              .addMethod(getHeartbeatMethod())
              .addMethod(getUnregisterAgentMethod())
              .addMethod(getListAgentsMethod())
              .addMethod(getGetCallerIdentityMethod())
              .addMethod(getOpenChannelMethod())
              .build();
        }
      }
    }
    return result;
  }
}
