package dev.kxm.examples;

import dev.kxm.hub.client.HubClient;
import dev.kxm.hub.client.HubException;
import dev.kxm.hub.client.Subscription;
import dev.kxm.v1.GetCallerIdentityRequest;
import dev.kxm.v1.GetCallerIdentityResponse;
import dev.kxm.v1.SendMessageRequest;
import dev.kxm.v1.SubscribeResponse;
import dev.kxm.v1.WaitMessageRequest;
import io.grpc.Status;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Checks the thin client layer (dev.kxm.hub.client) against a live hub and prints one JSON line,
 * {"language": "java", "ok": ..., "steps": [...]}, the facts of clients/python/layercheck.py
 * (tests/test_client_layers.py): registration and identity, decoded errors, the default deadline, and a subscription that resumes by itself across a hub restart. Before the
 * restart it prints {"waiting": "restart"} and reads stdin until a line "restarted" (the test kills
 * the hub and starts it again meanwhile). Clients are built with no arguments: KXM_ADDR, KXM_TOKEN
 * (or a credentials file); names start with KXM_NAME_PREFIX. Exit status 1 when a step fails.
 */
public final class LayerCheck {
  private static final Duration EVENT_WAIT = Duration.ofSeconds(15);
  private static final Duration SEND_RETRY = Duration.ofSeconds(20);
  private static final Duration RESUME_WAIT = Duration.ofSeconds(30);
  /** The short client's default deadline (the wait it bounds is 10 s). */
  private static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(3);

  private final List<Object> steps = new ArrayList<>();
  private final List<AutoCloseable> resources = new ArrayList<>();
  private final String prefix;

  private LayerCheck(String prefix) {
    this.prefix = prefix;
  }

  public static void main(String[] args) {
    String prefix = System.getenv("KXM_NAME_PREFIX");
    LayerCheck check = new LayerCheck(prefix == null || prefix.isEmpty() ? "layercheck" : prefix);
    Map<String, Object> transcript = new LinkedHashMap<>();
    transcript.put("language", "java");
    String error = null;
    try {
      check.run();
    } catch (Exception e) {
      error = e instanceof HubException ? "HubException " + e : String.valueOf(e);
    } finally {
      check.closeAll();
    }
    transcript.put("ok", error == null);
    transcript.put("steps", check.steps);
    if (error != null) {
      transcript.put("error", error);
    }
    System.out.println(json(transcript));
    System.out.flush();
    System.exit(error == null ? 0 : 1);
  }

  private <T extends AutoCloseable> T keep(T resource) {
    resources.add(resource);
    return resource;
  }

