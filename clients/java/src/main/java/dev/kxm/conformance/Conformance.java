package dev.kxm.conformance;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;
import dev.kxm.v1.AgentServiceGrpc;
import dev.kxm.v1.ErrorReason;
import dev.kxm.v1.GetMessageRequest;
import dev.kxm.v1.MessageServiceGrpc;
import dev.kxm.v1.RegisterAgentRequest;
import dev.kxm.v1.RegisterAgentResponse;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.MetadataUtils;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Conformance program: runs the kxm client scenario against a live hub and prints one JSON
 * transcript ({"language": "java", "ok": ..., "steps": [...]}) to stdout; exits 1 when a step fails.
 *
 * <p>Environment: KXM_ADDR (host:port, plaintext), KXM_PROJECT_TOKEN, KXM_NAME_PREFIX. Run with
 * {@code mvn -q compile exec:exec}.
 */
public final class Conformance {
  private static final String MISSING_MESSAGE_ID = "msg_00000000000000000000000000000000";
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> AGENT_ID =
      Metadata.Key.of("x-kxm-agent-id", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> AGENT_KEY =
      Metadata.Key.of("x-kxm-agent-key", Metadata.ASCII_STRING_MARSHALLER);

  private final List<Map<String, Object>> steps = new ArrayList<>();
  private boolean ok = true;

  private Conformance() {}

  public static void main(String[] args) throws InterruptedException {
    Conformance c = new Conformance();
    try {
      c.run();
    } catch (RuntimeException e) {
      c.add(step("unexpected", false, "error", e.toString()));
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("language", "java");
    out.put("ok", c.ok);
    out.put("steps", c.steps);
    System.out.println(Json.write(out));
    System.out.flush();
    System.exit(c.ok ? 0 : 1);
  }

  private boolean add(Map<String, Object> step) {
    steps.add(step);
    ok &= Boolean.TRUE.equals(step.get("ok"));
    return ok;
  }

  private void run() throws InterruptedException {
    String addr = System.getenv().getOrDefault("KXM_ADDR", "");
    String token = System.getenv().getOrDefault("KXM_PROJECT_TOKEN", "");
    String prefix = System.getenv().getOrDefault("KXM_NAME_PREFIX", "");
    if (addr.isEmpty() || token.isEmpty() || prefix.isEmpty()) {
      add(step("config", false, "error", "set KXM_ADDR, KXM_PROJECT_TOKEN and KXM_NAME_PREFIX"));
      return;
    }
    ManagedChannel channel =
        Grpc.newChannelBuilder(addr, InsecureChannelCredentials.create())
            // The hub accepts client keepalive pings no more often than every 10 s.
            .keepAliveTime(30, TimeUnit.SECONDS)
            .keepAliveTimeout(10, TimeUnit.SECONDS)
            .build();
    try {
      scenario(channel, token, prefix);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private void scenario(ManagedChannel channel, String token, String prefix) {
    Metadata project = new Metadata();
    project.put(AUTHORIZATION, "Bearer " + token);
    AgentServiceGrpc.AgentServiceBlockingStub agents =
        AgentServiceGrpc.newBlockingStub(channel)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(project));

    Map<String, RegisterAgentResponse> registered = new HashMap<>();
    for (String suffix : List.of("a", "b")) {
      String name = prefix + "-" + suffix;
      Map<String, Object> step = step("register_" + suffix, false, "agent_name", name);
      try {
        RegisterAgentResponse resp =
            agents
                .withDeadlineAfter(10, TimeUnit.SECONDS)
                .registerAgent(
                    RegisterAgentRequest.newBuilder()
                        .setName(name)
                        .setPurpose("conformance")
                        .setModel("java")
                        .build());
        step.put("code", "OK");
        step.put("agent_id", resp.getAgent().getId());
        step.put("ok", !resp.getAgent().getId().isEmpty() && !resp.getAgentKey().isEmpty());
        registered.put(suffix, resp);
      } catch (StatusRuntimeException e) {
        describe(step, e);
      }
      if (!add(step)) {
        return;
      }
    }

    RegisterAgentResponse a = registered.get("a");
    Metadata agent = new Metadata();
    agent.merge(project);
    agent.put(AGENT_ID, a.getAgent().getId());
    agent.put(AGENT_KEY, a.getAgentKey());
    MessageServiceGrpc.MessageServiceBlockingStub messages =
        MessageServiceGrpc.newBlockingStub(channel)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(agent));
    Map<String, Object> step =
        step("get_missing_message", false, "message_id", MISSING_MESSAGE_ID);
    try {
      messages
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .getMessage(GetMessageRequest.newBuilder().setMessageId(MISSING_MESSAGE_ID).build());
      step.put("code", "OK");
    } catch (StatusRuntimeException e) {
      describe(step, e);
      step.put(
          "ok",
          "NOT_FOUND".equals(step.get("code"))
              && ErrorReason.ERROR_REASON_MESSAGE_NOT_FOUND.name().equals(step.get("reason")));
    }
    add(step);
  }

  /** Records an RPC error's code, message and google.rpc.ErrorInfo (reason, domain) in a step. */
  private static void describe(Map<String, Object> step, StatusRuntimeException e) {
    step.put("code", e.getStatus().getCode().name());
    step.put("message", String.valueOf(e.getStatus().getDescription()));
    com.google.rpc.Status status = StatusProto.fromThrowable(e);
    if (status == null) {
      return;
    }
    for (Any detail : status.getDetailsList()) {
      if (detail.is(ErrorInfo.class)) {
        try {
          ErrorInfo info = detail.unpack(ErrorInfo.class);
          step.put("reason", info.getReason());
          step.put("domain", info.getDomain());
        } catch (InvalidProtocolBufferException ignored) {
          // A malformed detail is reported as a missing reason.
        }
      }
    }
  }

  private static Map<String, Object> step(String name, boolean ok, String key, Object value) {
    Map<String, Object> step = new LinkedHashMap<>();
    step.put("name", name);
    step.put("ok", ok);
    step.put(key, value);
    return step;
  }
}
