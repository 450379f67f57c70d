package dev.kxm.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * MessageService carries peer requests between agents of one project and streams each agent's inbox.
 * Every RPC needs the project token plus the calling agent's identity (`x-kxm-agent-id`,
 * `x-kxm-agent-key`). Delivery is at least once until the recipient acknowledges a message.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class MessageServiceGrpc {

  private MessageServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "kxm.v1.MessageService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.SendMessageRequest,
      dev.kxm.v1.SendMessageResponse> getSendMessageMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SendMessage",
      requestType = dev.kxm.v1.SendMessageRequest.class,
      responseType = dev.kxm.v1.SendMessageResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.SendMessageRequest,
      dev.kxm.v1.SendMessageResponse> getSendMessageMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.SendMessageRequest, dev.kxm.v1.SendMessageResponse> getSendMessageMethod;
    if ((getSendMessageMethod = MessageServiceGrpc.getSendMessageMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getSendMessageMethod = MessageServiceGrpc.getSendMessageMethod) == null) {
          MessageServiceGrpc.getSendMessageMethod = getSendMessageMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.SendMessageRequest, dev.kxm.v1.SendMessageResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SendMessage"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.SendMessageRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.SendMessageResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("SendMessage"))
              .build();
        }
      }
    }
    return getSendMessageMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.GetMessageRequest,
      dev.kxm.v1.GetMessageResponse> getGetMessageMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetMessage",
      requestType = dev.kxm.v1.GetMessageRequest.class,
      responseType = dev.kxm.v1.GetMessageResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.GetMessageRequest,
      dev.kxm.v1.GetMessageResponse> getGetMessageMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.GetMessageRequest, dev.kxm.v1.GetMessageResponse> getGetMessageMethod;
    if ((getGetMessageMethod = MessageServiceGrpc.getGetMessageMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getGetMessageMethod = MessageServiceGrpc.getGetMessageMethod) == null) {
          MessageServiceGrpc.getGetMessageMethod = getGetMessageMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.GetMessageRequest, dev.kxm.v1.GetMessageResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetMessage"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetMessageRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetMessageResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("GetMessage"))
              .build();
        }
      }
    }
    return getGetMessageMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.CancelMessageRequest,
      dev.kxm.v1.CancelMessageResponse> getCancelMessageMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CancelMessage",
      requestType = dev.kxm.v1.CancelMessageRequest.class,
      responseType = dev.kxm.v1.CancelMessageResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.CancelMessageRequest,
      dev.kxm.v1.CancelMessageResponse> getCancelMessageMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.CancelMessageRequest, dev.kxm.v1.CancelMessageResponse> getCancelMessageMethod;
    if ((getCancelMessageMethod = MessageServiceGrpc.getCancelMessageMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getCancelMessageMethod = MessageServiceGrpc.getCancelMessageMethod) == null) {
          MessageServiceGrpc.getCancelMessageMethod = getCancelMessageMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.CancelMessageRequest, dev.kxm.v1.CancelMessageResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CancelMessage"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.CancelMessageRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.CancelMessageResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("CancelMessage"))
              .build();
        }
      }
    }
    return getCancelMessageMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ReplyToMessageRequest,
      dev.kxm.v1.ReplyToMessageResponse> getReplyToMessageMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReplyToMessage",
      requestType = dev.kxm.v1.ReplyToMessageRequest.class,
      responseType = dev.kxm.v1.ReplyToMessageResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ReplyToMessageRequest,
      dev.kxm.v1.ReplyToMessageResponse> getReplyToMessageMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ReplyToMessageRequest, dev.kxm.v1.ReplyToMessageResponse> getReplyToMessageMethod;
    if ((getReplyToMessageMethod = MessageServiceGrpc.getReplyToMessageMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getReplyToMessageMethod = MessageServiceGrpc.getReplyToMessageMethod) == null) {
          MessageServiceGrpc.getReplyToMessageMethod = getReplyToMessageMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ReplyToMessageRequest, dev.kxm.v1.ReplyToMessageResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReplyToMessage"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ReplyToMessageRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ReplyToMessageResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("ReplyToMessage"))
              .build();
        }
      }
    }
    return getReplyToMessageMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.AckMessagesRequest,
      dev.kxm.v1.AckMessagesResponse> getAckMessagesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AckMessages",
      requestType = dev.kxm.v1.AckMessagesRequest.class,
      responseType = dev.kxm.v1.AckMessagesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.AckMessagesRequest,
      dev.kxm.v1.AckMessagesResponse> getAckMessagesMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.AckMessagesRequest, dev.kxm.v1.AckMessagesResponse> getAckMessagesMethod;
    if ((getAckMessagesMethod = MessageServiceGrpc.getAckMessagesMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getAckMessagesMethod = MessageServiceGrpc.getAckMessagesMethod) == null) {
          MessageServiceGrpc.getAckMessagesMethod = getAckMessagesMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.AckMessagesRequest, dev.kxm.v1.AckMessagesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AckMessages"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.AckMessagesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.AckMessagesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("AckMessages"))
              .build();
        }
      }
    }
    return getAckMessagesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListInboxRequest,
      dev.kxm.v1.ListInboxResponse> getListInboxMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListInbox",
      requestType = dev.kxm.v1.ListInboxRequest.class,
      responseType = dev.kxm.v1.ListInboxResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListInboxRequest,
      dev.kxm.v1.ListInboxResponse> getListInboxMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListInboxRequest, dev.kxm.v1.ListInboxResponse> getListInboxMethod;
    if ((getListInboxMethod = MessageServiceGrpc.getListInboxMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getListInboxMethod = MessageServiceGrpc.getListInboxMethod) == null) {
          MessageServiceGrpc.getListInboxMethod = getListInboxMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListInboxRequest, dev.kxm.v1.ListInboxResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListInbox"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListInboxRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListInboxResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("ListInbox"))
              .build();
        }
      }
    }
    return getListInboxMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.WaitMessageRequest,
      dev.kxm.v1.WaitMessageResponse> getWaitMessageMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "WaitMessage",
      requestType = dev.kxm.v1.WaitMessageRequest.class,
      responseType = dev.kxm.v1.WaitMessageResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.WaitMessageRequest,
      dev.kxm.v1.WaitMessageResponse> getWaitMessageMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.WaitMessageRequest, dev.kxm.v1.WaitMessageResponse> getWaitMessageMethod;
    if ((getWaitMessageMethod = MessageServiceGrpc.getWaitMessageMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getWaitMessageMethod = MessageServiceGrpc.getWaitMessageMethod) == null) {
          MessageServiceGrpc.getWaitMessageMethod = getWaitMessageMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.WaitMessageRequest, dev.kxm.v1.WaitMessageResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "WaitMessage"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.WaitMessageRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.WaitMessageResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("WaitMessage"))
              .build();
        }
      }
    }
    return getWaitMessageMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.FanoutMessagesRequest,
      dev.kxm.v1.FanoutMessagesResponse> getFanoutMessagesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "FanoutMessages",
      requestType = dev.kxm.v1.FanoutMessagesRequest.class,
      responseType = dev.kxm.v1.FanoutMessagesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.FanoutMessagesRequest,
      dev.kxm.v1.FanoutMessagesResponse> getFanoutMessagesMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.FanoutMessagesRequest, dev.kxm.v1.FanoutMessagesResponse> getFanoutMessagesMethod;
    if ((getFanoutMessagesMethod = MessageServiceGrpc.getFanoutMessagesMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getFanoutMessagesMethod = MessageServiceGrpc.getFanoutMessagesMethod) == null) {
          MessageServiceGrpc.getFanoutMessagesMethod = getFanoutMessagesMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.FanoutMessagesRequest, dev.kxm.v1.FanoutMessagesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "FanoutMessages"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.FanoutMessagesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.FanoutMessagesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("FanoutMessages"))
              .build();
        }
      }
    }
    return getFanoutMessagesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.SubscribeRequest,
      dev.kxm.v1.SubscribeResponse> getSubscribeMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Subscribe",
      requestType = dev.kxm.v1.SubscribeRequest.class,
      responseType = dev.kxm.v1.SubscribeResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.SubscribeRequest,
      dev.kxm.v1.SubscribeResponse> getSubscribeMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.SubscribeRequest, dev.kxm.v1.SubscribeResponse> getSubscribeMethod;
    if ((getSubscribeMethod = MessageServiceGrpc.getSubscribeMethod) == null) {
      synchronized (MessageServiceGrpc.class) {
        if ((getSubscribeMethod = MessageServiceGrpc.getSubscribeMethod) == null) {
          MessageServiceGrpc.getSubscribeMethod = getSubscribeMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.SubscribeRequest, dev.kxm.v1.SubscribeResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Subscribe"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.SubscribeRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.SubscribeResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MessageServiceMethodDescriptorSupplier("Subscribe"))
              .build();
        }
      }
    }
    return getSubscribeMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static MessageServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<MessageServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<MessageServiceStub>() {
        @java.lang.Override
        public MessageServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new MessageServiceStub(channel, callOptions);
        }
      };
    return MessageServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static MessageServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<MessageServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<MessageServiceBlockingV2Stub>() {
        @java.lang.Override
        public MessageServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new MessageServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return MessageServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static MessageServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<MessageServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<MessageServiceBlockingStub>() {
        @java.lang.Override
        public MessageServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new MessageServiceBlockingStub(channel, callOptions);
        }
      };
    return MessageServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static MessageServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<MessageServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<MessageServiceFutureStub>() {
        @java.lang.Override
        public MessageServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new MessageServiceFutureStub(channel, callOptions);
        }
      };
    return MessageServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * MessageService carries peer requests between agents of one project and streams each agent's inbox.
   * Every RPC needs the project token plus the calling agent's identity (`x-kxm-agent-id`,
   * `x-kxm-agent-key`). Delivery is at least once until the recipient acknowledges a message.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * SendMessage queues a request for another agent of the caller's project.
     * An exact repeat of an earlier send with the same idempotency key returns the original message with
     * `repeated` set and stores nothing new.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a field is empty, too long or out of range, or wait and
     *   its deprecated name reply_wait are both set to different values.
     * - INVALID_ARGUMENT (ERROR_REASON_SELF_TARGET): the target is the sender.
     * - INVALID_ARGUMENT (ERROR_REASON_HOP_LIMIT_REACHED): hops &gt;= max_hops.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_CONTEXT): the workflow context is malformed.
     * - NOT_FOUND (ERROR_REASON_TARGET_NOT_FOUND): no such live agent (or registered agent, with allow_offline).
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_CONTEXT_FORBIDDEN, ERROR_REASON_WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN):
     *   with a workflow context, the run is not the sender's to coordinate (or not in its project), or the target
     *   is not eligible for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_INACTIVE, ERROR_REASON_WORKFLOW_CONTEXT_ATTEMPT_MISMATCH):
     *   with a workflow context, the run's stage is not active, or the attempt is not its active one.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING): with a workflow context, the stage has no
     *   peer policy for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_CORRELATION_MISMATCH): with a workflow context,
     *   correlation_id names another run.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): the key was used for a different request (any field,
     *   allow_offline and the TTL included); checked before the target is resolved.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    default void sendMessage(dev.kxm.v1.SendMessageRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.SendMessageResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSendMessageMethod(), responseObserver);
    }

    /**
     * <pre>
     * GetMessage reads a message the caller sent or received.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id is empty or too long.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message in the caller's project, or it was purged.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is neither sender nor recipient.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void getMessage(dev.kxm.v1.GetMessageRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetMessageResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetMessageMethod(), responseObserver);
    }

    /**
     * <pre>
     * CancelMessage cancels a queued or delivered message the caller sent; cancelling again returns it unchanged.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id is empty or too long.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is not the sender.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_MESSAGE_STATE): the message was replied to or expired.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void cancelMessage(dev.kxm.v1.CancelMessageRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.CancelMessageResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCancelMessageMethod(), responseObserver);
    }

    /**
     * <pre>
     * ReplyToMessage records the recipient's one reply to a queued or delivered message. Repeating the
     * reply the message was replied with (a retry after a lost answer) returns the replied message unchanged.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id or content is empty or too long.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is not the recipient.
     * - FAILED_PRECONDITION (ERROR_REASON_DUPLICATE_REPLY): the message already has another reply.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_MESSAGE_STATE): the message was cancelled or expired.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void replyToMessage(dev.kxm.v1.ReplyToMessageRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ReplyToMessageResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReplyToMessageMethod(), responseObserver);
    }

    /**
     * <pre>
     * AckMessages acknowledges received messages, each on its own: an acknowledged message is never
     * redelivered on a stream. Acknowledging twice is a no-op, also after the message ended. Either every
     * id is acknowledged or none is.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no ids, more than 100, or an empty or too long id.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): an id names no message.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is not the recipient of an id.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_MESSAGE_STATE): a message already ended without being acknowledged.
     * </pre>
     */
    default void ackMessages(dev.kxm.v1.AckMessagesRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.AckMessagesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAckMessagesMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListInbox lists the caller's received messages that are not terminal yet, oldest first.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void listInbox(dev.kxm.v1.ListInboxRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListInboxResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListInboxMethod(), responseObserver);
    }

    /**
     * <pre>
     * WaitMessage waits until a message the caller can see is terminal, or until the wait ends
     * (default and maximum 60 s, never beyond the call's deadline); a wait that ends returns the current state.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id is empty, wait is negative, or wait and its
     *   deprecated name timeout are both set to different values.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message in the caller's project, or it was purged.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is neither sender nor recipient.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void waitMessage(dev.kxm.v1.WaitMessageRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.WaitMessageResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getWaitMessageMethod(), responseObserver);
    }

    /**
     * <pre>
     * FanoutMessages sends the same request to one to three agents and gathers their replies until a deadline.
     * Each target gets its own result: terminal with the reply, pending with its message id, or an error
     * for that target alone (TARGET_NOT_FOUND, SELF_TARGET, IDEMPOTENCY_CONFLICT). An exact retry with the
     * same idempotency prefix resolves to the same messages. Every message is sent with DELIVERY_FOLLOW_UP.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): not one to three distinct targets, a bad field, or wait
     *   and its deprecated name timeout both set to different values.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_CONTEXT): the workflow context is malformed.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_CONTEXT_FORBIDDEN, ERROR_REASON_WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN):
     *   with a workflow context, the run is not the sender's to coordinate (or not in its project), or the target
     *   is not eligible for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_INACTIVE, ERROR_REASON_WORKFLOW_CONTEXT_ATTEMPT_MISMATCH):
     *   with a workflow context, the run's stage is not active, or the attempt is not its active one.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING): with a workflow context, the stage has no
     *   peer policy for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_CORRELATION_MISMATCH): with a workflow context,
     *   correlation_id names another run.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    default void fanoutMessages(dev.kxm.v1.FanoutMessagesRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.FanoutMessagesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getFanoutMessagesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Subscribe streams the caller's inbox events: first a ready event, then the replay of what the caller
     * has not acknowledged, then live events, each with its durable per-agent sequence number.
     * The stream ends with UNAVAILABLE (ERROR_REASON_SHUTTING_DOWN) when the hub stops, and with
     * RESOURCE_EXHAUSTED (ERROR_REASON_SUBSCRIBER_TOO_SLOW) when more events than the hub's subscriber
     * queue arrive while the consumer does not read; in both cases resubscribe with the last sequence
     * seen and nothing is lost. Several streams of one agent each receive every event.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - PERMISSION_DENIED (ERROR_REASON_PRESENCE_STREAM_FORBIDDEN): presence_only asked for by a non-`tui` agent.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_STREAM_LIMIT_REACHED): the agent has too many open streams.
     * </pre>
     */
    default void subscribe(dev.kxm.v1.SubscribeRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.SubscribeResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSubscribeMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service MessageService.
   * <pre>
   * MessageService carries peer requests between agents of one project and streams each agent's inbox.
   * Every RPC needs the project token plus the calling agent's identity (`x-kxm-agent-id`,
   * `x-kxm-agent-key`). Delivery is at least once until the recipient acknowledges a message.
   * </pre>
   */
  public static abstract class MessageServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return MessageServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service MessageService.
   * <pre>
   * MessageService carries peer requests between agents of one project and streams each agent's inbox.
   * Every RPC needs the project token plus the calling agent's identity (`x-kxm-agent-id`,
   * `x-kxm-agent-key`). Delivery is at least once until the recipient acknowledges a message.
   * </pre>
   */
  public static final class MessageServiceStub
      extends io.grpc.stub.AbstractAsyncStub<MessageServiceStub> {
    private MessageServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected MessageServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new MessageServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * SendMessage queues a request for another agent of the caller's project.
     * An exact repeat of an earlier send with the same idempotency key returns the original message with
     * `repeated` set and stores nothing new.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a field is empty, too long or out of range, or wait and
     *   its deprecated name reply_wait are both set to different values.
     * - INVALID_ARGUMENT (ERROR_REASON_SELF_TARGET): the target is the sender.
     * - INVALID_ARGUMENT (ERROR_REASON_HOP_LIMIT_REACHED): hops &gt;= max_hops.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_CONTEXT): the workflow context is malformed.
     * - NOT_FOUND (ERROR_REASON_TARGET_NOT_FOUND): no such live agent (or registered agent, with allow_offline).
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_CONTEXT_FORBIDDEN, ERROR_REASON_WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN):
     *   with a workflow context, the run is not the sender's to coordinate (or not in its project), or the target
     *   is not eligible for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_INACTIVE, ERROR_REASON_WORKFLOW_CONTEXT_ATTEMPT_MISMATCH):
     *   with a workflow context, the run's stage is not active, or the attempt is not its active one.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING): with a workflow context, the stage has no
     *   peer policy for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_CORRELATION_MISMATCH): with a workflow context,
     *   correlation_id names another run.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): the key was used for a different request (any field,
     *   allow_offline and the TTL included); checked before the target is resolved.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public void sendMessage(dev.kxm.v1.SendMessageRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.SendMessageResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSendMessageMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * GetMessage reads a message the caller sent or received.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id is empty or too long.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message in the caller's project, or it was purged.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is neither sender nor recipient.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void getMessage(dev.kxm.v1.GetMessageRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetMessageResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetMessageMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * CancelMessage cancels a queued or delivered message the caller sent; cancelling again returns it unchanged.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id is empty or too long.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is not the sender.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_MESSAGE_STATE): the message was replied to or expired.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void cancelMessage(dev.kxm.v1.CancelMessageRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.CancelMessageResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCancelMessageMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ReplyToMessage records the recipient's one reply to a queued or delivered message. Repeating the
     * reply the message was replied with (a retry after a lost answer) returns the replied message unchanged.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id or content is empty or too long.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is not the recipient.
     * - FAILED_PRECONDITION (ERROR_REASON_DUPLICATE_REPLY): the message already has another reply.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_MESSAGE_STATE): the message was cancelled or expired.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void replyToMessage(dev.kxm.v1.ReplyToMessageRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ReplyToMessageResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReplyToMessageMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * AckMessages acknowledges received messages, each on its own: an acknowledged message is never
     * redelivered on a stream. Acknowledging twice is a no-op, also after the message ended. Either every
     * id is acknowledged or none is.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no ids, more than 100, or an empty or too long id.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): an id names no message.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is not the recipient of an id.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_MESSAGE_STATE): a message already ended without being acknowledged.
     * </pre>
     */
    public void ackMessages(dev.kxm.v1.AckMessagesRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.AckMessagesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAckMessagesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListInbox lists the caller's received messages that are not terminal yet, oldest first.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void listInbox(dev.kxm.v1.ListInboxRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListInboxResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListInboxMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * WaitMessage waits until a message the caller can see is terminal, or until the wait ends
     * (default and maximum 60 s, never beyond the call's deadline); a wait that ends returns the current state.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id is empty, wait is negative, or wait and its
     *   deprecated name timeout are both set to different values.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message in the caller's project, or it was purged.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is neither sender nor recipient.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void waitMessage(dev.kxm.v1.WaitMessageRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.WaitMessageResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getWaitMessageMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * FanoutMessages sends the same request to one to three agents and gathers their replies until a deadline.
     * Each target gets its own result: terminal with the reply, pending with its message id, or an error
     * for that target alone (TARGET_NOT_FOUND, SELF_TARGET, IDEMPOTENCY_CONFLICT). An exact retry with the
     * same idempotency prefix resolves to the same messages. Every message is sent with DELIVERY_FOLLOW_UP.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): not one to three distinct targets, a bad field, or wait
     *   and its deprecated name timeout both set to different values.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_CONTEXT): the workflow context is malformed.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_CONTEXT_FORBIDDEN, ERROR_REASON_WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN):
     *   with a workflow context, the run is not the sender's to coordinate (or not in its project), or the target
     *   is not eligible for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_INACTIVE, ERROR_REASON_WORKFLOW_CONTEXT_ATTEMPT_MISMATCH):
     *   with a workflow context, the run's stage is not active, or the attempt is not its active one.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING): with a workflow context, the stage has no
     *   peer policy for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_CORRELATION_MISMATCH): with a workflow context,
     *   correlation_id names another run.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public void fanoutMessages(dev.kxm.v1.FanoutMessagesRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.FanoutMessagesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getFanoutMessagesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Subscribe streams the caller's inbox events: first a ready event, then the replay of what the caller
     * has not acknowledged, then live events, each with its durable per-agent sequence number.
     * The stream ends with UNAVAILABLE (ERROR_REASON_SHUTTING_DOWN) when the hub stops, and with
     * RESOURCE_EXHAUSTED (ERROR_REASON_SUBSCRIBER_TOO_SLOW) when more events than the hub's subscriber
     * queue arrive while the consumer does not read; in both cases resubscribe with the last sequence
     * seen and nothing is lost. Several streams of one agent each receive every event.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - PERMISSION_DENIED (ERROR_REASON_PRESENCE_STREAM_FORBIDDEN): presence_only asked for by a non-`tui` agent.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_STREAM_LIMIT_REACHED): the agent has too many open streams.
     * </pre>
     */
    public void subscribe(dev.kxm.v1.SubscribeRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.SubscribeResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getSubscribeMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service MessageService.
   * <pre>
   * MessageService carries peer requests between agents of one project and streams each agent's inbox.
   * Every RPC needs the project token plus the calling agent's identity (`x-kxm-agent-id`,
   * `x-kxm-agent-key`). Delivery is at least once until the recipient acknowledges a message.
   * </pre>
   */
  public static final class MessageServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<MessageServiceBlockingV2Stub> {
    private MessageServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected MessageServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new MessageServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * SendMessage queues a request for another agent of the caller's project.
     * An exact repeat of an earlier send with the same idempotency key returns the original message with
     * `repeated` set and stores nothing new.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a field is empty, too long or out of range, or wait and
     *   its deprecated name reply_wait are both set to different values.
     * - INVALID_ARGUMENT (ERROR_REASON_SELF_TARGET): the target is the sender.
     * - INVALID_ARGUMENT (ERROR_REASON_HOP_LIMIT_REACHED): hops &gt;= max_hops.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_CONTEXT): the workflow context is malformed.
     * - NOT_FOUND (ERROR_REASON_TARGET_NOT_FOUND): no such live agent (or registered agent, with allow_offline).
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_CONTEXT_FORBIDDEN, ERROR_REASON_WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN):
     *   with a workflow context, the run is not the sender's to coordinate (or not in its project), or the target
     *   is not eligible for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_INACTIVE, ERROR_REASON_WORKFLOW_CONTEXT_ATTEMPT_MISMATCH):
     *   with a workflow context, the run's stage is not active, or the attempt is not its active one.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING): with a workflow context, the stage has no
     *   peer policy for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_CORRELATION_MISMATCH): with a workflow context,
     *   correlation_id names another run.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): the key was used for a different request (any field,
     *   allow_offline and the TTL included); checked before the target is resolved.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.SendMessageResponse sendMessage(dev.kxm.v1.SendMessageRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSendMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetMessage reads a message the caller sent or received.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id is empty or too long.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message in the caller's project, or it was purged.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is neither sender nor recipient.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.GetMessageResponse getMessage(dev.kxm.v1.GetMessageRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * CancelMessage cancels a queued or delivered message the caller sent; cancelling again returns it unchanged.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id is empty or too long.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is not the sender.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_MESSAGE_STATE): the message was replied to or expired.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.CancelMessageResponse cancelMessage(dev.kxm.v1.CancelMessageRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCancelMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ReplyToMessage records the recipient's one reply to a queued or delivered message. Repeating the
     * reply the message was replied with (a retry after a lost answer) returns the replied message unchanged.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id or content is empty or too long.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is not the recipient.
     * - FAILED_PRECONDITION (ERROR_REASON_DUPLICATE_REPLY): the message already has another reply.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_MESSAGE_STATE): the message was cancelled or expired.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.ReplyToMessageResponse replyToMessage(dev.kxm.v1.ReplyToMessageRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getReplyToMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * AckMessages acknowledges received messages, each on its own: an acknowledged message is never
     * redelivered on a stream. Acknowledging twice is a no-op, also after the message ended. Either every
     * id is acknowledged or none is.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no ids, more than 100, or an empty or too long id.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): an id names no message.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is not the recipient of an id.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_MESSAGE_STATE): a message already ended without being acknowledged.
     * </pre>
     */
    public dev.kxm.v1.AckMessagesResponse ackMessages(dev.kxm.v1.AckMessagesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getAckMessagesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListInbox lists the caller's received messages that are not terminal yet, oldest first.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.ListInboxResponse listInbox(dev.kxm.v1.ListInboxRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListInboxMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * WaitMessage waits until a message the caller can see is terminal, or until the wait ends
     * (default and maximum 60 s, never beyond the call's deadline); a wait that ends returns the current state.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id is empty, wait is negative, or wait and its
     *   deprecated name timeout are both set to different values.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message in the caller's project, or it was purged.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is neither sender nor recipient.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.WaitMessageResponse waitMessage(dev.kxm.v1.WaitMessageRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getWaitMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * FanoutMessages sends the same request to one to three agents and gathers their replies until a deadline.
     * Each target gets its own result: terminal with the reply, pending with its message id, or an error
     * for that target alone (TARGET_NOT_FOUND, SELF_TARGET, IDEMPOTENCY_CONFLICT). An exact retry with the
     * same idempotency prefix resolves to the same messages. Every message is sent with DELIVERY_FOLLOW_UP.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): not one to three distinct targets, a bad field, or wait
     *   and its deprecated name timeout both set to different values.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_CONTEXT): the workflow context is malformed.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_CONTEXT_FORBIDDEN, ERROR_REASON_WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN):
     *   with a workflow context, the run is not the sender's to coordinate (or not in its project), or the target
     *   is not eligible for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_INACTIVE, ERROR_REASON_WORKFLOW_CONTEXT_ATTEMPT_MISMATCH):
     *   with a workflow context, the run's stage is not active, or the attempt is not its active one.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING): with a workflow context, the stage has no
     *   peer policy for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_CORRELATION_MISMATCH): with a workflow context,
     *   correlation_id names another run.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.FanoutMessagesResponse fanoutMessages(dev.kxm.v1.FanoutMessagesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getFanoutMessagesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Subscribe streams the caller's inbox events: first a ready event, then the replay of what the caller
     * has not acknowledged, then live events, each with its durable per-agent sequence number.
     * The stream ends with UNAVAILABLE (ERROR_REASON_SHUTTING_DOWN) when the hub stops, and with
     * RESOURCE_EXHAUSTED (ERROR_REASON_SUBSCRIBER_TOO_SLOW) when more events than the hub's subscriber
     * queue arrive while the consumer does not read; in both cases resubscribe with the last sequence
     * seen and nothing is lost. Several streams of one agent each receive every event.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - PERMISSION_DENIED (ERROR_REASON_PRESENCE_STREAM_FORBIDDEN): presence_only asked for by a non-`tui` agent.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_STREAM_LIMIT_REACHED): the agent has too many open streams.
     * </pre>
     */
    @io.grpc.ExperimentalApi("https://github.com/grpc/grpc-java/issues/10918")
    public io.grpc.stub.BlockingClientCall<?, dev.kxm.v1.SubscribeResponse>
        subscribe(dev.kxm.v1.SubscribeRequest request) {
      return io.grpc.stub.ClientCalls.blockingV2ServerStreamingCall(
          getChannel(), getSubscribeMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service MessageService.
   * <pre>
   * MessageService carries peer requests between agents of one project and streams each agent's inbox.
   * Every RPC needs the project token plus the calling agent's identity (`x-kxm-agent-id`,
   * `x-kxm-agent-key`). Delivery is at least once until the recipient acknowledges a message.
   * </pre>
   */
  public static final class MessageServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<MessageServiceBlockingStub> {
    private MessageServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected MessageServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new MessageServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * SendMessage queues a request for another agent of the caller's project.
     * An exact repeat of an earlier send with the same idempotency key returns the original message with
     * `repeated` set and stores nothing new.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a field is empty, too long or out of range, or wait and
     *   its deprecated name reply_wait are both set to different values.
     * - INVALID_ARGUMENT (ERROR_REASON_SELF_TARGET): the target is the sender.
     * - INVALID_ARGUMENT (ERROR_REASON_HOP_LIMIT_REACHED): hops &gt;= max_hops.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_CONTEXT): the workflow context is malformed.
     * - NOT_FOUND (ERROR_REASON_TARGET_NOT_FOUND): no such live agent (or registered agent, with allow_offline).
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_CONTEXT_FORBIDDEN, ERROR_REASON_WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN):
     *   with a workflow context, the run is not the sender's to coordinate (or not in its project), or the target
     *   is not eligible for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_INACTIVE, ERROR_REASON_WORKFLOW_CONTEXT_ATTEMPT_MISMATCH):
     *   with a workflow context, the run's stage is not active, or the attempt is not its active one.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING): with a workflow context, the stage has no
     *   peer policy for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_CORRELATION_MISMATCH): with a workflow context,
     *   correlation_id names another run.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): the key was used for a different request (any field,
     *   allow_offline and the TTL included); checked before the target is resolved.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.SendMessageResponse sendMessage(dev.kxm.v1.SendMessageRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSendMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetMessage reads a message the caller sent or received.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id is empty or too long.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message in the caller's project, or it was purged.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is neither sender nor recipient.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.GetMessageResponse getMessage(dev.kxm.v1.GetMessageRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * CancelMessage cancels a queued or delivered message the caller sent; cancelling again returns it unchanged.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id is empty or too long.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is not the sender.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_MESSAGE_STATE): the message was replied to or expired.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.CancelMessageResponse cancelMessage(dev.kxm.v1.CancelMessageRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCancelMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ReplyToMessage records the recipient's one reply to a queued or delivered message. Repeating the
     * reply the message was replied with (a retry after a lost answer) returns the replied message unchanged.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id or content is empty or too long.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is not the recipient.
     * - FAILED_PRECONDITION (ERROR_REASON_DUPLICATE_REPLY): the message already has another reply.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_MESSAGE_STATE): the message was cancelled or expired.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.ReplyToMessageResponse replyToMessage(dev.kxm.v1.ReplyToMessageRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReplyToMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * AckMessages acknowledges received messages, each on its own: an acknowledged message is never
     * redelivered on a stream. Acknowledging twice is a no-op, also after the message ended. Either every
     * id is acknowledged or none is.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no ids, more than 100, or an empty or too long id.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): an id names no message.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is not the recipient of an id.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_MESSAGE_STATE): a message already ended without being acknowledged.
     * </pre>
     */
    public dev.kxm.v1.AckMessagesResponse ackMessages(dev.kxm.v1.AckMessagesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAckMessagesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListInbox lists the caller's received messages that are not terminal yet, oldest first.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.ListInboxResponse listInbox(dev.kxm.v1.ListInboxRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListInboxMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * WaitMessage waits until a message the caller can see is terminal, or until the wait ends
     * (default and maximum 60 s, never beyond the call's deadline); a wait that ends returns the current state.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id is empty, wait is negative, or wait and its
     *   deprecated name timeout are both set to different values.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message in the caller's project, or it was purged.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is neither sender nor recipient.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.WaitMessageResponse waitMessage(dev.kxm.v1.WaitMessageRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getWaitMessageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * FanoutMessages sends the same request to one to three agents and gathers their replies until a deadline.
     * Each target gets its own result: terminal with the reply, pending with its message id, or an error
     * for that target alone (TARGET_NOT_FOUND, SELF_TARGET, IDEMPOTENCY_CONFLICT). An exact retry with the
     * same idempotency prefix resolves to the same messages. Every message is sent with DELIVERY_FOLLOW_UP.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): not one to three distinct targets, a bad field, or wait
     *   and its deprecated name timeout both set to different values.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_CONTEXT): the workflow context is malformed.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_CONTEXT_FORBIDDEN, ERROR_REASON_WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN):
     *   with a workflow context, the run is not the sender's to coordinate (or not in its project), or the target
     *   is not eligible for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_INACTIVE, ERROR_REASON_WORKFLOW_CONTEXT_ATTEMPT_MISMATCH):
     *   with a workflow context, the run's stage is not active, or the attempt is not its active one.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING): with a workflow context, the stage has no
     *   peer policy for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_CORRELATION_MISMATCH): with a workflow context,
     *   correlation_id names another run.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.FanoutMessagesResponse fanoutMessages(dev.kxm.v1.FanoutMessagesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getFanoutMessagesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Subscribe streams the caller's inbox events: first a ready event, then the replay of what the caller
     * has not acknowledged, then live events, each with its durable per-agent sequence number.
     * The stream ends with UNAVAILABLE (ERROR_REASON_SHUTTING_DOWN) when the hub stops, and with
     * RESOURCE_EXHAUSTED (ERROR_REASON_SUBSCRIBER_TOO_SLOW) when more events than the hub's subscriber
     * queue arrive while the consumer does not read; in both cases resubscribe with the last sequence
     * seen and nothing is lost. Several streams of one agent each receive every event.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - PERMISSION_DENIED (ERROR_REASON_PRESENCE_STREAM_FORBIDDEN): presence_only asked for by a non-`tui` agent.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_STREAM_LIMIT_REACHED): the agent has too many open streams.
     * </pre>
     */
    public java.util.Iterator<dev.kxm.v1.SubscribeResponse> subscribe(
        dev.kxm.v1.SubscribeRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getSubscribeMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service MessageService.
   * <pre>
   * MessageService carries peer requests between agents of one project and streams each agent's inbox.
   * Every RPC needs the project token plus the calling agent's identity (`x-kxm-agent-id`,
   * `x-kxm-agent-key`). Delivery is at least once until the recipient acknowledges a message.
   * </pre>
   */
  public static final class MessageServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<MessageServiceFutureStub> {
    private MessageServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected MessageServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new MessageServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * SendMessage queues a request for another agent of the caller's project.
     * An exact repeat of an earlier send with the same idempotency key returns the original message with
     * `repeated` set and stores nothing new.
     * Errors:
     * - UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, ERROR_REASON_INVALID_AUTH, ERROR_REASON_INVALID_AGENT_IDENTITY): bad credentials.
     * - PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a field is empty, too long or out of range, or wait and
     *   its deprecated name reply_wait are both set to different values.
     * - INVALID_ARGUMENT (ERROR_REASON_SELF_TARGET): the target is the sender.
     * - INVALID_ARGUMENT (ERROR_REASON_HOP_LIMIT_REACHED): hops &gt;= max_hops.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_CONTEXT): the workflow context is malformed.
     * - NOT_FOUND (ERROR_REASON_TARGET_NOT_FOUND): no such live agent (or registered agent, with allow_offline).
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_CONTEXT_FORBIDDEN, ERROR_REASON_WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN):
     *   with a workflow context, the run is not the sender's to coordinate (or not in its project), or the target
     *   is not eligible for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_INACTIVE, ERROR_REASON_WORKFLOW_CONTEXT_ATTEMPT_MISMATCH):
     *   with a workflow context, the run's stage is not active, or the attempt is not its active one.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING): with a workflow context, the stage has no
     *   peer policy for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_CORRELATION_MISMATCH): with a workflow context,
     *   correlation_id names another run.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): the key was used for a different request (any field,
     *   allow_offline and the TTL included); checked before the target is resolved.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.SendMessageResponse> sendMessage(
        dev.kxm.v1.SendMessageRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSendMessageMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * GetMessage reads a message the caller sent or received.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id is empty or too long.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message in the caller's project, or it was purged.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is neither sender nor recipient.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.GetMessageResponse> getMessage(
        dev.kxm.v1.GetMessageRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetMessageMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * CancelMessage cancels a queued or delivered message the caller sent; cancelling again returns it unchanged.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id is empty or too long.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is not the sender.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_MESSAGE_STATE): the message was replied to or expired.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.CancelMessageResponse> cancelMessage(
        dev.kxm.v1.CancelMessageRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCancelMessageMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ReplyToMessage records the recipient's one reply to a queued or delivered message. Repeating the
     * reply the message was replied with (a retry after a lost answer) returns the replied message unchanged.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id or content is empty or too long.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is not the recipient.
     * - FAILED_PRECONDITION (ERROR_REASON_DUPLICATE_REPLY): the message already has another reply.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_MESSAGE_STATE): the message was cancelled or expired.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ReplyToMessageResponse> replyToMessage(
        dev.kxm.v1.ReplyToMessageRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReplyToMessageMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * AckMessages acknowledges received messages, each on its own: an acknowledged message is never
     * redelivered on a stream. Acknowledging twice is a no-op, also after the message ended. Either every
     * id is acknowledged or none is.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no ids, more than 100, or an empty or too long id.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): an id names no message.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is not the recipient of an id.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_MESSAGE_STATE): a message already ended without being acknowledged.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.AckMessagesResponse> ackMessages(
        dev.kxm.v1.AckMessagesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAckMessagesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListInbox lists the caller's received messages that are not terminal yet, oldest first.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, ERROR_REASON_INVALID_PAGE_TOKEN): bad page size or token.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListInboxResponse> listInbox(
        dev.kxm.v1.ListInboxRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListInboxMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * WaitMessage waits until a message the caller can see is terminal, or until the wait ends
     * (default and maximum 60 s, never beyond the call's deadline); a wait that ends returns the current state.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): message_id is empty, wait is negative, or wait and its
     *   deprecated name timeout are both set to different values.
     * - NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND): no such message in the caller's project, or it was purged.
     * - PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN): the caller is neither sender nor recipient.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.WaitMessageResponse> waitMessage(
        dev.kxm.v1.WaitMessageRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getWaitMessageMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * FanoutMessages sends the same request to one to three agents and gathers their replies until a deadline.
     * Each target gets its own result: terminal with the reply, pending with its message id, or an error
     * for that target alone (TARGET_NOT_FOUND, SELF_TARGET, IDEMPOTENCY_CONFLICT). An exact retry with the
     * same idempotency prefix resolves to the same messages. Every message is sent with DELIVERY_FOLLOW_UP.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): as for SendMessage.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): not one to three distinct targets, a bad field, or wait
     *   and its deprecated name timeout both set to different values.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_CONTEXT): the workflow context is malformed.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_CONTEXT_FORBIDDEN, ERROR_REASON_WORKFLOW_EVIDENCE_PRODUCER_FORBIDDEN):
     *   with a workflow context, the run is not the sender's to coordinate (or not in its project), or the target
     *   is not eligible for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_INACTIVE, ERROR_REASON_WORKFLOW_CONTEXT_ATTEMPT_MISMATCH):
     *   with a workflow context, the run's stage is not active, or the attempt is not its active one.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING): with a workflow context, the stage has no
     *   peer policy for the requirement.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_CONTEXT_CORRELATION_MISMATCH): with a workflow context,
     *   correlation_id names another run.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.FanoutMessagesResponse> fanoutMessages(
        dev.kxm.v1.FanoutMessagesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getFanoutMessagesMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_SEND_MESSAGE = 0;
  private static final int METHODID_GET_MESSAGE = 1;
  private static final int METHODID_CANCEL_MESSAGE = 2;
  private static final int METHODID_REPLY_TO_MESSAGE = 3;
  private static final int METHODID_ACK_MESSAGES = 4;
  private static final int METHODID_LIST_INBOX = 5;
  private static final int METHODID_WAIT_MESSAGE = 6;
  private static final int METHODID_FANOUT_MESSAGES = 7;
  private static final int METHODID_SUBSCRIBE = 8;

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
        case METHODID_SEND_MESSAGE:
          serviceImpl.sendMessage((dev.kxm.v1.SendMessageRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.SendMessageResponse>) responseObserver);
          break;
        case METHODID_GET_MESSAGE:
          serviceImpl.getMessage((dev.kxm.v1.GetMessageRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.GetMessageResponse>) responseObserver);
          break;
        case METHODID_CANCEL_MESSAGE:
          serviceImpl.cancelMessage((dev.kxm.v1.CancelMessageRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.CancelMessageResponse>) responseObserver);
          break;
        case METHODID_REPLY_TO_MESSAGE:
          serviceImpl.replyToMessage((dev.kxm.v1.ReplyToMessageRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ReplyToMessageResponse>) responseObserver);
          break;
        case METHODID_ACK_MESSAGES:
          serviceImpl.ackMessages((dev.kxm.v1.AckMessagesRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.AckMessagesResponse>) responseObserver);
          break;
        case METHODID_LIST_INBOX:
          serviceImpl.listInbox((dev.kxm.v1.ListInboxRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListInboxResponse>) responseObserver);
          break;
        case METHODID_WAIT_MESSAGE:
          serviceImpl.waitMessage((dev.kxm.v1.WaitMessageRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.WaitMessageResponse>) responseObserver);
          break;
        case METHODID_FANOUT_MESSAGES:
          serviceImpl.fanoutMessages((dev.kxm.v1.FanoutMessagesRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.FanoutMessagesResponse>) responseObserver);
          break;
        case METHODID_SUBSCRIBE:
          serviceImpl.subscribe((dev.kxm.v1.SubscribeRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.SubscribeResponse>) responseObserver);
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
          getSendMessageMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.SendMessageRequest,
              dev.kxm.v1.SendMessageResponse>(
                service, METHODID_SEND_MESSAGE)))
        .addMethod(
          getGetMessageMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.GetMessageRequest,
              dev.kxm.v1.GetMessageResponse>(
                service, METHODID_GET_MESSAGE)))
        .addMethod(
          getCancelMessageMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.CancelMessageRequest,
              dev.kxm.v1.CancelMessageResponse>(
                service, METHODID_CANCEL_MESSAGE)))
        .addMethod(
          getReplyToMessageMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ReplyToMessageRequest,
              dev.kxm.v1.ReplyToMessageResponse>(
                service, METHODID_REPLY_TO_MESSAGE)))
        .addMethod(
          getAckMessagesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.AckMessagesRequest,
              dev.kxm.v1.AckMessagesResponse>(
                service, METHODID_ACK_MESSAGES)))
        .addMethod(
          getListInboxMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListInboxRequest,
              dev.kxm.v1.ListInboxResponse>(
                service, METHODID_LIST_INBOX)))
        .addMethod(
          getWaitMessageMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.WaitMessageRequest,
              dev.kxm.v1.WaitMessageResponse>(
                service, METHODID_WAIT_MESSAGE)))
        .addMethod(
          getFanoutMessagesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.FanoutMessagesRequest,
              dev.kxm.v1.FanoutMessagesResponse>(
                service, METHODID_FANOUT_MESSAGES)))
        .addMethod(
          getSubscribeMethod(),
          io.grpc.stub.ServerCalls.asyncServerStreamingCall(
            new MethodHandlers<
              dev.kxm.v1.SubscribeRequest,
              dev.kxm.v1.SubscribeResponse>(
                service, METHODID_SUBSCRIBE)))
        .build();
  }

  private static abstract class MessageServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    MessageServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.kxm.v1.MessageServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("MessageService");
    }
  }

  private static final class MessageServiceFileDescriptorSupplier
      extends MessageServiceBaseDescriptorSupplier {
    MessageServiceFileDescriptorSupplier() {}
  }

  private static final class MessageServiceMethodDescriptorSupplier
      extends MessageServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    MessageServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (MessageServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new MessageServiceFileDescriptorSupplier())
              .addMethod(getSendMessageMethod())
              .addMethod(getGetMessageMethod())
              .addMethod(getCancelMessageMethod())
              .addMethod(getReplyToMessageMethod())
              .addMethod(getAckMessagesMethod())
              .addMethod(getListInboxMethod())
              .addMethod(getWaitMessageMethod())
              .addMethod(getFanoutMessagesMethod())
              .addMethod(getSubscribeMethod())
              .build();
        }
      }
    }
    return result;
  }
}
