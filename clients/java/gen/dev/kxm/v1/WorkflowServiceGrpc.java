package dev.kxm.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * WorkflowService holds durable, evidence-gated workflow runs.
 * An operator registers definitions (stages with required evidence, peer-review policies, typed
 * transitions and budgets). A run starts from a signed webhook (`POST /v1/webhooks/{definition}` on the
 * webhook listener) or StartWorkflowRun; the hub prompts the coordinator agent, which checkpoints each
 * stage with evidence the hub verifies against its own message records. A stage passes only when its
 * evidence and its quorum of distinct eligible producers are met. Long external work waits for a signed
 * signal (`POST /v1/webhooks/{definition}/runs/{run}/signals/{key}`) or SignalWorkflowRun.
 * Coordinator RPCs (Checkpoint, Wait, EscalateStage) need the run's coordinator agent identity; operator
 * RPCs an operator credential; an agent sees only the runs it coordinates, a project token or an
 * operator naming the project every run of the project. Every RPC refuses a run of another project as
 * NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND), so ids of other projects are not disclosed.
 * </pre>
 */
@io.grpc.stub.annotations.GrpcGenerated
public final class WorkflowServiceGrpc {

  private WorkflowServiceGrpc() {}

  public static final java.lang.String SERVICE_NAME = "kxm.v1.WorkflowService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.RegisterWorkflowDefinitionRequest,
      dev.kxm.v1.RegisterWorkflowDefinitionResponse> getRegisterWorkflowDefinitionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RegisterWorkflowDefinition",
      requestType = dev.kxm.v1.RegisterWorkflowDefinitionRequest.class,
      responseType = dev.kxm.v1.RegisterWorkflowDefinitionResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.RegisterWorkflowDefinitionRequest,
      dev.kxm.v1.RegisterWorkflowDefinitionResponse> getRegisterWorkflowDefinitionMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.RegisterWorkflowDefinitionRequest, dev.kxm.v1.RegisterWorkflowDefinitionResponse> getRegisterWorkflowDefinitionMethod;
    if ((getRegisterWorkflowDefinitionMethod = WorkflowServiceGrpc.getRegisterWorkflowDefinitionMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getRegisterWorkflowDefinitionMethod = WorkflowServiceGrpc.getRegisterWorkflowDefinitionMethod) == null) {
          WorkflowServiceGrpc.getRegisterWorkflowDefinitionMethod = getRegisterWorkflowDefinitionMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.RegisterWorkflowDefinitionRequest, dev.kxm.v1.RegisterWorkflowDefinitionResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RegisterWorkflowDefinition"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RegisterWorkflowDefinitionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RegisterWorkflowDefinitionResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("RegisterWorkflowDefinition"))
              .build();
        }
      }
    }
    return getRegisterWorkflowDefinitionMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.GetWorkflowDefinitionRequest,
      dev.kxm.v1.GetWorkflowDefinitionResponse> getGetWorkflowDefinitionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetWorkflowDefinition",
      requestType = dev.kxm.v1.GetWorkflowDefinitionRequest.class,
      responseType = dev.kxm.v1.GetWorkflowDefinitionResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.GetWorkflowDefinitionRequest,
      dev.kxm.v1.GetWorkflowDefinitionResponse> getGetWorkflowDefinitionMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.GetWorkflowDefinitionRequest, dev.kxm.v1.GetWorkflowDefinitionResponse> getGetWorkflowDefinitionMethod;
    if ((getGetWorkflowDefinitionMethod = WorkflowServiceGrpc.getGetWorkflowDefinitionMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getGetWorkflowDefinitionMethod = WorkflowServiceGrpc.getGetWorkflowDefinitionMethod) == null) {
          WorkflowServiceGrpc.getGetWorkflowDefinitionMethod = getGetWorkflowDefinitionMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.GetWorkflowDefinitionRequest, dev.kxm.v1.GetWorkflowDefinitionResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetWorkflowDefinition"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetWorkflowDefinitionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetWorkflowDefinitionResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("GetWorkflowDefinition"))
              .build();
        }
      }
    }
    return getGetWorkflowDefinitionMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListWorkflowDefinitionsRequest,
      dev.kxm.v1.ListWorkflowDefinitionsResponse> getListWorkflowDefinitionsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListWorkflowDefinitions",
      requestType = dev.kxm.v1.ListWorkflowDefinitionsRequest.class,
      responseType = dev.kxm.v1.ListWorkflowDefinitionsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListWorkflowDefinitionsRequest,
      dev.kxm.v1.ListWorkflowDefinitionsResponse> getListWorkflowDefinitionsMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListWorkflowDefinitionsRequest, dev.kxm.v1.ListWorkflowDefinitionsResponse> getListWorkflowDefinitionsMethod;
    if ((getListWorkflowDefinitionsMethod = WorkflowServiceGrpc.getListWorkflowDefinitionsMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getListWorkflowDefinitionsMethod = WorkflowServiceGrpc.getListWorkflowDefinitionsMethod) == null) {
          WorkflowServiceGrpc.getListWorkflowDefinitionsMethod = getListWorkflowDefinitionsMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListWorkflowDefinitionsRequest, dev.kxm.v1.ListWorkflowDefinitionsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListWorkflowDefinitions"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListWorkflowDefinitionsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListWorkflowDefinitionsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("ListWorkflowDefinitions"))
              .build();
        }
      }
    }
    return getListWorkflowDefinitionsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.RegisterGateRegistryRequest,
      dev.kxm.v1.RegisterGateRegistryResponse> getRegisterGateRegistryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RegisterGateRegistry",
      requestType = dev.kxm.v1.RegisterGateRegistryRequest.class,
      responseType = dev.kxm.v1.RegisterGateRegistryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.RegisterGateRegistryRequest,
      dev.kxm.v1.RegisterGateRegistryResponse> getRegisterGateRegistryMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.RegisterGateRegistryRequest, dev.kxm.v1.RegisterGateRegistryResponse> getRegisterGateRegistryMethod;
    if ((getRegisterGateRegistryMethod = WorkflowServiceGrpc.getRegisterGateRegistryMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getRegisterGateRegistryMethod = WorkflowServiceGrpc.getRegisterGateRegistryMethod) == null) {
          WorkflowServiceGrpc.getRegisterGateRegistryMethod = getRegisterGateRegistryMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.RegisterGateRegistryRequest, dev.kxm.v1.RegisterGateRegistryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RegisterGateRegistry"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RegisterGateRegistryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RegisterGateRegistryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("RegisterGateRegistry"))
              .build();
        }
      }
    }
    return getRegisterGateRegistryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.GetGateRegistryRequest,
      dev.kxm.v1.GetGateRegistryResponse> getGetGateRegistryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetGateRegistry",
      requestType = dev.kxm.v1.GetGateRegistryRequest.class,
      responseType = dev.kxm.v1.GetGateRegistryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.GetGateRegistryRequest,
      dev.kxm.v1.GetGateRegistryResponse> getGetGateRegistryMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.GetGateRegistryRequest, dev.kxm.v1.GetGateRegistryResponse> getGetGateRegistryMethod;
    if ((getGetGateRegistryMethod = WorkflowServiceGrpc.getGetGateRegistryMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getGetGateRegistryMethod = WorkflowServiceGrpc.getGetGateRegistryMethod) == null) {
          WorkflowServiceGrpc.getGetGateRegistryMethod = getGetGateRegistryMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.GetGateRegistryRequest, dev.kxm.v1.GetGateRegistryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetGateRegistry"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetGateRegistryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetGateRegistryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("GetGateRegistry"))
              .build();
        }
      }
    }
    return getGetGateRegistryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.StartWorkflowRunRequest,
      dev.kxm.v1.StartWorkflowRunResponse> getStartWorkflowRunMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "StartWorkflowRun",
      requestType = dev.kxm.v1.StartWorkflowRunRequest.class,
      responseType = dev.kxm.v1.StartWorkflowRunResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.StartWorkflowRunRequest,
      dev.kxm.v1.StartWorkflowRunResponse> getStartWorkflowRunMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.StartWorkflowRunRequest, dev.kxm.v1.StartWorkflowRunResponse> getStartWorkflowRunMethod;
    if ((getStartWorkflowRunMethod = WorkflowServiceGrpc.getStartWorkflowRunMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getStartWorkflowRunMethod = WorkflowServiceGrpc.getStartWorkflowRunMethod) == null) {
          WorkflowServiceGrpc.getStartWorkflowRunMethod = getStartWorkflowRunMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.StartWorkflowRunRequest, dev.kxm.v1.StartWorkflowRunResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "StartWorkflowRun"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.StartWorkflowRunRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.StartWorkflowRunResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("StartWorkflowRun"))
              .build();
        }
      }
    }
    return getStartWorkflowRunMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.GetWorkflowRunRequest,
      dev.kxm.v1.GetWorkflowRunResponse> getGetWorkflowRunMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetWorkflowRun",
      requestType = dev.kxm.v1.GetWorkflowRunRequest.class,
      responseType = dev.kxm.v1.GetWorkflowRunResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.GetWorkflowRunRequest,
      dev.kxm.v1.GetWorkflowRunResponse> getGetWorkflowRunMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.GetWorkflowRunRequest, dev.kxm.v1.GetWorkflowRunResponse> getGetWorkflowRunMethod;
    if ((getGetWorkflowRunMethod = WorkflowServiceGrpc.getGetWorkflowRunMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getGetWorkflowRunMethod = WorkflowServiceGrpc.getGetWorkflowRunMethod) == null) {
          WorkflowServiceGrpc.getGetWorkflowRunMethod = getGetWorkflowRunMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.GetWorkflowRunRequest, dev.kxm.v1.GetWorkflowRunResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetWorkflowRun"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetWorkflowRunRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetWorkflowRunResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("GetWorkflowRun"))
              .build();
        }
      }
    }
    return getGetWorkflowRunMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListWorkflowRunsRequest,
      dev.kxm.v1.ListWorkflowRunsResponse> getListWorkflowRunsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListWorkflowRuns",
      requestType = dev.kxm.v1.ListWorkflowRunsRequest.class,
      responseType = dev.kxm.v1.ListWorkflowRunsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListWorkflowRunsRequest,
      dev.kxm.v1.ListWorkflowRunsResponse> getListWorkflowRunsMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListWorkflowRunsRequest, dev.kxm.v1.ListWorkflowRunsResponse> getListWorkflowRunsMethod;
    if ((getListWorkflowRunsMethod = WorkflowServiceGrpc.getListWorkflowRunsMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getListWorkflowRunsMethod = WorkflowServiceGrpc.getListWorkflowRunsMethod) == null) {
          WorkflowServiceGrpc.getListWorkflowRunsMethod = getListWorkflowRunsMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListWorkflowRunsRequest, dev.kxm.v1.ListWorkflowRunsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListWorkflowRuns"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListWorkflowRunsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListWorkflowRunsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("ListWorkflowRuns"))
              .build();
        }
      }
    }
    return getListWorkflowRunsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.CancelWorkflowRunRequest,
      dev.kxm.v1.CancelWorkflowRunResponse> getCancelWorkflowRunMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CancelWorkflowRun",
      requestType = dev.kxm.v1.CancelWorkflowRunRequest.class,
      responseType = dev.kxm.v1.CancelWorkflowRunResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.CancelWorkflowRunRequest,
      dev.kxm.v1.CancelWorkflowRunResponse> getCancelWorkflowRunMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.CancelWorkflowRunRequest, dev.kxm.v1.CancelWorkflowRunResponse> getCancelWorkflowRunMethod;
    if ((getCancelWorkflowRunMethod = WorkflowServiceGrpc.getCancelWorkflowRunMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getCancelWorkflowRunMethod = WorkflowServiceGrpc.getCancelWorkflowRunMethod) == null) {
          WorkflowServiceGrpc.getCancelWorkflowRunMethod = getCancelWorkflowRunMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.CancelWorkflowRunRequest, dev.kxm.v1.CancelWorkflowRunResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CancelWorkflowRun"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.CancelWorkflowRunRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.CancelWorkflowRunResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("CancelWorkflowRun"))
              .build();
        }
      }
    }
    return getCancelWorkflowRunMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.RerunWorkflowRunRequest,
      dev.kxm.v1.RerunWorkflowRunResponse> getRerunWorkflowRunMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RerunWorkflowRun",
      requestType = dev.kxm.v1.RerunWorkflowRunRequest.class,
      responseType = dev.kxm.v1.RerunWorkflowRunResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.RerunWorkflowRunRequest,
      dev.kxm.v1.RerunWorkflowRunResponse> getRerunWorkflowRunMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.RerunWorkflowRunRequest, dev.kxm.v1.RerunWorkflowRunResponse> getRerunWorkflowRunMethod;
    if ((getRerunWorkflowRunMethod = WorkflowServiceGrpc.getRerunWorkflowRunMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getRerunWorkflowRunMethod = WorkflowServiceGrpc.getRerunWorkflowRunMethod) == null) {
          WorkflowServiceGrpc.getRerunWorkflowRunMethod = getRerunWorkflowRunMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.RerunWorkflowRunRequest, dev.kxm.v1.RerunWorkflowRunResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RerunWorkflowRun"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RerunWorkflowRunRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RerunWorkflowRunResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("RerunWorkflowRun"))
              .build();
        }
      }
    }
    return getRerunWorkflowRunMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.CheckpointRequest,
      dev.kxm.v1.CheckpointResponse> getCheckpointMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Checkpoint",
      requestType = dev.kxm.v1.CheckpointRequest.class,
      responseType = dev.kxm.v1.CheckpointResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.CheckpointRequest,
      dev.kxm.v1.CheckpointResponse> getCheckpointMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.CheckpointRequest, dev.kxm.v1.CheckpointResponse> getCheckpointMethod;
    if ((getCheckpointMethod = WorkflowServiceGrpc.getCheckpointMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getCheckpointMethod = WorkflowServiceGrpc.getCheckpointMethod) == null) {
          WorkflowServiceGrpc.getCheckpointMethod = getCheckpointMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.CheckpointRequest, dev.kxm.v1.CheckpointResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Checkpoint"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.CheckpointRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.CheckpointResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("Checkpoint"))
              .build();
        }
      }
    }
    return getCheckpointMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.WaitRequest,
      dev.kxm.v1.WaitResponse> getWaitMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Wait",
      requestType = dev.kxm.v1.WaitRequest.class,
      responseType = dev.kxm.v1.WaitResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.WaitRequest,
      dev.kxm.v1.WaitResponse> getWaitMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.WaitRequest, dev.kxm.v1.WaitResponse> getWaitMethod;
    if ((getWaitMethod = WorkflowServiceGrpc.getWaitMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getWaitMethod = WorkflowServiceGrpc.getWaitMethod) == null) {
          WorkflowServiceGrpc.getWaitMethod = getWaitMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.WaitRequest, dev.kxm.v1.WaitResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Wait"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.WaitRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.WaitResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("Wait"))
              .build();
        }
      }
    }
    return getWaitMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.SignalWorkflowRunRequest,
      dev.kxm.v1.SignalWorkflowRunResponse> getSignalWorkflowRunMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SignalWorkflowRun",
      requestType = dev.kxm.v1.SignalWorkflowRunRequest.class,
      responseType = dev.kxm.v1.SignalWorkflowRunResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.SignalWorkflowRunRequest,
      dev.kxm.v1.SignalWorkflowRunResponse> getSignalWorkflowRunMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.SignalWorkflowRunRequest, dev.kxm.v1.SignalWorkflowRunResponse> getSignalWorkflowRunMethod;
    if ((getSignalWorkflowRunMethod = WorkflowServiceGrpc.getSignalWorkflowRunMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getSignalWorkflowRunMethod = WorkflowServiceGrpc.getSignalWorkflowRunMethod) == null) {
          WorkflowServiceGrpc.getSignalWorkflowRunMethod = getSignalWorkflowRunMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.SignalWorkflowRunRequest, dev.kxm.v1.SignalWorkflowRunResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SignalWorkflowRun"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.SignalWorkflowRunRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.SignalWorkflowRunResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("SignalWorkflowRun"))
              .build();
        }
      }
    }
    return getSignalWorkflowRunMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ApproveDegradationRequest,
      dev.kxm.v1.ApproveDegradationResponse> getApproveDegradationMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ApproveDegradation",
      requestType = dev.kxm.v1.ApproveDegradationRequest.class,
      responseType = dev.kxm.v1.ApproveDegradationResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ApproveDegradationRequest,
      dev.kxm.v1.ApproveDegradationResponse> getApproveDegradationMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ApproveDegradationRequest, dev.kxm.v1.ApproveDegradationResponse> getApproveDegradationMethod;
    if ((getApproveDegradationMethod = WorkflowServiceGrpc.getApproveDegradationMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getApproveDegradationMethod = WorkflowServiceGrpc.getApproveDegradationMethod) == null) {
          WorkflowServiceGrpc.getApproveDegradationMethod = getApproveDegradationMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ApproveDegradationRequest, dev.kxm.v1.ApproveDegradationResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ApproveDegradation"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ApproveDegradationRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ApproveDegradationResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("ApproveDegradation"))
              .build();
        }
      }
    }
    return getApproveDegradationMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.EscalateStageRequest,
      dev.kxm.v1.EscalateStageResponse> getEscalateStageMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "EscalateStage",
      requestType = dev.kxm.v1.EscalateStageRequest.class,
      responseType = dev.kxm.v1.EscalateStageResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.EscalateStageRequest,
      dev.kxm.v1.EscalateStageResponse> getEscalateStageMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.EscalateStageRequest, dev.kxm.v1.EscalateStageResponse> getEscalateStageMethod;
    if ((getEscalateStageMethod = WorkflowServiceGrpc.getEscalateStageMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getEscalateStageMethod = WorkflowServiceGrpc.getEscalateStageMethod) == null) {
          WorkflowServiceGrpc.getEscalateStageMethod = getEscalateStageMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.EscalateStageRequest, dev.kxm.v1.EscalateStageResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "EscalateStage"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.EscalateStageRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.EscalateStageResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("EscalateStage"))
              .build();
        }
      }
    }
    return getEscalateStageMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ResolveEscalationRequest,
      dev.kxm.v1.ResolveEscalationResponse> getResolveEscalationMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ResolveEscalation",
      requestType = dev.kxm.v1.ResolveEscalationRequest.class,
      responseType = dev.kxm.v1.ResolveEscalationResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ResolveEscalationRequest,
      dev.kxm.v1.ResolveEscalationResponse> getResolveEscalationMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ResolveEscalationRequest, dev.kxm.v1.ResolveEscalationResponse> getResolveEscalationMethod;
    if ((getResolveEscalationMethod = WorkflowServiceGrpc.getResolveEscalationMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getResolveEscalationMethod = WorkflowServiceGrpc.getResolveEscalationMethod) == null) {
          WorkflowServiceGrpc.getResolveEscalationMethod = getResolveEscalationMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ResolveEscalationRequest, dev.kxm.v1.ResolveEscalationResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ResolveEscalation"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ResolveEscalationRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ResolveEscalationResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("ResolveEscalation"))
              .build();
        }
      }
    }
    return getResolveEscalationMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.RecordJournalRequest,
      dev.kxm.v1.RecordJournalResponse> getRecordJournalMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RecordJournal",
      requestType = dev.kxm.v1.RecordJournalRequest.class,
      responseType = dev.kxm.v1.RecordJournalResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.RecordJournalRequest,
      dev.kxm.v1.RecordJournalResponse> getRecordJournalMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.RecordJournalRequest, dev.kxm.v1.RecordJournalResponse> getRecordJournalMethod;
    if ((getRecordJournalMethod = WorkflowServiceGrpc.getRecordJournalMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getRecordJournalMethod = WorkflowServiceGrpc.getRecordJournalMethod) == null) {
          WorkflowServiceGrpc.getRecordJournalMethod = getRecordJournalMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.RecordJournalRequest, dev.kxm.v1.RecordJournalResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RecordJournal"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RecordJournalRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RecordJournalResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("RecordJournal"))
              .build();
        }
      }
    }
    return getRecordJournalMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListJournalRequest,
      dev.kxm.v1.ListJournalResponse> getListJournalMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListJournal",
      requestType = dev.kxm.v1.ListJournalRequest.class,
      responseType = dev.kxm.v1.ListJournalResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListJournalRequest,
      dev.kxm.v1.ListJournalResponse> getListJournalMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListJournalRequest, dev.kxm.v1.ListJournalResponse> getListJournalMethod;
    if ((getListJournalMethod = WorkflowServiceGrpc.getListJournalMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getListJournalMethod = WorkflowServiceGrpc.getListJournalMethod) == null) {
          WorkflowServiceGrpc.getListJournalMethod = getListJournalMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListJournalRequest, dev.kxm.v1.ListJournalResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListJournal"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListJournalRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListJournalResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("ListJournal"))
              .build();
        }
      }
    }
    return getListJournalMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.PromoteJournalEntryRequest,
      dev.kxm.v1.PromoteJournalEntryResponse> getPromoteJournalEntryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "PromoteJournalEntry",
      requestType = dev.kxm.v1.PromoteJournalEntryRequest.class,
      responseType = dev.kxm.v1.PromoteJournalEntryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.PromoteJournalEntryRequest,
      dev.kxm.v1.PromoteJournalEntryResponse> getPromoteJournalEntryMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.PromoteJournalEntryRequest, dev.kxm.v1.PromoteJournalEntryResponse> getPromoteJournalEntryMethod;
    if ((getPromoteJournalEntryMethod = WorkflowServiceGrpc.getPromoteJournalEntryMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getPromoteJournalEntryMethod = WorkflowServiceGrpc.getPromoteJournalEntryMethod) == null) {
          WorkflowServiceGrpc.getPromoteJournalEntryMethod = getPromoteJournalEntryMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.PromoteJournalEntryRequest, dev.kxm.v1.PromoteJournalEntryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "PromoteJournalEntry"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.PromoteJournalEntryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.PromoteJournalEntryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("PromoteJournalEntry"))
              .build();
        }
      }
    }
    return getPromoteJournalEntryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.GetImprovementReportRequest,
      dev.kxm.v1.GetImprovementReportResponse> getGetImprovementReportMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetImprovementReport",
      requestType = dev.kxm.v1.GetImprovementReportRequest.class,
      responseType = dev.kxm.v1.GetImprovementReportResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.GetImprovementReportRequest,
      dev.kxm.v1.GetImprovementReportResponse> getGetImprovementReportMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.GetImprovementReportRequest, dev.kxm.v1.GetImprovementReportResponse> getGetImprovementReportMethod;
    if ((getGetImprovementReportMethod = WorkflowServiceGrpc.getGetImprovementReportMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getGetImprovementReportMethod = WorkflowServiceGrpc.getGetImprovementReportMethod) == null) {
          WorkflowServiceGrpc.getGetImprovementReportMethod = getGetImprovementReportMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.GetImprovementReportRequest, dev.kxm.v1.GetImprovementReportResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetImprovementReport"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetImprovementReportRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.GetImprovementReportResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("GetImprovementReport"))
              .build();
        }
      }
    }
    return getGetImprovementReportMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ExportRetrospectiveRequest,
      dev.kxm.v1.ExportRetrospectiveResponse> getExportRetrospectiveMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ExportRetrospective",
      requestType = dev.kxm.v1.ExportRetrospectiveRequest.class,
      responseType = dev.kxm.v1.ExportRetrospectiveResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ExportRetrospectiveRequest,
      dev.kxm.v1.ExportRetrospectiveResponse> getExportRetrospectiveMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ExportRetrospectiveRequest, dev.kxm.v1.ExportRetrospectiveResponse> getExportRetrospectiveMethod;
    if ((getExportRetrospectiveMethod = WorkflowServiceGrpc.getExportRetrospectiveMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getExportRetrospectiveMethod = WorkflowServiceGrpc.getExportRetrospectiveMethod) == null) {
          WorkflowServiceGrpc.getExportRetrospectiveMethod = getExportRetrospectiveMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ExportRetrospectiveRequest, dev.kxm.v1.ExportRetrospectiveResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ExportRetrospective"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ExportRetrospectiveRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ExportRetrospectiveResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("ExportRetrospective"))
              .build();
        }
      }
    }
    return getExportRetrospectiveMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.VerifyJournalRequest,
      dev.kxm.v1.VerifyJournalResponse> getVerifyJournalMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "VerifyJournal",
      requestType = dev.kxm.v1.VerifyJournalRequest.class,
      responseType = dev.kxm.v1.VerifyJournalResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.VerifyJournalRequest,
      dev.kxm.v1.VerifyJournalResponse> getVerifyJournalMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.VerifyJournalRequest, dev.kxm.v1.VerifyJournalResponse> getVerifyJournalMethod;
    if ((getVerifyJournalMethod = WorkflowServiceGrpc.getVerifyJournalMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getVerifyJournalMethod = WorkflowServiceGrpc.getVerifyJournalMethod) == null) {
          WorkflowServiceGrpc.getVerifyJournalMethod = getVerifyJournalMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.VerifyJournalRequest, dev.kxm.v1.VerifyJournalResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "VerifyJournal"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.VerifyJournalRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.VerifyJournalResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("VerifyJournal"))
              .build();
        }
      }
    }
    return getVerifyJournalMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.CompleteAssignmentRequest,
      dev.kxm.v1.CompleteAssignmentResponse> getCompleteAssignmentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CompleteAssignment",
      requestType = dev.kxm.v1.CompleteAssignmentRequest.class,
      responseType = dev.kxm.v1.CompleteAssignmentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.CompleteAssignmentRequest,
      dev.kxm.v1.CompleteAssignmentResponse> getCompleteAssignmentMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.CompleteAssignmentRequest, dev.kxm.v1.CompleteAssignmentResponse> getCompleteAssignmentMethod;
    if ((getCompleteAssignmentMethod = WorkflowServiceGrpc.getCompleteAssignmentMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getCompleteAssignmentMethod = WorkflowServiceGrpc.getCompleteAssignmentMethod) == null) {
          WorkflowServiceGrpc.getCompleteAssignmentMethod = getCompleteAssignmentMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.CompleteAssignmentRequest, dev.kxm.v1.CompleteAssignmentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CompleteAssignment"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.CompleteAssignmentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.CompleteAssignmentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("CompleteAssignment"))
              .build();
        }
      }
    }
    return getCompleteAssignmentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.NextAssignmentRequest,
      dev.kxm.v1.NextAssignmentResponse> getNextAssignmentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "NextAssignment",
      requestType = dev.kxm.v1.NextAssignmentRequest.class,
      responseType = dev.kxm.v1.NextAssignmentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.NextAssignmentRequest,
      dev.kxm.v1.NextAssignmentResponse> getNextAssignmentMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.NextAssignmentRequest, dev.kxm.v1.NextAssignmentResponse> getNextAssignmentMethod;
    if ((getNextAssignmentMethod = WorkflowServiceGrpc.getNextAssignmentMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getNextAssignmentMethod = WorkflowServiceGrpc.getNextAssignmentMethod) == null) {
          WorkflowServiceGrpc.getNextAssignmentMethod = getNextAssignmentMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.NextAssignmentRequest, dev.kxm.v1.NextAssignmentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "NextAssignment"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.NextAssignmentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.NextAssignmentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("NextAssignment"))
              .build();
        }
      }
    }
    return getNextAssignmentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ApproveStepRequest,
      dev.kxm.v1.ApproveStepResponse> getApproveStepMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ApproveStep",
      requestType = dev.kxm.v1.ApproveStepRequest.class,
      responseType = dev.kxm.v1.ApproveStepResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ApproveStepRequest,
      dev.kxm.v1.ApproveStepResponse> getApproveStepMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ApproveStepRequest, dev.kxm.v1.ApproveStepResponse> getApproveStepMethod;
    if ((getApproveStepMethod = WorkflowServiceGrpc.getApproveStepMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getApproveStepMethod = WorkflowServiceGrpc.getApproveStepMethod) == null) {
          WorkflowServiceGrpc.getApproveStepMethod = getApproveStepMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ApproveStepRequest, dev.kxm.v1.ApproveStepResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ApproveStep"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ApproveStepRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ApproveStepResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("ApproveStep"))
              .build();
        }
      }
    }
    return getApproveStepMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.RecoverStepRunRequest,
      dev.kxm.v1.RecoverStepRunResponse> getRecoverStepRunMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RecoverStepRun",
      requestType = dev.kxm.v1.RecoverStepRunRequest.class,
      responseType = dev.kxm.v1.RecoverStepRunResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.RecoverStepRunRequest,
      dev.kxm.v1.RecoverStepRunResponse> getRecoverStepRunMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.RecoverStepRunRequest, dev.kxm.v1.RecoverStepRunResponse> getRecoverStepRunMethod;
    if ((getRecoverStepRunMethod = WorkflowServiceGrpc.getRecoverStepRunMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getRecoverStepRunMethod = WorkflowServiceGrpc.getRecoverStepRunMethod) == null) {
          WorkflowServiceGrpc.getRecoverStepRunMethod = getRecoverStepRunMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.RecoverStepRunRequest, dev.kxm.v1.RecoverStepRunResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RecoverStepRun"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RecoverStepRunRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.RecoverStepRunResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("RecoverStepRun"))
              .build();
        }
      }
    }
    return getRecoverStepRunMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.ListWorkflowRunEventsRequest,
      dev.kxm.v1.ListWorkflowRunEventsResponse> getListWorkflowRunEventsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListWorkflowRunEvents",
      requestType = dev.kxm.v1.ListWorkflowRunEventsRequest.class,
      responseType = dev.kxm.v1.ListWorkflowRunEventsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.ListWorkflowRunEventsRequest,
      dev.kxm.v1.ListWorkflowRunEventsResponse> getListWorkflowRunEventsMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.ListWorkflowRunEventsRequest, dev.kxm.v1.ListWorkflowRunEventsResponse> getListWorkflowRunEventsMethod;
    if ((getListWorkflowRunEventsMethod = WorkflowServiceGrpc.getListWorkflowRunEventsMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getListWorkflowRunEventsMethod = WorkflowServiceGrpc.getListWorkflowRunEventsMethod) == null) {
          WorkflowServiceGrpc.getListWorkflowRunEventsMethod = getListWorkflowRunEventsMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.ListWorkflowRunEventsRequest, dev.kxm.v1.ListWorkflowRunEventsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListWorkflowRunEvents"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListWorkflowRunEventsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.ListWorkflowRunEventsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("ListWorkflowRunEvents"))
              .build();
        }
      }
    }
    return getListWorkflowRunEventsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.kxm.v1.AuditGateEvidenceRequest,
      dev.kxm.v1.AuditGateEvidenceResponse> getAuditGateEvidenceMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AuditGateEvidence",
      requestType = dev.kxm.v1.AuditGateEvidenceRequest.class,
      responseType = dev.kxm.v1.AuditGateEvidenceResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.kxm.v1.AuditGateEvidenceRequest,
      dev.kxm.v1.AuditGateEvidenceResponse> getAuditGateEvidenceMethod() {
    io.grpc.MethodDescriptor<dev.kxm.v1.AuditGateEvidenceRequest, dev.kxm.v1.AuditGateEvidenceResponse> getAuditGateEvidenceMethod;
    if ((getAuditGateEvidenceMethod = WorkflowServiceGrpc.getAuditGateEvidenceMethod) == null) {
      synchronized (WorkflowServiceGrpc.class) {
        if ((getAuditGateEvidenceMethod = WorkflowServiceGrpc.getAuditGateEvidenceMethod) == null) {
          WorkflowServiceGrpc.getAuditGateEvidenceMethod = getAuditGateEvidenceMethod =
              io.grpc.MethodDescriptor.<dev.kxm.v1.AuditGateEvidenceRequest, dev.kxm.v1.AuditGateEvidenceResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AuditGateEvidence"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.AuditGateEvidenceRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.kxm.v1.AuditGateEvidenceResponse.getDefaultInstance()))
              .setSchemaDescriptor(new WorkflowServiceMethodDescriptorSupplier("AuditGateEvidence"))
              .build();
        }
      }
    }
    return getAuditGateEvidenceMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static WorkflowServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<WorkflowServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<WorkflowServiceStub>() {
        @java.lang.Override
        public WorkflowServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new WorkflowServiceStub(channel, callOptions);
        }
      };
    return WorkflowServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports all types of calls on the service
   */
  public static WorkflowServiceBlockingV2Stub newBlockingV2Stub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<WorkflowServiceBlockingV2Stub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<WorkflowServiceBlockingV2Stub>() {
        @java.lang.Override
        public WorkflowServiceBlockingV2Stub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new WorkflowServiceBlockingV2Stub(channel, callOptions);
        }
      };
    return WorkflowServiceBlockingV2Stub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static WorkflowServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<WorkflowServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<WorkflowServiceBlockingStub>() {
        @java.lang.Override
        public WorkflowServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new WorkflowServiceBlockingStub(channel, callOptions);
        }
      };
    return WorkflowServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static WorkflowServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<WorkflowServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<WorkflowServiceFutureStub>() {
        @java.lang.Override
        public WorkflowServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new WorkflowServiceFutureStub(channel, callOptions);
        }
      };
    return WorkflowServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * WorkflowService holds durable, evidence-gated workflow runs.
   * An operator registers definitions (stages with required evidence, peer-review policies, typed
   * transitions and budgets). A run starts from a signed webhook (`POST /v1/webhooks/{definition}` on the
   * webhook listener) or StartWorkflowRun; the hub prompts the coordinator agent, which checkpoints each
   * stage with evidence the hub verifies against its own message records. A stage passes only when its
   * evidence and its quorum of distinct eligible producers are met. Long external work waits for a signed
   * signal (`POST /v1/webhooks/{definition}/runs/{run}/signals/{key}`) or SignalWorkflowRun.
   * Coordinator RPCs (Checkpoint, Wait, EscalateStage) need the run's coordinator agent identity; operator
   * RPCs an operator credential; an agent sees only the runs it coordinates, a project token or an
   * operator naming the project every run of the project. Every RPC refuses a run of another project as
   * NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND), so ids of other projects are not disclosed.
   * </pre>
   */
  public interface AsyncService {

    /**
     * <pre>
     * RegisterWorkflowDefinition validates a definition (JSON or YAML) and stores it.
     * A stage workflow is JSON in the original's shape (no `schema` field); a step workflow says
     * `schema: kxm.workflow.v1` and names its `id` and `project`. A step workflow is loaded with its project's
     * current gate registry (RegisterGateRegistry) and compiled; its plan, which embeds every gate it runs with
     * the gate's hash, is what its runs pin (`hash` is the plan hash). Registering again replaces a definition;
     * runs already started keep the version they pinned. An id keeps its project and its kind.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_DEFINITION_INVALID): the document breaks a load rule (a step
     *   workflow's gate step naming a gate its project's registry lacks: code `step_gate_unknown`); the message
     *   lists every problem with its field, metadata names the first. An operator naming a project
     *   (`x-kxm-project`) registers in that project only: a document of another project (field `project`), or
     *   an id another project's definition holds (field `id`), is refused the same way; so is an id a
     *   definition of the other kind holds (field `schema`), and a gate registry (field `schema`).
     * </pre>
     */
    default void registerWorkflowDefinition(dev.kxm.v1.RegisterWorkflowDefinitionRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RegisterWorkflowDefinitionResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRegisterWorkflowDefinitionMethod(), responseObserver);
    }

    /**
     * <pre>
     * GetWorkflowDefinition reads a registered definition (literal secrets redacted).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WEBHOOK_NOT_FOUND): no definition has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void getWorkflowDefinition(dev.kxm.v1.GetWorkflowDefinitionRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetWorkflowDefinitionResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetWorkflowDefinitionMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListWorkflowDefinitions pages through the caller's project's definitions by id (an operator naming no project: all).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or from another query.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void listWorkflowDefinitions(dev.kxm.v1.ListWorkflowDefinitionsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListWorkflowDefinitionsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListWorkflowDefinitionsMethod(), responseObserver);
    }

    /**
     * <pre>
     * RegisterGateRegistry validates a project's gate registry (`kxm.gate-registry.v1`, JSON or YAML) and stores it,
     * replacing the project's registry.
     * The project is the request's `project`, else the one the operator names (`x-kxm-project`). A registry that
     * drops a gate a registered step workflow of the project names, changes its kind, or no longer suits its step
     * is refused, listing every such definition and gate: nothing registered may become unrunnable. Registered
     * plans keep the gates they pinned; registering a step workflow again pins the new registry's gates.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_DEFINITION_INVALID): the document breaks a load rule; the message
     *   lists every problem with its field (`gates.&lt;id&gt;.argv`), metadata names the first.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no project is named, the name is malformed, or it differs from
     *   the project the operator names (field `project`).
     * - FAILED_PRECONDITION (ERROR_REASON_GATE_REGISTRY_IN_USE): a registered step workflow names a gate the registry
     *   drops, changes the kind of, or no longer suits; field violations name each gate, the message each
     *   definition; metadata: definitions, gates.
     * </pre>
     */
    default void registerGateRegistry(dev.kxm.v1.RegisterGateRegistryRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RegisterGateRegistryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRegisterGateRegistryMethod(), responseObserver);
    }

    /**
     * <pre>
     * GetGateRegistry reads the caller's project's gate registry.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_GATE_REGISTRY_NOT_FOUND): the caller's project has no gate registry.
     * </pre>
     */
    default void getGateRegistry(dev.kxm.v1.GetGateRegistryRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetGateRegistryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetGateRegistryMethod(), responseObserver);
    }

    /**
     * <pre>
     * StartWorkflowRun starts a run of either kind, for a trusted caller: a stage run as a signed start webhook
     * would (with its payload), a step run with its `inputs` (queued while its project has `--max-concurrent-runs`
     * active step runs).
     * A delivery id already used for this definition returns its run with `duplicate` set; for a stage workflow the
     * same id with another payload is refused.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): delivery_id is empty or too long, the payload is too large, or
     *   it holds a number JSON cannot (NaN, Infinity).
     * - NOT_FOUND (ERROR_REASON_WEBHOOK_NOT_FOUND): no definition has this id.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): `inputs` given for a stage workflow.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a step workflow's pinned plan does not decode.
     * - FAILED_PRECONDITION (ERROR_REASON_WEBHOOK_DELIVERY_CONFLICT): the delivery id started a run with another payload.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TARGET_UNAVAILABLE): the coordinator or an eligible agent was never registered.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_INVALID, ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_UNRESOLVABLE):
     *   an evidence policy resolves to the coordinator, or to fewer agents than it needs.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_PROMPT_TOO_LONG): the rendered prompt exceeds 32,000 characters.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): `inputs.skill_id` is not a skill id.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): `inputs.skill_id` is given and no gate of the step workflow
     *   declares `evaluates` (field `inputs.skill_id`).
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the run's project has `inputs.skill_id` (another
     *   project's skill reads as missing); metadata: skillId, field.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill of `inputs.skill_id` is not a candidate;
     *   metadata: skillId, state.
     * </pre>
     */
    default void startWorkflowRun(dev.kxm.v1.StartWorkflowRunRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.StartWorkflowRunResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getStartWorkflowRunMethod(), responseObserver);
    }

    /**
     * <pre>
     * GetWorkflowRun reads a run.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no run has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the calling agent is not its coordinator;
     *   metadata: assignedCoordinatorName, nextAction.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    default void getWorkflowRun(dev.kxm.v1.GetWorkflowRunRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetWorkflowRunResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetWorkflowRunMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListWorkflowRuns pages through runs, newest first: an agent's own, or every run of the project.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or from another query.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void listWorkflowRuns(dev.kxm.v1.ListWorkflowRunsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListWorkflowRunsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListWorkflowRunsMethod(), responseObserver);
    }

    /**
     * <pre>
     * CancelWorkflowRun ends a running or waiting run as cancelled.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run has ended.
     * </pre>
     */
    default void cancelWorkflowRun(dev.kxm.v1.CancelWorkflowRunRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.CancelWorkflowRunResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCancelWorkflowRunMethod(), responseObserver);
    }

    /**
     * <pre>
     * RerunWorkflowRun starts a new run of the same definition (its current version) from a run's start payload.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run (or it was purged, with its payload).
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_KIND_MISMATCH): the run's definition id no longer holds a stage
     *   workflow (never, while an id keeps its kind); metadata: definitionId, kind.
     * - as StartWorkflowRun for the new run.
     * </pre>
     */
    default void rerunWorkflowRun(dev.kxm.v1.RerunWorkflowRunRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RerunWorkflowRunResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRerunWorkflowRunMethod(), responseObserver);
    }

    /**
     * <pre>
     * Checkpoint reports the current stage's attempt with its evidence; the hub verifies cited peer replies.
     * A refused checkpoint consumes no attempt and changes nothing. A request_id seen before for this run
     * returns the first answer and applies nothing again.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND, ERROR_REASON_WORKFLOW_STAGE_NOT_FOUND): no such run or stage.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the caller is not the run's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CHECKPOINT_STATUS, ERROR_REASON_INVALID_WORKFLOW_EVIDENCE,
     *   ERROR_REASON_INVALID_WORKFLOW_EVIDENCE_REFS, ERROR_REASON_PROTOCOL_ERROR): a malformed field.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_PROVENANCE_INVALID): a cited message fails verification;
     *   metadata: messageId, requirementKey.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING): evidence refs for a key without a peer policy.
     * - INVALID_ARGUMENT (ERROR_REASON_WEAKENED_REPRODUCTION): the captured reproduction is missing or changed.
     * - FAILED_PRECONDITION, INVALID_ARGUMENT (ERROR_REASON_PLAN_HASH_REQUIRED): the plan hash is not captured, or not presented unchanged.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_INCOMPLETE): a pass lacks required evidence;
     *   metadata: missingRequirements, providedRequirements, peerRequirements, quorum (`key=counted/required`).
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another request on this run.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run is not running.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): the stage is not the current one in progress.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    default void checkpoint(dev.kxm.v1.CheckpointRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.CheckpointResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCheckpointMethod(), responseObserver);
    }

    /**
     * <pre>
     * Wait puts the current stage into a wait for a signal; evidence and cited replies given are kept.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND, PERMISSION_DENIED: as Checkpoint.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SIGNAL_KEY): the key is malformed or `audit_escalation`.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_WAIT_INVALID): the timeout is out of range (1 s to 30 days).
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_RUNNING): the run is not running.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): the stage is not the current one.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another request on this run.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_EVIDENCE, ERROR_REASON_INVALID_WORKFLOW_EVIDENCE_REFS,
     *   ERROR_REASON_WORKFLOW_PROVENANCE_INVALID, ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING, ERROR_REASON_PROTOCOL_ERROR):
     *   the evidence errors of Checkpoint, and malformed fields.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    default void wait(dev.kxm.v1.WaitRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.WaitResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getWaitMethod(), responseObserver);
    }

    /**
     * <pre>
     * SignalWorkflowRun delivers a signal as a signed signal webhook would, for a trusted caller.
     * For a step run it resolves the current wait step awaiting `signal_key` with `outcome` (or, when
     * empty, the status's: PASSED `pass`, WARNING `warning`, FAILED `fail`), which takes that step's
     * transition; summary and evidence are not used.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SIGNAL_KEY, ERROR_REASON_INVALID_CHECKPOINT_STATUS,
     *   ERROR_REASON_INVALID_WORKFLOW_EVIDENCE): a malformed field.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_SIGNAL_DELIVERY_CONFLICT): the delivery id was used with another key or body.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_WAITING, ERROR_REASON_WORKFLOW_SIGNAL_MISMATCH,
     *   ERROR_REASON_WORKFLOW_WAIT_INCONSISTENT, ERROR_REASON_WORKFLOW_SIGNAL_CONTEXT_MISMATCH): the run does not await it.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_RULING_REQUIRED): the wait is an audit escalation.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_INCOMPLETE): a pass lacks evidence; the run keeps waiting.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a step run's outcome is missing, too long or not one its wait step declares.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the step run ended.
     * </pre>
     */
    default void signalWorkflowRun(dev.kxm.v1.SignalWorkflowRunRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.SignalWorkflowRunResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSignalWorkflowRunMethod(), responseObserver);
    }

    /**
     * <pre>
     * ApproveDegradation lets a peer requirement pass with the policy's smaller minimum at the active attempt.
     * The same reason again returns the approval with `duplicate` set. An approval does not pass the stage.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND, ERROR_REASON_WORKFLOW_STAGE_NOT_FOUND): no such run or stage.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL, ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): not active.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_DEGRADATION_FORBIDDEN): the policy declares no degradation.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_DEGRADATION_CONFLICT): another reason was approved for this attempt.
     * </pre>
     */
    default void approveDegradation(dev.kxm.v1.ApproveDegradationRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ApproveDegradationResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getApproveDegradationMethod(), responseObserver);
    }

    /**
     * <pre>
     * EscalateStage escalates the current stage for audit: it waits up to 24 h for an operator's ruling.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND, PERMISSION_DENIED: as Checkpoint.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_RUNNING, ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): not active.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    default void escalateStage(dev.kxm.v1.EscalateStageRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.EscalateStageResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getEscalateStageMethod(), responseObserver);
    }

    /**
     * <pre>
     * ResolveEscalation applies an operator's ruling (with an explicit status) to an escalated stage.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CHECKPOINT_STATUS): no status.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_EVIDENCE, ERROR_REASON_PROTOCOL_ERROR): a malformed evidence map, ruling or id.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_WAITING, ERROR_REASON_WORKFLOW_SIGNAL_MISMATCH): no escalation awaits a ruling.
     * - the evidence errors of Checkpoint (WEAKENED_REPRODUCTION, PLAN_HASH_REQUIRED, WORKFLOW_EVIDENCE_INCOMPLETE).
     * </pre>
     */
    default void resolveEscalation(dev.kxm.v1.ResolveEscalationRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ResolveEscalationResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getResolveEscalationMethod(), responseObserver);
    }

    /**
     * <pre>
     * RecordJournal records an entry in a run's journal: a plan, decision, contradiction, error, lesson, ….
     * The run's coordinator only, while the run goes on or after it ended (an entry recorded after the end is
     * not in the retrospective written then). A stage-bound entry takes the stage's current attempt (the
     * hub's, never the caller's) and, naming no area, the stage's declared area. The entry is sealed into the
     * run's chain. A request_id seen before for this run returns the first entry and records nothing again.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the caller is not the run's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_JOURNAL_CATEGORY, ERROR_REASON_INVALID_JOURNAL_SEVERITY,
     *   ERROR_REASON_INVALID_IMPROVEMENT_AREA): a value outside its enum, or no area and no stage declaring one.
     * - INVALID_ARGUMENT (ERROR_REASON_JOURNAL_EVIDENCE_REQUIRED): a lesson or skill candidate without evidence.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_JOURNAL_RELATION): the stage, or a related entry, is not the run's.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): an empty summary or a text over its limit.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another request on this run.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    default void recordJournal(dev.kxm.v1.RecordJournalRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RecordJournalResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRecordJournalMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListJournal pages through a run's journal in order: entries and promotion records with their chain.
     * A page ends early rather than pass 2 MiB of records (the token goes on from there).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND, PERMISSION_DENIED: as GetWorkflowRun.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or from another run.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a stored record of the page is not a journal record.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    default void listJournal(dev.kxm.v1.ListJournalRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListJournalResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListJournalMethod(), responseObserver);
    }

    /**
     * <pre>
     * PromoteJournalEntry decides a skill candidate, hypothesis or experiment: approved, rejected or quarantined.
     * An operator decides, never the entry's author (its agent id or name); the decision needs evidence, is
     * terminal and is a journal record of its own: the entry is never changed.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_JOURNAL_NOT_FOUND): no entry has this id in the caller's project.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_JOURNAL_PROMOTION): `to` is not approved, rejected or quarantined.
     * - INVALID_ARGUMENT (ERROR_REASON_JOURNAL_PROMOTION_INVALID): the category is not promotable, the decider is
     *   the author, no evidence ref is given, or the entry was decided already (metadata: status).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed entry_id, a reason over 1,000 characters, or
     *   evidence refs over their limits.
     * </pre>
     */
    default void promoteJournalEntry(dev.kxm.v1.PromoteJournalEntryRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.PromoteJournalEntryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getPromoteJournalEntryMethod(), responseObserver);
    }

    /**
     * <pre>
     * GetImprovementReport reports, per area, what keeps going wrong, and ranks the problems recurring across runs.
     * Over the project's newest entries (every run of the project, whoever asks: agents learn from each other's
     * runs), at most max_entries of them.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a limit out of range, `since` outside the Timestamp range,
     *   or `project` malformed, missing for an operator naming none, or naming another project than the caller's.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a stored record the report reads is not a journal record.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void getImprovementReport(dev.kxm.v1.GetImprovementReportRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetImprovementReportResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetImprovementReportMethod(), responseObserver);
    }

    /**
     * <pre>
     * ExportRetrospective returns an ended run's retrospective, written when it ended: message, JSON and Markdown.
     * The document is at most 768 KiB of JSON: the oldest entries are left out first, and counted.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND, PERMISSION_DENIED: as GetWorkflowRun.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_ENDED): the run has not ended.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the stored retrospective, or (for a run that ended before the
     *   journal existed) a record of its journal, is corrupted.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    default void exportRetrospective(dev.kxm.v1.ExportRetrospectiveRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ExportRetrospectiveResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getExportRetrospectiveMethod(), responseObserver);
    }

    /**
     * <pre>
     * VerifyJournal proves a run's journal intact against the hub's journal keys, or names the first record that is not.
     * Each record's chain must be the HMAC of its canonical form chained to its predecessor's, under a key the
     * hub holds; an ended run's journal must still hold the head its retrospective recorded and sealed. An answer is a
     * verdict, never an error: a journal that fails is reported, not refused.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND, PERMISSION_DENIED: as GetWorkflowRun.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a stored record is not a journal record at all.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    default void verifyJournal(dev.kxm.v1.VerifyJournalRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.VerifyJournalResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getVerifyJournalMethod(), responseObserver);
    }

    /**
     * <pre>
     * CompleteAssignment returns the caller's result for one of its assignments: a WorkerResult (workers, gate
     * workers) or a ReviewEnvelope (reviewers), the one way a step's work comes back.
     * Exactly one result is accepted per assignment; the same result again is answered as the first (`duplicate`).
     * The hub judges it: a worker's outcome must be one the step declares, a review passes with a PASS verdict and
     * no blockers, a gate's outcome is derived from its checks under the step's `expect`. The run then moves as the
     * step's join decides (docs/step-workflows.md).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an agent.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no result, the envelope is not what the assignment asks for,
     *   or does not fit it (an undeclared outcome, a gate's checks out of order, a malformed cost or commit); field named.
     * - NOT_FOUND (ERROR_REASON_ASSIGNMENT_NOT_FOUND): no assignment of the caller's project has this id.
     * - PERMISSION_DENIED (ERROR_REASON_ASSIGNMENT_FORBIDDEN): the assignment is another agent's.
     * - FAILED_PRECONDITION (ERROR_REASON_ASSIGNMENT_CLOSED): it is no longer open (another result, expired,
     *   superseded, cancelled), or the result came at or after its deadline (which expires it); metadata:
     *   assignmentId, state.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): its run ended.
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the attempt token presented is another
     *   assignment's; metadata: assignmentId, tokenAssignmentId.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void completeAssignment(dev.kxm.v1.CompleteAssignmentRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.CompleteAssignmentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCompleteAssignmentMethod(), responseObserver);
    }

    /**
     * <pre>
     * NextAssignment reads the caller's oldest open assignment (also delivered on its inbox as a message from
     * `workflow:&lt;run id&gt;` whose content is the AssignmentRequest's JSON), with a fresh attempt token; with
     * include_context, its context packet and brief too (AssignmentPacket, docs/context.md).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an agent.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): context_budget_tokens is neither 0 nor 512 to
     *   200,000 (metadata: field).
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a run's stored state does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    default void nextAssignment(dev.kxm.v1.NextAssignmentRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.NextAssignmentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getNextAssignmentMethod(), responseObserver);
    }

    /**
     * <pre>
     * ApproveStep decides a step run's current approval step with one of its declared outcomes (recorded in the
     * run's events with the operator and the reason).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the outcome is not one the step declares, or run_id is malformed.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run ended.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_WAITING): its current step is not this approval step awaiting a decision.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * </pre>
     */
    default void approveStep(dev.kxm.v1.ApproveStepRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ApproveStepResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getApproveStepMethod(), responseObserver);
    }

    /**
     * <pre>
     * RecoverStepRun recovers a step run an uncertain gate blocked: run the gate again, fail or cancel the run.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no action, or run_id is malformed.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run ended.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_BLOCKED): it is not blocked.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * </pre>
     */
    default void recoverStepRun(dev.kxm.v1.RecoverStepRunRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RecoverStepRunResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRecoverStepRunMethod(), responseObserver);
    }

    /**
     * <pre>
     * ListWorkflowRunEvents pages through a step run's event log in order (contiguous sequences from 1).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the calling agent is not the plan's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a negative after_sequence or page size, or run_id is malformed.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    default void listWorkflowRunEvents(dev.kxm.v1.ListWorkflowRunEventsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListWorkflowRunEventsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListWorkflowRunEventsMethod(), responseObserver);
    }

    /**
     * <pre>
     * AuditGateEvidence re-verifies a step run's gate evidence from what is stored (docs/gates.md, audit).
     * The plan must recompute to the run's plan hash and each pinned gate to its hash; each gate evidence
     * record to its evidence hash, with its step's gate pins, the outcome its checks derive and the result
     * hash its closed assignment kept; every gate result must have its record. An answer is a verdict,
     * never an error: evidence that fails is reported, not refused.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the calling agent is not the plan's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): run_id is malformed.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state or plan does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    default void auditGateEvidence(dev.kxm.v1.AuditGateEvidenceRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.AuditGateEvidenceResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAuditGateEvidenceMethod(), responseObserver);
    }
  }

  /**
   * Base class for the server implementation of the service WorkflowService.
   * <pre>
   * WorkflowService holds durable, evidence-gated workflow runs.
   * An operator registers definitions (stages with required evidence, peer-review policies, typed
   * transitions and budgets). A run starts from a signed webhook (`POST /v1/webhooks/{definition}` on the
   * webhook listener) or StartWorkflowRun; the hub prompts the coordinator agent, which checkpoints each
   * stage with evidence the hub verifies against its own message records. A stage passes only when its
   * evidence and its quorum of distinct eligible producers are met. Long external work waits for a signed
   * signal (`POST /v1/webhooks/{definition}/runs/{run}/signals/{key}`) or SignalWorkflowRun.
   * Coordinator RPCs (Checkpoint, Wait, EscalateStage) need the run's coordinator agent identity; operator
   * RPCs an operator credential; an agent sees only the runs it coordinates, a project token or an
   * operator naming the project every run of the project. Every RPC refuses a run of another project as
   * NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND), so ids of other projects are not disclosed.
   * </pre>
   */
  public static abstract class WorkflowServiceImplBase
      implements io.grpc.BindableService, AsyncService {

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return WorkflowServiceGrpc.bindService(this);
    }
  }

  /**
   * A stub to allow clients to do asynchronous rpc calls to service WorkflowService.
   * <pre>
   * WorkflowService holds durable, evidence-gated workflow runs.
   * An operator registers definitions (stages with required evidence, peer-review policies, typed
   * transitions and budgets). A run starts from a signed webhook (`POST /v1/webhooks/{definition}` on the
   * webhook listener) or StartWorkflowRun; the hub prompts the coordinator agent, which checkpoints each
   * stage with evidence the hub verifies against its own message records. A stage passes only when its
   * evidence and its quorum of distinct eligible producers are met. Long external work waits for a signed
   * signal (`POST /v1/webhooks/{definition}/runs/{run}/signals/{key}`) or SignalWorkflowRun.
   * Coordinator RPCs (Checkpoint, Wait, EscalateStage) need the run's coordinator agent identity; operator
   * RPCs an operator credential; an agent sees only the runs it coordinates, a project token or an
   * operator naming the project every run of the project. Every RPC refuses a run of another project as
   * NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND), so ids of other projects are not disclosed.
   * </pre>
   */
  public static final class WorkflowServiceStub
      extends io.grpc.stub.AbstractAsyncStub<WorkflowServiceStub> {
    private WorkflowServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected WorkflowServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new WorkflowServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * RegisterWorkflowDefinition validates a definition (JSON or YAML) and stores it.
     * A stage workflow is JSON in the original's shape (no `schema` field); a step workflow says
     * `schema: kxm.workflow.v1` and names its `id` and `project`. A step workflow is loaded with its project's
     * current gate registry (RegisterGateRegistry) and compiled; its plan, which embeds every gate it runs with
     * the gate's hash, is what its runs pin (`hash` is the plan hash). Registering again replaces a definition;
     * runs already started keep the version they pinned. An id keeps its project and its kind.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_DEFINITION_INVALID): the document breaks a load rule (a step
     *   workflow's gate step naming a gate its project's registry lacks: code `step_gate_unknown`); the message
     *   lists every problem with its field, metadata names the first. An operator naming a project
     *   (`x-kxm-project`) registers in that project only: a document of another project (field `project`), or
     *   an id another project's definition holds (field `id`), is refused the same way; so is an id a
     *   definition of the other kind holds (field `schema`), and a gate registry (field `schema`).
     * </pre>
     */
    public void registerWorkflowDefinition(dev.kxm.v1.RegisterWorkflowDefinitionRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RegisterWorkflowDefinitionResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRegisterWorkflowDefinitionMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * GetWorkflowDefinition reads a registered definition (literal secrets redacted).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WEBHOOK_NOT_FOUND): no definition has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void getWorkflowDefinition(dev.kxm.v1.GetWorkflowDefinitionRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetWorkflowDefinitionResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetWorkflowDefinitionMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListWorkflowDefinitions pages through the caller's project's definitions by id (an operator naming no project: all).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or from another query.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void listWorkflowDefinitions(dev.kxm.v1.ListWorkflowDefinitionsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListWorkflowDefinitionsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListWorkflowDefinitionsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * RegisterGateRegistry validates a project's gate registry (`kxm.gate-registry.v1`, JSON or YAML) and stores it,
     * replacing the project's registry.
     * The project is the request's `project`, else the one the operator names (`x-kxm-project`). A registry that
     * drops a gate a registered step workflow of the project names, changes its kind, or no longer suits its step
     * is refused, listing every such definition and gate: nothing registered may become unrunnable. Registered
     * plans keep the gates they pinned; registering a step workflow again pins the new registry's gates.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_DEFINITION_INVALID): the document breaks a load rule; the message
     *   lists every problem with its field (`gates.&lt;id&gt;.argv`), metadata names the first.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no project is named, the name is malformed, or it differs from
     *   the project the operator names (field `project`).
     * - FAILED_PRECONDITION (ERROR_REASON_GATE_REGISTRY_IN_USE): a registered step workflow names a gate the registry
     *   drops, changes the kind of, or no longer suits; field violations name each gate, the message each
     *   definition; metadata: definitions, gates.
     * </pre>
     */
    public void registerGateRegistry(dev.kxm.v1.RegisterGateRegistryRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RegisterGateRegistryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRegisterGateRegistryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * GetGateRegistry reads the caller's project's gate registry.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_GATE_REGISTRY_NOT_FOUND): the caller's project has no gate registry.
     * </pre>
     */
    public void getGateRegistry(dev.kxm.v1.GetGateRegistryRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetGateRegistryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetGateRegistryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * StartWorkflowRun starts a run of either kind, for a trusted caller: a stage run as a signed start webhook
     * would (with its payload), a step run with its `inputs` (queued while its project has `--max-concurrent-runs`
     * active step runs).
     * A delivery id already used for this definition returns its run with `duplicate` set; for a stage workflow the
     * same id with another payload is refused.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): delivery_id is empty or too long, the payload is too large, or
     *   it holds a number JSON cannot (NaN, Infinity).
     * - NOT_FOUND (ERROR_REASON_WEBHOOK_NOT_FOUND): no definition has this id.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): `inputs` given for a stage workflow.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a step workflow's pinned plan does not decode.
     * - FAILED_PRECONDITION (ERROR_REASON_WEBHOOK_DELIVERY_CONFLICT): the delivery id started a run with another payload.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TARGET_UNAVAILABLE): the coordinator or an eligible agent was never registered.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_INVALID, ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_UNRESOLVABLE):
     *   an evidence policy resolves to the coordinator, or to fewer agents than it needs.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_PROMPT_TOO_LONG): the rendered prompt exceeds 32,000 characters.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): `inputs.skill_id` is not a skill id.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): `inputs.skill_id` is given and no gate of the step workflow
     *   declares `evaluates` (field `inputs.skill_id`).
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the run's project has `inputs.skill_id` (another
     *   project's skill reads as missing); metadata: skillId, field.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill of `inputs.skill_id` is not a candidate;
     *   metadata: skillId, state.
     * </pre>
     */
    public void startWorkflowRun(dev.kxm.v1.StartWorkflowRunRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.StartWorkflowRunResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getStartWorkflowRunMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * GetWorkflowRun reads a run.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no run has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the calling agent is not its coordinator;
     *   metadata: assignedCoordinatorName, nextAction.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public void getWorkflowRun(dev.kxm.v1.GetWorkflowRunRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetWorkflowRunResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetWorkflowRunMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListWorkflowRuns pages through runs, newest first: an agent's own, or every run of the project.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or from another query.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void listWorkflowRuns(dev.kxm.v1.ListWorkflowRunsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListWorkflowRunsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListWorkflowRunsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * CancelWorkflowRun ends a running or waiting run as cancelled.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run has ended.
     * </pre>
     */
    public void cancelWorkflowRun(dev.kxm.v1.CancelWorkflowRunRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.CancelWorkflowRunResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCancelWorkflowRunMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * RerunWorkflowRun starts a new run of the same definition (its current version) from a run's start payload.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run (or it was purged, with its payload).
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_KIND_MISMATCH): the run's definition id no longer holds a stage
     *   workflow (never, while an id keeps its kind); metadata: definitionId, kind.
     * - as StartWorkflowRun for the new run.
     * </pre>
     */
    public void rerunWorkflowRun(dev.kxm.v1.RerunWorkflowRunRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RerunWorkflowRunResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRerunWorkflowRunMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Checkpoint reports the current stage's attempt with its evidence; the hub verifies cited peer replies.
     * A refused checkpoint consumes no attempt and changes nothing. A request_id seen before for this run
     * returns the first answer and applies nothing again.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND, ERROR_REASON_WORKFLOW_STAGE_NOT_FOUND): no such run or stage.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the caller is not the run's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CHECKPOINT_STATUS, ERROR_REASON_INVALID_WORKFLOW_EVIDENCE,
     *   ERROR_REASON_INVALID_WORKFLOW_EVIDENCE_REFS, ERROR_REASON_PROTOCOL_ERROR): a malformed field.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_PROVENANCE_INVALID): a cited message fails verification;
     *   metadata: messageId, requirementKey.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING): evidence refs for a key without a peer policy.
     * - INVALID_ARGUMENT (ERROR_REASON_WEAKENED_REPRODUCTION): the captured reproduction is missing or changed.
     * - FAILED_PRECONDITION, INVALID_ARGUMENT (ERROR_REASON_PLAN_HASH_REQUIRED): the plan hash is not captured, or not presented unchanged.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_INCOMPLETE): a pass lacks required evidence;
     *   metadata: missingRequirements, providedRequirements, peerRequirements, quorum (`key=counted/required`).
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another request on this run.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run is not running.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): the stage is not the current one in progress.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public void checkpoint(dev.kxm.v1.CheckpointRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.CheckpointResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCheckpointMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Wait puts the current stage into a wait for a signal; evidence and cited replies given are kept.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND, PERMISSION_DENIED: as Checkpoint.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SIGNAL_KEY): the key is malformed or `audit_escalation`.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_WAIT_INVALID): the timeout is out of range (1 s to 30 days).
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_RUNNING): the run is not running.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): the stage is not the current one.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another request on this run.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_EVIDENCE, ERROR_REASON_INVALID_WORKFLOW_EVIDENCE_REFS,
     *   ERROR_REASON_WORKFLOW_PROVENANCE_INVALID, ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING, ERROR_REASON_PROTOCOL_ERROR):
     *   the evidence errors of Checkpoint, and malformed fields.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public void wait(dev.kxm.v1.WaitRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.WaitResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getWaitMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * SignalWorkflowRun delivers a signal as a signed signal webhook would, for a trusted caller.
     * For a step run it resolves the current wait step awaiting `signal_key` with `outcome` (or, when
     * empty, the status's: PASSED `pass`, WARNING `warning`, FAILED `fail`), which takes that step's
     * transition; summary and evidence are not used.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SIGNAL_KEY, ERROR_REASON_INVALID_CHECKPOINT_STATUS,
     *   ERROR_REASON_INVALID_WORKFLOW_EVIDENCE): a malformed field.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_SIGNAL_DELIVERY_CONFLICT): the delivery id was used with another key or body.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_WAITING, ERROR_REASON_WORKFLOW_SIGNAL_MISMATCH,
     *   ERROR_REASON_WORKFLOW_WAIT_INCONSISTENT, ERROR_REASON_WORKFLOW_SIGNAL_CONTEXT_MISMATCH): the run does not await it.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_RULING_REQUIRED): the wait is an audit escalation.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_INCOMPLETE): a pass lacks evidence; the run keeps waiting.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a step run's outcome is missing, too long or not one its wait step declares.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the step run ended.
     * </pre>
     */
    public void signalWorkflowRun(dev.kxm.v1.SignalWorkflowRunRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.SignalWorkflowRunResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSignalWorkflowRunMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ApproveDegradation lets a peer requirement pass with the policy's smaller minimum at the active attempt.
     * The same reason again returns the approval with `duplicate` set. An approval does not pass the stage.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND, ERROR_REASON_WORKFLOW_STAGE_NOT_FOUND): no such run or stage.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL, ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): not active.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_DEGRADATION_FORBIDDEN): the policy declares no degradation.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_DEGRADATION_CONFLICT): another reason was approved for this attempt.
     * </pre>
     */
    public void approveDegradation(dev.kxm.v1.ApproveDegradationRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ApproveDegradationResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getApproveDegradationMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * EscalateStage escalates the current stage for audit: it waits up to 24 h for an operator's ruling.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND, PERMISSION_DENIED: as Checkpoint.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_RUNNING, ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): not active.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public void escalateStage(dev.kxm.v1.EscalateStageRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.EscalateStageResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getEscalateStageMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ResolveEscalation applies an operator's ruling (with an explicit status) to an escalated stage.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CHECKPOINT_STATUS): no status.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_EVIDENCE, ERROR_REASON_PROTOCOL_ERROR): a malformed evidence map, ruling or id.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_WAITING, ERROR_REASON_WORKFLOW_SIGNAL_MISMATCH): no escalation awaits a ruling.
     * - the evidence errors of Checkpoint (WEAKENED_REPRODUCTION, PLAN_HASH_REQUIRED, WORKFLOW_EVIDENCE_INCOMPLETE).
     * </pre>
     */
    public void resolveEscalation(dev.kxm.v1.ResolveEscalationRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ResolveEscalationResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getResolveEscalationMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * RecordJournal records an entry in a run's journal: a plan, decision, contradiction, error, lesson, ….
     * The run's coordinator only, while the run goes on or after it ended (an entry recorded after the end is
     * not in the retrospective written then). A stage-bound entry takes the stage's current attempt (the
     * hub's, never the caller's) and, naming no area, the stage's declared area. The entry is sealed into the
     * run's chain. A request_id seen before for this run returns the first entry and records nothing again.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the caller is not the run's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_JOURNAL_CATEGORY, ERROR_REASON_INVALID_JOURNAL_SEVERITY,
     *   ERROR_REASON_INVALID_IMPROVEMENT_AREA): a value outside its enum, or no area and no stage declaring one.
     * - INVALID_ARGUMENT (ERROR_REASON_JOURNAL_EVIDENCE_REQUIRED): a lesson or skill candidate without evidence.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_JOURNAL_RELATION): the stage, or a related entry, is not the run's.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): an empty summary or a text over its limit.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another request on this run.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public void recordJournal(dev.kxm.v1.RecordJournalRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RecordJournalResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRecordJournalMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListJournal pages through a run's journal in order: entries and promotion records with their chain.
     * A page ends early rather than pass 2 MiB of records (the token goes on from there).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND, PERMISSION_DENIED: as GetWorkflowRun.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or from another run.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a stored record of the page is not a journal record.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public void listJournal(dev.kxm.v1.ListJournalRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListJournalResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListJournalMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * PromoteJournalEntry decides a skill candidate, hypothesis or experiment: approved, rejected or quarantined.
     * An operator decides, never the entry's author (its agent id or name); the decision needs evidence, is
     * terminal and is a journal record of its own: the entry is never changed.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_JOURNAL_NOT_FOUND): no entry has this id in the caller's project.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_JOURNAL_PROMOTION): `to` is not approved, rejected or quarantined.
     * - INVALID_ARGUMENT (ERROR_REASON_JOURNAL_PROMOTION_INVALID): the category is not promotable, the decider is
     *   the author, no evidence ref is given, or the entry was decided already (metadata: status).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed entry_id, a reason over 1,000 characters, or
     *   evidence refs over their limits.
     * </pre>
     */
    public void promoteJournalEntry(dev.kxm.v1.PromoteJournalEntryRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.PromoteJournalEntryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getPromoteJournalEntryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * GetImprovementReport reports, per area, what keeps going wrong, and ranks the problems recurring across runs.
     * Over the project's newest entries (every run of the project, whoever asks: agents learn from each other's
     * runs), at most max_entries of them.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a limit out of range, `since` outside the Timestamp range,
     *   or `project` malformed, missing for an operator naming none, or naming another project than the caller's.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a stored record the report reads is not a journal record.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void getImprovementReport(dev.kxm.v1.GetImprovementReportRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.GetImprovementReportResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetImprovementReportMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ExportRetrospective returns an ended run's retrospective, written when it ended: message, JSON and Markdown.
     * The document is at most 768 KiB of JSON: the oldest entries are left out first, and counted.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND, PERMISSION_DENIED: as GetWorkflowRun.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_ENDED): the run has not ended.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the stored retrospective, or (for a run that ended before the
     *   journal existed) a record of its journal, is corrupted.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public void exportRetrospective(dev.kxm.v1.ExportRetrospectiveRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ExportRetrospectiveResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getExportRetrospectiveMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * VerifyJournal proves a run's journal intact against the hub's journal keys, or names the first record that is not.
     * Each record's chain must be the HMAC of its canonical form chained to its predecessor's, under a key the
     * hub holds; an ended run's journal must still hold the head its retrospective recorded and sealed. An answer is a
     * verdict, never an error: a journal that fails is reported, not refused.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND, PERMISSION_DENIED: as GetWorkflowRun.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a stored record is not a journal record at all.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public void verifyJournal(dev.kxm.v1.VerifyJournalRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.VerifyJournalResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getVerifyJournalMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * CompleteAssignment returns the caller's result for one of its assignments: a WorkerResult (workers, gate
     * workers) or a ReviewEnvelope (reviewers), the one way a step's work comes back.
     * Exactly one result is accepted per assignment; the same result again is answered as the first (`duplicate`).
     * The hub judges it: a worker's outcome must be one the step declares, a review passes with a PASS verdict and
     * no blockers, a gate's outcome is derived from its checks under the step's `expect`. The run then moves as the
     * step's join decides (docs/step-workflows.md).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an agent.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no result, the envelope is not what the assignment asks for,
     *   or does not fit it (an undeclared outcome, a gate's checks out of order, a malformed cost or commit); field named.
     * - NOT_FOUND (ERROR_REASON_ASSIGNMENT_NOT_FOUND): no assignment of the caller's project has this id.
     * - PERMISSION_DENIED (ERROR_REASON_ASSIGNMENT_FORBIDDEN): the assignment is another agent's.
     * - FAILED_PRECONDITION (ERROR_REASON_ASSIGNMENT_CLOSED): it is no longer open (another result, expired,
     *   superseded, cancelled), or the result came at or after its deadline (which expires it); metadata:
     *   assignmentId, state.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): its run ended.
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the attempt token presented is another
     *   assignment's; metadata: assignmentId, tokenAssignmentId.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void completeAssignment(dev.kxm.v1.CompleteAssignmentRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.CompleteAssignmentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCompleteAssignmentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * NextAssignment reads the caller's oldest open assignment (also delivered on its inbox as a message from
     * `workflow:&lt;run id&gt;` whose content is the AssignmentRequest's JSON), with a fresh attempt token; with
     * include_context, its context packet and brief too (AssignmentPacket, docs/context.md).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an agent.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): context_budget_tokens is neither 0 nor 512 to
     *   200,000 (metadata: field).
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a run's stored state does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public void nextAssignment(dev.kxm.v1.NextAssignmentRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.NextAssignmentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getNextAssignmentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ApproveStep decides a step run's current approval step with one of its declared outcomes (recorded in the
     * run's events with the operator and the reason).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the outcome is not one the step declares, or run_id is malformed.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run ended.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_WAITING): its current step is not this approval step awaiting a decision.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * </pre>
     */
    public void approveStep(dev.kxm.v1.ApproveStepRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ApproveStepResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getApproveStepMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * RecoverStepRun recovers a step run an uncertain gate blocked: run the gate again, fail or cancel the run.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no action, or run_id is malformed.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run ended.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_BLOCKED): it is not blocked.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * </pre>
     */
    public void recoverStepRun(dev.kxm.v1.RecoverStepRunRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.RecoverStepRunResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRecoverStepRunMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * ListWorkflowRunEvents pages through a step run's event log in order (contiguous sequences from 1).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the calling agent is not the plan's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a negative after_sequence or page size, or run_id is malformed.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public void listWorkflowRunEvents(dev.kxm.v1.ListWorkflowRunEventsRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.ListWorkflowRunEventsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListWorkflowRunEventsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * AuditGateEvidence re-verifies a step run's gate evidence from what is stored (docs/gates.md, audit).
     * The plan must recompute to the run's plan hash and each pinned gate to its hash; each gate evidence
     * record to its evidence hash, with its step's gate pins, the outcome its checks derive and the result
     * hash its closed assignment kept; every gate result must have its record. An answer is a verdict,
     * never an error: evidence that fails is reported, not refused.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the calling agent is not the plan's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): run_id is malformed.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state or plan does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public void auditGateEvidence(dev.kxm.v1.AuditGateEvidenceRequest request,
        io.grpc.stub.StreamObserver<dev.kxm.v1.AuditGateEvidenceResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAuditGateEvidenceMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * A stub to allow clients to do synchronous rpc calls to service WorkflowService.
   * <pre>
   * WorkflowService holds durable, evidence-gated workflow runs.
   * An operator registers definitions (stages with required evidence, peer-review policies, typed
   * transitions and budgets). A run starts from a signed webhook (`POST /v1/webhooks/{definition}` on the
   * webhook listener) or StartWorkflowRun; the hub prompts the coordinator agent, which checkpoints each
   * stage with evidence the hub verifies against its own message records. A stage passes only when its
   * evidence and its quorum of distinct eligible producers are met. Long external work waits for a signed
   * signal (`POST /v1/webhooks/{definition}/runs/{run}/signals/{key}`) or SignalWorkflowRun.
   * Coordinator RPCs (Checkpoint, Wait, EscalateStage) need the run's coordinator agent identity; operator
   * RPCs an operator credential; an agent sees only the runs it coordinates, a project token or an
   * operator naming the project every run of the project. Every RPC refuses a run of another project as
   * NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND), so ids of other projects are not disclosed.
   * </pre>
   */
  public static final class WorkflowServiceBlockingV2Stub
      extends io.grpc.stub.AbstractBlockingStub<WorkflowServiceBlockingV2Stub> {
    private WorkflowServiceBlockingV2Stub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected WorkflowServiceBlockingV2Stub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new WorkflowServiceBlockingV2Stub(channel, callOptions);
    }

    /**
     * <pre>
     * RegisterWorkflowDefinition validates a definition (JSON or YAML) and stores it.
     * A stage workflow is JSON in the original's shape (no `schema` field); a step workflow says
     * `schema: kxm.workflow.v1` and names its `id` and `project`. A step workflow is loaded with its project's
     * current gate registry (RegisterGateRegistry) and compiled; its plan, which embeds every gate it runs with
     * the gate's hash, is what its runs pin (`hash` is the plan hash). Registering again replaces a definition;
     * runs already started keep the version they pinned. An id keeps its project and its kind.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_DEFINITION_INVALID): the document breaks a load rule (a step
     *   workflow's gate step naming a gate its project's registry lacks: code `step_gate_unknown`); the message
     *   lists every problem with its field, metadata names the first. An operator naming a project
     *   (`x-kxm-project`) registers in that project only: a document of another project (field `project`), or
     *   an id another project's definition holds (field `id`), is refused the same way; so is an id a
     *   definition of the other kind holds (field `schema`), and a gate registry (field `schema`).
     * </pre>
     */
    public dev.kxm.v1.RegisterWorkflowDefinitionResponse registerWorkflowDefinition(dev.kxm.v1.RegisterWorkflowDefinitionRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRegisterWorkflowDefinitionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetWorkflowDefinition reads a registered definition (literal secrets redacted).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WEBHOOK_NOT_FOUND): no definition has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.GetWorkflowDefinitionResponse getWorkflowDefinition(dev.kxm.v1.GetWorkflowDefinitionRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetWorkflowDefinitionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListWorkflowDefinitions pages through the caller's project's definitions by id (an operator naming no project: all).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or from another query.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.ListWorkflowDefinitionsResponse listWorkflowDefinitions(dev.kxm.v1.ListWorkflowDefinitionsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListWorkflowDefinitionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RegisterGateRegistry validates a project's gate registry (`kxm.gate-registry.v1`, JSON or YAML) and stores it,
     * replacing the project's registry.
     * The project is the request's `project`, else the one the operator names (`x-kxm-project`). A registry that
     * drops a gate a registered step workflow of the project names, changes its kind, or no longer suits its step
     * is refused, listing every such definition and gate: nothing registered may become unrunnable. Registered
     * plans keep the gates they pinned; registering a step workflow again pins the new registry's gates.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_DEFINITION_INVALID): the document breaks a load rule; the message
     *   lists every problem with its field (`gates.&lt;id&gt;.argv`), metadata names the first.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no project is named, the name is malformed, or it differs from
     *   the project the operator names (field `project`).
     * - FAILED_PRECONDITION (ERROR_REASON_GATE_REGISTRY_IN_USE): a registered step workflow names a gate the registry
     *   drops, changes the kind of, or no longer suits; field violations name each gate, the message each
     *   definition; metadata: definitions, gates.
     * </pre>
     */
    public dev.kxm.v1.RegisterGateRegistryResponse registerGateRegistry(dev.kxm.v1.RegisterGateRegistryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRegisterGateRegistryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetGateRegistry reads the caller's project's gate registry.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_GATE_REGISTRY_NOT_FOUND): the caller's project has no gate registry.
     * </pre>
     */
    public dev.kxm.v1.GetGateRegistryResponse getGateRegistry(dev.kxm.v1.GetGateRegistryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetGateRegistryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * StartWorkflowRun starts a run of either kind, for a trusted caller: a stage run as a signed start webhook
     * would (with its payload), a step run with its `inputs` (queued while its project has `--max-concurrent-runs`
     * active step runs).
     * A delivery id already used for this definition returns its run with `duplicate` set; for a stage workflow the
     * same id with another payload is refused.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): delivery_id is empty or too long, the payload is too large, or
     *   it holds a number JSON cannot (NaN, Infinity).
     * - NOT_FOUND (ERROR_REASON_WEBHOOK_NOT_FOUND): no definition has this id.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): `inputs` given for a stage workflow.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a step workflow's pinned plan does not decode.
     * - FAILED_PRECONDITION (ERROR_REASON_WEBHOOK_DELIVERY_CONFLICT): the delivery id started a run with another payload.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TARGET_UNAVAILABLE): the coordinator or an eligible agent was never registered.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_INVALID, ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_UNRESOLVABLE):
     *   an evidence policy resolves to the coordinator, or to fewer agents than it needs.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_PROMPT_TOO_LONG): the rendered prompt exceeds 32,000 characters.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): `inputs.skill_id` is not a skill id.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): `inputs.skill_id` is given and no gate of the step workflow
     *   declares `evaluates` (field `inputs.skill_id`).
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the run's project has `inputs.skill_id` (another
     *   project's skill reads as missing); metadata: skillId, field.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill of `inputs.skill_id` is not a candidate;
     *   metadata: skillId, state.
     * </pre>
     */
    public dev.kxm.v1.StartWorkflowRunResponse startWorkflowRun(dev.kxm.v1.StartWorkflowRunRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getStartWorkflowRunMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetWorkflowRun reads a run.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no run has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the calling agent is not its coordinator;
     *   metadata: assignedCoordinatorName, nextAction.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.GetWorkflowRunResponse getWorkflowRun(dev.kxm.v1.GetWorkflowRunRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetWorkflowRunMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListWorkflowRuns pages through runs, newest first: an agent's own, or every run of the project.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or from another query.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.ListWorkflowRunsResponse listWorkflowRuns(dev.kxm.v1.ListWorkflowRunsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListWorkflowRunsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * CancelWorkflowRun ends a running or waiting run as cancelled.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run has ended.
     * </pre>
     */
    public dev.kxm.v1.CancelWorkflowRunResponse cancelWorkflowRun(dev.kxm.v1.CancelWorkflowRunRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCancelWorkflowRunMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RerunWorkflowRun starts a new run of the same definition (its current version) from a run's start payload.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run (or it was purged, with its payload).
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_KIND_MISMATCH): the run's definition id no longer holds a stage
     *   workflow (never, while an id keeps its kind); metadata: definitionId, kind.
     * - as StartWorkflowRun for the new run.
     * </pre>
     */
    public dev.kxm.v1.RerunWorkflowRunResponse rerunWorkflowRun(dev.kxm.v1.RerunWorkflowRunRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRerunWorkflowRunMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Checkpoint reports the current stage's attempt with its evidence; the hub verifies cited peer replies.
     * A refused checkpoint consumes no attempt and changes nothing. A request_id seen before for this run
     * returns the first answer and applies nothing again.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND, ERROR_REASON_WORKFLOW_STAGE_NOT_FOUND): no such run or stage.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the caller is not the run's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CHECKPOINT_STATUS, ERROR_REASON_INVALID_WORKFLOW_EVIDENCE,
     *   ERROR_REASON_INVALID_WORKFLOW_EVIDENCE_REFS, ERROR_REASON_PROTOCOL_ERROR): a malformed field.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_PROVENANCE_INVALID): a cited message fails verification;
     *   metadata: messageId, requirementKey.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING): evidence refs for a key without a peer policy.
     * - INVALID_ARGUMENT (ERROR_REASON_WEAKENED_REPRODUCTION): the captured reproduction is missing or changed.
     * - FAILED_PRECONDITION, INVALID_ARGUMENT (ERROR_REASON_PLAN_HASH_REQUIRED): the plan hash is not captured, or not presented unchanged.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_INCOMPLETE): a pass lacks required evidence;
     *   metadata: missingRequirements, providedRequirements, peerRequirements, quorum (`key=counted/required`).
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another request on this run.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run is not running.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): the stage is not the current one in progress.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.CheckpointResponse checkpoint(dev.kxm.v1.CheckpointRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCheckpointMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Wait puts the current stage into a wait for a signal; evidence and cited replies given are kept.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND, PERMISSION_DENIED: as Checkpoint.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SIGNAL_KEY): the key is malformed or `audit_escalation`.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_WAIT_INVALID): the timeout is out of range (1 s to 30 days).
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_RUNNING): the run is not running.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): the stage is not the current one.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another request on this run.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_EVIDENCE, ERROR_REASON_INVALID_WORKFLOW_EVIDENCE_REFS,
     *   ERROR_REASON_WORKFLOW_PROVENANCE_INVALID, ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING, ERROR_REASON_PROTOCOL_ERROR):
     *   the evidence errors of Checkpoint, and malformed fields.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.WaitResponse wait(dev.kxm.v1.WaitRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getWaitMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * SignalWorkflowRun delivers a signal as a signed signal webhook would, for a trusted caller.
     * For a step run it resolves the current wait step awaiting `signal_key` with `outcome` (or, when
     * empty, the status's: PASSED `pass`, WARNING `warning`, FAILED `fail`), which takes that step's
     * transition; summary and evidence are not used.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SIGNAL_KEY, ERROR_REASON_INVALID_CHECKPOINT_STATUS,
     *   ERROR_REASON_INVALID_WORKFLOW_EVIDENCE): a malformed field.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_SIGNAL_DELIVERY_CONFLICT): the delivery id was used with another key or body.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_WAITING, ERROR_REASON_WORKFLOW_SIGNAL_MISMATCH,
     *   ERROR_REASON_WORKFLOW_WAIT_INCONSISTENT, ERROR_REASON_WORKFLOW_SIGNAL_CONTEXT_MISMATCH): the run does not await it.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_RULING_REQUIRED): the wait is an audit escalation.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_INCOMPLETE): a pass lacks evidence; the run keeps waiting.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a step run's outcome is missing, too long or not one its wait step declares.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the step run ended.
     * </pre>
     */
    public dev.kxm.v1.SignalWorkflowRunResponse signalWorkflowRun(dev.kxm.v1.SignalWorkflowRunRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getSignalWorkflowRunMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ApproveDegradation lets a peer requirement pass with the policy's smaller minimum at the active attempt.
     * The same reason again returns the approval with `duplicate` set. An approval does not pass the stage.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND, ERROR_REASON_WORKFLOW_STAGE_NOT_FOUND): no such run or stage.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL, ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): not active.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_DEGRADATION_FORBIDDEN): the policy declares no degradation.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_DEGRADATION_CONFLICT): another reason was approved for this attempt.
     * </pre>
     */
    public dev.kxm.v1.ApproveDegradationResponse approveDegradation(dev.kxm.v1.ApproveDegradationRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getApproveDegradationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * EscalateStage escalates the current stage for audit: it waits up to 24 h for an operator's ruling.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND, PERMISSION_DENIED: as Checkpoint.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_RUNNING, ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): not active.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.EscalateStageResponse escalateStage(dev.kxm.v1.EscalateStageRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getEscalateStageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ResolveEscalation applies an operator's ruling (with an explicit status) to an escalated stage.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CHECKPOINT_STATUS): no status.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_EVIDENCE, ERROR_REASON_PROTOCOL_ERROR): a malformed evidence map, ruling or id.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_WAITING, ERROR_REASON_WORKFLOW_SIGNAL_MISMATCH): no escalation awaits a ruling.
     * - the evidence errors of Checkpoint (WEAKENED_REPRODUCTION, PLAN_HASH_REQUIRED, WORKFLOW_EVIDENCE_INCOMPLETE).
     * </pre>
     */
    public dev.kxm.v1.ResolveEscalationResponse resolveEscalation(dev.kxm.v1.ResolveEscalationRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getResolveEscalationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RecordJournal records an entry in a run's journal: a plan, decision, contradiction, error, lesson, ….
     * The run's coordinator only, while the run goes on or after it ended (an entry recorded after the end is
     * not in the retrospective written then). A stage-bound entry takes the stage's current attempt (the
     * hub's, never the caller's) and, naming no area, the stage's declared area. The entry is sealed into the
     * run's chain. A request_id seen before for this run returns the first entry and records nothing again.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the caller is not the run's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_JOURNAL_CATEGORY, ERROR_REASON_INVALID_JOURNAL_SEVERITY,
     *   ERROR_REASON_INVALID_IMPROVEMENT_AREA): a value outside its enum, or no area and no stage declaring one.
     * - INVALID_ARGUMENT (ERROR_REASON_JOURNAL_EVIDENCE_REQUIRED): a lesson or skill candidate without evidence.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_JOURNAL_RELATION): the stage, or a related entry, is not the run's.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): an empty summary or a text over its limit.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another request on this run.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.RecordJournalResponse recordJournal(dev.kxm.v1.RecordJournalRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRecordJournalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListJournal pages through a run's journal in order: entries and promotion records with their chain.
     * A page ends early rather than pass 2 MiB of records (the token goes on from there).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND, PERMISSION_DENIED: as GetWorkflowRun.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or from another run.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a stored record of the page is not a journal record.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.ListJournalResponse listJournal(dev.kxm.v1.ListJournalRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListJournalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * PromoteJournalEntry decides a skill candidate, hypothesis or experiment: approved, rejected or quarantined.
     * An operator decides, never the entry's author (its agent id or name); the decision needs evidence, is
     * terminal and is a journal record of its own: the entry is never changed.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_JOURNAL_NOT_FOUND): no entry has this id in the caller's project.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_JOURNAL_PROMOTION): `to` is not approved, rejected or quarantined.
     * - INVALID_ARGUMENT (ERROR_REASON_JOURNAL_PROMOTION_INVALID): the category is not promotable, the decider is
     *   the author, no evidence ref is given, or the entry was decided already (metadata: status).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed entry_id, a reason over 1,000 characters, or
     *   evidence refs over their limits.
     * </pre>
     */
    public dev.kxm.v1.PromoteJournalEntryResponse promoteJournalEntry(dev.kxm.v1.PromoteJournalEntryRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getPromoteJournalEntryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetImprovementReport reports, per area, what keeps going wrong, and ranks the problems recurring across runs.
     * Over the project's newest entries (every run of the project, whoever asks: agents learn from each other's
     * runs), at most max_entries of them.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a limit out of range, `since` outside the Timestamp range,
     *   or `project` malformed, missing for an operator naming none, or naming another project than the caller's.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a stored record the report reads is not a journal record.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.GetImprovementReportResponse getImprovementReport(dev.kxm.v1.GetImprovementReportRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getGetImprovementReportMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ExportRetrospective returns an ended run's retrospective, written when it ended: message, JSON and Markdown.
     * The document is at most 768 KiB of JSON: the oldest entries are left out first, and counted.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND, PERMISSION_DENIED: as GetWorkflowRun.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_ENDED): the run has not ended.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the stored retrospective, or (for a run that ended before the
     *   journal existed) a record of its journal, is corrupted.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.ExportRetrospectiveResponse exportRetrospective(dev.kxm.v1.ExportRetrospectiveRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getExportRetrospectiveMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * VerifyJournal proves a run's journal intact against the hub's journal keys, or names the first record that is not.
     * Each record's chain must be the HMAC of its canonical form chained to its predecessor's, under a key the
     * hub holds; an ended run's journal must still hold the head its retrospective recorded and sealed. An answer is a
     * verdict, never an error: a journal that fails is reported, not refused.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND, PERMISSION_DENIED: as GetWorkflowRun.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a stored record is not a journal record at all.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.VerifyJournalResponse verifyJournal(dev.kxm.v1.VerifyJournalRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getVerifyJournalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * CompleteAssignment returns the caller's result for one of its assignments: a WorkerResult (workers, gate
     * workers) or a ReviewEnvelope (reviewers), the one way a step's work comes back.
     * Exactly one result is accepted per assignment; the same result again is answered as the first (`duplicate`).
     * The hub judges it: a worker's outcome must be one the step declares, a review passes with a PASS verdict and
     * no blockers, a gate's outcome is derived from its checks under the step's `expect`. The run then moves as the
     * step's join decides (docs/step-workflows.md).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an agent.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no result, the envelope is not what the assignment asks for,
     *   or does not fit it (an undeclared outcome, a gate's checks out of order, a malformed cost or commit); field named.
     * - NOT_FOUND (ERROR_REASON_ASSIGNMENT_NOT_FOUND): no assignment of the caller's project has this id.
     * - PERMISSION_DENIED (ERROR_REASON_ASSIGNMENT_FORBIDDEN): the assignment is another agent's.
     * - FAILED_PRECONDITION (ERROR_REASON_ASSIGNMENT_CLOSED): it is no longer open (another result, expired,
     *   superseded, cancelled), or the result came at or after its deadline (which expires it); metadata:
     *   assignmentId, state.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): its run ended.
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the attempt token presented is another
     *   assignment's; metadata: assignmentId, tokenAssignmentId.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.CompleteAssignmentResponse completeAssignment(dev.kxm.v1.CompleteAssignmentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getCompleteAssignmentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * NextAssignment reads the caller's oldest open assignment (also delivered on its inbox as a message from
     * `workflow:&lt;run id&gt;` whose content is the AssignmentRequest's JSON), with a fresh attempt token; with
     * include_context, its context packet and brief too (AssignmentPacket, docs/context.md).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an agent.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): context_budget_tokens is neither 0 nor 512 to
     *   200,000 (metadata: field).
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a run's stored state does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.NextAssignmentResponse nextAssignment(dev.kxm.v1.NextAssignmentRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getNextAssignmentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ApproveStep decides a step run's current approval step with one of its declared outcomes (recorded in the
     * run's events with the operator and the reason).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the outcome is not one the step declares, or run_id is malformed.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run ended.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_WAITING): its current step is not this approval step awaiting a decision.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * </pre>
     */
    public dev.kxm.v1.ApproveStepResponse approveStep(dev.kxm.v1.ApproveStepRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getApproveStepMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RecoverStepRun recovers a step run an uncertain gate blocked: run the gate again, fail or cancel the run.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no action, or run_id is malformed.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run ended.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_BLOCKED): it is not blocked.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * </pre>
     */
    public dev.kxm.v1.RecoverStepRunResponse recoverStepRun(dev.kxm.v1.RecoverStepRunRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getRecoverStepRunMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListWorkflowRunEvents pages through a step run's event log in order (contiguous sequences from 1).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the calling agent is not the plan's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a negative after_sequence or page size, or run_id is malformed.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.ListWorkflowRunEventsResponse listWorkflowRunEvents(dev.kxm.v1.ListWorkflowRunEventsRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getListWorkflowRunEventsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * AuditGateEvidence re-verifies a step run's gate evidence from what is stored (docs/gates.md, audit).
     * The plan must recompute to the run's plan hash and each pinned gate to its hash; each gate evidence
     * record to its evidence hash, with its step's gate pins, the outcome its checks derive and the result
     * hash its closed assignment kept; every gate result must have its record. An answer is a verdict,
     * never an error: evidence that fails is reported, not refused.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the calling agent is not the plan's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): run_id is malformed.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state or plan does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.AuditGateEvidenceResponse auditGateEvidence(dev.kxm.v1.AuditGateEvidenceRequest request) throws io.grpc.StatusException {
      return io.grpc.stub.ClientCalls.blockingV2UnaryCall(
          getChannel(), getAuditGateEvidenceMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do limited synchronous rpc calls to service WorkflowService.
   * <pre>
   * WorkflowService holds durable, evidence-gated workflow runs.
   * An operator registers definitions (stages with required evidence, peer-review policies, typed
   * transitions and budgets). A run starts from a signed webhook (`POST /v1/webhooks/{definition}` on the
   * webhook listener) or StartWorkflowRun; the hub prompts the coordinator agent, which checkpoints each
   * stage with evidence the hub verifies against its own message records. A stage passes only when its
   * evidence and its quorum of distinct eligible producers are met. Long external work waits for a signed
   * signal (`POST /v1/webhooks/{definition}/runs/{run}/signals/{key}`) or SignalWorkflowRun.
   * Coordinator RPCs (Checkpoint, Wait, EscalateStage) need the run's coordinator agent identity; operator
   * RPCs an operator credential; an agent sees only the runs it coordinates, a project token or an
   * operator naming the project every run of the project. Every RPC refuses a run of another project as
   * NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND), so ids of other projects are not disclosed.
   * </pre>
   */
  public static final class WorkflowServiceBlockingStub
      extends io.grpc.stub.AbstractBlockingStub<WorkflowServiceBlockingStub> {
    private WorkflowServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected WorkflowServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new WorkflowServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * RegisterWorkflowDefinition validates a definition (JSON or YAML) and stores it.
     * A stage workflow is JSON in the original's shape (no `schema` field); a step workflow says
     * `schema: kxm.workflow.v1` and names its `id` and `project`. A step workflow is loaded with its project's
     * current gate registry (RegisterGateRegistry) and compiled; its plan, which embeds every gate it runs with
     * the gate's hash, is what its runs pin (`hash` is the plan hash). Registering again replaces a definition;
     * runs already started keep the version they pinned. An id keeps its project and its kind.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_DEFINITION_INVALID): the document breaks a load rule (a step
     *   workflow's gate step naming a gate its project's registry lacks: code `step_gate_unknown`); the message
     *   lists every problem with its field, metadata names the first. An operator naming a project
     *   (`x-kxm-project`) registers in that project only: a document of another project (field `project`), or
     *   an id another project's definition holds (field `id`), is refused the same way; so is an id a
     *   definition of the other kind holds (field `schema`), and a gate registry (field `schema`).
     * </pre>
     */
    public dev.kxm.v1.RegisterWorkflowDefinitionResponse registerWorkflowDefinition(dev.kxm.v1.RegisterWorkflowDefinitionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRegisterWorkflowDefinitionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetWorkflowDefinition reads a registered definition (literal secrets redacted).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WEBHOOK_NOT_FOUND): no definition has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.GetWorkflowDefinitionResponse getWorkflowDefinition(dev.kxm.v1.GetWorkflowDefinitionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetWorkflowDefinitionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListWorkflowDefinitions pages through the caller's project's definitions by id (an operator naming no project: all).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or from another query.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.ListWorkflowDefinitionsResponse listWorkflowDefinitions(dev.kxm.v1.ListWorkflowDefinitionsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListWorkflowDefinitionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RegisterGateRegistry validates a project's gate registry (`kxm.gate-registry.v1`, JSON or YAML) and stores it,
     * replacing the project's registry.
     * The project is the request's `project`, else the one the operator names (`x-kxm-project`). A registry that
     * drops a gate a registered step workflow of the project names, changes its kind, or no longer suits its step
     * is refused, listing every such definition and gate: nothing registered may become unrunnable. Registered
     * plans keep the gates they pinned; registering a step workflow again pins the new registry's gates.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_DEFINITION_INVALID): the document breaks a load rule; the message
     *   lists every problem with its field (`gates.&lt;id&gt;.argv`), metadata names the first.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no project is named, the name is malformed, or it differs from
     *   the project the operator names (field `project`).
     * - FAILED_PRECONDITION (ERROR_REASON_GATE_REGISTRY_IN_USE): a registered step workflow names a gate the registry
     *   drops, changes the kind of, or no longer suits; field violations name each gate, the message each
     *   definition; metadata: definitions, gates.
     * </pre>
     */
    public dev.kxm.v1.RegisterGateRegistryResponse registerGateRegistry(dev.kxm.v1.RegisterGateRegistryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRegisterGateRegistryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetGateRegistry reads the caller's project's gate registry.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_GATE_REGISTRY_NOT_FOUND): the caller's project has no gate registry.
     * </pre>
     */
    public dev.kxm.v1.GetGateRegistryResponse getGateRegistry(dev.kxm.v1.GetGateRegistryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetGateRegistryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * StartWorkflowRun starts a run of either kind, for a trusted caller: a stage run as a signed start webhook
     * would (with its payload), a step run with its `inputs` (queued while its project has `--max-concurrent-runs`
     * active step runs).
     * A delivery id already used for this definition returns its run with `duplicate` set; for a stage workflow the
     * same id with another payload is refused.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): delivery_id is empty or too long, the payload is too large, or
     *   it holds a number JSON cannot (NaN, Infinity).
     * - NOT_FOUND (ERROR_REASON_WEBHOOK_NOT_FOUND): no definition has this id.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): `inputs` given for a stage workflow.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a step workflow's pinned plan does not decode.
     * - FAILED_PRECONDITION (ERROR_REASON_WEBHOOK_DELIVERY_CONFLICT): the delivery id started a run with another payload.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TARGET_UNAVAILABLE): the coordinator or an eligible agent was never registered.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_INVALID, ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_UNRESOLVABLE):
     *   an evidence policy resolves to the coordinator, or to fewer agents than it needs.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_PROMPT_TOO_LONG): the rendered prompt exceeds 32,000 characters.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): `inputs.skill_id` is not a skill id.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): `inputs.skill_id` is given and no gate of the step workflow
     *   declares `evaluates` (field `inputs.skill_id`).
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the run's project has `inputs.skill_id` (another
     *   project's skill reads as missing); metadata: skillId, field.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill of `inputs.skill_id` is not a candidate;
     *   metadata: skillId, state.
     * </pre>
     */
    public dev.kxm.v1.StartWorkflowRunResponse startWorkflowRun(dev.kxm.v1.StartWorkflowRunRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getStartWorkflowRunMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetWorkflowRun reads a run.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no run has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the calling agent is not its coordinator;
     *   metadata: assignedCoordinatorName, nextAction.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.GetWorkflowRunResponse getWorkflowRun(dev.kxm.v1.GetWorkflowRunRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetWorkflowRunMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListWorkflowRuns pages through runs, newest first: an agent's own, or every run of the project.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or from another query.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.ListWorkflowRunsResponse listWorkflowRuns(dev.kxm.v1.ListWorkflowRunsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListWorkflowRunsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * CancelWorkflowRun ends a running or waiting run as cancelled.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run has ended.
     * </pre>
     */
    public dev.kxm.v1.CancelWorkflowRunResponse cancelWorkflowRun(dev.kxm.v1.CancelWorkflowRunRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCancelWorkflowRunMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RerunWorkflowRun starts a new run of the same definition (its current version) from a run's start payload.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run (or it was purged, with its payload).
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_KIND_MISMATCH): the run's definition id no longer holds a stage
     *   workflow (never, while an id keeps its kind); metadata: definitionId, kind.
     * - as StartWorkflowRun for the new run.
     * </pre>
     */
    public dev.kxm.v1.RerunWorkflowRunResponse rerunWorkflowRun(dev.kxm.v1.RerunWorkflowRunRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRerunWorkflowRunMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Checkpoint reports the current stage's attempt with its evidence; the hub verifies cited peer replies.
     * A refused checkpoint consumes no attempt and changes nothing. A request_id seen before for this run
     * returns the first answer and applies nothing again.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND, ERROR_REASON_WORKFLOW_STAGE_NOT_FOUND): no such run or stage.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the caller is not the run's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CHECKPOINT_STATUS, ERROR_REASON_INVALID_WORKFLOW_EVIDENCE,
     *   ERROR_REASON_INVALID_WORKFLOW_EVIDENCE_REFS, ERROR_REASON_PROTOCOL_ERROR): a malformed field.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_PROVENANCE_INVALID): a cited message fails verification;
     *   metadata: messageId, requirementKey.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING): evidence refs for a key without a peer policy.
     * - INVALID_ARGUMENT (ERROR_REASON_WEAKENED_REPRODUCTION): the captured reproduction is missing or changed.
     * - FAILED_PRECONDITION, INVALID_ARGUMENT (ERROR_REASON_PLAN_HASH_REQUIRED): the plan hash is not captured, or not presented unchanged.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_INCOMPLETE): a pass lacks required evidence;
     *   metadata: missingRequirements, providedRequirements, peerRequirements, quorum (`key=counted/required`).
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another request on this run.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run is not running.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): the stage is not the current one in progress.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.CheckpointResponse checkpoint(dev.kxm.v1.CheckpointRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCheckpointMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Wait puts the current stage into a wait for a signal; evidence and cited replies given are kept.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND, PERMISSION_DENIED: as Checkpoint.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SIGNAL_KEY): the key is malformed or `audit_escalation`.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_WAIT_INVALID): the timeout is out of range (1 s to 30 days).
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_RUNNING): the run is not running.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): the stage is not the current one.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another request on this run.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_EVIDENCE, ERROR_REASON_INVALID_WORKFLOW_EVIDENCE_REFS,
     *   ERROR_REASON_WORKFLOW_PROVENANCE_INVALID, ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING, ERROR_REASON_PROTOCOL_ERROR):
     *   the evidence errors of Checkpoint, and malformed fields.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.WaitResponse wait(dev.kxm.v1.WaitRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getWaitMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * SignalWorkflowRun delivers a signal as a signed signal webhook would, for a trusted caller.
     * For a step run it resolves the current wait step awaiting `signal_key` with `outcome` (or, when
     * empty, the status's: PASSED `pass`, WARNING `warning`, FAILED `fail`), which takes that step's
     * transition; summary and evidence are not used.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SIGNAL_KEY, ERROR_REASON_INVALID_CHECKPOINT_STATUS,
     *   ERROR_REASON_INVALID_WORKFLOW_EVIDENCE): a malformed field.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_SIGNAL_DELIVERY_CONFLICT): the delivery id was used with another key or body.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_WAITING, ERROR_REASON_WORKFLOW_SIGNAL_MISMATCH,
     *   ERROR_REASON_WORKFLOW_WAIT_INCONSISTENT, ERROR_REASON_WORKFLOW_SIGNAL_CONTEXT_MISMATCH): the run does not await it.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_RULING_REQUIRED): the wait is an audit escalation.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_INCOMPLETE): a pass lacks evidence; the run keeps waiting.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a step run's outcome is missing, too long or not one its wait step declares.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the step run ended.
     * </pre>
     */
    public dev.kxm.v1.SignalWorkflowRunResponse signalWorkflowRun(dev.kxm.v1.SignalWorkflowRunRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSignalWorkflowRunMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ApproveDegradation lets a peer requirement pass with the policy's smaller minimum at the active attempt.
     * The same reason again returns the approval with `duplicate` set. An approval does not pass the stage.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND, ERROR_REASON_WORKFLOW_STAGE_NOT_FOUND): no such run or stage.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL, ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): not active.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_DEGRADATION_FORBIDDEN): the policy declares no degradation.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_DEGRADATION_CONFLICT): another reason was approved for this attempt.
     * </pre>
     */
    public dev.kxm.v1.ApproveDegradationResponse approveDegradation(dev.kxm.v1.ApproveDegradationRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getApproveDegradationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * EscalateStage escalates the current stage for audit: it waits up to 24 h for an operator's ruling.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND, PERMISSION_DENIED: as Checkpoint.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_RUNNING, ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): not active.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.EscalateStageResponse escalateStage(dev.kxm.v1.EscalateStageRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getEscalateStageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ResolveEscalation applies an operator's ruling (with an explicit status) to an escalated stage.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CHECKPOINT_STATUS): no status.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_EVIDENCE, ERROR_REASON_PROTOCOL_ERROR): a malformed evidence map, ruling or id.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_WAITING, ERROR_REASON_WORKFLOW_SIGNAL_MISMATCH): no escalation awaits a ruling.
     * - the evidence errors of Checkpoint (WEAKENED_REPRODUCTION, PLAN_HASH_REQUIRED, WORKFLOW_EVIDENCE_INCOMPLETE).
     * </pre>
     */
    public dev.kxm.v1.ResolveEscalationResponse resolveEscalation(dev.kxm.v1.ResolveEscalationRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getResolveEscalationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RecordJournal records an entry in a run's journal: a plan, decision, contradiction, error, lesson, ….
     * The run's coordinator only, while the run goes on or after it ended (an entry recorded after the end is
     * not in the retrospective written then). A stage-bound entry takes the stage's current attempt (the
     * hub's, never the caller's) and, naming no area, the stage's declared area. The entry is sealed into the
     * run's chain. A request_id seen before for this run returns the first entry and records nothing again.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the caller is not the run's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_JOURNAL_CATEGORY, ERROR_REASON_INVALID_JOURNAL_SEVERITY,
     *   ERROR_REASON_INVALID_IMPROVEMENT_AREA): a value outside its enum, or no area and no stage declaring one.
     * - INVALID_ARGUMENT (ERROR_REASON_JOURNAL_EVIDENCE_REQUIRED): a lesson or skill candidate without evidence.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_JOURNAL_RELATION): the stage, or a related entry, is not the run's.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): an empty summary or a text over its limit.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another request on this run.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.RecordJournalResponse recordJournal(dev.kxm.v1.RecordJournalRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRecordJournalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListJournal pages through a run's journal in order: entries and promotion records with their chain.
     * A page ends early rather than pass 2 MiB of records (the token goes on from there).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND, PERMISSION_DENIED: as GetWorkflowRun.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or from another run.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a stored record of the page is not a journal record.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.ListJournalResponse listJournal(dev.kxm.v1.ListJournalRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListJournalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * PromoteJournalEntry decides a skill candidate, hypothesis or experiment: approved, rejected or quarantined.
     * An operator decides, never the entry's author (its agent id or name); the decision needs evidence, is
     * terminal and is a journal record of its own: the entry is never changed.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_JOURNAL_NOT_FOUND): no entry has this id in the caller's project.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_JOURNAL_PROMOTION): `to` is not approved, rejected or quarantined.
     * - INVALID_ARGUMENT (ERROR_REASON_JOURNAL_PROMOTION_INVALID): the category is not promotable, the decider is
     *   the author, no evidence ref is given, or the entry was decided already (metadata: status).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed entry_id, a reason over 1,000 characters, or
     *   evidence refs over their limits.
     * </pre>
     */
    public dev.kxm.v1.PromoteJournalEntryResponse promoteJournalEntry(dev.kxm.v1.PromoteJournalEntryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getPromoteJournalEntryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * GetImprovementReport reports, per area, what keeps going wrong, and ranks the problems recurring across runs.
     * Over the project's newest entries (every run of the project, whoever asks: agents learn from each other's
     * runs), at most max_entries of them.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a limit out of range, `since` outside the Timestamp range,
     *   or `project` malformed, missing for an operator naming none, or naming another project than the caller's.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a stored record the report reads is not a journal record.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.GetImprovementReportResponse getImprovementReport(dev.kxm.v1.GetImprovementReportRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetImprovementReportMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ExportRetrospective returns an ended run's retrospective, written when it ended: message, JSON and Markdown.
     * The document is at most 768 KiB of JSON: the oldest entries are left out first, and counted.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND, PERMISSION_DENIED: as GetWorkflowRun.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_ENDED): the run has not ended.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the stored retrospective, or (for a run that ended before the
     *   journal existed) a record of its journal, is corrupted.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.ExportRetrospectiveResponse exportRetrospective(dev.kxm.v1.ExportRetrospectiveRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getExportRetrospectiveMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * VerifyJournal proves a run's journal intact against the hub's journal keys, or names the first record that is not.
     * Each record's chain must be the HMAC of its canonical form chained to its predecessor's, under a key the
     * hub holds; an ended run's journal must still hold the head its retrospective recorded and sealed. An answer is a
     * verdict, never an error: a journal that fails is reported, not refused.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND, PERMISSION_DENIED: as GetWorkflowRun.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a stored record is not a journal record at all.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.VerifyJournalResponse verifyJournal(dev.kxm.v1.VerifyJournalRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getVerifyJournalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * CompleteAssignment returns the caller's result for one of its assignments: a WorkerResult (workers, gate
     * workers) or a ReviewEnvelope (reviewers), the one way a step's work comes back.
     * Exactly one result is accepted per assignment; the same result again is answered as the first (`duplicate`).
     * The hub judges it: a worker's outcome must be one the step declares, a review passes with a PASS verdict and
     * no blockers, a gate's outcome is derived from its checks under the step's `expect`. The run then moves as the
     * step's join decides (docs/step-workflows.md).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an agent.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no result, the envelope is not what the assignment asks for,
     *   or does not fit it (an undeclared outcome, a gate's checks out of order, a malformed cost or commit); field named.
     * - NOT_FOUND (ERROR_REASON_ASSIGNMENT_NOT_FOUND): no assignment of the caller's project has this id.
     * - PERMISSION_DENIED (ERROR_REASON_ASSIGNMENT_FORBIDDEN): the assignment is another agent's.
     * - FAILED_PRECONDITION (ERROR_REASON_ASSIGNMENT_CLOSED): it is no longer open (another result, expired,
     *   superseded, cancelled), or the result came at or after its deadline (which expires it); metadata:
     *   assignmentId, state.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): its run ended.
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the attempt token presented is another
     *   assignment's; metadata: assignmentId, tokenAssignmentId.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.CompleteAssignmentResponse completeAssignment(dev.kxm.v1.CompleteAssignmentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCompleteAssignmentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * NextAssignment reads the caller's oldest open assignment (also delivered on its inbox as a message from
     * `workflow:&lt;run id&gt;` whose content is the AssignmentRequest's JSON), with a fresh attempt token; with
     * include_context, its context packet and brief too (AssignmentPacket, docs/context.md).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an agent.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): context_budget_tokens is neither 0 nor 512 to
     *   200,000 (metadata: field).
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a run's stored state does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public dev.kxm.v1.NextAssignmentResponse nextAssignment(dev.kxm.v1.NextAssignmentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getNextAssignmentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ApproveStep decides a step run's current approval step with one of its declared outcomes (recorded in the
     * run's events with the operator and the reason).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the outcome is not one the step declares, or run_id is malformed.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run ended.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_WAITING): its current step is not this approval step awaiting a decision.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * </pre>
     */
    public dev.kxm.v1.ApproveStepResponse approveStep(dev.kxm.v1.ApproveStepRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getApproveStepMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * RecoverStepRun recovers a step run an uncertain gate blocked: run the gate again, fail or cancel the run.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no action, or run_id is malformed.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run ended.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_BLOCKED): it is not blocked.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * </pre>
     */
    public dev.kxm.v1.RecoverStepRunResponse recoverStepRun(dev.kxm.v1.RecoverStepRunRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRecoverStepRunMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * ListWorkflowRunEvents pages through a step run's event log in order (contiguous sequences from 1).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the calling agent is not the plan's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a negative after_sequence or page size, or run_id is malformed.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.ListWorkflowRunEventsResponse listWorkflowRunEvents(dev.kxm.v1.ListWorkflowRunEventsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListWorkflowRunEventsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * AuditGateEvidence re-verifies a step run's gate evidence from what is stored (docs/gates.md, audit).
     * The plan must recompute to the run's plan hash and each pinned gate to its hash; each gate evidence
     * record to its evidence hash, with its step's gate pins, the outcome its checks derive and the result
     * hash its closed assignment kept; every gate result must have its record. An answer is a verdict,
     * never an error: evidence that fails is reported, not refused.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the calling agent is not the plan's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): run_id is malformed.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state or plan does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public dev.kxm.v1.AuditGateEvidenceResponse auditGateEvidence(dev.kxm.v1.AuditGateEvidenceRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAuditGateEvidenceMethod(), getCallOptions(), request);
    }
  }

  /**
   * A stub to allow clients to do ListenableFuture-style rpc calls to service WorkflowService.
   * <pre>
   * WorkflowService holds durable, evidence-gated workflow runs.
   * An operator registers definitions (stages with required evidence, peer-review policies, typed
   * transitions and budgets). A run starts from a signed webhook (`POST /v1/webhooks/{definition}` on the
   * webhook listener) or StartWorkflowRun; the hub prompts the coordinator agent, which checkpoints each
   * stage with evidence the hub verifies against its own message records. A stage passes only when its
   * evidence and its quorum of distinct eligible producers are met. Long external work waits for a signed
   * signal (`POST /v1/webhooks/{definition}/runs/{run}/signals/{key}`) or SignalWorkflowRun.
   * Coordinator RPCs (Checkpoint, Wait, EscalateStage) need the run's coordinator agent identity; operator
   * RPCs an operator credential; an agent sees only the runs it coordinates, a project token or an
   * operator naming the project every run of the project. Every RPC refuses a run of another project as
   * NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND), so ids of other projects are not disclosed.
   * </pre>
   */
  public static final class WorkflowServiceFutureStub
      extends io.grpc.stub.AbstractFutureStub<WorkflowServiceFutureStub> {
    private WorkflowServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected WorkflowServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new WorkflowServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * RegisterWorkflowDefinition validates a definition (JSON or YAML) and stores it.
     * A stage workflow is JSON in the original's shape (no `schema` field); a step workflow says
     * `schema: kxm.workflow.v1` and names its `id` and `project`. A step workflow is loaded with its project's
     * current gate registry (RegisterGateRegistry) and compiled; its plan, which embeds every gate it runs with
     * the gate's hash, is what its runs pin (`hash` is the plan hash). Registering again replaces a definition;
     * runs already started keep the version they pinned. An id keeps its project and its kind.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_DEFINITION_INVALID): the document breaks a load rule (a step
     *   workflow's gate step naming a gate its project's registry lacks: code `step_gate_unknown`); the message
     *   lists every problem with its field, metadata names the first. An operator naming a project
     *   (`x-kxm-project`) registers in that project only: a document of another project (field `project`), or
     *   an id another project's definition holds (field `id`), is refused the same way; so is an id a
     *   definition of the other kind holds (field `schema`), and a gate registry (field `schema`).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RegisterWorkflowDefinitionResponse> registerWorkflowDefinition(
        dev.kxm.v1.RegisterWorkflowDefinitionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRegisterWorkflowDefinitionMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * GetWorkflowDefinition reads a registered definition (literal secrets redacted).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WEBHOOK_NOT_FOUND): no definition has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.GetWorkflowDefinitionResponse> getWorkflowDefinition(
        dev.kxm.v1.GetWorkflowDefinitionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetWorkflowDefinitionMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListWorkflowDefinitions pages through the caller's project's definitions by id (an operator naming no project: all).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or from another query.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListWorkflowDefinitionsResponse> listWorkflowDefinitions(
        dev.kxm.v1.ListWorkflowDefinitionsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListWorkflowDefinitionsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * RegisterGateRegistry validates a project's gate registry (`kxm.gate-registry.v1`, JSON or YAML) and stores it,
     * replacing the project's registry.
     * The project is the request's `project`, else the one the operator names (`x-kxm-project`). A registry that
     * drops a gate a registered step workflow of the project names, changes its kind, or no longer suits its step
     * is refused, listing every such definition and gate: nothing registered may become unrunnable. Registered
     * plans keep the gates they pinned; registering a step workflow again pins the new registry's gates.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_DEFINITION_INVALID): the document breaks a load rule; the message
     *   lists every problem with its field (`gates.&lt;id&gt;.argv`), metadata names the first.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no project is named, the name is malformed, or it differs from
     *   the project the operator names (field `project`).
     * - FAILED_PRECONDITION (ERROR_REASON_GATE_REGISTRY_IN_USE): a registered step workflow names a gate the registry
     *   drops, changes the kind of, or no longer suits; field violations name each gate, the message each
     *   definition; metadata: definitions, gates.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RegisterGateRegistryResponse> registerGateRegistry(
        dev.kxm.v1.RegisterGateRegistryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRegisterGateRegistryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * GetGateRegistry reads the caller's project's gate registry.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_GATE_REGISTRY_NOT_FOUND): the caller's project has no gate registry.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.GetGateRegistryResponse> getGateRegistry(
        dev.kxm.v1.GetGateRegistryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetGateRegistryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * StartWorkflowRun starts a run of either kind, for a trusted caller: a stage run as a signed start webhook
     * would (with its payload), a step run with its `inputs` (queued while its project has `--max-concurrent-runs`
     * active step runs).
     * A delivery id already used for this definition returns its run with `duplicate` set; for a stage workflow the
     * same id with another payload is refused.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): delivery_id is empty or too long, the payload is too large, or
     *   it holds a number JSON cannot (NaN, Infinity).
     * - NOT_FOUND (ERROR_REASON_WEBHOOK_NOT_FOUND): no definition has this id.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): `inputs` given for a stage workflow.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a step workflow's pinned plan does not decode.
     * - FAILED_PRECONDITION (ERROR_REASON_WEBHOOK_DELIVERY_CONFLICT): the delivery id started a run with another payload.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TARGET_UNAVAILABLE): the coordinator or an eligible agent was never registered.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_INVALID, ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_UNRESOLVABLE):
     *   an evidence policy resolves to the coordinator, or to fewer agents than it needs.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_PROMPT_TOO_LONG): the rendered prompt exceeds 32,000 characters.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SKILL_REQUEST): `inputs.skill_id` is not a skill id.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): `inputs.skill_id` is given and no gate of the step workflow
     *   declares `evaluates` (field `inputs.skill_id`).
     * - NOT_FOUND (ERROR_REASON_SKILL_NOT_FOUND): no skill of the run's project has `inputs.skill_id` (another
     *   project's skill reads as missing); metadata: skillId, field.
     * - FAILED_PRECONDITION (ERROR_REASON_SKILL_NOT_PROMOTABLE): the skill of `inputs.skill_id` is not a candidate;
     *   metadata: skillId, state.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.StartWorkflowRunResponse> startWorkflowRun(
        dev.kxm.v1.StartWorkflowRunRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getStartWorkflowRunMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * GetWorkflowRun reads a run.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no run has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the calling agent is not its coordinator;
     *   metadata: assignedCoordinatorName, nextAction.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.GetWorkflowRunResponse> getWorkflowRun(
        dev.kxm.v1.GetWorkflowRunRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetWorkflowRunMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListWorkflowRuns pages through runs, newest first: an agent's own, or every run of the project.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or from another query.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListWorkflowRunsResponse> listWorkflowRuns(
        dev.kxm.v1.ListWorkflowRunsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListWorkflowRunsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * CancelWorkflowRun ends a running or waiting run as cancelled.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run has ended.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.CancelWorkflowRunResponse> cancelWorkflowRun(
        dev.kxm.v1.CancelWorkflowRunRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCancelWorkflowRunMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * RerunWorkflowRun starts a new run of the same definition (its current version) from a run's start payload.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run (or it was purged, with its payload).
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_KIND_MISMATCH): the run's definition id no longer holds a stage
     *   workflow (never, while an id keeps its kind); metadata: definitionId, kind.
     * - as StartWorkflowRun for the new run.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RerunWorkflowRunResponse> rerunWorkflowRun(
        dev.kxm.v1.RerunWorkflowRunRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRerunWorkflowRunMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Checkpoint reports the current stage's attempt with its evidence; the hub verifies cited peer replies.
     * A refused checkpoint consumes no attempt and changes nothing. A request_id seen before for this run
     * returns the first answer and applies nothing again.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND, ERROR_REASON_WORKFLOW_STAGE_NOT_FOUND): no such run or stage.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the caller is not the run's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CHECKPOINT_STATUS, ERROR_REASON_INVALID_WORKFLOW_EVIDENCE,
     *   ERROR_REASON_INVALID_WORKFLOW_EVIDENCE_REFS, ERROR_REASON_PROTOCOL_ERROR): a malformed field.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_PROVENANCE_INVALID): a cited message fails verification;
     *   metadata: messageId, requirementKey.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING): evidence refs for a key without a peer policy.
     * - INVALID_ARGUMENT (ERROR_REASON_WEAKENED_REPRODUCTION): the captured reproduction is missing or changed.
     * - FAILED_PRECONDITION, INVALID_ARGUMENT (ERROR_REASON_PLAN_HASH_REQUIRED): the plan hash is not captured, or not presented unchanged.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_INCOMPLETE): a pass lacks required evidence;
     *   metadata: missingRequirements, providedRequirements, peerRequirements, quorum (`key=counted/required`).
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another request on this run.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run is not running.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): the stage is not the current one in progress.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.CheckpointResponse> checkpoint(
        dev.kxm.v1.CheckpointRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCheckpointMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Wait puts the current stage into a wait for a signal; evidence and cited replies given are kept.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND, PERMISSION_DENIED: as Checkpoint.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SIGNAL_KEY): the key is malformed or `audit_escalation`.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_WAIT_INVALID): the timeout is out of range (1 s to 30 days).
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_RUNNING): the run is not running.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): the stage is not the current one.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another request on this run.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_EVIDENCE, ERROR_REASON_INVALID_WORKFLOW_EVIDENCE_REFS,
     *   ERROR_REASON_WORKFLOW_PROVENANCE_INVALID, ERROR_REASON_WORKFLOW_EVIDENCE_POLICY_MISSING, ERROR_REASON_PROTOCOL_ERROR):
     *   the evidence errors of Checkpoint, and malformed fields.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.WaitResponse> wait(
        dev.kxm.v1.WaitRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getWaitMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * SignalWorkflowRun delivers a signal as a signed signal webhook would, for a trusted caller.
     * For a step run it resolves the current wait step awaiting `signal_key` with `outcome` (or, when
     * empty, the status's: PASSED `pass`, WARNING `warning`, FAILED `fail`), which takes that step's
     * transition; summary and evidence are not used.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_SIGNAL_KEY, ERROR_REASON_INVALID_CHECKPOINT_STATUS,
     *   ERROR_REASON_INVALID_WORKFLOW_EVIDENCE): a malformed field.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_SIGNAL_DELIVERY_CONFLICT): the delivery id was used with another key or body.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_WAITING, ERROR_REASON_WORKFLOW_SIGNAL_MISMATCH,
     *   ERROR_REASON_WORKFLOW_WAIT_INCONSISTENT, ERROR_REASON_WORKFLOW_SIGNAL_CONTEXT_MISMATCH): the run does not await it.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_RULING_REQUIRED): the wait is an audit escalation.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_EVIDENCE_INCOMPLETE): a pass lacks evidence; the run keeps waiting.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a step run's outcome is missing, too long or not one its wait step declares.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the step run ended.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.SignalWorkflowRunResponse> signalWorkflowRun(
        dev.kxm.v1.SignalWorkflowRunRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSignalWorkflowRunMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ApproveDegradation lets a peer requirement pass with the policy's smaller minimum at the active attempt.
     * The same reason again returns the approval with `duplicate` set. An approval does not pass the stage.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND, ERROR_REASON_WORKFLOW_STAGE_NOT_FOUND): no such run or stage.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL, ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): not active.
     * - INVALID_ARGUMENT (ERROR_REASON_WORKFLOW_DEGRADATION_FORBIDDEN): the policy declares no degradation.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_DEGRADATION_CONFLICT): another reason was approved for this attempt.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ApproveDegradationResponse> approveDegradation(
        dev.kxm.v1.ApproveDegradationRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getApproveDegradationMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * EscalateStage escalates the current stage for audit: it waits up to 24 h for an operator's ruling.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND, PERMISSION_DENIED: as Checkpoint.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_RUNNING, ERROR_REASON_WORKFLOW_STAGE_OUT_OF_ORDER): not active.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.EscalateStageResponse> escalateStage(
        dev.kxm.v1.EscalateStageRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getEscalateStageMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ResolveEscalation applies an operator's ruling (with an explicit status) to an escalated stage.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CHECKPOINT_STATUS): no status.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_WORKFLOW_EVIDENCE, ERROR_REASON_PROTOCOL_ERROR): a malformed evidence map, ruling or id.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_WAITING, ERROR_REASON_WORKFLOW_SIGNAL_MISMATCH): no escalation awaits a ruling.
     * - the evidence errors of Checkpoint (WEAKENED_REPRODUCTION, PLAN_HASH_REQUIRED, WORKFLOW_EVIDENCE_INCOMPLETE).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ResolveEscalationResponse> resolveEscalation(
        dev.kxm.v1.ResolveEscalationRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getResolveEscalationMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * RecordJournal records an entry in a run's journal: a plan, decision, contradiction, error, lesson, ….
     * The run's coordinator only, while the run goes on or after it ended (an entry recorded after the end is
     * not in the retrospective written then). A stage-bound entry takes the stage's current attempt (the
     * hub's, never the caller's) and, naming no area, the stage's declared area. The entry is sealed into the
     * run's chain. A request_id seen before for this run returns the first entry and records nothing again.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): the call lacks an agent identity.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no such run in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the caller is not the run's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_JOURNAL_CATEGORY, ERROR_REASON_INVALID_JOURNAL_SEVERITY,
     *   ERROR_REASON_INVALID_IMPROVEMENT_AREA): a value outside its enum, or no area and no stage declaring one.
     * - INVALID_ARGUMENT (ERROR_REASON_JOURNAL_EVIDENCE_REQUIRED): a lesson or skill candidate without evidence.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_JOURNAL_RELATION): the stage, or a related entry, is not the run's.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): an empty summary or a text over its limit.
     * - ABORTED (ERROR_REASON_IDEMPOTENCY_CONFLICT): request_id was used for another request on this run.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RecordJournalResponse> recordJournal(
        dev.kxm.v1.RecordJournalRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRecordJournalMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListJournal pages through a run's journal in order: entries and promotion records with their chain.
     * A page ends early rather than pass 2 MiB of records (the token goes on from there).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND, PERMISSION_DENIED: as GetWorkflowRun.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_PAGE_TOKEN): the page token is malformed or from another run.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a stored record of the page is not a journal record.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListJournalResponse> listJournal(
        dev.kxm.v1.ListJournalRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListJournalMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * PromoteJournalEntry decides a skill candidate, hypothesis or experiment: approved, rejected or quarantined.
     * An operator decides, never the entry's author (its agent id or name); the decision needs evidence, is
     * terminal and is a journal record of its own: the entry is never changed.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_JOURNAL_NOT_FOUND): no entry has this id in the caller's project.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_JOURNAL_PROMOTION): `to` is not approved, rejected or quarantined.
     * - INVALID_ARGUMENT (ERROR_REASON_JOURNAL_PROMOTION_INVALID): the category is not promotable, the decider is
     *   the author, no evidence ref is given, or the entry was decided already (metadata: status).
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a malformed entry_id, a reason over 1,000 characters, or
     *   evidence refs over their limits.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.PromoteJournalEntryResponse> promoteJournalEntry(
        dev.kxm.v1.PromoteJournalEntryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getPromoteJournalEntryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * GetImprovementReport reports, per area, what keeps going wrong, and ranks the problems recurring across runs.
     * Over the project's newest entries (every run of the project, whoever asks: agents learn from each other's
     * runs), at most max_entries of them.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a limit out of range, `since` outside the Timestamp range,
     *   or `project` malformed, missing for an operator naming none, or naming another project than the caller's.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a stored record the report reads is not a journal record.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.GetImprovementReportResponse> getImprovementReport(
        dev.kxm.v1.GetImprovementReportRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetImprovementReportMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ExportRetrospective returns an ended run's retrospective, written when it ended: message, JSON and Markdown.
     * The document is at most 768 KiB of JSON: the oldest entries are left out first, and counted.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND, PERMISSION_DENIED: as GetWorkflowRun.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_ENDED): the run has not ended.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the stored retrospective, or (for a run that ended before the
     *   journal existed) a record of its journal, is corrupted.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ExportRetrospectiveResponse> exportRetrospective(
        dev.kxm.v1.ExportRetrospectiveRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getExportRetrospectiveMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * VerifyJournal proves a run's journal intact against the hub's journal keys, or names the first record that is not.
     * Each record's chain must be the HMAC of its canonical form chained to its predecessor's, under a key the
     * hub holds; an ended run's journal must still hold the head its retrospective recorded and sealed. An answer is a
     * verdict, never an error: a journal that fails is reported, not refused.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND, PERMISSION_DENIED: as GetWorkflowRun.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a stored record is not a journal record at all.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.VerifyJournalResponse> verifyJournal(
        dev.kxm.v1.VerifyJournalRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getVerifyJournalMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * CompleteAssignment returns the caller's result for one of its assignments: a WorkerResult (workers, gate
     * workers) or a ReviewEnvelope (reviewers), the one way a step's work comes back.
     * Exactly one result is accepted per assignment; the same result again is answered as the first (`duplicate`).
     * The hub judges it: a worker's outcome must be one the step declares, a review passes with a PASS verdict and
     * no blockers, a gate's outcome is derived from its checks under the step's `expect`. The run then moves as the
     * step's join decides (docs/step-workflows.md).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an agent.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no result, the envelope is not what the assignment asks for,
     *   or does not fit it (an undeclared outcome, a gate's checks out of order, a malformed cost or commit); field named.
     * - NOT_FOUND (ERROR_REASON_ASSIGNMENT_NOT_FOUND): no assignment of the caller's project has this id.
     * - PERMISSION_DENIED (ERROR_REASON_ASSIGNMENT_FORBIDDEN): the assignment is another agent's.
     * - FAILED_PRECONDITION (ERROR_REASON_ASSIGNMENT_CLOSED): it is no longer open (another result, expired,
     *   superseded, cancelled), or the result came at or after its deadline (which expires it); metadata:
     *   assignmentId, state.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): its run ended.
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the attempt token presented is another
     *   assignment's; metadata: assignmentId, tokenAssignmentId.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.CompleteAssignmentResponse> completeAssignment(
        dev.kxm.v1.CompleteAssignmentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCompleteAssignmentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * NextAssignment reads the caller's oldest open assignment (also delivered on its inbox as a message from
     * `workflow:&lt;run id&gt;` whose content is the AssignmentRequest's JSON), with a fresh attempt token; with
     * include_context, its context packet and brief too (AssignmentPacket, docs/context.md).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an agent.
     * - INVALID_ARGUMENT (ERROR_REASON_INVALID_CONTEXT_REQUEST): context_budget_tokens is neither 0 nor 512 to
     *   200,000 (metadata: field).
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): a run's stored state does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.NextAssignmentResponse> nextAssignment(
        dev.kxm.v1.NextAssignmentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getNextAssignmentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ApproveStep decides a step run's current approval step with one of its declared outcomes (recorded in the
     * run's events with the operator and the reason).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): the outcome is not one the step declares, or run_id is malformed.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run ended.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_WAITING): its current step is not this approval step awaiting a decision.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ApproveStepResponse> approveStep(
        dev.kxm.v1.ApproveStepRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getApproveStepMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * RecoverStepRun recovers a step run an uncertain gate blocked: run the gate again, fail or cancel the run.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): not an operator.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): no action, or run_id is malformed.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_TERMINAL): the run ended.
     * - FAILED_PRECONDITION (ERROR_REASON_WORKFLOW_NOT_BLOCKED): it is not blocked.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.RecoverStepRunResponse> recoverStepRun(
        dev.kxm.v1.RecoverStepRunRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRecoverStepRunMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * ListWorkflowRunEvents pages through a step run's event log in order (contiguous sequences from 1).
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the calling agent is not the plan's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): a negative after_sequence or page size, or run_id is malformed.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.ListWorkflowRunEventsResponse> listWorkflowRunEvents(
        dev.kxm.v1.ListWorkflowRunEventsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListWorkflowRunEventsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * AuditGateEvidence re-verifies a step run's gate evidence from what is stored (docs/gates.md, audit).
     * The plan must recompute to the run's plan hash and each pinned gate to its hash; each gate evidence
     * record to its evidence hash, with its step's gate pins, the outcome its checks derive and the result
     * hash its closed assignment kept; every gate result must have its record. An answer is a verdict,
     * never an error: evidence that fails is reported, not refused.
     * Errors:
     * - UNAUTHENTICATED, PERMISSION_DENIED (ERROR_REASON_CREDENTIAL_KIND_DENIED): bad credentials.
     * - NOT_FOUND (ERROR_REASON_WORKFLOW_NOT_FOUND): no step run has this id in the caller's project.
     * - PERMISSION_DENIED (ERROR_REASON_WORKFLOW_FORBIDDEN): the calling agent is not the plan's coordinator.
     * - INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR): run_id is malformed.
     * - DATA_LOSS (ERROR_REASON_STORAGE_CORRUPTED): the run's stored state or plan does not decode.
     * - PERMISSION_DENIED (ERROR_REASON_TOOL_POLICY_DENIED, ERROR_REASON_ATTEMPT_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_INVALID, ERROR_REASON_SESSION_TOKEN_REQUIRED, ERROR_REASON_ATTEMPT_TOKEN_REQUIRED): the attempt or session token presented is not valid or its tool policy denies this tool, or the agent holds a session token or a token-bound assignment whose token it did not present (docs/tool-policy.md).
     * - PERMISSION_DENIED (ERROR_REASON_ATTEMPT_TOKEN_SCOPE_VIOLATION): the request names another workflow run than the attempt token's.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.kxm.v1.AuditGateEvidenceResponse> auditGateEvidence(
        dev.kxm.v1.AuditGateEvidenceRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAuditGateEvidenceMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_REGISTER_WORKFLOW_DEFINITION = 0;
  private static final int METHODID_GET_WORKFLOW_DEFINITION = 1;
  private static final int METHODID_LIST_WORKFLOW_DEFINITIONS = 2;
  private static final int METHODID_REGISTER_GATE_REGISTRY = 3;
  private static final int METHODID_GET_GATE_REGISTRY = 4;
  private static final int METHODID_START_WORKFLOW_RUN = 5;
  private static final int METHODID_GET_WORKFLOW_RUN = 6;
  private static final int METHODID_LIST_WORKFLOW_RUNS = 7;
  private static final int METHODID_CANCEL_WORKFLOW_RUN = 8;
  private static final int METHODID_RERUN_WORKFLOW_RUN = 9;
  private static final int METHODID_CHECKPOINT = 10;
  private static final int METHODID_WAIT = 11;
  private static final int METHODID_SIGNAL_WORKFLOW_RUN = 12;
  private static final int METHODID_APPROVE_DEGRADATION = 13;
  private static final int METHODID_ESCALATE_STAGE = 14;
  private static final int METHODID_RESOLVE_ESCALATION = 15;
  private static final int METHODID_RECORD_JOURNAL = 16;
  private static final int METHODID_LIST_JOURNAL = 17;
  private static final int METHODID_PROMOTE_JOURNAL_ENTRY = 18;
  private static final int METHODID_GET_IMPROVEMENT_REPORT = 19;
  private static final int METHODID_EXPORT_RETROSPECTIVE = 20;
  private static final int METHODID_VERIFY_JOURNAL = 21;
  private static final int METHODID_COMPLETE_ASSIGNMENT = 22;
  private static final int METHODID_NEXT_ASSIGNMENT = 23;
  private static final int METHODID_APPROVE_STEP = 24;
  private static final int METHODID_RECOVER_STEP_RUN = 25;
  private static final int METHODID_LIST_WORKFLOW_RUN_EVENTS = 26;
  private static final int METHODID_AUDIT_GATE_EVIDENCE = 27;

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
        case METHODID_REGISTER_WORKFLOW_DEFINITION:
          serviceImpl.registerWorkflowDefinition((dev.kxm.v1.RegisterWorkflowDefinitionRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.RegisterWorkflowDefinitionResponse>) responseObserver);
          break;
        case METHODID_GET_WORKFLOW_DEFINITION:
          serviceImpl.getWorkflowDefinition((dev.kxm.v1.GetWorkflowDefinitionRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.GetWorkflowDefinitionResponse>) responseObserver);
          break;
        case METHODID_LIST_WORKFLOW_DEFINITIONS:
          serviceImpl.listWorkflowDefinitions((dev.kxm.v1.ListWorkflowDefinitionsRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListWorkflowDefinitionsResponse>) responseObserver);
          break;
        case METHODID_REGISTER_GATE_REGISTRY:
          serviceImpl.registerGateRegistry((dev.kxm.v1.RegisterGateRegistryRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.RegisterGateRegistryResponse>) responseObserver);
          break;
        case METHODID_GET_GATE_REGISTRY:
          serviceImpl.getGateRegistry((dev.kxm.v1.GetGateRegistryRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.GetGateRegistryResponse>) responseObserver);
          break;
        case METHODID_START_WORKFLOW_RUN:
          serviceImpl.startWorkflowRun((dev.kxm.v1.StartWorkflowRunRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.StartWorkflowRunResponse>) responseObserver);
          break;
        case METHODID_GET_WORKFLOW_RUN:
          serviceImpl.getWorkflowRun((dev.kxm.v1.GetWorkflowRunRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.GetWorkflowRunResponse>) responseObserver);
          break;
        case METHODID_LIST_WORKFLOW_RUNS:
          serviceImpl.listWorkflowRuns((dev.kxm.v1.ListWorkflowRunsRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListWorkflowRunsResponse>) responseObserver);
          break;
        case METHODID_CANCEL_WORKFLOW_RUN:
          serviceImpl.cancelWorkflowRun((dev.kxm.v1.CancelWorkflowRunRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.CancelWorkflowRunResponse>) responseObserver);
          break;
        case METHODID_RERUN_WORKFLOW_RUN:
          serviceImpl.rerunWorkflowRun((dev.kxm.v1.RerunWorkflowRunRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.RerunWorkflowRunResponse>) responseObserver);
          break;
        case METHODID_CHECKPOINT:
          serviceImpl.checkpoint((dev.kxm.v1.CheckpointRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.CheckpointResponse>) responseObserver);
          break;
        case METHODID_WAIT:
          serviceImpl.wait((dev.kxm.v1.WaitRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.WaitResponse>) responseObserver);
          break;
        case METHODID_SIGNAL_WORKFLOW_RUN:
          serviceImpl.signalWorkflowRun((dev.kxm.v1.SignalWorkflowRunRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.SignalWorkflowRunResponse>) responseObserver);
          break;
        case METHODID_APPROVE_DEGRADATION:
          serviceImpl.approveDegradation((dev.kxm.v1.ApproveDegradationRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ApproveDegradationResponse>) responseObserver);
          break;
        case METHODID_ESCALATE_STAGE:
          serviceImpl.escalateStage((dev.kxm.v1.EscalateStageRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.EscalateStageResponse>) responseObserver);
          break;
        case METHODID_RESOLVE_ESCALATION:
          serviceImpl.resolveEscalation((dev.kxm.v1.ResolveEscalationRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ResolveEscalationResponse>) responseObserver);
          break;
        case METHODID_RECORD_JOURNAL:
          serviceImpl.recordJournal((dev.kxm.v1.RecordJournalRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.RecordJournalResponse>) responseObserver);
          break;
        case METHODID_LIST_JOURNAL:
          serviceImpl.listJournal((dev.kxm.v1.ListJournalRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListJournalResponse>) responseObserver);
          break;
        case METHODID_PROMOTE_JOURNAL_ENTRY:
          serviceImpl.promoteJournalEntry((dev.kxm.v1.PromoteJournalEntryRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.PromoteJournalEntryResponse>) responseObserver);
          break;
        case METHODID_GET_IMPROVEMENT_REPORT:
          serviceImpl.getImprovementReport((dev.kxm.v1.GetImprovementReportRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.GetImprovementReportResponse>) responseObserver);
          break;
        case METHODID_EXPORT_RETROSPECTIVE:
          serviceImpl.exportRetrospective((dev.kxm.v1.ExportRetrospectiveRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ExportRetrospectiveResponse>) responseObserver);
          break;
        case METHODID_VERIFY_JOURNAL:
          serviceImpl.verifyJournal((dev.kxm.v1.VerifyJournalRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.VerifyJournalResponse>) responseObserver);
          break;
        case METHODID_COMPLETE_ASSIGNMENT:
          serviceImpl.completeAssignment((dev.kxm.v1.CompleteAssignmentRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.CompleteAssignmentResponse>) responseObserver);
          break;
        case METHODID_NEXT_ASSIGNMENT:
          serviceImpl.nextAssignment((dev.kxm.v1.NextAssignmentRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.NextAssignmentResponse>) responseObserver);
          break;
        case METHODID_APPROVE_STEP:
          serviceImpl.approveStep((dev.kxm.v1.ApproveStepRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ApproveStepResponse>) responseObserver);
          break;
        case METHODID_RECOVER_STEP_RUN:
          serviceImpl.recoverStepRun((dev.kxm.v1.RecoverStepRunRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.RecoverStepRunResponse>) responseObserver);
          break;
        case METHODID_LIST_WORKFLOW_RUN_EVENTS:
          serviceImpl.listWorkflowRunEvents((dev.kxm.v1.ListWorkflowRunEventsRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.ListWorkflowRunEventsResponse>) responseObserver);
          break;
        case METHODID_AUDIT_GATE_EVIDENCE:
          serviceImpl.auditGateEvidence((dev.kxm.v1.AuditGateEvidenceRequest) request,
              (io.grpc.stub.StreamObserver<dev.kxm.v1.AuditGateEvidenceResponse>) responseObserver);
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
          getRegisterWorkflowDefinitionMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.RegisterWorkflowDefinitionRequest,
              dev.kxm.v1.RegisterWorkflowDefinitionResponse>(
                service, METHODID_REGISTER_WORKFLOW_DEFINITION)))
        .addMethod(
          getGetWorkflowDefinitionMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.GetWorkflowDefinitionRequest,
              dev.kxm.v1.GetWorkflowDefinitionResponse>(
                service, METHODID_GET_WORKFLOW_DEFINITION)))
        .addMethod(
          getListWorkflowDefinitionsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListWorkflowDefinitionsRequest,
              dev.kxm.v1.ListWorkflowDefinitionsResponse>(
                service, METHODID_LIST_WORKFLOW_DEFINITIONS)))
        .addMethod(
          getRegisterGateRegistryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.RegisterGateRegistryRequest,
              dev.kxm.v1.RegisterGateRegistryResponse>(
                service, METHODID_REGISTER_GATE_REGISTRY)))
        .addMethod(
          getGetGateRegistryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.GetGateRegistryRequest,
              dev.kxm.v1.GetGateRegistryResponse>(
                service, METHODID_GET_GATE_REGISTRY)))
        .addMethod(
          getStartWorkflowRunMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.StartWorkflowRunRequest,
              dev.kxm.v1.StartWorkflowRunResponse>(
                service, METHODID_START_WORKFLOW_RUN)))
        .addMethod(
          getGetWorkflowRunMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.GetWorkflowRunRequest,
              dev.kxm.v1.GetWorkflowRunResponse>(
                service, METHODID_GET_WORKFLOW_RUN)))
        .addMethod(
          getListWorkflowRunsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListWorkflowRunsRequest,
              dev.kxm.v1.ListWorkflowRunsResponse>(
                service, METHODID_LIST_WORKFLOW_RUNS)))
        .addMethod(
          getCancelWorkflowRunMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.CancelWorkflowRunRequest,
              dev.kxm.v1.CancelWorkflowRunResponse>(
                service, METHODID_CANCEL_WORKFLOW_RUN)))
        .addMethod(
          getRerunWorkflowRunMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.RerunWorkflowRunRequest,
              dev.kxm.v1.RerunWorkflowRunResponse>(
                service, METHODID_RERUN_WORKFLOW_RUN)))
        .addMethod(
          getCheckpointMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.CheckpointRequest,
              dev.kxm.v1.CheckpointResponse>(
                service, METHODID_CHECKPOINT)))
        .addMethod(
          getWaitMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.WaitRequest,
              dev.kxm.v1.WaitResponse>(
                service, METHODID_WAIT)))
        .addMethod(
          getSignalWorkflowRunMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.SignalWorkflowRunRequest,
              dev.kxm.v1.SignalWorkflowRunResponse>(
                service, METHODID_SIGNAL_WORKFLOW_RUN)))
        .addMethod(
          getApproveDegradationMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ApproveDegradationRequest,
              dev.kxm.v1.ApproveDegradationResponse>(
                service, METHODID_APPROVE_DEGRADATION)))
        .addMethod(
          getEscalateStageMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.EscalateStageRequest,
              dev.kxm.v1.EscalateStageResponse>(
                service, METHODID_ESCALATE_STAGE)))
        .addMethod(
          getResolveEscalationMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ResolveEscalationRequest,
              dev.kxm.v1.ResolveEscalationResponse>(
                service, METHODID_RESOLVE_ESCALATION)))
        .addMethod(
          getRecordJournalMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.RecordJournalRequest,
              dev.kxm.v1.RecordJournalResponse>(
                service, METHODID_RECORD_JOURNAL)))
        .addMethod(
          getListJournalMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListJournalRequest,
              dev.kxm.v1.ListJournalResponse>(
                service, METHODID_LIST_JOURNAL)))
        .addMethod(
          getPromoteJournalEntryMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.PromoteJournalEntryRequest,
              dev.kxm.v1.PromoteJournalEntryResponse>(
                service, METHODID_PROMOTE_JOURNAL_ENTRY)))
        .addMethod(
          getGetImprovementReportMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.GetImprovementReportRequest,
              dev.kxm.v1.GetImprovementReportResponse>(
                service, METHODID_GET_IMPROVEMENT_REPORT)))
        .addMethod(
          getExportRetrospectiveMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ExportRetrospectiveRequest,
              dev.kxm.v1.ExportRetrospectiveResponse>(
                service, METHODID_EXPORT_RETROSPECTIVE)))
        .addMethod(
          getVerifyJournalMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.VerifyJournalRequest,
              dev.kxm.v1.VerifyJournalResponse>(
                service, METHODID_VERIFY_JOURNAL)))
        .addMethod(
          getCompleteAssignmentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.CompleteAssignmentRequest,
              dev.kxm.v1.CompleteAssignmentResponse>(
                service, METHODID_COMPLETE_ASSIGNMENT)))
        .addMethod(
          getNextAssignmentMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.NextAssignmentRequest,
              dev.kxm.v1.NextAssignmentResponse>(
                service, METHODID_NEXT_ASSIGNMENT)))
        .addMethod(
          getApproveStepMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ApproveStepRequest,
              dev.kxm.v1.ApproveStepResponse>(
                service, METHODID_APPROVE_STEP)))
        .addMethod(
          getRecoverStepRunMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.RecoverStepRunRequest,
              dev.kxm.v1.RecoverStepRunResponse>(
                service, METHODID_RECOVER_STEP_RUN)))
        .addMethod(
          getListWorkflowRunEventsMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.ListWorkflowRunEventsRequest,
              dev.kxm.v1.ListWorkflowRunEventsResponse>(
                service, METHODID_LIST_WORKFLOW_RUN_EVENTS)))
        .addMethod(
          getAuditGateEvidenceMethod(),
          io.grpc.stub.ServerCalls.asyncUnaryCall(
            new MethodHandlers<
              dev.kxm.v1.AuditGateEvidenceRequest,
              dev.kxm.v1.AuditGateEvidenceResponse>(
                service, METHODID_AUDIT_GATE_EVIDENCE)))
        .build();
  }

  private static abstract class WorkflowServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    WorkflowServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.kxm.v1.WorkflowServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("WorkflowService");
    }
  }

  private static final class WorkflowServiceFileDescriptorSupplier
      extends WorkflowServiceBaseDescriptorSupplier {
    WorkflowServiceFileDescriptorSupplier() {}
  }

  private static final class WorkflowServiceMethodDescriptorSupplier
      extends WorkflowServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final java.lang.String methodName;

    WorkflowServiceMethodDescriptorSupplier(java.lang.String methodName) {
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
      synchronized (WorkflowServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new WorkflowServiceFileDescriptorSupplier())
              .addMethod(getRegisterWorkflowDefinitionMethod())
              .addMethod(getGetWorkflowDefinitionMethod())
              .addMethod(getListWorkflowDefinitionsMethod())
              .addMethod(getRegisterGateRegistryMethod())
              .addMethod(getGetGateRegistryMethod())
              .addMethod(getStartWorkflowRunMethod())
              .addMethod(getGetWorkflowRunMethod())
              .addMethod(getListWorkflowRunsMethod())
              .addMethod(getCancelWorkflowRunMethod())
              .addMethod(getRerunWorkflowRunMethod())
              .addMethod(getCheckpointMethod())
              .addMethod(getWaitMethod())
              .addMethod(getSignalWorkflowRunMethod())
              .addMethod(getApproveDegradationMethod())
              .addMethod(getEscalateStageMethod())
              .addMethod(getResolveEscalationMethod())
              .addMethod(getRecordJournalMethod())
              .addMethod(getListJournalMethod())
              .addMethod(getPromoteJournalEntryMethod())
              .addMethod(getGetImprovementReportMethod())
              .addMethod(getExportRetrospectiveMethod())
              .addMethod(getVerifyJournalMethod())
              .addMethod(getCompleteAssignmentMethod())
              .addMethod(getNextAssignmentMethod())
              .addMethod(getApproveStepMethod())
              .addMethod(getRecoverStepRunMethod())
              .addMethod(getListWorkflowRunEventsMethod())
              .addMethod(getAuditGateEvidenceMethod())
              .build();
        }
      }
    }
    return result;
  }
}
