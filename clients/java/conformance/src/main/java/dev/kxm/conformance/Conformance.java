package dev.kxm.conformance;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;
import dev.kxm.v1.AckMessagesRequest;
import dev.kxm.v1.AckMessagesResponse;
import dev.kxm.v1.AcquireLeaseRequest;
import dev.kxm.v1.AcquireLeaseResponse;
import dev.kxm.v1.AgentServiceGrpc;
import dev.kxm.v1.CheckFenceRequest;
import dev.kxm.v1.ChannelCommand;
import dev.kxm.v1.ChannelReady;
import dev.kxm.v1.ChannelResult;
import dev.kxm.v1.CheckFenceResponse;
import dev.kxm.v1.FanoutMessagesRequest;
import dev.kxm.v1.FanoutMessagesResponse;
import dev.kxm.v1.FanoutResult;
import dev.kxm.v1.GetCallerIdentityRequest;
import dev.kxm.v1.GetCallerIdentityResponse;
import dev.kxm.v1.GetMessageRequest;
import dev.kxm.v1.LeaseServiceGrpc;
import dev.kxm.v1.Message;
import dev.kxm.v1.MessageServiceGrpc;
import dev.kxm.v1.OpenChannelRequest;
import dev.kxm.v1.OpenChannelResponse;
import dev.kxm.v1.RegisterAgentRequest;
import dev.kxm.v1.RegisterAgentResponse;
import dev.kxm.v1.ReleaseLeaseRequest;
import dev.kxm.v1.ReleaseLeaseResponse;
import dev.kxm.v1.ReplyToMessageRequest;
import dev.kxm.v1.ReplyToMessageResponse;
import dev.kxm.v1.SendMessageRequest;
import dev.kxm.v1.SendMessageResponse;
import dev.kxm.v1.SubscribeRequest;
import dev.kxm.v1.SubscribeResponse;
import dev.kxm.v1.WaitMessageRequest;
import dev.kxm.v1.WaitMessageResponse;
import io.grpc.ChannelCredentials;
import io.grpc.Context;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Conformance program: runs the kxm client conformance scenario against a live hub and prints one
 * JSON transcript ({"language": "java", "ok": ..., "steps": [...]}) to stdout.
 *
 * <p>Every step holds only normalised facts (no ids, times or language-specific text), so the
 * transcripts of the five languages compare equal step by step (tests/test_conformance.py). When
 * a call fails unexpectedly the transcript ends with a "failed" step, "ok" is false, "error" says
 * why and the exit status is 1.
 *
 * <p>Environment: KXM_ADDR (host:port, plaintext), KXM_TOKEN, KXM_TLS_ADDR (host:port, TLS),
 * KXM_TLS_CA (the PEM file of the CA the TLS hub's certificate is checked against), KXM_TLS_TOKEN,
 * KXM_SWEEP (the contract sweep's JSON file, see {@link Sweep}), KXM_NAME_PREFIX. Run with
 * {@code conformance/run} after {@code mvn -q -B -DskipTests install} (in clients/java). The same scenario, step by
 * step, is in clients/python/conformance.py and the other clients.
 */
public final class Conformance {
  private static final long DEADLINE_S = 10; // every unary call
  private static final long EVENT_WAIT_S = 15; // waiting for a stream event
  private static final long WAIT_TIMEOUT_S = 10; // WaitMessage's own timeout (deadline 5 s longer)
  private static final long FANOUT_TIMEOUT_S = 20; // FanoutMessages' gathering (deadline 5 s longer)
  private static final long BARRIER_WAIT_S = 15; // how long a fanout handler waits for the other
  private static final long LEASE_TTL_S = 30;

  private static final String MISSING_MESSAGE_ID = "msg_00000000000000000000000000000000";
  private static final String REQUEST = "conformance request";
  private static final String IDEMPOTENCY_KEY = "conformance-request-1";
  private static final String REPLY = "conformance reply";
  private static final String FANOUT = "conformance fanout";
  private static final String FANOUT_KEY_PREFIX = "conformance-fanout";
  private static final List<String> RESUME = List.of("conformance resume 1", "conformance resume 2");
  private static final String CHANNEL_REQUEST = "conformance channel request";
  private static final String CHANNEL_REPLY = "conformance channel reply";
  private static final String REDELIVER = "conformance redeliver";

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> AGENT_ID =
      Metadata.Key.of("x-kxm-agent-id", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> AGENT_KEY =
      Metadata.Key.of("x-kxm-agent-key", Metadata.ASCII_STRING_MARSHALLER);

  /** A step that could not finish for a reason other than an RPC error. */
  static final class StepFailed extends RuntimeException {
    final Map<String, Object> facts;

    StepFailed(String message, String error) {
      super(message);
      this.facts = facts("error", error);
    }
  }

  private final List<Map<String, Object>> steps = new ArrayList<>();
  private final List<Inbox> inboxes = new ArrayList<>();
  private final Map<String, Metadata> agentMetadata = new HashMap<>();
  private final ManagedChannel channel;
  private final Metadata project = new Metadata();
  private final String prefix;
  private final Env env;

  /** The environment the program reads (every variable required). */
  private record Env(
      String addr,
      String token,
      String tlsAddr,
      String tlsCa,
      String tlsToken,
      String sweep,
      String prefix) {
    static Env read() {
      Map<String, String> e = System.getenv();
      return new Env(
          e.getOrDefault("KXM_ADDR", ""),
          e.getOrDefault("KXM_TOKEN", ""),
          e.getOrDefault("KXM_TLS_ADDR", ""),
          e.getOrDefault("KXM_TLS_CA", ""),
          e.getOrDefault("KXM_TLS_TOKEN", ""),
          e.getOrDefault("KXM_SWEEP", ""),
          e.getOrDefault("KXM_NAME_PREFIX", ""));
    }

    boolean complete() {
      return List.of(addr, token, tlsAddr, tlsCa, tlsToken, sweep, prefix).stream()
          .noneMatch(String::isEmpty);
    }
  }

  private Conformance(ManagedChannel channel, Env env) {
    this.channel = channel;
    this.env = env;
    this.prefix = env.prefix();
    project.put(AUTHORIZATION, "Bearer " + env.token());
  }

  private static ManagedChannel newChannel(String addr, ChannelCredentials credentials) {
    return Grpc.newChannelBuilder(addr, credentials)
        // The hub accepts client keepalive pings no more often than every 10 s.
        .keepAliveTime(30, TimeUnit.SECONDS)
        .keepAliveTimeout(10, TimeUnit.SECONDS)
        .build();
  }

  public static void main(String[] args) throws InterruptedException {
    Env env = Env.read();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("language", "java");
    out.put("ok", true);
    out.put("steps", List.of());
    if (!env.complete()) {
      out.put("ok", false);
      out.put(
          "error",
          "set KXM_ADDR, KXM_TOKEN, KXM_TLS_ADDR, KXM_TLS_CA, KXM_TLS_TOKEN, KXM_SWEEP and"
              + " KXM_NAME_PREFIX");
    } else {
      ManagedChannel channel = newChannel(env.addr(), InsecureChannelCredentials.create());
      Conformance c = new Conformance(channel, env);
      try {
        c.run();
      } catch (StepFailed e) {
        c.add("failed", e.facts);
        out.put("ok", false);
        out.put("error", e.getMessage());
      } catch (StatusRuntimeException e) {
        c.add("failed", errorFacts(e));
        out.put("ok", false);
        out.put("error", e.toString());
      } catch (RuntimeException e) {
        c.add("failed", facts("error", "exception"));
        out.put("ok", false);
        out.put("error", e.toString());
      } finally {
        for (Inbox inbox : c.inboxes) {
          inbox.close();
        }
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
      out.put("steps", c.steps);
    }
    System.out.println(Json.write(out));
    System.out.flush();
    System.exit(Boolean.TRUE.equals(out.get("ok")) ? 0 : 1);
  }

  // -- helpers ------------------------------------------------------------------------------------

  private static Map<String, Object> facts(Object... pairs) {
    Map<String, Object> f = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      f.put((String) pairs[i], pairs[i + 1]);
    }
    return f;
  }

  private void add(String step, Map<String, Object> facts) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("step", step);
    s.putAll(facts);
    steps.add(s);
  }

  private String name(String suffix) {
    return prefix + "-" + suffix;
  }

  private static String fanoutReply(String suffix) {
    return "fanout reply from " + suffix;
  }

  private static Duration seconds(long s) {
    return Duration.newBuilder().setSeconds(s).build();
  }

  /** The status code, and the google.rpc.ErrorInfo reason and domain from the status details. */
  private static Map<String, Object> errorFacts(Throwable e) {
    Map<String, Object> f =
        facts("code", Status.fromThrowable(e).getCode().name(), "reason", "", "domain", "");
    com.google.rpc.Status status = StatusProto.fromThrowable(e);
    if (status != null) {
      for (Any detail : status.getDetailsList()) {
        if (detail.is(ErrorInfo.class)) {
          try {
            ErrorInfo info = detail.unpack(ErrorInfo.class);
            f.put("reason", info.getReason());
            f.put("domain", info.getDomain());
          } catch (InvalidProtocolBufferException ignored) {
            // A malformed detail is reported as a missing reason.
          }
        }
      }
    }
    return f;
  }

  /** The name of the event's oneof case: ready, message, reply, cancelled, expired or presence. */
  private static String eventKind(SubscribeResponse ev) {
    return switch (ev.getEventCase()) {
      case READY -> "ready";
      case MESSAGE -> "message";
      case REPLY -> "reply";
      case CANCELLED -> "cancelled";
      case EXPIRED -> "expired";
      case PRESENCE -> "presence";
      case EVENT_NOT_SET -> "none";
    };
  }

  private MessageServiceGrpc.MessageServiceBlockingStub messages(String suffix, long deadlineS) {
    return MessageServiceGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(agentMetadata.get(suffix)))
        .withDeadlineAfter(deadlineS, TimeUnit.SECONDS);
  }

  private MessageServiceGrpc.MessageServiceBlockingStub messages(String suffix) {
    return messages(suffix, DEADLINE_S);
  }

  private LeaseServiceGrpc.LeaseServiceBlockingStub leases(String suffix) {
    return LeaseServiceGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(agentMetadata.get(suffix)))
        .withDeadlineAfter(DEADLINE_S, TimeUnit.SECONDS);
  }

  /**
   * One Subscribe stream of an agent; gRPC's observer puts events into a queue. {@code seen} is
   * the seq of the last event the scenario took from the queue (what it "saw").
   */
  private static final class Inbox {
    /** The end of a stream that completed with status OK (a queue item). */
    private static final Object END = new Object();

    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final Context.CancellableContext context = Context.current().withCancellation();
    volatile long seen;

    Inbox(ManagedChannel channel, Metadata metadata, long afterSeq) {
      seen = afterSeq;
      MessageServiceGrpc.MessageServiceStub stub =
          MessageServiceGrpc.newStub(channel)
              .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(metadata));
      // A stream has no deadline; keepalive detects a dead connection. Cancelling the context
      // cancels the call.
      context.run(
          () ->
              stub.subscribe(
                  SubscribeRequest.newBuilder().setAfterSeq(afterSeq).build(),
                  new StreamObserver<>() {
                    @Override
                    public void onNext(SubscribeResponse ev) {
                      queue.add(ev);
                    }

                    @Override
                    public void onError(Throwable t) {
                      queue.add(t);
                    }

                    @Override
                    public void onCompleted() {
                      queue.add(END);
                    }
                  }));
    }

    /** The next item of the queue: an event, END or the stream's error (waiting at most EVENT_WAIT_S). */
    private Object take() {
      Object item;
      try {
        item = queue.poll(EVENT_WAIT_S, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StepFailed("interrupted", "interrupted");
      }
      if (item == null) {
        throw new StepFailed("no stream event in time", "timeout");
      }
      return item;
    }

    /** The next event (waiting at most EVENT_WAIT_S). */
    SubscribeResponse next() {
      Object item = take();
      if (item == END) {
        throw new StepFailed("the stream ended", "stream_ended");
      }
      if (item instanceof RuntimeException e) {
        throw e;
      }
      if (item instanceof Throwable t) {
        throw new RuntimeException(t);
      }
      SubscribeResponse ev = (SubscribeResponse) item;
      if (ev.getSeq() > 0) {
        seen = ev.getSeq();
      }
      return ev;
    }

    /** The next message event, skipping presence events of the project's other agents. */
    SubscribeResponse nextMessage() {
      while (true) {
        SubscribeResponse ev = next();
        switch (ev.getEventCase()) {
          case MESSAGE -> {
            return ev;
          }
          case PRESENCE -> {}
          default -> throw new StepFailed("unexpected " + eventKind(ev) + " event", "unexpected_event");
        }
      }
    }

    /**
     * Reads the stream to its end, skipping presence events (they count as seen); the error the
     * stream ended with, or null when it ended OK.
     */
    Throwable end() {
      while (true) {
        Object item = take();
        if (item == END) {
          return null;
        }
        if (item instanceof Throwable t) {
          return t;
        }
        SubscribeResponse ev = (SubscribeResponse) item;
        if (ev.getSeq() > 0) {
          seen = ev.getSeq();
        }
        if (ev.getEventCase() != SubscribeResponse.EventCase.PRESENCE) {
          throw new StepFailed("unexpected " + eventKind(ev) + " event", "unexpected_event");
        }
      }
    }

    /** Drop the stream (cancels the call). */
    void close() {
      context.cancel(null);
    }
  }

  private record Opened(Inbox inbox, SubscribeResponse first) {}

  private Opened openInbox(String suffix, long afterSeq) {
    Inbox inbox = new Inbox(channel, agentMetadata.get(suffix), afterSeq);
    inboxes.add(inbox);
    return new Opened(inbox, inbox.next());
  }

  /**
   * One OpenChannel stream of an agent. gRPC's observer takes its responses apart into the
   * channel's ready, the inbox events and the command results, put in order into a queue of
   * ("ready" | "event" | "result" | "end", value) items, each read in order.
   */
  private static final class Channel {
    private record Item(String kind, Object value) {}

    private final LinkedBlockingQueue<Item> items = new LinkedBlockingQueue<>();
    private final Context.CancellableContext context = Context.current().withCancellation();
    private final StreamObserver<OpenChannelRequest> requests;

    Channel(ManagedChannel channel, Metadata metadata) {
      AgentServiceGrpc.AgentServiceStub stub =
          AgentServiceGrpc.newStub(channel)
              .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(metadata));
      // A stream has no deadline; keepalive detects a dead connection. Cancelling the context
      // cancels the call.
      Context previous = context.attach();
      try {
        requests =
            stub.openChannel(
                new StreamObserver<>() {
                  @Override
                  public void onNext(OpenChannelResponse response) {
                    if (response.hasReady()) {
                      items.add(new Item("ready", response.getReady()));
                    }
                    for (SubscribeResponse ev : response.getEventsList()) {
                      // The project's other agents (the other programs' among them) come and go at any moment.
                      if (ev.getEventCase() != SubscribeResponse.EventCase.PRESENCE) {
                        items.add(new Item("event", ev));
                      }
                    }
                    for (ChannelResult result : response.getResultsList()) {
                      items.add(new Item("result", result));
                    }
                  }

                  @Override
                  public void onError(Throwable t) {
                    items.add(new Item("end", Status.fromThrowable(t).getCode().name()));
                  }

                  @Override
                  public void onCompleted() {
                    items.add(new Item("end", "OK"));
                  }
                });
      } finally {
        context.detach(previous);
      }
    }

    /** Writes one request (only ever from the scenario's thread: one write at a time, in order). */
    void write(OpenChannelRequest request) {
      requests.onNext(request);
    }

    private Object next(String kind) {
      Item item;
      try {
        item = items.poll(EVENT_WAIT_S, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StepFailed("interrupted", "interrupted");
      }
      if (item == null) {
        throw new StepFailed("no channel " + kind + " in time", "timeout");
      }
      if (!item.kind().equals(kind)) {
        throw new StepFailed(
            "a channel " + item.kind() + " came before its " + kind, "unexpected_" + item.kind());
      }
      return item.value();
    }

    ChannelReady ready() {
      return (ChannelReady) next("ready");
    }

    SubscribeResponse event() {
      return (SubscribeResponse) next("event");
    }

    ChannelResult result() {
      return (ChannelResult) next("result");
    }

    /** Closes the sending side and waits for the hub to end the stream; its status code's name. */
    String end() {
      requests.onCompleted();
      return (String) next("end");
    }

    /** Drops the stream (cancels the call; nothing once it ended). */
    void cancel() {
      context.cancel(null);
    }
  }

  // -- the scenario -------------------------------------------------------------------------------

  private void run() {
    register();
    Inbox inboxB = subscribe();
    String messageId = sendIdempotent();
    receiveAckReply(inboxB, messageId);
    waitReply(messageId);
    fanout(inboxB);
    getMissing();
    lease();
    resume(inboxB);
    channelStep();
    redeliver();
    tls();
    sweep();
  }

  /** Registers agent {@code suffix} with the project token and keeps its credentials. */
  private RegisterAgentResponse registerAgent(String suffix) {
    return registerAgent(suffix, "");
  }

  /**
   * Registers agent {@code suffix} with the project token and keeps its credentials; with a
   * {@code previousKey} (not empty), the agent's registration is resumed under a new key.
   */
  private RegisterAgentResponse registerAgent(String suffix, String previousKey) {
    RegisterAgentResponse resp =
        AgentServiceGrpc.newBlockingStub(channel)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(project))
            .withDeadlineAfter(DEADLINE_S, TimeUnit.SECONDS)
            .registerAgent(
                RegisterAgentRequest.newBuilder()
                    .setName(name(suffix))
                    .setPurpose("conformance")
                    .setModel("java")
                    .setPreviousKey(previousKey)
                    .build());
    Metadata md = new Metadata();
    md.merge(project);
    md.put(AGENT_ID, resp.getAgent().getId());
    md.put(AGENT_KEY, resp.getAgentKey());
    agentMetadata.put(suffix, md);
    return resp;
  }

  // 1. register a, b and c
  private void register() {
    for (String suffix : List.of("a", "b", "c")) {
      RegisterAgentResponse resp = registerAgent(suffix);
      add(
          "register_" + suffix,
          facts(
              "resumed", resp.getResumed(),
              "presence", resp.getAgent().getPresence().name(),
              "name_equal", resp.getAgent().getName().equals(name(suffix))));
    }
  }

  // 2. subscribe b and wait for the ready event
  private Inbox subscribe() {
    Opened opened = openInbox("b", 0);
    SubscribeResponse first = opened.first();
    add(
        "subscribe",
        facts(
            "first_event", eventKind(first),
            "after_seq", first.getReady().getAfterSeq(),
            "ready_seq", first.getSeq(),
            "agent_is_b", first.getReady().getAgent().getName().equals(name("b"))));
    return opened.inbox();
  }

  // 3. a sends b a message with an idempotency key, twice
  private String sendIdempotent() {
    SendMessageRequest request =
        SendMessageRequest.newBuilder()
            .setTarget(name("b"))
            .setContent(REQUEST)
            .setIdempotencyKey(IDEMPOTENCY_KEY)
            .build();
    SendMessageResponse first = messages("a").sendMessage(request);
    SendMessageResponse second = messages("a").sendMessage(request);
    add(
        "send_repeat",
        facts(
            "first_repeated", first.getRepeated(),
            "first_state", first.getMessage().getState().name(),
            "repeated", second.getRepeated(),
            "same_id", second.getMessage().getId().equals(first.getMessage().getId()),
            "same_seq", second.getMessage().getSeq() == first.getMessage().getSeq()));
    return first.getMessage().getId();
  }

  // 4. b receives it on the stream, acknowledges it and replies
  private void receiveAckReply(Inbox inbox, String messageId) {
    SubscribeResponse ev = inbox.nextMessage();
    Message m = ev.getMessage();
    add(
        "receive",
        facts(
            "event", "message",
            "seq_positive", ev.getSeq() >= 1,
            "seq_matches", m.getSeq() == ev.getSeq(),
            "same_id", m.getId().equals(messageId),
            "content_equal", m.getContent().equals(REQUEST),
            "from_a", m.getFromAgentName().equals(name("a")),
            "redelivered", ev.getRedelivered()));
    AckMessagesResponse acked =
        messages("b").ackMessages(AckMessagesRequest.newBuilder().addMessageIds(m.getId()).build());
    add(
        "ack",
        facts(
            "count", acked.getMessagesCount(),
            "state", acked.getMessages(0).getState().name()));
    ReplyToMessageResponse replied =
        messages("b")
            .replyToMessage(
                ReplyToMessageRequest.newBuilder().setMessageId(m.getId()).setContent(REPLY).build());
    add("reply", facts("state", replied.getMessage().getState().name()));
  }

  // 5. a awaits the reply
  private void waitReply(String messageId) {
    WaitMessageResponse waited =
        messages("a", WAIT_TIMEOUT_S + 5)
            .waitMessage(
                WaitMessageRequest.newBuilder()
                    .setMessageId(messageId)
                    .setWait(seconds(WAIT_TIMEOUT_S))
                    .build());
    add(
        "wait",
        facts(
            "terminal", waited.getTerminal(),
            "state", waited.getMessage().getState().name(),
            "reply_equal", waited.getMessage().getReply().getContent().equals(REPLY)));
  }

  // 6. a fans out to b and c, which handle it concurrently (one thread each), and gathers
  private void fanout(Inbox inboxB) {
    Opened openedC = openInbox("c", 0);
    CountDownLatch bothReceived = new CountDownLatch(2);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      CompletableFuture<Map<String, Object>> handledB =
          CompletableFuture.supplyAsync(() -> handle("b", inboxB, bothReceived), pool);
      CompletableFuture<Map<String, Object>> handledC =
          CompletableFuture.supplyAsync(() -> handle("c", openedC.inbox(), bothReceived), pool);
      FanoutMessagesResponse gathered =
          messages("a", FANOUT_TIMEOUT_S + 5)
              .fanoutMessages(
                  FanoutMessagesRequest.newBuilder()
                      .addTargets(name("b"))
                      .addTargets(name("c"))
                      .setContent(FANOUT)
                      .setIdempotencyKeyPrefix(FANOUT_KEY_PREFIX)
                      .setWait(seconds(FANOUT_TIMEOUT_S))
                      .build());
      Map<String, Object> factsB = join(handledB);
      Map<String, Object> factsC = join(handledC);
      Map<String, String> targets =
          Map.of(
              name("b").toLowerCase(Locale.ROOT), "b",
              name("c").toLowerCase(Locale.ROOT), "c");
      List<Map<String, Object>> results = new ArrayList<>();
      for (FanoutResult r : gathered.getResultsList()) {
        String target = targets.getOrDefault(r.getTarget(), "unexpected");
        results.add(
            facts(
                "target", target,
                "status", r.getStatus().name(),
                "state", r.getMessage().getState().name(),
                "reply_equal", r.getMessage().getReply().getContent().equals(fanoutReply(target))));
      }
      add(
          "fanout",
          facts(
              "c_first_event", eventKind(openedC.first()),
              "results", results,
              "handler_b", factsB,
              "handler_c", factsC));
    } finally {
      pool.shutdownNow();
    }
  }

  private Map<String, Object> handle(String suffix, Inbox inbox, CountDownLatch bothReceived) {
    Message m = inbox.nextMessage().getMessage();
    AckMessagesResponse acked =
        messages(suffix)
            .ackMessages(AckMessagesRequest.newBuilder().addMessageIds(m.getId()).build());
    // Both handlers hold their message before either replies: they run concurrently.
    bothReceived.countDown();
    boolean concurrent;
    try {
      concurrent = bothReceived.await(BARRIER_WAIT_S, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      concurrent = false;
    }
    ReplyToMessageResponse replied =
        messages(suffix)
            .replyToMessage(
                ReplyToMessageRequest.newBuilder()
                    .setMessageId(m.getId())
                    .setContent(fanoutReply(suffix))
                    .build());
    return facts(
        "content_equal", m.getContent().equals(FANOUT),
        "ack_state", acked.getMessages(0).getState().name(),
        "reply_state", replied.getMessage().getState().name(),
        "concurrent", concurrent);
  }

  private static Map<String, Object> join(CompletableFuture<Map<String, Object>> handled) {
    try {
      return handled.get(EVENT_WAIT_S + BARRIER_WAIT_S + 2 * DEADLINE_S, TimeUnit.SECONDS);
    } catch (ExecutionException | CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw new RuntimeException(e.getCause());
    } catch (TimeoutException e) {
      throw new StepFailed("a fanout handler did not finish in time", "timeout");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StepFailed("interrupted", "interrupted");
    }
  }

  // 7. GetMessage with an unknown id
  private void getMissing() {
    try {
      messages("a")
          .getMessage(GetMessageRequest.newBuilder().setMessageId(MISSING_MESSAGE_ID).build());
      add("get_missing", facts("code", "OK", "reason", "", "domain", ""));
    } catch (StatusRuntimeException e) {
      add("get_missing", errorFacts(e));
    }
  }

  // 8. a acquires a lease, releases it, acquires it again; the first token is refused
  private void lease() {
    String name = name("lease");
    AcquireLeaseRequest acquire =
        AcquireLeaseRequest.newBuilder().setName(name).setTtl(seconds(LEASE_TTL_S)).build();
    AcquireLeaseResponse first = leases("a").acquireLease(acquire);
    long firstToken = first.getLease().getFencingToken();
    ReleaseLeaseResponse released =
        leases("a")
            .releaseLease(
                ReleaseLeaseRequest.newBuilder().setName(name).setFencingToken(firstToken).build());
    AcquireLeaseResponse second = leases("a").acquireLease(acquire);
    long secondToken = second.getLease().getFencingToken();
    add(
        "lease",
        facts(
            "first_live", first.getLease().getLive(),
            "first_renewed", first.getRenewed(),
            "released_token_equal", released.getLease().getFencingToken() == firstToken,
            "second_renewed", second.getRenewed(),
            // Fencing tokens are uint64: compare unsigned.
            "token_grew", Long.compareUnsigned(secondToken, firstToken) > 0));
    CheckFenceResponse current =
        leases("a")
            .checkFence(
                CheckFenceRequest.newBuilder().setName(name).setFencingToken(secondToken).build());
    Map<String, Object> stale = facts("code", "OK", "reason", "", "domain", "");
    try {
      leases("a")
          .checkFence(
              CheckFenceRequest.newBuilder().setName(name).setFencingToken(firstToken).build());
    } catch (StatusRuntimeException e) {
      stale = errorFacts(e);
    }
    add(
        "fence",
        facts(
            "current_live", current.getLease().getLive(),
            "current_token_equal", current.getLease().getFencingToken() == secondToken,
            "stale", stale));
    leases("a")
        .releaseLease(
            ReleaseLeaseRequest.newBuilder().setName(name).setFencingToken(secondToken).build());
  }

  // 9. b's stream is dropped after seq N; a sends two more; b resumes after N
  private void resume(Inbox inboxB) {
    long cursor = inboxB.seen;
    inboxB.close();
    List<String> sent = new ArrayList<>();
    for (String content : RESUME) {
      SendMessageResponse resp =
          messages("a")
              .sendMessage(
                  SendMessageRequest.newBuilder().setTarget(name("b")).setContent(content).build());
      sent.add(resp.getMessage().getId());
    }
    Opened opened = openInbox("b", cursor);
    SubscribeResponse ready = opened.first();
    List<Long> seqs = new ArrayList<>();
    List<String> messageIds = new ArrayList<>();
    List<String> contents = new ArrayList<>();
    boolean redelivered = false;
    while (!messageIds.containsAll(sent)) {
      SubscribeResponse ev = opened.inbox().next();
      seqs.add(ev.getSeq());
      redelivered |= ev.getRedelivered();
      if (ev.getEventCase() == SubscribeResponse.EventCase.MESSAGE) {
        messageIds.add(ev.getMessage().getId());
        contents.add(ev.getMessage().getContent());
      }
    }
    boolean contiguous = true;
    for (int i = 0; i < seqs.size(); i++) {
      contiguous &= seqs.get(i) == cursor + 1 + i;
    }
    add(
        "resume",
        facts(
            "first_event", eventKind(ready),
            "ready_after_seq_is_cursor", ready.getReady().getAfterSeq() == cursor,
            "first_seq_is_next", seqs.get(0) == cursor + 1,
            "contiguous", contiguous,
            "duplicates", new HashSet<>(messageIds).size() != messageIds.size(),
            "messages", messageIds.size(),
            "contents_in_order", contents.equals(RESUME),
            "redelivered", redelivered));
  }

  // 10. a and a new agent d exchange a request and its reply on channels (AgentService.OpenChannel)
  private void channelStep() {
    registerAgent("d");
    Channel aChannel = new Channel(channel, agentMetadata.get("a"));
    Channel dChannel = new Channel(channel, agentMetadata.get("d"));
    ChannelReady dReady;
    ChannelReady aReady;
    SubscribeResponse first;
    SubscribeResponse ev;
    ChannelResult acked;
    ChannelResult replied;
    ChannelResult sent;
    ChannelResult replay;
    ChannelResult failed;
    String aEnd;
    String dEnd;
    try {
      dChannel.write(
          OpenChannelRequest.newBuilder()
              .setSubscribe(SubscribeRequest.newBuilder().setAfterSeq(0))
              .build());
      dReady = dChannel.ready();
      aReady = aChannel.ready();
      first = dChannel.event();
      ChannelCommand send =
          ChannelCommand.newBuilder()
              .setCommandId("ch-send")
              .setSend(
                  SendMessageRequest.newBuilder()
                      .setTarget(name("d"))
                      .setContent(CHANNEL_REQUEST)
                      .setWait(seconds(10)))
              .build();
      aChannel.write(OpenChannelRequest.newBuilder().addCommands(send).build());
      ev = dChannel.event();
      String messageId = ev.getMessage().getId();
      dChannel.write(
          OpenChannelRequest.newBuilder()
              .addCommands(
                  ChannelCommand.newBuilder()
                      .setCommandId("ch-ack")
                      .setAck(AckMessagesRequest.newBuilder().addMessageIds(messageId)))
              .addCommands(
                  ChannelCommand.newBuilder()
                      .setCommandId("ch-reply")
                      .setReply(
                          ReplyToMessageRequest.newBuilder()
                              .setMessageId(messageId)
                              .setContent(CHANNEL_REPLY)))
              .build());
      acked = dChannel.result();
      replied = dChannel.result();
      sent = aChannel.result();
      // The same command again.
      aChannel.write(OpenChannelRequest.newBuilder().addCommands(send).build());
      replay = aChannel.result();
      aChannel.write(
          OpenChannelRequest.newBuilder()
              .addCommands(
                  ChannelCommand.newBuilder()
                      .setCommandId("ch-get")
                      .setGet(GetMessageRequest.newBuilder().setMessageId(MISSING_MESSAGE_ID)))
              .build());
      failed = aChannel.result();
      aEnd = aChannel.end();
      dEnd = dChannel.end();
    } finally {
      aChannel.cancel();
      dChannel.cancel();
    }
    Message m = ev.getMessage();
    Message sentMessage = sent.getSend().getMessage();
    int code = failed.getError().getCode();
    add(
        "channel",
        facts(
            "a_ready", aReady.getAgent().getName().equals(name("a")),
            "d_ready", dReady.getAgent().getName().equals(name("d")),
            "max_commands_per_request", aReady.getMaxCommandsPerRequest(),
            "max_in_flight_positive", aReady.getMaxInFlight() > 0,
            "d_first_event", eventKind(first),
            "event", eventKind(ev),
            "content_equal", m.getContent().equals(CHANNEL_REQUEST),
            "from_a", m.getFromAgentName().equals(name("a")),
            "seq_positive", ev.getSeq() > 0,
            "ack_state", acked.getAck().getMessages(0).getState().name(),
            "reply_state", replied.getReply().getMessage().getState().name(),
            "results_in_order",
                List.of(acked.getCommandId(), replied.getCommandId())
                    .equals(List.of("ch-ack", "ch-reply")),
            "send_terminal", sent.getSend().getTerminal(),
            "send_reply_equal", sentMessage.getReply().getContent().equals(CHANNEL_REPLY),
            "send_key_is_command_id", sentMessage.getIdempotencyKey().equals("ch-send"),
            "send_replayed", sent.getReplayed(),
            "replayed", replay.getReplayed(),
            "replay_same_id", replay.getSend().getMessage().getId().equals(sentMessage.getId()),
            "error",
                facts(
                    "code",
                        code == Status.Code.NOT_FOUND.value()
                            ? Status.Code.NOT_FOUND.name()
                            : String.valueOf(code),
                    "reason", failed.getError().getReason()),
            "a_end", aEnd,
            "d_end", dEnd));
  }

  // 11. a new agent e takes a message without acknowledging it, registers again under a new key
  // (the hub ends its stream) and takes the message again on a stream opened with the new key
  private void redeliver() {
    registerAgent("e");
    Opened opened = openInbox("e", 0);
    Inbox oldInbox = opened.inbox();
    messages("a")
        .sendMessage(SendMessageRequest.newBuilder().setTarget(name("e")).setContent(REDELIVER).build());
    Message first = oldInbox.nextMessage().getMessage();
    // Not acknowledged: the hub delivers it again on e's next stream.
    RegisterAgentResponse again = registerAgent("e", agentMetadata.get("e").get(AGENT_KEY));
    Throwable end = oldInbox.end();
    Map<String, Object> endFacts =
        end == null ? facts("code", "OK", "reason", "", "domain", "") : errorFacts(end);
    long cursor = oldInbox.seen;
    Opened reopened = openInbox("e", cursor);
    SubscribeResponse ev = reopened.inbox().nextMessage();
    Message m = ev.getMessage();
    AckMessagesResponse acked =
        messages("e").ackMessages(AckMessagesRequest.newBuilder().addMessageIds(m.getId()).build());
    reopened.inbox().close();
    add(
        "redeliver",
        facts(
            "e_ready", opened.first().getEventCase() == SubscribeResponse.EventCase.READY,
            "resumed", again.getResumed(),
            "end_code", endFacts.get("code"),
            "end_reason", endFacts.get("reason"),
            "ready_after_seq_is_cursor", reopened.first().getReady().getAfterSeq() == cursor,
            "redelivered", ev.getRedelivered(),
            "same_id", m.getId().equals(first.getId()),
            "content_equal", m.getContent().equals(REDELIVER),
            "ack_state", acked.getMessages(0).getState().name()));
  }

  // 12. a new connection over TLS that trusts only the CA in KXM_TLS_CA (the hub's certificate is
  // verified, its subjectAltName IP:127.0.0.1 included); whom the hub takes KXM_TLS_TOKEN for
  private void tls() {
    ChannelCredentials credentials;
    try {
      credentials = TlsChannelCredentials.newBuilder().trustManager(new File(env.tlsCa())).build();
    } catch (IOException e) {
      throw new StepFailed("cannot read KXM_TLS_CA: " + e.getMessage(), "tls_ca");
    }
    ManagedChannel tlsChannel = newChannel(env.tlsAddr(), credentials);
    try {
      Metadata md = new Metadata();
      md.put(AUTHORIZATION, "Bearer " + env.tlsToken());
      GetCallerIdentityResponse identity =
          AgentServiceGrpc.newBlockingStub(tlsChannel)
              .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md))
              .withDeadlineAfter(DEADLINE_S, TimeUnit.SECONDS)
              .getCallerIdentity(GetCallerIdentityRequest.getDefaultInstance());
      add("tls", facts("credential_kind", identity.getCredentialKind().name()));
    } finally {
      tlsChannel.shutdownNow();
    }
  }

  // 13. every call of the contract sweep (KXM_SWEEP), in order, each recorded however it ends
  private void sweep() {
    List<Map<String, Object>> calls;
    try {
      calls = new Sweep(channel).run(Path.of(env.sweep()));
    } catch (IOException | RuntimeException e) {
      // A sweep file that cannot be read or is not the documented shape; a call never gets here.
      throw new StepFailed("cannot read KXM_SWEEP: " + e, "sweep_file");
    }
    add("sweep", facts("calls", calls));
  }
}