  private void closeAll() {
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        // best effort
      }
    }
    resources.clear();
  }

  private void step(String name, Object... facts) {
    Map<String, Object> step = new LinkedHashMap<>();
    step.put("step", name);
    for (int i = 0; i < facts.length; i += 2) {
      step.put((String) facts[i], facts[i + 1]);
    }
    steps.add(step);
  }

  /** What {@code call} threw; fails the step when it did not fail. */
  private static RuntimeException failure(String what, Supplier<?> call) {
    try {
      call.get();
    } catch (RuntimeException e) {
      return e;
    }
    throw new IllegalStateException(what + " did not fail");
  }

  private void run() throws Exception {
    // 1. Two clients from the environment, registered; the identity the hub sees.
    HubClient a = keep(HubClient.create());
    HubClient b = keep(HubClient.create());
    a.register(prefix + "-a");
    b.register(prefix + "-b");
    GetCallerIdentityResponse me =
        a.call(() -> a.agents().getCallerIdentity(GetCallerIdentityRequest.getDefaultInstance()));
    step("register", "credential_kind", me.getCredentialKind().name(),
        "name_equal", me.getAgentName().equals(prefix + "-a"));

    // 2. A decoded NOT_FOUND.
    RuntimeException missing = failure("getMessage", () -> a.getMessage("msg_" + "0".repeat(32)));
    HubException notFound = HubException.from(missing);
    step("not_found", "code", notFound.codeName(), "reason", notFound.reason(),
        "domain", notFound.domain(), "layer_error", missing instanceof HubException);

    // 3. A decoded INVALID_ARGUMENT with its field violations.
    HubClient c = keep(HubClient.create());
    HubException invalid = HubException.from(failure("register with an empty name", () -> c.register("")));
    List<Object> fields = new ArrayList<>();
    invalid.fieldViolations().forEach(v -> fields.add(v.field()));
    step("invalid", "code", invalid.codeName(), "reason", invalid.reason(), "fields", fields);

    // 4. The default deadline (3 s) on a unary call without one of its own: the hub ends the call's
    //    10 s wait in time to answer before it (OK and not terminal; DEADLINE_EXCEEDED when the
    //    answer loses the race on a busy machine). A warm-up call first, so the connection is up
    //    before the timing starts.
    HubClient d = keep(HubClient.builder()
        .agentId(a.agentId()).agentKey(a.agentKey()).timeout(DEFAULT_DEADLINE).build());
    String probe = a.send(prefix + "-b", "deadline probe").getMessage().getId();
    d.call(() -> d.agents().getCallerIdentity(GetCallerIdentityRequest.getDefaultInstance()));
    WaitMessageRequest wait = WaitMessageRequest.newBuilder()
        .setMessageId(probe)
        .setWait(com.google.protobuf.Duration.newBuilder().setSeconds(10))
        .build();
    long started = System.nanoTime();
    boolean early;
    try {
      early = !d.call(() -> d.messages().waitMessage(wait)).getTerminal();
    } catch (HubException e) {
      early = e.code() == Status.Code.DEADLINE_EXCEEDED;
    }
    boolean inTime = System.nanoTime() - started < Duration.ofSeconds(8).toNanos();
    step("deadline", "ended_before_wait", early && inTime);

    // 5. The resuming subscription, across a hub restart.
    Subscription inbox = keep(b.subscribe(0));
    SubscribeResponse first = inbox.poll(EVENT_WAIT);
    if (first == null) {
      throw new IllegalStateException("no first event within " + EVENT_WAIT);
    }
    step("subscribe", "first", first.hasReady() ? "ready" : first.getEventCase().name().toLowerCase());
    int readies = first.hasReady() ? 1 : 0;
    long highest = first.hasReady() ? first.getReady().getAfterSeq() : first.getSeq();
    long until = System.nanoTime() + EVENT_WAIT.toNanos();
    while (true) {
      SubscribeResponse event = inbox.poll(Duration.ofNanos(Math.max(0, until - System.nanoTime())));
      if (event == null) {
        throw new IllegalStateException("the deadline probe did not arrive within " + EVENT_WAIT);
      }
      highest = Math.max(highest, event.hasReady() ? event.getReady().getAfterSeq() : event.getSeq());
      readies += event.hasReady() ? 1 : 0;
      if (event.hasMessage() && event.getMessage().getContent().equals("deadline probe")) {
        b.ack(event.getMessage().getId());
        break;
      }
    }

    System.out.println("{\"waiting\": \"restart\"}");
    System.out.flush();
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = stdin.readLine(); ; line = stdin.readLine()) {
      if (line == null) {
        throw new IllegalStateException("stdin ended before \"restarted\"");
      }
      if (line.trim().equals("restarted")) {
        break;
      }
    }

    long sendUntil = System.nanoTime() + SEND_RETRY.toNanos();
    while (true) {
      try {
        // allow_offline: the restarted hub counts b offline until its stream is back.
        a.send(SendMessageRequest.newBuilder()
            .setTarget(prefix + "-b")
            .setContent("after restart")
            .setIdempotencyKey(prefix + "-after-restart")
            .setAllowOffline(true)
            .build());
        break;
      } catch (HubException e) {
        if (e.code() != Status.Code.UNAVAILABLE || System.nanoTime() > sendUntil) {
          throw e;
        }
        Thread.sleep(200);
      }
    }

    boolean received = false;
    boolean redelivered = false;
    boolean afterSeqIsCursor = false;
    until = System.nanoTime() + RESUME_WAIT.toNanos();
    while (!received) {
      SubscribeResponse event = inbox.poll(Duration.ofNanos(Math.max(0, until - System.nanoTime())));
      if (event == null) {
        break;
      }
      if (event.hasReady()) {
        readies++;
        afterSeqIsCursor = event.getReady().getAfterSeq() == highest;
        highest = Math.max(highest, event.getReady().getAfterSeq());
        continue;
      }
      highest = Math.max(highest, event.getSeq());
      if (event.hasMessage() && event.getMessage().getContent().equals("after restart")) {
        received = true;
        redelivered = event.getRedelivered();
        b.ack(event.getMessage().getId());
      }
    }
    step("resume", "readies", readies, "after_seq_is_cursor", afterSeqIsCursor,
        "received", received, "redelivered", redelivered);
    if (!received) {
      throw new IllegalStateException("\"after restart\" did not arrive within " + RESUME_WAIT);
    }

    // 6. Everything closed.
    closeAll();
    step("closed");
  }

  /** Maps, lists, strings, numbers and booleans as JSON. */
  private static String json(Object value) {
    StringBuilder out = new StringBuilder();
    write(out, value);
    return out.toString();
  }

  private static void write(StringBuilder out, Object value) {
    if (value instanceof Map) {
      out.append('{');
      String sep = "";
      for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
        out.append(sep);
        write(out, String.valueOf(entry.getKey()));
        out.append(": ");
        write(out, entry.getValue());
        sep = ", ";
      }
      out.append('}');
    } else if (value instanceof List) {
      out.append('[');
      String sep = "";
      for (Object item : (List<?>) value) {
        out.append(sep);
        write(out, item);
        sep = ", ";
      }
      out.append(']');
    } else if (value instanceof String) {
      out.append('"');
      for (char ch : ((String) value).toCharArray()) {
        if (ch == '"' || ch == '\\') {
          out.append('\\').append(ch);
        } else if (ch < 0x20) {
          out.append(String.format("\\u%04x", (int) ch));
        } else {
          out.append(ch);
        }
      }
      out.append('"');
    } else {
      out.append(value); // numbers, booleans, null
    }
  }
}
