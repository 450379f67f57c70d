package dev.kxm.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * ContextService gives agents their working context: a token-budgeted packet assembled for a role and
 * task from the project's context items, with every item's provenance and authority explicit.
 * Items are keyed by (project, id). `_shared` holds operator defaults every project sees, ranked after
 * the project's own items; only an operator writes it, and no request names it as its project. The
 * origin of what a caller writes comes only from its verified credential (an agent or a project token:
 * `peer`; an operator: `human`), never from a label it writes, and caps the authority it may claim.
 * Every RPC takes `project`: empty means the credential's project; an operator naming no project
 * (`x-kxm-project`) names it here. A caller of one project naming another is refused
 * PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION). Logs carry sizes and ids, never a
 * task, query or summary. See docs/context.md.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class ContextServiceGrpc {

  private ContextServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "kxm.v1.ContextService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.PutItemsRequest,
      dev.kxm.v1.PutItemsResponse> getPutItemsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "PutItems",
      requestType = dev.kxm.v1.PutItemsRequest.class,
      responseType = dev.kxm.v1.PutItemsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.PutItemsRequest,
      dev.kxm.v1.PutItemsResponse> getPutItemsMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.PutItemsRequest, dev.kxm.v1.PutItemsResponse> getPutItemsMethod;
    if ((getPutItemsMethod = ContextServiceGrpc.getPutItemsMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getPutItemsMethod = ContextServiceGrpc.getPutItemsMethod) == null) {
          ContextServiceGrpc.getPutItemsMethod = getPutItemsMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.PutItemsRequest, dev.kxm.v1.PutItemsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "PutItems"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.PutItemsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.PutItemsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("PutItems"))
              .build();
        }
      }
    }
    return getPutItemsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.GetContextPacketRequest,
      dev.kxm.v1.GetContextPacketResponse> getGetContextPacketMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetContextPacket",
      requestType = dev.kxm.v1.GetContextPacketRequest.class,
      responseType = dev.kxm.v1.GetContextPacketResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.GetContextPacketRequest,
      dev.kxm.v1.GetContextPacketResponse> getGetContextPacketMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.GetContextPacketRequest, dev.kxm.v1.GetContextPacketResponse> getGetContextPacketMethod;
    if ((getGetContextPacketMethod = ContextServiceGrpc.getGetContextPacketMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getGetContextPacketMethod = ContextServiceGrpc.getGetContextPacketMethod) == null) {
          ContextServiceGrpc.getGetContextPacketMethod = getGetContextPacketMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.GetContextPacketRequest, dev.kxm.v1.GetContextPacketResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetContextPacket"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetContextPacketRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetContextPacketResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("GetContextPacket"))
              .build();
        }
      }
    }
    return getGetContextPacketMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.RecallRequest,
      dev.kxm.v1.RecallResponse> getRecallMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Recall",
      requestType = dev.kxm.v1.RecallRequest.class,
      responseType = dev.kxm.v1.RecallResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.RecallRequest,
      dev.kxm.v1.RecallResponse> getRecallMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.RecallRequest, dev.kxm.v1.RecallResponse> getRecallMethod;
    if ((getRecallMethod = ContextServiceGrpc.getRecallMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getRecallMethod = ContextServiceGrpc.getRecallMethod) == null) {
          ContextServiceGrpc.getRecallMethod = getRecallMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.RecallRequest, dev.kxm.v1.RecallResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Recall"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RecallRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RecallResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("Recall"))
              .build();
        }
      }
    }
    return getRecallMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.GetStateRequest,
      dev.kxm.v1.GetStateResponse> getGetStateMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetState",
      requestType = dev.kxm.v1.GetStateRequest.class,
      responseType = dev.kxm.v1.GetStateResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.GetStateRequest,
      dev.kxm.v1.GetStateResponse> getGetStateMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.GetStateRequest, dev.kxm.v1.GetStateResponse> getGetStateMethod;
    if ((getGetStateMethod = ContextServiceGrpc.getGetStateMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getGetStateMethod = ContextServiceGrpc.getGetStateMethod) == null) {
          ContextServiceGrpc.getGetStateMethod = getGetStateMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.GetStateRequest, dev.kxm.v1.GetStateResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetState"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetStateRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetStateResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("GetState"))
              .build();
        }
      }
    }
    return getGetStateMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListStateSetRequest,
      dev.kxm.v1.ListStateSetResponse> getListStateSetMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListStateSet",
      requestType = dev.kxm.v1.ListStateSetRequest.class,
      responseType = dev.kxm.v1.ListStateSetResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListStateSetRequest,
      dev.kxm.v1.ListStateSetResponse> getListStateSetMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListStateSetRequest, dev.kxm.v1.ListStateSetResponse> getListStateSetMethod;
    if ((getListStateSetMethod = ContextServiceGrpc.getListStateSetMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getListStateSetMethod = ContextServiceGrpc.getListStateSetMethod) == null) {
          ContextServiceGrpc.getListStateSetMethod = getListStateSetMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListStateSetRequest, dev.kxm.v1.ListStateSetResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListStateSet"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListStateSetRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListStateSetResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("ListStateSet"))
              .build();
        }
      }
    }
    return getListStateSetMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ProposeStateRequest,
      dev.kxm.v1.ProposeStateResponse> getProposeStateMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ProposeState",
      requestType = dev.kxm.v1.ProposeStateRequest.class,
      responseType = dev.kxm.v1.ProposeStateResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ProposeStateRequest,
      dev.kxm.v1.ProposeStateResponse> getProposeStateMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ProposeStateRequest, dev.kxm.v1.ProposeStateResponse> getProposeStateMethod;
    if ((getProposeStateMethod = ContextServiceGrpc.getProposeStateMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getProposeStateMethod = ContextServiceGrpc.getProposeStateMethod) == null) {
          ContextServiceGrpc.getProposeStateMethod = getProposeStateMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ProposeStateRequest, dev.kxm.v1.ProposeStateResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ProposeState"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ProposeStateRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ProposeStateResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("ProposeState"))
              .build();
        }
      }
    }
    return getProposeStateMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.PromoteStateRequest,
      dev.kxm.v1.PromoteStateResponse> getPromoteStateMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "PromoteState",
      requestType = dev.kxm.v1.PromoteStateRequest.class,
      responseType = dev.kxm.v1.PromoteStateResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.PromoteStateRequest,
      dev.kxm.v1.PromoteStateResponse> getPromoteStateMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.PromoteStateRequest, dev.kxm.v1.PromoteStateResponse> getPromoteStateMethod;
    if ((getPromoteStateMethod = ContextServiceGrpc.getPromoteStateMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getPromoteStateMethod = ContextServiceGrpc.getPromoteStateMethod) == null) {
          ContextServiceGrpc.getPromoteStateMethod = getPromoteStateMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.PromoteStateRequest, dev.kxm.v1.PromoteStateResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "PromoteState"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.PromoteStateRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.PromoteStateResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("PromoteState"))
              .build();
        }
      }
    }
    return getPromoteStateMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.RejectStateRequest,
      dev.kxm.v1.RejectStateResponse> getRejectStateMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RejectState",
      requestType = dev.kxm.v1.RejectStateRequest.class,
      responseType = dev.kxm.v1.RejectStateResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.RejectStateRequest,
      dev.kxm.v1.RejectStateResponse> getRejectStateMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.RejectStateRequest, dev.kxm.v1.RejectStateResponse> getRejectStateMethod;
    if ((getRejectStateMethod = ContextServiceGrpc.getRejectStateMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getRejectStateMethod = ContextServiceGrpc.getRejectStateMethod) == null) {
          ContextServiceGrpc.getRejectStateMethod = getRejectStateMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.RejectStateRequest, dev.kxm.v1.RejectStateResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RejectState"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RejectStateRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RejectStateResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("RejectState"))
              .build();
        }
      }
    }
    return getRejectStateMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListEpisodesRequest,
      dev.kxm.v1.ListEpisodesResponse> getListEpisodesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListEpisodes",
      requestType = dev.kxm.v1.ListEpisodesRequest.class,
      responseType = dev.kxm.v1.ListEpisodesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListEpisodesRequest,
      dev.kxm.v1.ListEpisodesResponse> getListEpisodesMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListEpisodesRequest, dev.kxm.v1.ListEpisodesResponse> getListEpisodesMethod;
    if ((getListEpisodesMethod = ContextServiceGrpc.getListEpisodesMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getListEpisodesMethod = ContextServiceGrpc.getListEpisodesMethod) == null) {
          ContextServiceGrpc.getListEpisodesMethod = getListEpisodesMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListEpisodesRequest, dev.kxm.v1.ListEpisodesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListEpisodes"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListEpisodesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListEpisodesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("ListEpisodes"))
              .build();
        }
      }
    }
    return getListEpisodesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ExplainItemRequest,
      dev.kxm.v1.ExplainItemResponse> getExplainItemMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ExplainItem",
      requestType = dev.kxm.v1.ExplainItemRequest.class,
      responseType = dev.kxm.v1.ExplainItemResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ExplainItemRequest,
      dev.kxm.v1.ExplainItemResponse> getExplainItemMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ExplainItemRequest, dev.kxm.v1.ExplainItemResponse> getExplainItemMethod;
    if ((getExplainItemMethod = ContextServiceGrpc.getExplainItemMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getExplainItemMethod = ContextServiceGrpc.getExplainItemMethod) == null) {
          ContextServiceGrpc.getExplainItemMethod = getExplainItemMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ExplainItemRequest, dev.kxm.v1.ExplainItemResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ExplainItem"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ExplainItemRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ExplainItemResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("ExplainItem"))
              .build();
        }
      }
    }
    return getExplainItemMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.DeleteItemsRequest,
      dev.kxm.v1.DeleteItemsResponse> getDeleteItemsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteItems",
      requestType = dev.kxm.v1.DeleteItemsRequest.class,
      responseType = dev.kxm.v1.DeleteItemsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.DeleteItemsRequest,
      dev.kxm.v1.DeleteItemsResponse> getDeleteItemsMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.DeleteItemsRequest, dev.kxm.v1.DeleteItemsResponse> getDeleteItemsMethod;
    if ((getDeleteItemsMethod = ContextServiceGrpc.getDeleteItemsMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getDeleteItemsMethod = ContextServiceGrpc.getDeleteItemsMethod) == null) {
          ContextServiceGrpc.getDeleteItemsMethod = getDeleteItemsMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.DeleteItemsRequest, dev.kxm.v1.DeleteItemsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteItems"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.DeleteItemsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.DeleteItemsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("DeleteItems"))
              .build();
        }
      }
    }
    return getDeleteItemsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.CreateSkillRequest,
      dev.kxm.v1.CreateSkillResponse> getCreateSkillMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateSkill",
      requestType = dev.kxm.v1.CreateSkillRequest.class,
      responseType = dev.kxm.v1.CreateSkillResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.CreateSkillRequest,
      dev.kxm.v1.CreateSkillResponse> getCreateSkillMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.CreateSkillRequest, dev.kxm.v1.CreateSkillResponse> getCreateSkillMethod;
    if ((getCreateSkillMethod = ContextServiceGrpc.getCreateSkillMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getCreateSkillMethod = ContextServiceGrpc.getCreateSkillMethod) == null) {
          ContextServiceGrpc.getCreateSkillMethod = getCreateSkillMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.CreateSkillRequest, dev.kxm.v1.CreateSkillResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateSkill"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.CreateSkillRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.CreateSkillResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("CreateSkill"))
              .build();
        }
      }
    }
    return getCreateSkillMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.EvaluateSkillRequest,
      dev.kxm.v1.EvaluateSkillResponse> getEvaluateSkillMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "EvaluateSkill",
      requestType = dev.kxm.v1.EvaluateSkillRequest.class,
      responseType = dev.kxm.v1.EvaluateSkillResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.EvaluateSkillRequest,
      dev.kxm.v1.EvaluateSkillResponse> getEvaluateSkillMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.EvaluateSkillRequest, dev.kxm.v1.EvaluateSkillResponse> getEvaluateSkillMethod;
    if ((getEvaluateSkillMethod = ContextServiceGrpc.getEvaluateSkillMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getEvaluateSkillMethod = ContextServiceGrpc.getEvaluateSkillMethod) == null) {
          ContextServiceGrpc.getEvaluateSkillMethod = getEvaluateSkillMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.EvaluateSkillRequest, dev.kxm.v1.EvaluateSkillResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "EvaluateSkill"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.EvaluateSkillRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.EvaluateSkillResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("EvaluateSkill"))
              .build();
        }
      }
    }
    return getEvaluateSkillMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.PromoteSkillRequest,
      dev.kxm.v1.PromoteSkillResponse> getPromoteSkillMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "PromoteSkill",
      requestType = dev.kxm.v1.PromoteSkillRequest.class,
      responseType = dev.kxm.v1.PromoteSkillResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.PromoteSkillRequest,
      dev.kxm.v1.PromoteSkillResponse> getPromoteSkillMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.PromoteSkillRequest, dev.kxm.v1.PromoteSkillResponse> getPromoteSkillMethod;
    if ((getPromoteSkillMethod = ContextServiceGrpc.getPromoteSkillMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getPromoteSkillMethod = ContextServiceGrpc.getPromoteSkillMethod) == null) {
          ContextServiceGrpc.getPromoteSkillMethod = getPromoteSkillMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.PromoteSkillRequest, dev.kxm.v1.PromoteSkillResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "PromoteSkill"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.PromoteSkillRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.PromoteSkillResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("PromoteSkill"))
              .build();
        }
      }
    }
    return getPromoteSkillMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.RejectSkillRequest,
      dev.kxm.v1.RejectSkillResponse> getRejectSkillMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RejectSkill",
      requestType = dev.kxm.v1.RejectSkillRequest.class,
      responseType = dev.kxm.v1.RejectSkillResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.RejectSkillRequest,
      dev.kxm.v1.RejectSkillResponse> getRejectSkillMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.RejectSkillRequest, dev.kxm.v1.RejectSkillResponse> getRejectSkillMethod;
    if ((getRejectSkillMethod = ContextServiceGrpc.getRejectSkillMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getRejectSkillMethod = ContextServiceGrpc.getRejectSkillMethod) == null) {
          ContextServiceGrpc.getRejectSkillMethod = getRejectSkillMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.RejectSkillRequest, dev.kxm.v1.RejectSkillResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RejectSkill"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RejectSkillRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RejectSkillResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("RejectSkill"))
              .build();
        }
      }
    }
    return getRejectSkillMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.GetSkillRequest,
      dev.kxm.v1.GetSkillResponse> getGetSkillMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetSkill",
      requestType = dev.kxm.v1.GetSkillRequest.class,
      responseType = dev.kxm.v1.GetSkillResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.GetSkillRequest,
      dev.kxm.v1.GetSkillResponse> getGetSkillMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.GetSkillRequest, dev.kxm.v1.GetSkillResponse> getGetSkillMethod;
    if ((getGetSkillMethod = ContextServiceGrpc.getGetSkillMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getGetSkillMethod = ContextServiceGrpc.getGetSkillMethod) == null) {
          ContextServiceGrpc.getGetSkillMethod = getGetSkillMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.GetSkillRequest, dev.kxm.v1.GetSkillResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetSkill"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetSkillRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetSkillResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("GetSkill"))
              .build();
        }
      }
    }
    return getGetSkillMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListSkillsRequest,
      dev.kxm.v1.ListSkillsResponse> getListSkillsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListSkills",
      requestType = dev.kxm.v1.ListSkillsRequest.class,
      responseType = dev.kxm.v1.ListSkillsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListSkillsRequest,
      dev.kxm.v1.ListSkillsResponse> getListSkillsMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListSkillsRequest, dev.kxm.v1.ListSkillsResponse> getListSkillsMethod;
    if ((getListSkillsMethod = ContextServiceGrpc.getListSkillsMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getListSkillsMethod = ContextServiceGrpc.getListSkillsMethod) == null) {
          ContextServiceGrpc.getListSkillsMethod = getListSkillsMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListSkillsRequest, dev.kxm.v1.ListSkillsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListSkills"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListSkillsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListSkillsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("ListSkills"))
              .build();
        }
      }
    }
    return getListSkillsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.SyncMemoryRequest,
      dev.kxm.v1.SyncMemoryResponse> getSyncMemoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SyncMemory",
      requestType = dev.kxm.v1.SyncMemoryRequest.class,
      responseType = dev.kxm.v1.SyncMemoryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.SyncMemoryRequest,
      dev.kxm.v1.SyncMemoryResponse> getSyncMemoryMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.SyncMemoryRequest, dev.kxm.v1.SyncMemoryResponse> getSyncMemoryMethod;
    if ((getSyncMemoryMethod = ContextServiceGrpc.getSyncMemoryMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getSyncMemoryMethod = ContextServiceGrpc.getSyncMemoryMethod) == null) {
          ContextServiceGrpc.getSyncMemoryMethod = getSyncMemoryMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.SyncMemoryRequest, dev.kxm.v1.SyncMemoryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SyncMemory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.SyncMemoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.SyncMemoryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("SyncMemory"))
              .build();
        }
      }
    }
    return getSyncMemoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListMemoryRequest,
      dev.kxm.v1.ListMemoryResponse> getListMemoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListMemory",
      requestType = dev.kxm.v1.ListMemoryRequest.class,
      responseType = dev.kxm.v1.ListMemoryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListMemoryRequest,
      dev.kxm.v1.ListMemoryResponse> getListMemoryMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListMemoryRequest, dev.kxm.v1.ListMemoryResponse> getListMemoryMethod;
    if ((getListMemoryMethod = ContextServiceGrpc.getListMemoryMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getListMemoryMethod = ContextServiceGrpc.getListMemoryMethod) == null) {
          ContextServiceGrpc.getListMemoryMethod = getListMemoryMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListMemoryRequest, dev.kxm.v1.ListMemoryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListMemory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListMemoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListMemoryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("ListMemory"))
              .build();
        }
      }
    }
    return getListMemoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ProposeMemoryRequest,
      dev.kxm.v1.ProposeMemoryResponse> getProposeMemoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ProposeMemory",
      requestType = dev.kxm.v1.ProposeMemoryRequest.class,
      responseType = dev.kxm.v1.ProposeMemoryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ProposeMemoryRequest,
      dev.kxm.v1.ProposeMemoryResponse> getProposeMemoryMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ProposeMemoryRequest, dev.kxm.v1.ProposeMemoryResponse> getProposeMemoryMethod;
    if ((getProposeMemoryMethod = ContextServiceGrpc.getProposeMemoryMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getProposeMemoryMethod = ContextServiceGrpc.getProposeMemoryMethod) == null) {
          ContextServiceGrpc.getProposeMemoryMethod = getProposeMemoryMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ProposeMemoryRequest, dev.kxm.v1.ProposeMemoryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ProposeMemory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ProposeMemoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ProposeMemoryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("ProposeMemory"))
              .build();
        }
      }
    }
    return getProposeMemoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.PromoteMemoryRequest,
      dev.kxm.v1.PromoteMemoryResponse> getPromoteMemoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "PromoteMemory",
      requestType = dev.kxm.v1.PromoteMemoryRequest.class,
      responseType = dev.kxm.v1.PromoteMemoryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.PromoteMemoryRequest,
      dev.kxm.v1.PromoteMemoryResponse> getPromoteMemoryMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.PromoteMemoryRequest, dev.kxm.v1.PromoteMemoryResponse> getPromoteMemoryMethod;
    if ((getPromoteMemoryMethod = ContextServiceGrpc.getPromoteMemoryMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getPromoteMemoryMethod = ContextServiceGrpc.getPromoteMemoryMethod) == null) {
          ContextServiceGrpc.getPromoteMemoryMethod = getPromoteMemoryMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.PromoteMemoryRequest, dev.kxm.v1.PromoteMemoryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "PromoteMemory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.PromoteMemoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.PromoteMemoryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("PromoteMemory"))
              .build();
        }
      }
    }
    return getPromoteMemoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.RejectMemoryRequest,
      dev.kxm.v1.RejectMemoryResponse> getRejectMemoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RejectMemory",
      requestType = dev.kxm.v1.RejectMemoryRequest.class,
      responseType = dev.kxm.v1.RejectMemoryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.RejectMemoryRequest,
      dev.kxm.v1.RejectMemoryResponse> getRejectMemoryMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.RejectMemoryRequest, dev.kxm.v1.RejectMemoryResponse> getRejectMemoryMethod;
    if ((getRejectMemoryMethod = ContextServiceGrpc.getRejectMemoryMethod) == null) {
      synchronized (ContextServiceGrpc.class) {
        if ((getRejectMemoryMethod = ContextServiceGrpc.getRejectMemoryMethod) == null) {
          ContextServiceGrpc.getRejectMemoryMethod = getRejectMemoryMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.RejectMemoryRequest, dev.kxm.v1.RejectMemoryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RejectMemory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RejectMemoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RejectMemoryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ContextServiceMethodDescriptorSupplier("RejectMemory"))
              .build();
        }
      }
    }
    return getRejectMemoryMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static ContextServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<ContextServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<ContextServiceStub>() {
        @java.lang.Override
        public ContextServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new ContextServiceStub(channel, callOptions);
        }
      };
    return ContextServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static ContextServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<ContextServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<ContextServiceBlockingV2Stub>() {
        @java.lang.Override
        public ContextServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new ContextServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return ContextServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static ContextServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<ContextServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<ContextServiceBlockingStub>() {
        @java.lang.Override
        public ContextServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new ContextServiceBlockingStub(channel, callOptions);
        }
      };
    return ContextServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static ContextServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<ContextServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<ContextServiceFutureStub>() {
        @java.lang.Override
        public ContextServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new ContextServiceFutureStub(channel, callOptions);
        }
      };
    return ContextServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * ContextService gives agents their working context: a token-budgeted packet assembled for a role and
   * task from the project's context items, with every item's provenance and authority explicit.
   * Items are keyed by (project, id). `_shared` holds operator defaults every project sees, ranked after
   * the project's own items; only an operator writes it, and no request names it as its project. The
   * origin of what a caller writes comes only from its verified credential (an agent or a project token:
   * `peer`; an operator: `human`), never from a label it writes, and caps the authority it may claim.
   * Every RPC takes `project`: empty means the credential's project; an operator naming no project
   * (`x-kxm-project`) names it here. A caller of one project naming another is refused
   * PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION). Logs carry sizes and ids, never a
   * task, query or summary. See docs/context.md.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * PutItems validates and stores a batch of items (insert or replace by (project, id)), atomically.
     * An item's empty project is the request's. Summaries and source refs are stored redacted. An item
     * of `_shared` needs an operator.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_ITEM, ERROR_REASON_INVALID_CONTEXT_FIELD): an item
     *   breaks a rule (metadata: index, field); no item of the batch is stored.
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): no items, more than 256, or more than 64
     *   ids in a reference list.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_AUTHORITY_VIOLATION): an item claims an authority or a
     *   source type above what the caller's origin grants.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): an item of another project, or of
     *   `_shared` written by a caller that is not an operator.
     * </pre>
     */
    default void putItems(dev.kxm.v1.PutItemsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.PutItemsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getPutItemsMethod(), responseObserver);
    }

    /**
     * <pre>
     * GetContextPacket assembles the packet of a role and task: the same pool and request give the same
     * packet, audit and packet id, byte for byte.
     * Open state contradictions come first, then the project's items before `_shared` defaults, items
     * sharing a token with the task before the rest, in the role's kind order, by BM25 score, confidence,
     * authority, recency and id; the budget is filled first-fit. The audit names what was chosen and why,
     * never an item's body.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): the request breaks a rule (metadata: field).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    default void getContextPacket(dev.kxm.v1.GetContextPacketRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetContextPacketResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetContextPacketMethod(), responseObserver);
    }

    /**
     * <pre>
     * Recall finds items by a query: metadata only, never summaries.
     * Phrase hits (an empty query, or the whole query inside the summary or state key, ignoring case)
     * come first, then BM25 score descending, then id; items with neither are left out.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): a query over 500 characters, a limit
     *   outside 0–100, a kind repeated or unknown (metadata: field).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    default void recall(dev.kxm.v1.RecallRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RecallResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRecallMethod(), responseObserver);
    }

    /**
     * <pre>
     * GetState says what a single-valued state key held at an instant (now, unless as_of_time is set).
     * Among the key's items active then (current or superseded, valid_from ≤ T &lt; valid_until), the one
     * current item, else the active one that started last; none when nothing was active. A proposal is
     * never current truth.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed key (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_KEY_SET_VALUED): the key is set-valued (ends with `[]`): use
     *   ListStateSet.
     * - FAILED_PRECONDITION (ERROR_REASON_STATE_CONTRADICTION): more than one current item is active
     *   (metadata: stateKey, competingCurrentIds); an operator promotes or rejects to resolve it.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    default void getState(dev.kxm.v1.GetStateRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetStateResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetStateMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListStateSet lists the current items of a set-valued state key (one ending with `[]`), by id.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed key (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_KEY_SINGLE_VALUED): the key is single-valued: use GetState.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    default void listStateSet(dev.kxm.v1.ListStateSetRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListStateSetResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListStateSetMethod(), responseObserver);
    }

    /**
     * <pre>
     * ProposeState proposes a change of a state key: a `proposed` state item, never current truth until
     * an operator other than its proposer promotes it.
     * The proposer is the caller (its agent id, or the operator's name); its origin (`peer` or `human`)
     * comes from its credential and caps the authority it may claim. With request_id, a retry returns the
     * proposal it made.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST, ERROR_REASON_INVALID_CONTEXT_ITEM): an empty
     *   key or summary, or a text over its limit (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_PROMOTION_INVALID): no evidence ref, or more than 32.
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): more than 63 supersedes ids (64 for a
     *   set-valued key: a single-valued key's promotion adds the item it closes; metadata: field, limit).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_AUTHORITY_VIOLATION): an authority above the origin's.
     * - PERMISSION_DENIED (ERROR_REASON_STATE_PROPOSER_MISMATCH): proposed_by names someone else.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another proposal.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    default void proposeState(dev.kxm.v1.ProposeStateRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ProposeStateResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getProposeStateMethod(), responseObserver);
    }

    /**
     * <pre>
     * PromoteState makes a proposal current truth: a new current item is minted (the proposal and every
     * item of a single-valued key active now are superseded by it) and the proposal is closed.
     * A named operator other than the proposer decides, with evidence. Promoting the same proposal again
     * with the same evidence returns the first promotion.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * - NOT_FOUND (ERROR_REASON_STATE_PROPOSAL_NOT_FOUND): no state proposal of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_STATE_PROPOSAL_NOT_PROMOTABLE): the proposal was decided already
     *   (metadata: status, promotedItemId when it was promoted).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_PROMOTION_INVALID): no evidence ref, more than 32, or the
     *   operator is the proposer.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed proposal id.
     * </pre>
     */
    default void promoteState(dev.kxm.v1.PromoteStateRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.PromoteStateResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getPromoteStateMethod(), responseObserver);
    }

    /**
     * <pre>
     * RejectState closes a proposal without promoting it.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * - NOT_FOUND (ERROR_REASON_STATE_PROPOSAL_NOT_FOUND): no state proposal of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_STATE_PROPOSAL_NOT_PROMOTABLE): the proposal was decided already.
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_PROMOTION_INVALID): a reason over 1,000 characters.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed proposal id.
     * </pre>
     */
    default void rejectState(dev.kxm.v1.RejectStateRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RejectStateResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRejectStateMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListEpisodes lists the project's episodes: its runs' journal entries of the error, lesson,
     * observation and experiment categories as context items, oldest first, at most 50.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): a malformed run id (metadata: field).
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): workflow_run_id names no run of the project (another
     *   project's run reads as none).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    default void listEpisodes(dev.kxm.v1.ListEpisodesRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListEpisodesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListEpisodesMethod(), responseObserver);
    }

    /**
     * <pre>
     * ExplainItem says where an item came from: its lineage and evidence refs, and the source of it and
     * of each ancestor in the pool. Metadata only; an unknown id is found = false, not an error.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): an empty or malformed item id.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    default void explainItem(dev.kxm.v1.ExplainItemRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ExplainItemResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getExplainItemMethod(), responseObserver);
    }

    /**
     * <pre>
     * DeleteItems removes items of a project (or of `_shared`, with shared = true) and their index entries.
     * Unknown ids are not an error: the response counts what was removed.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared` named as the
     *   project (`_shared`'s items are deleted with shared = true).
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): no id, or more than 256.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): an empty or malformed id.
     * </pre>
     */
    default void deleteItems(dev.kxm.v1.DeleteItemsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.DeleteItemsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteItemsMethod(), responseObserver);
    }

    /**
     * <pre>
     * CreateSkill stores a skill candidate: a SKILL.md of the project, evaluated and promoted before any
     * packet carries it (spec §5.12).
     * The content is redacted and its front matter ensured (`name`, and `description`, by default
     * "Governed skill for &lt;name&gt;"); content_sha256 is the SHA-256 of that final text, and the id the
     * slug of the name (lower case, runs of other characters `-`, at most 40) `.` the hash's first 12
     * hex digits. The author (created_by) is the caller: its agent id, the operator's name, or the
     * project token's identity.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a name, description, content, harness,
     *   model, version or supersedes breaking its rule (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_FRONTMATTER): the content opens a front matter
     *   block (`---`) that never closes, or whose lines are not `key: value`.
     * - INVALID_ARGUMENT (ERROR_REASON_SKILL_SOURCES_REQUIRED): no run id, journal entry id or evidence
     *   receipt, or more than 32 of one kind.
     * - ALREADY_EXISTS (ERROR_REASON_SKILL_CANDIDATE_EXISTS): a skill of the project has this content
     *   (metadata: skillId).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    default void createSkill(dev.kxm.v1.CreateSkillRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.CreateSkillResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateSkillMethod(), responseObserver);
    }

    /**
     * <pre>
     * EvaluateSkill records an operator's evaluation of a candidate: its kind, whether it passed, and
     * details (at most 2,000 characters, stored redacted).
     * A failed functional or safety evaluation quarantines the skill (an event by `evaluator`). The
     * optimization kind is refused unless the hub runs with --skill-optimization on.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id, an unset or unknown
     *   kind, details over 2,000 characters (metadata: field).
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_OPTIMIZATION_DISABLED): an optimization evaluation on a
     *   hub without --skill-optimization on.
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill is not a candidate (metadata:
     *   state).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    default void evaluateSkill(dev.kxm.v1.EvaluateSkillRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.EvaluateSkillResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getEvaluateSkillMethod(), responseObserver);
    }

    /**
     * <pre>
     * PromoteSkill makes a candidate a promoted skill: from then on the packets of the project carry it
     * as the context item `skill_&lt;id&gt;` (kind skill, authority instruction), while its content still
     * hashes to content_sha256.
     * A named operator other than its author decides, with evidence, once the latest evaluation of each
     * of static-review, sandbox, functional and safety passed and the content verifies.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_SKILL_PROMOTION_INVALID): no evidence ref, more than 32, one
     *   malformed, or the operator is the author.
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill is not a candidate (metadata:
     *   state).
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_EVALUATIONS_INCOMPLETE): a required kind has no passing
     *   latest evaluation (metadata: missing, failed).
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_INTEGRITY_VIOLATION): the stored content no longer
     *   hashes to content_sha256.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_SKILL_FRONTMATTER): the stored content has no
     *   non-empty name or description in its front matter.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    default void promoteSkill(dev.kxm.v1.PromoteSkillRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.PromoteSkillResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getPromoteSkillMethod(), responseObserver);
    }

    /**
     * <pre>
     * RejectSkill closes a candidate or a quarantined skill without promoting it, or retires a promoted
     * one: its context item is closed (rejected), so packets no longer carry it.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id, a reason over 1,000
     *   characters (metadata: field).
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill is rejected already
     *   (metadata: state).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    default void rejectSkill(dev.kxm.v1.RejectSkillRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RejectSkillResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRejectSkillMethod(), responseObserver);
    }

    /**
     * <pre>
     * GetSkill returns a skill of the project with its whole history, oldest event first.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id (metadata: field).
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    default void getSkill(dev.kxm.v1.GetSkillRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetSkillResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetSkillMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListSkills lists the project's skills (of one state, if asked) by id, without their content.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): an unknown state (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a negative page size.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or of another query.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    default void listSkills(dev.kxm.v1.ListSkillsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListSkillsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListSkillsMethod(), responseObserver);
    }

    /**
     * <pre>
     * SyncMemory replaces the project's memory records with the files sent: an operator's load of a
     * checkout's `.kxm/memory` (`kxm context memory sync DIR`), atomically.
     * Each file is Markdown with YAML front matter (`kxm.memory.v1`); every file is parsed and checked
     * before anything is written, and one bad file refuses the whole sync. An `active` record of
     * `project` scope becomes the project's item `mem_&lt;id&gt;`, of `operator` scope a `_shared` item
     * (which this project then owns); `agent` and `run` scope records and inactive ones are counted,
     * not stored. The project's memory items (and the `_shared` ones its earlier syncs wrote) that the
     * new set no longer has are removed. The operator's credential, not the file, grants the
     * `instruction` authority. A sync whose revision equals the stored one rewrites nothing
     * (unchanged = true).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): a file is not a valid memory record, or
     *   two files have the same path or record id (metadata: path, index, field).
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): no file without allow_empty, more
     *   than 128, a file over 16 KiB, or more than 192 KiB in all (metadata: field, limit).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_AUTHORITY_VIOLATION): a file carries a control-plane
     *   field, or claims an authority above its source type's (metadata: path, index, field).
     * - FAILED_PRECONDITION (ERROR_REASON_MEMORY_RECORD_OWNED): an operator-scope record's `_shared`
     *   item is another project's memory, or not memory at all (metadata: path, index, itemId, owner).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): `_shared` named as the project.
     * </pre>
     */
    default void syncMemory(dev.kxm.v1.SyncMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.SyncMemoryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSyncMemoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListMemory lists the project's memory records as its last sync stored them (and the `_shared`
     * ones it owns): metadata only, never a summary, and the current memory revision; then the
     * project's open memory candidates (review material, with their summaries).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    default void listMemory(dev.kxm.v1.ListMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListMemoryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListMemoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * ProposeMemory notes a memory candidate: a fact an agent (or anyone of the project) learned,
     * kept for an operator's review. A candidate is never context: no packet, recall or explanation
     * sees it until an operator promotes it into a record file and syncs it.
     * The proposer is the caller; its origin (`peer` or `human`) comes from its credential. At most
     * 64 candidates of a project are open at once.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): an empty or over-long summary or kind,
     *   or a malformed evidence ref (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): more than 64 evidence refs.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_FIELD): a scope the contract does not define.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): 64 candidates of the project are
     *   open: an operator promotes or rejects some first (metadata: limit).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    default void proposeMemory(dev.kxm.v1.ProposeMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ProposeMemoryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getProposeMemoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * PromoteMemory closes an open candidate as promoted and returns the `kxm.memory.v1` record file
     * it becomes, for the operator to add to the memory directory and sync (the hub stores no item
     * here: memory is what a sync loads).
     * A named operator other than the proposer decides. The record's source type is `human` (the
     * operator's promotion is what vouches for it), its source ref names the candidate, proposer
     * and promoter.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_MEMORY_CANDIDATE_NOT_FOUND): no candidate of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_MEMORY_CANDIDATE_NOT_PROMOTABLE): the candidate was decided
     *   already, or this operator proposed it (metadata: status, proposedBy).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): a malformed record id, authority or
     *   candidate id, or a record the candidate cannot make (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_FIELD): a confidence the contract does not define.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): `_shared` named as the project.
     * </pre>
     */
    default void promoteMemory(dev.kxm.v1.PromoteMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.PromoteMemoryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getPromoteMemoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * RejectMemory closes an open candidate without promoting it (any operator, its proposer too).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_MEMORY_CANDIDATE_NOT_FOUND): no candidate of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_MEMORY_CANDIDATE_NOT_PROMOTABLE): it was decided already.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): a malformed candidate id, or a reason
     *   over 1,000 characters (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): `_shared` named as the project.
     * </pre>
     */
    default void rejectMemory(dev.kxm.v1.RejectMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RejectMemoryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRejectMemoryMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service ContextService.
   * <pre>
   * ContextService gives agents their working context: a token-budgeted packet assembled for a role and
   * task from the project's context items, with every item's provenance and authority explicit.
   * Items are keyed by (project, id). `_shared` holds operator defaults every project sees, ranked after
   * the project's own items; only an operator writes it, and no request names it as its project. The
   * origin of what a caller writes comes only from its verified credential (an agent or a project token:
   * `peer`; an operator: `human`), never from a label it writes, and caps the authority it may claim.
   * Every RPC takes `project`: empty means the credential's project; an operator naming no project
   * (`x-kxm-project`) names it here. A caller of one project naming another is refused
   * PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION). Logs carry sizes and ids, never a
   * task, query or summary. See docs/context.md.
   * </pre>
   */
  public static abstract class ContextServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return ContextServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service ContextService.
   * <pre>
   * ContextService gives agents their working context: a token-budgeted packet assembled for a role and
   * task from the project's context items, with every item's provenance and authority explicit.
   * Items are keyed by (project, id). `_shared` holds operator defaults every project sees, ranked after
   * the project's own items; only an operator writes it, and no request names it as its project. The
   * origin of what a caller writes comes only from its verified credential (an agent or a project token:
   * `peer`; an operator: `human`), never from a label it writes, and caps the authority it may claim.
   * Every RPC takes `project`: empty means the credential's project; an operator naming no project
   * (`x-kxm-project`) names it here. A caller of one project naming another is refused
   * PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION). Logs carry sizes and ids, never a
   * task, query or summary. See docs/context.md.
   * </pre>
   */
  public static final class ContextServiceStub
      extends io.grpc.stub.AbstractAsyncStub<ContextServiceStub> {
    private ContextServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected ContextServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new ContextServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * PutItems validates and stores a batch of items (insert or replace by (project, id)), atomically.
     * An item's empty project is the request's. Summaries and source refs are stored redacted. An item
     * of `_shared` needs an operator.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_ITEM, ERROR_REASON_INVALID_CONTEXT_FIELD): an item
     *   breaks a rule (metadata: index, field); no item of the batch is stored.
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): no items, more than 256, or more than 64
     *   ids in a reference list.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_AUTHORITY_VIOLATION): an item claims an authority or a
     *   source type above what the caller's origin grants.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): an item of another project, or of
     *   `_shared` written by a caller that is not an operator.
     * </pre>
     */
    public void putItems(dev.kxm.v1.PutItemsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.PutItemsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getPutItemsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * GetContextPacket assembles the packet of a role and task: the same pool and request give the same
     * packet, audit and packet id, byte for byte.
     * Open state contradictions come first, then the project's items before `_shared` defaults, items
     * sharing a token with the task before the rest, in the role's kind order, by BM25 score, confidence,
     * authority, recency and id; the budget is filled first-fit. The audit names what was chosen and why,
     * never an item's body.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): the request breaks a rule (metadata: field).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public void getContextPacket(dev.kxm.v1.GetContextPacketRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetContextPacketResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetContextPacketMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Recall finds items by a query: metadata only, never summaries.
     * Phrase hits (an empty query, or the whole query inside the summary or state key, ignoring case)
     * come first, then BM25 score descending, then id; items with neither are left out.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): a query over 500 characters, a limit
     *   outside 0–100, a kind repeated or unknown (metadata: field).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public void recall(dev.kxm.v1.RecallRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RecallResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRecallMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * GetState says what a single-valued state key held at an instant (now, unless as_of_time is set).
     * Among the key's items active then (current or superseded, valid_from ≤ T &lt; valid_until), the one
     * current item, else the active one that started last; none when nothing was active. A proposal is
     * never current truth.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed key (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_KEY_SET_VALUED): the key is set-valued (ends with `[]`): use
     *   ListStateSet.
     * - FAILED_PRECONDITION (ERROR_REASON_STATE_CONTRADICTION): more than one current item is active
     *   (metadata: stateKey, competingCurrentIds); an operator promotes or rejects to resolve it.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public void getState(dev.kxm.v1.GetStateRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetStateResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetStateMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListStateSet lists the current items of a set-valued state key (one ending with `[]`), by id.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed key (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_KEY_SINGLE_VALUED): the key is single-valued: use GetState.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public void listStateSet(dev.kxm.v1.ListStateSetRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListStateSetResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListStateSetMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ProposeState proposes a change of a state key: a `proposed` state item, never current truth until
     * an operator other than its proposer promotes it.
     * The proposer is the caller (its agent id, or the operator's name); its origin (`peer` or `human`)
     * comes from its credential and caps the authority it may claim. With request_id, a retry returns the
     * proposal it made.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST, ERROR_REASON_INVALID_CONTEXT_ITEM): an empty
     *   key or summary, or a text over its limit (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_PROMOTION_INVALID): no evidence ref, or more than 32.
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): more than 63 supersedes ids (64 for a
     *   set-valued key: a single-valued key's promotion adds the item it closes; metadata: field, limit).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_AUTHORITY_VIOLATION): an authority above the origin's.
     * - PERMISSION_DENIED (ERROR_REASON_STATE_PROPOSER_MISMATCH): proposed_by names someone else.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another proposal.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public void proposeState(dev.kxm.v1.ProposeStateRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ProposeStateResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getProposeStateMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * PromoteState makes a proposal current truth: a new current item is minted (the proposal and every
     * item of a single-valued key active now are superseded by it) and the proposal is closed.
     * A named operator other than the proposer decides, with evidence. Promoting the same proposal again
     * with the same evidence returns the first promotion.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * - NOT_FOUND (ERROR_REASON_STATE_PROPOSAL_NOT_FOUND): no state proposal of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_STATE_PROPOSAL_NOT_PROMOTABLE): the proposal was decided already
     *   (metadata: status, promotedItemId when it was promoted).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_PROMOTION_INVALID): no evidence ref, more than 32, or the
     *   operator is the proposer.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed proposal id.
     * </pre>
     */
    public void promoteState(dev.kxm.v1.PromoteStateRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.PromoteStateResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getPromoteStateMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * RejectState closes a proposal without promoting it.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * - NOT_FOUND (ERROR_REASON_STATE_PROPOSAL_NOT_FOUND): no state proposal of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_STATE_PROPOSAL_NOT_PROMOTABLE): the proposal was decided already.
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_PROMOTION_INVALID): a reason over 1,000 characters.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed proposal id.
     * </pre>
     */
    public void rejectState(dev.kxm.v1.RejectStateRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RejectStateResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRejectStateMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListEpisodes lists the project's episodes: its runs' journal entries of the error, lesson,
     * observation and experiment categories as context items, oldest first, at most 50.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): a malformed run id (metadata: field).
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): workflow_run_id names no run of the project (another
     *   project's run reads as none).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public void listEpisodes(dev.kxm.v1.ListEpisodesRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListEpisodesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListEpisodesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ExplainItem says where an item came from: its lineage and evidence refs, and the source of it and
     * of each ancestor in the pool. Metadata only; an unknown id is found = false, not an error.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): an empty or malformed item id.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public void explainItem(dev.kxm.v1.ExplainItemRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ExplainItemResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getExplainItemMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * DeleteItems removes items of a project (or of `_shared`, with shared = true) and their index entries.
     * Unknown ids are not an error: the response counts what was removed.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared` named as the
     *   project (`_shared`'s items are deleted with shared = true).
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): no id, or more than 256.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): an empty or malformed id.
     * </pre>
     */
    public void deleteItems(dev.kxm.v1.DeleteItemsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.DeleteItemsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteItemsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * CreateSkill stores a skill candidate: a SKILL.md of the project, evaluated and promoted before any
     * packet carries it (spec §5.12).
     * The content is redacted and its front matter ensured (`name`, and `description`, by default
     * "Governed skill for &lt;name&gt;"); content_sha256 is the SHA-256 of that final text, and the id the
     * slug of the name (lower case, runs of other characters `-`, at most 40) `.` the hash's first 12
     * hex digits. The author (created_by) is the caller: its agent id, the operator's name, or the
     * project token's identity.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a name, description, content, harness,
     *   model, version or supersedes breaking its rule (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_FRONTMATTER): the content opens a front matter
     *   block (`---`) that never closes, or whose lines are not `key: value`.
     * - INVALID_ARGUMENT (ERROR_REASON_SKILL_SOURCES_REQUIRED): no run id, journal entry id or evidence
     *   receipt, or more than 32 of one kind.
     * - ALREADY_EXISTS (ERROR_REASON_SKILL_CANDIDATE_EXISTS): a skill of the project has this content
     *   (metadata: skillId).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public void createSkill(dev.kxm.v1.CreateSkillRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.CreateSkillResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateSkillMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * EvaluateSkill records an operator's evaluation of a candidate: its kind, whether it passed, and
     * details (at most 2,000 characters, stored redacted).
     * A failed functional or safety evaluation quarantines the skill (an event by `evaluator`). The
     * optimization kind is refused unless the hub runs with --skill-optimization on.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id, an unset or unknown
     *   kind, details over 2,000 characters (metadata: field).
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_OPTIMIZATION_DISABLED): an optimization evaluation on a
     *   hub without --skill-optimization on.
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill is not a candidate (metadata:
     *   state).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public void evaluateSkill(dev.kxm.v1.EvaluateSkillRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.EvaluateSkillResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getEvaluateSkillMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * PromoteSkill makes a candidate a promoted skill: from then on the packets of the project carry it
     * as the context item `skill_&lt;id&gt;` (kind skill, authority instruction), while its content still
     * hashes to content_sha256.
     * A named operator other than its author decides, with evidence, once the latest evaluation of each
     * of static-review, sandbox, functional and safety passed and the content verifies.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_SKILL_PROMOTION_INVALID): no evidence ref, more than 32, one
     *   malformed, or the operator is the author.
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill is not a candidate (metadata:
     *   state).
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_EVALUATIONS_INCOMPLETE): a required kind has no passing
     *   latest evaluation (metadata: missing, failed).
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_INTEGRITY_VIOLATION): the stored content no longer
     *   hashes to content_sha256.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_SKILL_FRONTMATTER): the stored content has no
     *   non-empty name or description in its front matter.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public void promoteSkill(dev.kxm.v1.PromoteSkillRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.PromoteSkillResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getPromoteSkillMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * RejectSkill closes a candidate or a quarantined skill without promoting it, or retires a promoted
     * one: its context item is closed (rejected), so packets no longer carry it.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id, a reason over 1,000
     *   characters (metadata: field).
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill is rejected already
     *   (metadata: state).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public void rejectSkill(dev.kxm.v1.RejectSkillRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RejectSkillResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRejectSkillMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * GetSkill returns a skill of the project with its whole history, oldest event first.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id (metadata: field).
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public void getSkill(dev.kxm.v1.GetSkillRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetSkillResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetSkillMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListSkills lists the project's skills (of one state, if asked) by id, without their content.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): an unknown state (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a negative page size.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or of another query.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public void listSkills(dev.kxm.v1.ListSkillsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListSkillsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListSkillsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * SyncMemory replaces the project's memory records with the files sent: an operator's load of a
     * checkout's `.kxm/memory` (`kxm context memory sync DIR`), atomically.
     * Each file is Markdown with YAML front matter (`kxm.memory.v1`); every file is parsed and checked
     * before anything is written, and one bad file refuses the whole sync. An `active` record of
     * `project` scope becomes the project's item `mem_&lt;id&gt;`, of `operator` scope a `_shared` item
     * (which this project then owns); `agent` and `run` scope records and inactive ones are counted,
     * not stored. The project's memory items (and the `_shared` ones its earlier syncs wrote) that the
     * new set no longer has are removed. The operator's credential, not the file, grants the
     * `instruction` authority. A sync whose revision equals the stored one rewrites nothing
     * (unchanged = true).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): a file is not a valid memory record, or
     *   two files have the same path or record id (metadata: path, index, field).
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): no file without allow_empty, more
     *   than 128, a file over 16 KiB, or more than 192 KiB in all (metadata: field, limit).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_AUTHORITY_VIOLATION): a file carries a control-plane
     *   field, or claims an authority above its source type's (metadata: path, index, field).
     * - FAILED_PRECONDITION (ERROR_REASON_MEMORY_RECORD_OWNED): an operator-scope record's `_shared`
     *   item is another project's memory, or not memory at all (metadata: path, index, itemId, owner).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): `_shared` named as the project.
     * </pre>
     */
    public void syncMemory(dev.kxm.v1.SyncMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.SyncMemoryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSyncMemoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListMemory lists the project's memory records as its last sync stored them (and the `_shared`
     * ones it owns): metadata only, never a summary, and the current memory revision; then the
     * project's open memory candidates (review material, with their summaries).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public void listMemory(dev.kxm.v1.ListMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListMemoryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListMemoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ProposeMemory notes a memory candidate: a fact an agent (or anyone of the project) learned,
     * kept for an operator's review. A candidate is never context: no packet, recall or explanation
     * sees it until an operator promotes it into a record file and syncs it.
     * The proposer is the caller; its origin (`peer` or `human`) comes from its credential. At most
     * 64 candidates of a project are open at once.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): an empty or over-long summary or kind,
     *   or a malformed evidence ref (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): more than 64 evidence refs.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_FIELD): a scope the contract does not define.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): 64 candidates of the project are
     *   open: an operator promotes or rejects some first (metadata: limit).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public void proposeMemory(dev.kxm.v1.ProposeMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ProposeMemoryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getProposeMemoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * PromoteMemory closes an open candidate as promoted and returns the `kxm.memory.v1` record file
     * it becomes, for the operator to add to the memory directory and sync (the hub stores no item
     * here: memory is what a sync loads).
     * A named operator other than the proposer decides. The record's source type is `human` (the
     * operator's promotion is what vouches for it), its source ref names the candidate, proposer
     * and promoter.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_MEMORY_CANDIDATE_NOT_FOUND): no candidate of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_MEMORY_CANDIDATE_NOT_PROMOTABLE): the candidate was decided
     *   already, or this operator proposed it (metadata: status, proposedBy).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): a malformed record id, authority or
     *   candidate id, or a record the candidate cannot make (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_FIELD): a confidence the contract does not define.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): `_shared` named as the project.
     * </pre>
     */
    public void promoteMemory(dev.kxm.v1.PromoteMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.PromoteMemoryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getPromoteMemoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * RejectMemory closes an open candidate without promoting it (any operator, its proposer too).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_MEMORY_CANDIDATE_NOT_FOUND): no candidate of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_MEMORY_CANDIDATE_NOT_PROMOTABLE): it was decided already.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): a malformed candidate id, or a reason
     *   over 1,000 characters (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): `_shared` named as the project.
     * </pre>
     */
    public void rejectMemory(dev.kxm.v1.RejectMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RejectMemoryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRejectMemoryMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service ContextService.
   * <pre>
   * ContextService gives agents their working context: a token-budgeted packet assembled for a role and
   * task from the project's context items, with every item's provenance and authority explicit.
   * Items are keyed by (project, id). `_shared` holds operator defaults every project sees, ranked after
   * the project's own items; only an operator writes it, and no request names it as its project. The
   * origin of what a caller writes comes only from its verified credential (an agent or a project token:
   * `peer`; an operator: `human`), never from a label it writes, and caps the authority it may claim.
   * Every RPC takes `project`: empty means the credential's project; an operator naming no project
   * (`x-kxm-project`) names it here. A caller of one project naming another is refused
   * PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION). Logs carry sizes and ids, never a
   * task, query or summary. See docs/context.md.
   * </pre>
   */
  public static final class ContextServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<ContextServiceBlockingV2Stub> {
    private ContextServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected ContextServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new ContextServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * PutItems validates and stores a batch of items (insert or replace by (project, id)), atomically.
     * An item's empty project is the request's. Summaries and source refs are stored redacted. An item
     * of `_shared` needs an operator.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_ITEM, ERROR_REASON_INVALID_CONTEXT_FIELD): an item
     *   breaks a rule (metadata: index, field); no item of the batch is stored.
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): no items, more than 256, or more than 64
     *   ids in a reference list.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_AUTHORITY_VIOLATION): an item claims an authority or a
     *   source type above what the caller's origin grants.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): an item of another project, or of
     *   `_shared` written by a caller that is not an operator.
     * </pre>
     */
    public dev.kxm.v1.PutItemsResponse putItems(dev.kxm.v1.PutItemsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getPutItemsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetContextPacket assembles the packet of a role and task: the same pool and request give the same
     * packet, audit and packet id, byte for byte.
     * Open state contradictions come first, then the project's items before `_shared` defaults, items
     * sharing a token with the task before the rest, in the role's kind order, by BM25 score, confidence,
     * authority, recency and id; the budget is filled first-fit. The audit names what was chosen and why,
     * never an item's body.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): the request breaks a rule (metadata: field).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.GetContextPacketResponse getContextPacket(dev.kxm.v1.GetContextPacketRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetContextPacketMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Recall finds items by a query: metadata only, never summaries.
     * Phrase hits (an empty query, or the whole query inside the summary or state key, ignoring case)
     * come first, then BM25 score descending, then id; items with neither are left out.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): a query over 500 characters, a limit
     *   outside 0–100, a kind repeated or unknown (metadata: field).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.RecallResponse recall(dev.kxm.v1.RecallRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRecallMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetState says what a single-valued state key held at an instant (now, unless as_of_time is set).
     * Among the key's items active then (current or superseded, valid_from ≤ T &lt; valid_until), the one
     * current item, else the active one that started last; none when nothing was active. A proposal is
     * never current truth.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed key (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_KEY_SET_VALUED): the key is set-valued (ends with `[]`): use
     *   ListStateSet.
     * - FAILED_PRECONDITION (ERROR_REASON_STATE_CONTRADICTION): more than one current item is active
     *   (metadata: stateKey, competingCurrentIds); an operator promotes or rejects to resolve it.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.GetStateResponse getState(dev.kxm.v1.GetStateRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetStateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListStateSet lists the current items of a set-valued state key (one ending with `[]`), by id.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed key (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_KEY_SINGLE_VALUED): the key is single-valued: use GetState.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.ListStateSetResponse listStateSet(dev.kxm.v1.ListStateSetRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListStateSetMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ProposeState proposes a change of a state key: a `proposed` state item, never current truth until
     * an operator other than its proposer promotes it.
     * The proposer is the caller (its agent id, or the operator's name); its origin (`peer` or `human`)
     * comes from its credential and caps the authority it may claim. With request_id, a retry returns the
     * proposal it made.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST, ERROR_REASON_INVALID_CONTEXT_ITEM): an empty
     *   key or summary, or a text over its limit (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_PROMOTION_INVALID): no evidence ref, or more than 32.
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): more than 63 supersedes ids (64 for a
     *   set-valued key: a single-valued key's promotion adds the item it closes; metadata: field, limit).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_AUTHORITY_VIOLATION): an authority above the origin's.
     * - PERMISSION_DENIED (ERROR_REASON_STATE_PROPOSER_MISMATCH): proposed_by names someone else.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another proposal.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.ProposeStateResponse proposeState(dev.kxm.v1.ProposeStateRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getProposeStateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * PromoteState makes a proposal current truth: a new current item is minted (the proposal and every
     * item of a single-valued key active now are superseded by it) and the proposal is closed.
     * A named operator other than the proposer decides, with evidence. Promoting the same proposal again
     * with the same evidence returns the first promotion.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * - NOT_FOUND (ERROR_REASON_STATE_PROPOSAL_NOT_FOUND): no state proposal of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_STATE_PROPOSAL_NOT_PROMOTABLE): the proposal was decided already
     *   (metadata: status, promotedItemId when it was promoted).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_PROMOTION_INVALID): no evidence ref, more than 32, or the
     *   operator is the proposer.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed proposal id.
     * </pre>
     */
    public dev.kxm.v1.PromoteStateResponse promoteState(dev.kxm.v1.PromoteStateRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getPromoteStateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RejectState closes a proposal without promoting it.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * - NOT_FOUND (ERROR_REASON_STATE_PROPOSAL_NOT_FOUND): no state proposal of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_STATE_PROPOSAL_NOT_PROMOTABLE): the proposal was decided already.
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_PROMOTION_INVALID): a reason over 1,000 characters.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed proposal id.
     * </pre>
     */
    public dev.kxm.v1.RejectStateResponse rejectState(dev.kxm.v1.RejectStateRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRejectStateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListEpisodes lists the project's episodes: its runs' journal entries of the error, lesson,
     * observation and experiment categories as context items, oldest first, at most 50.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): a malformed run id (metadata: field).
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): workflow_run_id names no run of the project (another
     *   project's run reads as none).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.ListEpisodesResponse listEpisodes(dev.kxm.v1.ListEpisodesRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListEpisodesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ExplainItem says where an item came from: its lineage and evidence refs, and the source of it and
     * of each ancestor in the pool. Metadata only; an unknown id is found = false, not an error.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): an empty or malformed item id.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.ExplainItemResponse explainItem(dev.kxm.v1.ExplainItemRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getExplainItemMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * DeleteItems removes items of a project (or of `_shared`, with shared = true) and their index entries.
     * Unknown ids are not an error: the response counts what was removed.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared` named as the
     *   project (`_shared`'s items are deleted with shared = true).
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): no id, or more than 256.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): an empty or malformed id.
     * </pre>
     */
    public dev.kxm.v1.DeleteItemsResponse deleteItems(dev.kxm.v1.DeleteItemsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getDeleteItemsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * CreateSkill stores a skill candidate: a SKILL.md of the project, evaluated and promoted before any
     * packet carries it (spec §5.12).
     * The content is redacted and its front matter ensured (`name`, and `description`, by default
     * "Governed skill for &lt;name&gt;"); content_sha256 is the SHA-256 of that final text, and the id the
     * slug of the name (lower case, runs of other characters `-`, at most 40) `.` the hash's first 12
     * hex digits. The author (created_by) is the caller: its agent id, the operator's name, or the
     * project token's identity.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a name, description, content, harness,
     *   model, version or supersedes breaking its rule (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_FRONTMATTER): the content opens a front matter
     *   block (`---`) that never closes, or whose lines are not `key: value`.
     * - INVALID_ARGUMENT (ERROR_REASON_SKILL_SOURCES_REQUIRED): no run id, journal entry id or evidence
     *   receipt, or more than 32 of one kind.
     * - ALREADY_EXISTS (ERROR_REASON_SKILL_CANDIDATE_EXISTS): a skill of the project has this content
     *   (metadata: skillId).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.CreateSkillResponse createSkill(dev.kxm.v1.CreateSkillRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCreateSkillMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * EvaluateSkill records an operator's evaluation of a candidate: its kind, whether it passed, and
     * details (at most 2,000 characters, stored redacted).
     * A failed functional or safety evaluation quarantines the skill (an event by `evaluator`). The
     * optimization kind is refused unless the hub runs with --skill-optimization on.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id, an unset or unknown
     *   kind, details over 2,000 characters (metadata: field).
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_OPTIMIZATION_DISABLED): an optimization evaluation on a
     *   hub without --skill-optimization on.
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill is not a candidate (metadata:
     *   state).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.EvaluateSkillResponse evaluateSkill(dev.kxm.v1.EvaluateSkillRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getEvaluateSkillMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * PromoteSkill makes a candidate a promoted skill: from then on the packets of the project carry it
     * as the context item `skill_&lt;id&gt;` (kind skill, authority instruction), while its content still
     * hashes to content_sha256.
     * A named operator other than its author decides, with evidence, once the latest evaluation of each
     * of static-review, sandbox, functional and safety passed and the content verifies.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_SKILL_PROMOTION_INVALID): no evidence ref, more than 32, one
     *   malformed, or the operator is the author.
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill is not a candidate (metadata:
     *   state).
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_EVALUATIONS_INCOMPLETE): a required kind has no passing
     *   latest evaluation (metadata: missing, failed).
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_INTEGRITY_VIOLATION): the stored content no longer
     *   hashes to content_sha256.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_SKILL_FRONTMATTER): the stored content has no
     *   non-empty name or description in its front matter.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.PromoteSkillResponse promoteSkill(dev.kxm.v1.PromoteSkillRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getPromoteSkillMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RejectSkill closes a candidate or a quarantined skill without promoting it, or retires a promoted
     * one: its context item is closed (rejected), so packets no longer carry it.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id, a reason over 1,000
     *   characters (metadata: field).
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill is rejected already
     *   (metadata: state).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.RejectSkillResponse rejectSkill(dev.kxm.v1.RejectSkillRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRejectSkillMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetSkill returns a skill of the project with its whole history, oldest event first.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id (metadata: field).
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.GetSkillResponse getSkill(dev.kxm.v1.GetSkillRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetSkillMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListSkills lists the project's skills (of one state, if asked) by id, without their content.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): an unknown state (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a negative page size.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or of another query.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.ListSkillsResponse listSkills(dev.kxm.v1.ListSkillsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListSkillsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * SyncMemory replaces the project's memory records with the files sent: an operator's load of a
     * checkout's `.kxm/memory` (`kxm context memory sync DIR`), atomically.
     * Each file is Markdown with YAML front matter (`kxm.memory.v1`); every file is parsed and checked
     * before anything is written, and one bad file refuses the whole sync. An `active` record of
     * `project` scope becomes the project's item `mem_&lt;id&gt;`, of `operator` scope a `_shared` item
     * (which this project then owns); `agent` and `run` scope records and inactive ones are counted,
     * not stored. The project's memory items (and the `_shared` ones its earlier syncs wrote) that the
     * new set no longer has are removed. The operator's credential, not the file, grants the
     * `instruction` authority. A sync whose revision equals the stored one rewrites nothing
     * (unchanged = true).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): a file is not a valid memory record, or
     *   two files have the same path or record id (metadata: path, index, field).
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): no file without allow_empty, more
     *   than 128, a file over 16 KiB, or more than 192 KiB in all (metadata: field, limit).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_AUTHORITY_VIOLATION): a file carries a control-plane
     *   field, or claims an authority above its source type's (metadata: path, index, field).
     * - FAILED_PRECONDITION (ERROR_REASON_MEMORY_RECORD_OWNED): an operator-scope record's `_shared`
     *   item is another project's memory, or not memory at all (metadata: path, index, itemId, owner).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): `_shared` named as the project.
     * </pre>
     */
    public dev.kxm.v1.SyncMemoryResponse syncMemory(dev.kxm.v1.SyncMemoryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSyncMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListMemory lists the project's memory records as its last sync stored them (and the `_shared`
     * ones it owns): metadata only, never a summary, and the current memory revision; then the
     * project's open memory candidates (review material, with their summaries).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.ListMemoryResponse listMemory(dev.kxm.v1.ListMemoryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ProposeMemory notes a memory candidate: a fact an agent (or anyone of the project) learned,
     * kept for an operator's review. A candidate is never context: no packet, recall or explanation
     * sees it until an operator promotes it into a record file and syncs it.
     * The proposer is the caller; its origin (`peer` or `human`) comes from its credential. At most
     * 64 candidates of a project are open at once.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): an empty or over-long summary or kind,
     *   or a malformed evidence ref (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): more than 64 evidence refs.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_FIELD): a scope the contract does not define.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): 64 candidates of the project are
     *   open: an operator promotes or rejects some first (metadata: limit).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.ProposeMemoryResponse proposeMemory(dev.kxm.v1.ProposeMemoryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getProposeMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * PromoteMemory closes an open candidate as promoted and returns the `kxm.memory.v1` record file
     * it becomes, for the operator to add to the memory directory and sync (the hub stores no item
     * here: memory is what a sync loads).
     * A named operator other than the proposer decides. The record's source type is `human` (the
     * operator's promotion is what vouches for it), its source ref names the candidate, proposer
     * and promoter.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_MEMORY_CANDIDATE_NOT_FOUND): no candidate of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_MEMORY_CANDIDATE_NOT_PROMOTABLE): the candidate was decided
     *   already, or this operator proposed it (metadata: status, proposedBy).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): a malformed record id, authority or
     *   candidate id, or a record the candidate cannot make (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_FIELD): a confidence the contract does not define.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): `_shared` named as the project.
     * </pre>
     */
    public dev.kxm.v1.PromoteMemoryResponse promoteMemory(dev.kxm.v1.PromoteMemoryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getPromoteMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RejectMemory closes an open candidate without promoting it (any operator, its proposer too).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_MEMORY_CANDIDATE_NOT_FOUND): no candidate of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_MEMORY_CANDIDATE_NOT_PROMOTABLE): it was decided already.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): a malformed candidate id, or a reason
     *   over 1,000 characters (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): `_shared` named as the project.
     * </pre>
     */
    public dev.kxm.v1.RejectMemoryResponse rejectMemory(dev.kxm.v1.RejectMemoryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRejectMemoryMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service ContextService.
   * <pre>
   * ContextService gives agents their working context: a token-budgeted packet assembled for a role and
   * task from the project's context items, with every item's provenance and authority explicit.
   * Items are keyed by (project, id). `_shared` holds operator defaults every project sees, ranked after
   * the project's own items; only an operator writes it, and no request names it as its project. The
   * origin of what a caller writes comes only from its verified credential (an agent or a project token:
   * `peer`; an operator: `human`), never from a label it writes, and caps the authority it may claim.
   * Every RPC takes `project`: empty means the credential's project; an operator naming no project
   * (`x-kxm-project`) names it here. A caller of one project naming another is refused
   * PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION). Logs carry sizes and ids, never a
   * task, query or summary. See docs/context.md.
   * </pre>
   */
  public static final class ContextServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<ContextServiceBlockingStub> {
    private ContextServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected ContextServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new ContextServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * PutItems validates and stores a batch of items (insert or replace by (project, id)), atomically.
     * An item's empty project is the request's. Summaries and source refs are stored redacted. An item
     * of `_shared` needs an operator.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_ITEM, ERROR_REASON_INVALID_CONTEXT_FIELD): an item
     *   breaks a rule (metadata: index, field); no item of the batch is stored.
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): no items, more than 256, or more than 64
     *   ids in a reference list.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_AUTHORITY_VIOLATION): an item claims an authority or a
     *   source type above what the caller's origin grants.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): an item of another project, or of
     *   `_shared` written by a caller that is not an operator.
     * </pre>
     */
    public dev.kxm.v1.PutItemsResponse putItems(dev.kxm.v1.PutItemsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getPutItemsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetContextPacket assembles the packet of a role and task: the same pool and request give the same
     * packet, audit and packet id, byte for byte.
     * Open state contradictions come first, then the project's items before `_shared` defaults, items
     * sharing a token with the task before the rest, in the role's kind order, by BM25 score, confidence,
     * authority, recency and id; the budget is filled first-fit. The audit names what was chosen and why,
     * never an item's body.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): the request breaks a rule (metadata: field).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.GetContextPacketResponse getContextPacket(dev.kxm.v1.GetContextPacketRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetContextPacketMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Recall finds items by a query: metadata only, never summaries.
     * Phrase hits (an empty query, or the whole query inside the summary or state key, ignoring case)
     * come first, then BM25 score descending, then id; items with neither are left out.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): a query over 500 characters, a limit
     *   outside 0–100, a kind repeated or unknown (metadata: field).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.RecallResponse recall(dev.kxm.v1.RecallRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRecallMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetState says what a single-valued state key held at an instant (now, unless as_of_time is set).
     * Among the key's items active then (current or superseded, valid_from ≤ T &lt; valid_until), the one
     * current item, else the active one that started last; none when nothing was active. A proposal is
     * never current truth.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed key (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_KEY_SET_VALUED): the key is set-valued (ends with `[]`): use
     *   ListStateSet.
     * - FAILED_PRECONDITION (ERROR_REASON_STATE_CONTRADICTION): more than one current item is active
     *   (metadata: stateKey, competingCurrentIds); an operator promotes or rejects to resolve it.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.GetStateResponse getState(dev.kxm.v1.GetStateRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetStateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListStateSet lists the current items of a set-valued state key (one ending with `[]`), by id.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed key (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_KEY_SINGLE_VALUED): the key is single-valued: use GetState.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.ListStateSetResponse listStateSet(dev.kxm.v1.ListStateSetRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListStateSetMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ProposeState proposes a change of a state key: a `proposed` state item, never current truth until
     * an operator other than its proposer promotes it.
     * The proposer is the caller (its agent id, or the operator's name); its origin (`peer` or `human`)
     * comes from its credential and caps the authority it may claim. With request_id, a retry returns the
     * proposal it made.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST, ERROR_REASON_INVALID_CONTEXT_ITEM): an empty
     *   key or summary, or a text over its limit (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_PROMOTION_INVALID): no evidence ref, or more than 32.
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): more than 63 supersedes ids (64 for a
     *   set-valued key: a single-valued key's promotion adds the item it closes; metadata: field, limit).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_AUTHORITY_VIOLATION): an authority above the origin's.
     * - PERMISSION_DENIED (ERROR_REASON_STATE_PROPOSER_MISMATCH): proposed_by names someone else.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another proposal.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.ProposeStateResponse proposeState(dev.kxm.v1.ProposeStateRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getProposeStateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * PromoteState makes a proposal current truth: a new current item is minted (the proposal and every
     * item of a single-valued key active now are superseded by it) and the proposal is closed.
     * A named operator other than the proposer decides, with evidence. Promoting the same proposal again
     * with the same evidence returns the first promotion.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * - NOT_FOUND (ERROR_REASON_STATE_PROPOSAL_NOT_FOUND): no state proposal of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_STATE_PROPOSAL_NOT_PROMOTABLE): the proposal was decided already
     *   (metadata: status, promotedItemId when it was promoted).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_PROMOTION_INVALID): no evidence ref, more than 32, or the
     *   operator is the proposer.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed proposal id.
     * </pre>
     */
    public dev.kxm.v1.PromoteStateResponse promoteState(dev.kxm.v1.PromoteStateRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getPromoteStateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RejectState closes a proposal without promoting it.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * - NOT_FOUND (ERROR_REASON_STATE_PROPOSAL_NOT_FOUND): no state proposal of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_STATE_PROPOSAL_NOT_PROMOTABLE): the proposal was decided already.
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_PROMOTION_INVALID): a reason over 1,000 characters.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed proposal id.
     * </pre>
     */
    public dev.kxm.v1.RejectStateResponse rejectState(dev.kxm.v1.RejectStateRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRejectStateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListEpisodes lists the project's episodes: its runs' journal entries of the error, lesson,
     * observation and experiment categories as context items, oldest first, at most 50.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): a malformed run id (metadata: field).
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): workflow_run_id names no run of the project (another
     *   project's run reads as none).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.ListEpisodesResponse listEpisodes(dev.kxm.v1.ListEpisodesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListEpisodesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ExplainItem says where an item came from: its lineage and evidence refs, and the source of it and
     * of each ancestor in the pool. Metadata only; an unknown id is found = false, not an error.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): an empty or malformed item id.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.ExplainItemResponse explainItem(dev.kxm.v1.ExplainItemRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getExplainItemMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * DeleteItems removes items of a project (or of `_shared`, with shared = true) and their index entries.
     * Unknown ids are not an error: the response counts what was removed.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared` named as the
     *   project (`_shared`'s items are deleted with shared = true).
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): no id, or more than 256.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): an empty or malformed id.
     * </pre>
     */
    public dev.kxm.v1.DeleteItemsResponse deleteItems(dev.kxm.v1.DeleteItemsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteItemsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * CreateSkill stores a skill candidate: a SKILL.md of the project, evaluated and promoted before any
     * packet carries it (spec §5.12).
     * The content is redacted and its front matter ensured (`name`, and `description`, by default
     * "Governed skill for &lt;name&gt;"); content_sha256 is the SHA-256 of that final text, and the id the
     * slug of the name (lower case, runs of other characters `-`, at most 40) `.` the hash's first 12
     * hex digits. The author (created_by) is the caller: its agent id, the operator's name, or the
     * project token's identity.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a name, description, content, harness,
     *   model, version or supersedes breaking its rule (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_FRONTMATTER): the content opens a front matter
     *   block (`---`) that never closes, or whose lines are not `key: value`.
     * - INVALID_ARGUMENT (ERROR_REASON_SKILL_SOURCES_REQUIRED): no run id, journal entry id or evidence
     *   receipt, or more than 32 of one kind.
     * - ALREADY_EXISTS (ERROR_REASON_SKILL_CANDIDATE_EXISTS): a skill of the project has this content
     *   (metadata: skillId).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.CreateSkillResponse createSkill(dev.kxm.v1.CreateSkillRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateSkillMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * EvaluateSkill records an operator's evaluation of a candidate: its kind, whether it passed, and
     * details (at most 2,000 characters, stored redacted).
     * A failed functional or safety evaluation quarantines the skill (an event by `evaluator`). The
     * optimization kind is refused unless the hub runs with --skill-optimization on.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id, an unset or unknown
     *   kind, details over 2,000 characters (metadata: field).
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_OPTIMIZATION_DISABLED): an optimization evaluation on a
     *   hub without --skill-optimization on.
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill is not a candidate (metadata:
     *   state).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.EvaluateSkillResponse evaluateSkill(dev.kxm.v1.EvaluateSkillRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getEvaluateSkillMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * PromoteSkill makes a candidate a promoted skill: from then on the packets of the project carry it
     * as the context item `skill_&lt;id&gt;` (kind skill, authority instruction), while its content still
     * hashes to content_sha256.
     * A named operator other than its author decides, with evidence, once the latest evaluation of each
     * of static-review, sandbox, functional and safety passed and the content verifies.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_SKILL_PROMOTION_INVALID): no evidence ref, more than 32, one
     *   malformed, or the operator is the author.
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill is not a candidate (metadata:
     *   state).
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_EVALUATIONS_INCOMPLETE): a required kind has no passing
     *   latest evaluation (metadata: missing, failed).
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_INTEGRITY_VIOLATION): the stored content no longer
     *   hashes to content_sha256.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_SKILL_FRONTMATTER): the stored content has no
     *   non-empty name or description in its front matter.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.PromoteSkillResponse promoteSkill(dev.kxm.v1.PromoteSkillRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getPromoteSkillMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RejectSkill closes a candidate or a quarantined skill without promoting it, or retires a promoted
     * one: its context item is closed (rejected), so packets no longer carry it.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id, a reason over 1,000
     *   characters (metadata: field).
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill is rejected already
     *   (metadata: state).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.RejectSkillResponse rejectSkill(dev.kxm.v1.RejectSkillRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRejectSkillMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetSkill returns a skill of the project with its whole history, oldest event first.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id (metadata: field).
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.GetSkillResponse getSkill(dev.kxm.v1.GetSkillRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetSkillMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListSkills lists the project's skills (of one state, if asked) by id, without their content.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): an unknown state (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a negative page size.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or of another query.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.ListSkillsResponse listSkills(dev.kxm.v1.ListSkillsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListSkillsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * SyncMemory replaces the project's memory records with the files sent: an operator's load of a
     * checkout's `.kxm/memory` (`kxm context memory sync DIR`), atomically.
     * Each file is Markdown with YAML front matter (`kxm.memory.v1`); every file is parsed and checked
     * before anything is written, and one bad file refuses the whole sync. An `active` record of
     * `project` scope becomes the project's item `mem_&lt;id&gt;`, of `operator` scope a `_shared` item
     * (which this project then owns); `agent` and `run` scope records and inactive ones are counted,
     * not stored. The project's memory items (and the `_shared` ones its earlier syncs wrote) that the
     * new set no longer has are removed. The operator's credential, not the file, grants the
     * `instruction` authority. A sync whose revision equals the stored one rewrites nothing
     * (unchanged = true).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): a file is not a valid memory record, or
     *   two files have the same path or record id (metadata: path, index, field).
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): no file without allow_empty, more
     *   than 128, a file over 16 KiB, or more than 192 KiB in all (metadata: field, limit).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_AUTHORITY_VIOLATION): a file carries a control-plane
     *   field, or claims an authority above its source type's (metadata: path, index, field).
     * - FAILED_PRECONDITION (ERROR_REASON_MEMORY_RECORD_OWNED): an operator-scope record's `_shared`
     *   item is another project's memory, or not memory at all (metadata: path, index, itemId, owner).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): `_shared` named as the project.
     * </pre>
     */
    public dev.kxm.v1.SyncMemoryResponse syncMemory(dev.kxm.v1.SyncMemoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSyncMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListMemory lists the project's memory records as its last sync stored them (and the `_shared`
     * ones it owns): metadata only, never a summary, and the current memory revision; then the
     * project's open memory candidates (review material, with their summaries).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.ListMemoryResponse listMemory(dev.kxm.v1.ListMemoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ProposeMemory notes a memory candidate: a fact an agent (or anyone of the project) learned,
     * kept for an operator's review. A candidate is never context: no packet, recall or explanation
     * sees it until an operator promotes it into a record file and syncs it.
     * The proposer is the caller; its origin (`peer` or `human`) comes from its credential. At most
     * 64 candidates of a project are open at once.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): an empty or over-long summary or kind,
     *   or a malformed evidence ref (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): more than 64 evidence refs.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_FIELD): a scope the contract does not define.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): 64 candidates of the project are
     *   open: an operator promotes or rejects some first (metadata: limit).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public dev.kxm.v1.ProposeMemoryResponse proposeMemory(dev.kxm.v1.ProposeMemoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getProposeMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * PromoteMemory closes an open candidate as promoted and returns the `kxm.memory.v1` record file
     * it becomes, for the operator to add to the memory directory and sync (the hub stores no item
     * here: memory is what a sync loads).
     * A named operator other than the proposer decides. The record's source type is `human` (the
     * operator's promotion is what vouches for it), its source ref names the candidate, proposer
     * and promoter.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_MEMORY_CANDIDATE_NOT_FOUND): no candidate of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_MEMORY_CANDIDATE_NOT_PROMOTABLE): the candidate was decided
     *   already, or this operator proposed it (metadata: status, proposedBy).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): a malformed record id, authority or
     *   candidate id, or a record the candidate cannot make (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_FIELD): a confidence the contract does not define.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): `_shared` named as the project.
     * </pre>
     */
    public dev.kxm.v1.PromoteMemoryResponse promoteMemory(dev.kxm.v1.PromoteMemoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getPromoteMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RejectMemory closes an open candidate without promoting it (any operator, its proposer too).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_MEMORY_CANDIDATE_NOT_FOUND): no candidate of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_MEMORY_CANDIDATE_NOT_PROMOTABLE): it was decided already.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): a malformed candidate id, or a reason
     *   over 1,000 characters (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): `_shared` named as the project.
     * </pre>
     */
    public dev.kxm.v1.RejectMemoryResponse rejectMemory(dev.kxm.v1.RejectMemoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRejectMemoryMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service ContextService.
   * <pre>
   * ContextService gives agents their working context: a token-budgeted packet assembled for a role and
   * task from the project's context items, with every item's provenance and authority explicit.
   * Items are keyed by (project, id). `_shared` holds operator defaults every project sees, ranked after
   * the project's own items; only an operator writes it, and no request names it as its project. The
   * origin of what a caller writes comes only from its verified credential (an agent or a project token:
   * `peer`; an operator: `human`), never from a label it writes, and caps the authority it may claim.
   * Every RPC takes `project`: empty means the credential's project; an operator naming no project
   * (`x-kxm-project`) names it here. A caller of one project naming another is refused
   * PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION). Logs carry sizes and ids, never a
   * task, query or summary. See docs/context.md.
   * </pre>
   */
  public static final class ContextServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<ContextServiceFutureStub> {
    private ContextServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected ContextServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new ContextServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * PutItems validates and stores a batch of items (insert or replace by (project, id)), atomically.
     * An item's empty project is the request's. Summaries and source refs are stored redacted. An item
     * of `_shared` needs an operator.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_ITEM, ERROR_REASON_INVALID_CONTEXT_FIELD): an item
     *   breaks a rule (metadata: index, field); no item of the batch is stored.
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): no items, more than 256, or more than 64
     *   ids in a reference list.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_AUTHORITY_VIOLATION): an item claims an authority or a
     *   source type above what the caller's origin grants.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): an item of another project, or of
     *   `_shared` written by a caller that is not an operator.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.PutItemsResponse> putItems(
        dev.kxm.v1.PutItemsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getPutItemsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * GetContextPacket assembles the packet of a role and task: the same pool and request give the same
     * packet, audit and packet id, byte for byte.
     * Open state contradictions come first, then the project's items before `_shared` defaults, items
     * sharing a token with the task before the rest, in the role's kind order, by BM25 score, confidence,
     * authority, recency and id; the budget is filled first-fit. The audit names what was chosen and why,
     * never an item's body.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): the request breaks a rule (metadata: field).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.GetContextPacketResponse> getContextPacket(
        dev.kxm.v1.GetContextPacketRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetContextPacketMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Recall finds items by a query: metadata only, never summaries.
     * Phrase hits (an empty query, or the whole query inside the summary or state key, ignoring case)
     * come first, then BM25 score descending, then id; items with neither are left out.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): a query over 500 characters, a limit
     *   outside 0–100, a kind repeated or unknown (metadata: field).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RecallResponse> recall(
        dev.kxm.v1.RecallRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRecallMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * GetState says what a single-valued state key held at an instant (now, unless as_of_time is set).
     * Among the key's items active then (current or superseded, valid_from ≤ T &lt; valid_until), the one
     * current item, else the active one that started last; none when nothing was active. A proposal is
     * never current truth.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed key (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_KEY_SET_VALUED): the key is set-valued (ends with `[]`): use
     *   ListStateSet.
     * - FAILED_PRECONDITION (ERROR_REASON_STATE_CONTRADICTION): more than one current item is active
     *   (metadata: stateKey, competingCurrentIds); an operator promotes or rejects to resolve it.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.GetStateResponse> getState(
        dev.kxm.v1.GetStateRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetStateMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListStateSet lists the current items of a set-valued state key (one ending with `[]`), by id.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed key (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_KEY_SINGLE_VALUED): the key is single-valued: use GetState.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListStateSetResponse> listStateSet(
        dev.kxm.v1.ListStateSetRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListStateSetMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ProposeState proposes a change of a state key: a `proposed` state item, never current truth until
     * an operator other than its proposer promotes it.
     * The proposer is the caller (its agent id, or the operator's name); its origin (`peer` or `human`)
     * comes from its credential and caps the authority it may claim. With request_id, a retry returns the
     * proposal it made.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST, ERROR_REASON_INVALID_CONTEXT_ITEM): an empty
     *   key or summary, or a text over its limit (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_PROMOTION_INVALID): no evidence ref, or more than 32.
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): more than 63 supersedes ids (64 for a
     *   set-valued key: a single-valued key's promotion adds the item it closes; metadata: field, limit).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_AUTHORITY_VIOLATION): an authority above the origin's.
     * - PERMISSION_DENIED (ERROR_REASON_STATE_PROPOSER_MISMATCH): proposed_by names someone else.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another proposal.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ProposeStateResponse> proposeState(
        dev.kxm.v1.ProposeStateRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getProposeStateMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * PromoteState makes a proposal current truth: a new current item is minted (the proposal and every
     * item of a single-valued key active now are superseded by it) and the proposal is closed.
     * A named operator other than the proposer decides, with evidence. Promoting the same proposal again
     * with the same evidence returns the first promotion.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * - NOT_FOUND (ERROR_REASON_STATE_PROPOSAL_NOT_FOUND): no state proposal of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_STATE_PROPOSAL_NOT_PROMOTABLE): the proposal was decided already
     *   (metadata: status, promotedItemId when it was promoted).
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_PROMOTION_INVALID): no evidence ref, more than 32, or the
     *   operator is the proposer.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed proposal id.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.PromoteStateResponse> promoteState(
        dev.kxm.v1.PromoteStateRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getPromoteStateMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * RejectState closes a proposal without promoting it.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * - NOT_FOUND (ERROR_REASON_STATE_PROPOSAL_NOT_FOUND): no state proposal of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_STATE_PROPOSAL_NOT_PROMOTABLE): the proposal was decided already.
     * - INVALID_ARGUMENT (ERROR_REASON_STATE_PROMOTION_INVALID): a reason over 1,000 characters.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_STATE_REQUEST): an empty or malformed proposal id.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RejectStateResponse> rejectState(
        dev.kxm.v1.RejectStateRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRejectStateMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListEpisodes lists the project's episodes: its runs' journal entries of the error, lesson,
     * observation and experiment categories as context items, oldest first, at most 50.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): a malformed run id (metadata: field).
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): workflow_run_id names no run of the project (another
     *   project's run reads as none).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListEpisodesResponse> listEpisodes(
        dev.kxm.v1.ListEpisodesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListEpisodesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ExplainItem says where an item came from: its lineage and evidence refs, and the source of it and
     * of each ancestor in the pool. Metadata only; an unknown id is found = false, not an error.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): an empty or malformed item id.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ExplainItemResponse> explainItem(
        dev.kxm.v1.ExplainItemRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getExplainItemMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * DeleteItems removes items of a project (or of `_shared`, with shared = true) and their index entries.
     * Unknown ids are not an error: the response counts what was removed.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared` named as the
     *   project (`_shared`'s items are deleted with shared = true).
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): no id, or more than 256.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): an empty or malformed id.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.DeleteItemsResponse> deleteItems(
        dev.kxm.v1.DeleteItemsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteItemsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * CreateSkill stores a skill candidate: a SKILL.md of the project, evaluated and promoted before any
     * packet carries it (spec §5.12).
     * The content is redacted and its front matter ensured (`name`, and `description`, by default
     * "Governed skill for &lt;name&gt;"); content_sha256 is the SHA-256 of that final text, and the id the
     * slug of the name (lower case, runs of other characters `-`, at most 40) `.` the hash's first 12
     * hex digits. The author (created_by) is the caller: its agent id, the operator's name, or the
     * project token's identity.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a name, description, content, harness,
     *   model, version or supersedes breaking its rule (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_FRONTMATTER): the content opens a front matter
     *   block (`---`) that never closes, or whose lines are not `key: value`.
     * - INVALID_ARGUMENT (ERROR_REASON_SKILL_SOURCES_REQUIRED): no run id, journal entry id or evidence
     *   receipt, or more than 32 of one kind.
     * - ALREADY_EXISTS (ERROR_REASON_SKILL_CANDIDATE_EXISTS): a skill of the project has this content
     *   (metadata: skillId).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.CreateSkillResponse> createSkill(
        dev.kxm.v1.CreateSkillRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateSkillMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * EvaluateSkill records an operator's evaluation of a candidate: its kind, whether it passed, and
     * details (at most 2,000 characters, stored redacted).
     * A failed functional or safety evaluation quarantines the skill (an event by `evaluator`). The
     * optimization kind is refused unless the hub runs with --skill-optimization on.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id, an unset or unknown
     *   kind, details over 2,000 characters (metadata: field).
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_OPTIMIZATION_DISABLED): an optimization evaluation on a
     *   hub without --skill-optimization on.
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill is not a candidate (metadata:
     *   state).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.EvaluateSkillResponse> evaluateSkill(
        dev.kxm.v1.EvaluateSkillRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getEvaluateSkillMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * PromoteSkill makes a candidate a promoted skill: from then on the packets of the project carry it
     * as the context item `skill_&lt;id&gt;` (kind skill, authority instruction), while its content still
     * hashes to content_sha256.
     * A named operator other than its author decides, with evidence, once the latest evaluation of each
     * of static-review, sandbox, functional and safety passed and the content verifies.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_SKILL_PROMOTION_INVALID): no evidence ref, more than 32, one
     *   malformed, or the operator is the author.
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill is not a candidate (metadata:
     *   state).
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_EVALUATIONS_INCOMPLETE): a required kind has no passing
     *   latest evaluation (metadata: missing, failed).
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_INTEGRITY_VIOLATION): the stored content no longer
     *   hashes to content_sha256.
     * - FAILED_PRECONDITION (ERROR_REASON_INVALID_SKILL_FRONTMATTER): the stored content has no
     *   non-empty name or description in its front matter.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.PromoteSkillResponse> promoteSkill(
        dev.kxm.v1.PromoteSkillRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getPromoteSkillMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * RejectSkill closes a candidate or a quarantined skill without promoting it, or retires a promoted
     * one: its context item is closed (rejected), so packets no longer carry it.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id, a reason over 1,000
     *   characters (metadata: field).
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill is rejected already
     *   (metadata: state).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RejectSkillResponse> rejectSkill(
        dev.kxm.v1.RejectSkillRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRejectSkillMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * GetSkill returns a skill of the project with its whole history, oldest event first.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): a malformed skill id (metadata: field).
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the project has this id.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.GetSkillResponse> getSkill(
        dev.kxm.v1.GetSkillRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetSkillMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListSkills lists the project's skills (of one state, if asked) by id, without their content.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): an unknown state (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a negative page size.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or of another query.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListSkillsResponse> listSkills(
        dev.kxm.v1.ListSkillsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListSkillsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * SyncMemory replaces the project's memory records with the files sent: an operator's load of a
     * checkout's `.kxm/memory` (`kxm context memory sync DIR`), atomically.
     * Each file is Markdown with YAML front matter (`kxm.memory.v1`); every file is parsed and checked
     * before anything is written, and one bad file refuses the whole sync. An `active` record of
     * `project` scope becomes the project's item `mem_&lt;id&gt;`, of `operator` scope a `_shared` item
     * (which this project then owns); `agent` and `run` scope records and inactive ones are counted,
     * not stored. The project's memory items (and the `_shared` ones its earlier syncs wrote) that the
     * new set no longer has are removed. The operator's credential, not the file, grants the
     * `instruction` authority. A sync whose revision equals the stored one rewrites nothing
     * (unchanged = true).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): a file is not a valid memory record, or
     *   two files have the same path or record id (metadata: path, index, field).
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): no file without allow_empty, more
     *   than 128, a file over 16 KiB, or more than 192 KiB in all (metadata: field, limit).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_AUTHORITY_VIOLATION): a file carries a control-plane
     *   field, or claims an authority above its source type's (metadata: path, index, field).
     * - FAILED_PRECONDITION (ERROR_REASON_MEMORY_RECORD_OWNED): an operator-scope record's `_shared`
     *   item is another project's memory, or not memory at all (metadata: path, index, itemId, owner).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): `_shared` named as the project.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.SyncMemoryResponse> syncMemory(
        dev.kxm.v1.SyncMemoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSyncMemoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListMemory lists the project's memory records as its last sync stored them (and the `_shared`
     * ones it owns): metadata only, never a summary, and the current memory revision; then the
     * project's open memory candidates (review material, with their summaries).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListMemoryResponse> listMemory(
        dev.kxm.v1.ListMemoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListMemoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ProposeMemory notes a memory candidate: a fact an agent (or anyone of the project) learned,
     * kept for an operator's review. A candidate is never context: no packet, recall or explanation
     * sees it until an operator promotes it into a record file and syncs it.
     * The proposer is the caller; its origin (`peer` or `human`) comes from its credential. At most
     * 64 candidates of a project are open at once.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): an empty or over-long summary or kind,
     *   or a malformed evidence ref (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): more than 64 evidence refs.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_FIELD): a scope the contract does not define.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - RESOURCE_EXHAUSTED (ERROR_REASON_CONTEXT_LIMITS_EXCEEDED): 64 candidates of the project are
     *   open: an operator promotes or rejects some first (metadata: limit).
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): another project, or `_shared`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ProposeMemoryResponse> proposeMemory(
        dev.kxm.v1.ProposeMemoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getProposeMemoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * PromoteMemory closes an open candidate as promoted and returns the `kxm.memory.v1` record file
     * it becomes, for the operator to add to the memory directory and sync (the hub stores no item
     * here: memory is what a sync loads).
     * A named operator other than the proposer decides. The record's source type is `human` (the
     * operator's promotion is what vouches for it), its source ref names the candidate, proposer
     * and promoter.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_MEMORY_CANDIDATE_NOT_FOUND): no candidate of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_MEMORY_CANDIDATE_NOT_PROMOTABLE): the candidate was decided
     *   already, or this operator proposed it (metadata: status, proposedBy).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): a malformed record id, authority or
     *   candidate id, or a record the candidate cannot make (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_FIELD): a confidence the contract does not define.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): `_shared` named as the project.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.PromoteMemoryResponse> promoteMemory(
        dev.kxm.v1.PromoteMemoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getPromoteMemoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * RejectMemory closes an open candidate without promoting it (any operator, its proposer too).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_MEMORY_CANDIDATE_NOT_FOUND): no candidate of the project has this id.
     * - FAILED_PRECONDITION (ERROR_REASON_MEMORY_CANDIDATE_NOT_PROMOTABLE): it was decided already.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_MEMORY_RECORD): a malformed candidate id, or a reason
     *   over 1,000 characters (metadata: field).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed project name.
     * - PERMISSION_DENIED (ERROR_REASON_CONTEXT_ISOLATION_VIOLATION): `_shared` named as the project.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RejectMemoryResponse> rejectMemory(
        dev.kxm.v1.RejectMemoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRejectMemoryMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_PUT_ITEMS = 0;
  private static final int METHODID_GET_CONTEXT_PACKET = 1;
  private static final int METHODID_RECALL = 2;
  private static final int METHODID_GET_STATE = 3;
  private static final int METHODID_LIST_STATE_SET = 4;
  private static final int METHODID_PROPOSE_STATE = 5;
  private static final int METHODID_PROMOTE_STATE = 6;
  private static final int METHODID_REJECT_STATE = 7;
  private static final int METHODID_LIST_EPISODES = 8;
  private static final int METHODID_EXPLAIN_ITEM = 9;
  private static final int METHODID_DELETE_ITEMS = 10;
  private static final int METHODID_CREATE_SKILL = 11;
  private static final int METHODID_EVALUATE_SKILL = 12;
  private static final int METHODID_PROMOTE_SKILL = 13;
  private static final int METHODID_REJECT_SKILL = 14;
  private static final int METHODID_GET_SKILL = 15;
  private static final int METHODID_LIST_SKILLS = 16;
  private static final int METHODID_SYNC_MEMORY = 17;
  private static final int METHODID_LIST_MEMORY = 18;
  private static final int METHODID_PROPOSE_MEMORY = 19;
  private static final int METHODID_PROMOTE_MEMORY = 20;
  private static final int METHODID_REJECT_MEMORY = 21;

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
        case METHODID_PUT_ITEMS:
          serviceImpl.putItems((dev.kxm.v1.PutItemsRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.PutItemsResponse>) responseObserver);
          break;
        case METHODID_GET_CONTEXT_PACKET:
          serviceImpl.getContextPacket((dev.kxm.v1.GetContextPacketRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.GetContextPacketResponse>) responseObserver);
          break;
        case METHODID_RECALL:
          serviceImpl.recall((dev.kxm.v1.RecallRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.RecallResponse>) responseObserver);
          break;
        case METHODID_GET_STATE:
          serviceImpl.getState((dev.kxm.v1.GetStateRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.GetStateResponse>) responseObserver);
          break;
        case METHODID_LIST_STATE_SET:
          serviceImpl.listStateSet((dev.kxm.v1.ListStateSetRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListStateSetResponse>) responseObserver);
          break;
        case METHODID_PROPOSE_STATE:
          serviceImpl.proposeState((dev.kxm.v1.ProposeStateRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ProposeStateResponse>) responseObserver);
          break;
        case METHODID_PROMOTE_STATE:
          serviceImpl.promoteState((dev.kxm.v1.PromoteStateRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.PromoteStateResponse>) responseObserver);
          break;
        case METHODID_REJECT_STATE:
          serviceImpl.rejectState((dev.kxm.v1.RejectStateRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.RejectStateResponse>) responseObserver);
          break;
        case METHODID_LIST_EPISODES:
          serviceImpl.listEpisodes((dev.kxm.v1.ListEpisodesRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListEpisodesResponse>) responseObserver);
          break;
        case METHODID_EXPLAIN_ITEM:
          serviceImpl.explainItem((dev.kxm.v1.ExplainItemRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ExplainItemResponse>) responseObserver);
          break;
        case METHODID_DELETE_ITEMS:
          serviceImpl.deleteItems((dev.kxm.v1.DeleteItemsRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.DeleteItemsResponse>) responseObserver);
          break;
        case METHODID_CREATE_SKILL:
          serviceImpl.createSkill((dev.kxm.v1.CreateSkillRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.CreateSkillResponse>) responseObserver);
          break;
        case METHODID_EVALUATE_SKILL:
          serviceImpl.evaluateSkill((dev.kxm.v1.EvaluateSkillRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.EvaluateSkillResponse>) responseObserver);
          break;
        case METHODID_PROMOTE_SKILL:
          serviceImpl.promoteSkill((dev.kxm.v1.PromoteSkillRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.PromoteSkillResponse>) responseObserver);
          break;
        case METHODID_REJECT_SKILL:
          serviceImpl.rejectSkill((dev.kxm.v1.RejectSkillRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.RejectSkillResponse>) responseObserver);
          break;
        case METHODID_GET_SKILL:
          serviceImpl.getSkill((dev.kxm.v1.GetSkillRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.GetSkillResponse>) responseObserver);
          break;
        case METHODID_LIST_SKILLS:
          serviceImpl.listSkills((dev.kxm.v1.ListSkillsRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListSkillsResponse>) responseObserver);
          break;
        case METHODID_SYNC_MEMORY:
          serviceImpl.syncMemory((dev.kxm.v1.SyncMemoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.SyncMemoryResponse>) responseObserver);
          break;
        case METHODID_LIST_MEMORY:
          serviceImpl.listMemory((dev.kxm.v1.ListMemoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListMemoryResponse>) responseObserver);
          break;
        case METHODID_PROPOSE_MEMORY:
          serviceImpl.proposeMemory((dev.kxm.v1.ProposeMemoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ProposeMemoryResponse>) responseObserver);
          break;
        case METHODID_PROMOTE_MEMORY:
          serviceImpl.promoteMemory((dev.kxm.v1.PromoteMemoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.PromoteMemoryResponse>) responseObserver);
          break;
        case METHODID_REJECT_MEMORY:
          serviceImpl.rejectMemory((dev.kxm.v1.RejectMemoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.RejectMemoryResponse>) responseObserver);
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
          getPutItemsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.PutItemsRequest,
              dev.kxm.v1.PutItemsResponse>(
                service, METHODID_PUT_ITEMS)))
        .addMethod(
          getGetContextPacketMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.GetContextPacketRequest,
              dev.kxm.v1.GetContextPacketResponse>(
                service, METHODID_GET_CONTEXT_PACKET)))
        .addMethod(
          getRecallMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.RecallRequest,
              dev.kxm.v1.RecallResponse>(
                service, METHODID_RECALL)))
        .addMethod(
          getGetStateMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.GetStateRequest,
              dev.kxm.v1.GetStateResponse>(
                service, METHODID_GET_STATE)))
        .addMethod(
          getListStateSetMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListStateSetRequest,
              dev.kxm.v1.ListStateSetResponse>(
                service, METHODID_LIST_STATE_SET)))
        .addMethod(
          getProposeStateMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ProposeStateRequest,
              dev.kxm.v1.ProposeStateResponse>(
                service, METHODID_PROPOSE_STATE)))
        .addMethod(
          getPromoteStateMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.PromoteStateRequest,
              dev.kxm.v1.PromoteStateResponse>(
                service, METHODID_PROMOTE_STATE)))
        .addMethod(
          getRejectStateMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.RejectStateRequest,
              dev.kxm.v1.RejectStateResponse>(
                service, METHODID_REJECT_STATE)))
        .addMethod(
          getListEpisodesMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListEpisodesRequest,
              dev.kxm.v1.ListEpisodesResponse>(
                service, METHODID_LIST_EPISODES)))
        .addMethod(
          getExplainItemMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ExplainItemRequest,
              dev.kxm.v1.ExplainItemResponse>(
                service, METHODID_EXPLAIN_ITEM)))
        .addMethod(
          getDeleteItemsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.DeleteItemsRequest,
              dev.kxm.v1.DeleteItemsResponse>(
                service, METHODID_DELETE_ITEMS)))
        .addMethod(
          getCreateSkillMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.CreateSkillRequest,
              dev.kxm.v1.CreateSkillResponse>(
                service, METHODID_CREATE_SKILL)))
        .addMethod(
          getEvaluateSkillMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.EvaluateSkillRequest,
              dev.kxm.v1.EvaluateSkillResponse>(
                service, METHODID_EVALUATE_SKILL)))
        .addMethod(
          getPromoteSkillMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.PromoteSkillRequest,
              dev.kxm.v1.PromoteSkillResponse>(
                service, METHODID_PROMOTE_SKILL)))
        .addMethod(
          getRejectSkillMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.RejectSkillRequest,
              dev.kxm.v1.RejectSkillResponse>(
                service, METHODID_REJECT_SKILL)))
        .addMethod(
          getGetSkillMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.GetSkillRequest,
              dev.kxm.v1.GetSkillResponse>(
                service, METHODID_GET_SKILL)))
        .addMethod(
          getListSkillsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListSkillsRequest,
              dev.kxm.v1.ListSkillsResponse>(
                service, METHODID_LIST_SKILLS)))
        .addMethod(
          getSyncMemoryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.SyncMemoryRequest,
              dev.kxm.v1.SyncMemoryResponse>(
                service, METHODID_SYNC_MEMORY)))
        .addMethod(
          getListMemoryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListMemoryRequest,
              dev.kxm.v1.ListMemoryResponse>(
                service, METHODID_LIST_MEMORY)))
        .addMethod(
          getProposeMemoryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ProposeMemoryRequest,
              dev.kxm.v1.ProposeMemoryResponse>(
                service, METHODID_PROPOSE_MEMORY)))
        .addMethod(
          getPromoteMemoryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.PromoteMemoryRequest,
              dev.kxm.v1.PromoteMemoryResponse>(
                service, METHODID_PROMOTE_MEMORY)))
        .addMethod(
          getRejectMemoryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.RejectMemoryRequest,
              dev.kxm.v1.RejectMemoryResponse>(
                service, METHODID_REJECT_MEMORY)))
        .build();
  }

  private static abstract class ContextServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    ContextServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.kxm.v1.ContextServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("ContextService");
    }
  }

  private static final class ContextServiceFileDescriptorSupplier
      extends ContextServiceBaseDescriptorSupplier {
    ContextServiceFileDescriptorSupplier() {}
  }

  private static final class ContextServiceMethodDescriptorSupplier
      extends ContextServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    ContextServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (ContextServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new ContextServiceFileDescriptorSupplier())
              .addMethod(getPutItemsMethod())
              .addMethod(getGetContextPacketMethod())
              .addMethod(getRecallMethod())
              .addMethod(getGetStateMethod())
              .addMethod(getListStateSetMethod())
              .addMethod(getProposeStateMethod())
              .addMethod(getPromoteStateMethod())
              .addMethod(getRejectStateMethod())
              .addMethod(getListEpisodesMethod())
              .addMethod(getExplainItemMethod())
              .addMethod(getDeleteItemsMethod())
              .addMethod(getCreateSkillMethod())
              .addMethod(getEvaluateSkillMethod())
              .addMethod(getPromoteSkillMethod())
              .addMethod(getRejectSkillMethod())
              .addMethod(getGetSkillMethod())
              .addMethod(getListSkillsMethod())
              .addMethod(getSyncMemoryMethod())
              .addMethod(getListMemoryMethod())
              .addMethod(getProposeMemoryMethod())
              .addMethod(getPromoteMemoryMethod())
              .addMethod(getRejectMemoryMethod())
              .build();
        }
      }
    }
    return result;
  }
}
