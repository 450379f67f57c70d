package dev.kxm.hub.client;

import dev.kxm.v1.AckMessagesRequest;
import dev.kxm.v1.AckMessagesResponse;
import dev.kxm.v1.AdminServiceGrpc;
import dev.kxm.v1.AgentServiceGrpc;
import dev.kxm.v1.CompleteAssignmentRequest;
import dev.kxm.v1.CompleteAssignmentResponse;
import dev.kxm.v1.ContextServiceGrpc;
import dev.kxm.v1.GetMessageRequest;
import dev.kxm.v1.GetMessageResponse;
import dev.kxm.v1.LeaseServiceGrpc;
import dev.kxm.v1.MessageServiceGrpc;
import dev.kxm.v1.OpsServiceGrpc;
import dev.kxm.v1.RegisterAgentRequest;
import dev.kxm.v1.RegisterAgentResponse;
import dev.kxm.v1.ReplyToMessageRequest;
import dev.kxm.v1.ReplyToMessageResponse;
import dev.kxm.v1.ReviewEnvelope;
import dev.kxm.v1.RuntimeServiceGrpc;
import dev.kxm.v1.SendMessageRequest;
import dev.kxm.v1.SendMessageResponse;
import dev.kxm.v1.WaitMessageRequest;
import dev.kxm.v1.WaitMessageResponse;
import dev.kxm.v1.WorkerResult;
import dev.kxm.v1.WorkflowServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ConnectivityState;
import io.grpc.Context;
import io.grpc.ForwardingClientCall;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A connection to one kxm hub, acting as one caller: a thin layer over the generated grpc-java
 * stubs of {@code dev.kxm.v1}.
 *
 * <p>Every call made through it carries the caller's metadata ({@code authorization: Bearer
 * <token>}; {@code x-kxm-agent-id} and {@code x-kxm-agent-key} when both are known; {@code
 * x-kxm-project}, {@code x-kxm-attempt-token} and {@code x-kxm-session-token} when set), and every
 * unary call without a deadline of its caller's gets the client's default timeout (15 s); streams
 * get none. The stub accessors ({@link #agents()}, {@link #messages()}, ... one per service) and
 * {@link #channel()} (for the async and future stubs) apply both. The helpers ({@link #register},
 * {@link #send}, {@link #reply}, {@link #ack}, {@link #waitMessage}, {@link #getMessage}, {@link
 * #subscribe}, {@link #assignments}, {@link #complete}) throw {@link HubException}; so does a stub
 * call wrapped in {@link #call}.
 *
 * <pre>{@code
 * try (HubClient hub = HubClient.create()) {        // everything from KXM_* or the credentials file
 *   hub.register("planner");
 *   SendMessageResponse sent = hub.send("reviewer", "please review PR 42", null, Duration.ofSeconds(30));
 *   GetCallerIdentityResponse me =
 *       hub.call(() -> hub.agents().getCallerIdentity(GetCallerIdentityRequest.getDefaultInstance()));
 * }
 * }</pre>
 *
 * <p>The channel pings an idle connection every 30 s (10 s to answer) and, while it cannot
 * connect, tries again at least every 5 s (grpc-java's own backoff grows to 2 minutes; the client
 * resets it after 5 s in TRANSIENT_FAILURE). A client is safe to share between threads. {@link
 * #close()} closes its open subscriptions and assignment loops, then the channel.
 */
public final class HubClient implements AutoCloseable {
  /**
   * A call option that sends a call with the bearer metadata only: no agent id and key, and no
   * tool-policy tokens ({@link #register} sets it on RegisterAgent). Set it on a stub with {@code
   * stub.withOption(HubClient.BEARER_ONLY, true)}.
   */
  public static final CallOptions.Key<Boolean> BEARER_ONLY =
      CallOptions.Key.createWithDefault("kxm-bearer-only", false);

  /** The longest wait one WaitMessage call covers; {@link #waitMessage} makes as many as it needs. */
  static final Duration MAX_WAIT_CALL = Duration.ofSeconds(60);
  /** How much longer than its wait a long poll's deadline is. */
  static final Duration LONG_POLL_SLACK = Duration.ofSeconds(5);
  /** The longest time the channel stays in TRANSIENT_FAILURE before it tries to connect again. */
  static final Duration MAX_RECONNECT_BACKOFF = Duration.ofSeconds(5);

  private static final Metadata.Key<String> AUTHORIZATION = key("authorization");
  private static final Metadata.Key<String> AGENT_ID = key("x-kxm-agent-id");
  private static final Metadata.Key<String> AGENT_KEY = key("x-kxm-agent-key");
  private static final Metadata.Key<String> PROJECT = key("x-kxm-project");
  private static final Metadata.Key<String> ATTEMPT_TOKEN = key("x-kxm-attempt-token");
  private static final Metadata.Key<String> SESSION_TOKEN = key("x-kxm-session-token");

  private static Metadata.Key<String> key(String name) {
    return Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
  }

  /** Who the calls speak for; replaced as a whole, so a call sees one consistent identity. */
  private record Identity(String agentId, String agentKey) {}

  private final ClientConfig config;
  private final ManagedChannel managed;
  private final Channel channel;
  private final ScheduledExecutorService scheduler;
  private final Set<AutoCloseable> open = ConcurrentHashMap.newKeySet();
  private volatile Identity identity;
  private volatile boolean closed;

  private final AgentServiceGrpc.AgentServiceBlockingStub agents;
  private final MessageServiceGrpc.MessageServiceBlockingStub messages;
  private final LeaseServiceGrpc.LeaseServiceBlockingStub leases;
  private final RuntimeServiceGrpc.RuntimeServiceBlockingStub runtimes;
  private final AdminServiceGrpc.AdminServiceBlockingStub admin;
  private final WorkflowServiceGrpc.WorkflowServiceBlockingStub workflows;
  private final ContextServiceGrpc.ContextServiceBlockingStub context;
  private final OpsServiceGrpc.OpsServiceBlockingStub ops;

  private HubClient(ClientConfig config) {
    this.config = config;
    this.identity = new Identity(config.agentId(), config.agentKey());
    ChannelCredentials credentials = credentials(config);
    this.managed =
        Grpc.newChannelBuilder(config.address(), credentials)
            // The hub allows a ping every 10 s at most; more often and it closes the connection.
            .keepAliveTime(30, TimeUnit.SECONDS)
            .keepAliveTimeout(10, TimeUnit.SECONDS)
            .keepAliveWithoutCalls(true)
            .maxInboundMessageSize(16 * 1024 * 1024)
            .build();
    this.channel = ClientInterceptors.intercept(managed, new CallerInterceptor());
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "kxm-hub-reconnect");
              thread.setDaemon(true);
              return thread;
            });
    watchConnectivity(ConnectivityState.IDLE);
    agents = AgentServiceGrpc.newBlockingStub(channel);
    messages = MessageServiceGrpc.newBlockingStub(channel);
    leases = LeaseServiceGrpc.newBlockingStub(channel);
    runtimes = RuntimeServiceGrpc.newBlockingStub(channel);
    admin = AdminServiceGrpc.newBlockingStub(channel);
    workflows = WorkflowServiceGrpc.newBlockingStub(channel);
    context = ContextServiceGrpc.newBlockingStub(channel);
    ops = OpsServiceGrpc.newBlockingStub(channel);
  }

  private static ChannelCredentials credentials(ClientConfig config) {
    if (!config.tls()) {
      return InsecureChannelCredentials.create();
    }
    TlsChannelCredentials.Builder tls = TlsChannelCredentials.newBuilder();
    Path file = config.tlsCa();
    try {
      if (file != null) {
        tls.trustManager(file.toFile());
      }
      if (config.tlsCertificate() != null) {
        file = config.tlsCertificate();
        tls.keyManager(config.tlsCertificate().toFile(), config.tlsKey().toFile());
      }
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("cannot use the TLS file " + file + ": " + e.getMessage(), e);
    }
    return tls.build();
  }

  /**
   * A builder: every option left out is resolved as {@link ClientConfig} describes.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A client with every setting from the environment and the credentials file ({@code
   * builder().build()}).
   *
   * @return the client (not yet connected: the channel connects at the first call)
   * @throws IllegalArgumentException the configuration cannot be used (see {@link Builder#build()})
   */
  public static HubClient create() {
    return builder().build();
  }

  /** Options of a {@link HubClient}; a null or unset option is resolved by {@link ClientConfig}. */
  public static final class Builder {
    String address;
    String token;
    boolean admin;
    String project;
    String agentId;
    String agentKey;
    Path tlsCa;
    Path tlsCertificate;
    Path tlsKey;
    Duration timeout;
    String attemptToken;
    String sessionToken;

    private Builder() {}

    /**
     * The hub's address ({@code host:port}, or any gRPC target); one address only.
     *
     * @param address the address
     * @return this builder
     */
    public Builder address(String address) {
      this.address = address;
      return this;
    }

    /**
     * The bearer token: a project token, or the admin token with {@link #admin(boolean)}.
     *
     * @param token the token
     * @return this builder
     */
    public Builder token(String token) {
      this.token = token;
      return this;
    }

    /**
     * Whether to look for the admin token ({@code KXM_ADMIN_TOKEN}, the file's {@code
     * admin_token}) instead of a project token.
     *
     * @param admin true for an admin client
     * @return this builder
     */
    public Builder admin(boolean admin) {
      this.admin = admin;
      return this;
    }

    /**
     * The project: sent as {@code x-kxm-project}, and whose token the credentials file gives.
     *
     * @param project the project's name
     * @return this builder
     */
    public Builder project(String project) {
      this.project = project;
      return this;
    }

    /**
     * The agent to act as from the start (with {@link #agentKey(String)}).
     *
     * @param agentId the agent's id
     * @return this builder
     */
    public Builder agentId(String agentId) {
      this.agentId = agentId;
      return this;
    }

    /**
     * The key of the agent given to {@link #agentId(String)}.
     *
     * @param agentKey the agent's key
     * @return this builder
     */
    public Builder agentKey(String agentKey) {
      this.agentKey = agentKey;
      return this;
    }

    /**
     * Use TLS, checking the hub's certificate against this CA.
     *
     * @param caPem the CA's PEM file
     * @return this builder
     */
    public Builder tlsCa(Path caPem) {
      this.tlsCa = caPem;
      return this;
    }

    /**
     * Present this client certificate (mTLS); implies TLS.
     *
     * @param certificatePem the PEM certificate (chain)
     * @param keyPem its PEM private key
     * @return this builder
     */
    public Builder clientCertificate(Path certificatePem, Path keyPem) {
      this.tlsCertificate = certificatePem;
      this.tlsKey = keyPem;
      return this;
    }

    /**
     * The deadline of every unary call that sets none of its own (default 15 s).
     *
     * @param timeout a positive duration
     * @return this builder
     */
    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /**
     * The workflow attempt token presented on every call ({@code x-kxm-attempt-token}).
     *
     * @param attemptToken the token
     * @return this builder
     */
    public Builder attemptToken(String attemptToken) {
      this.attemptToken = attemptToken;
      return this;
    }

    /**
     * The session token presented on every call ({@code x-kxm-session-token}).
     *
     * @param sessionToken the token
     * @return this builder
     */
    public Builder sessionToken(String sessionToken) {
      this.sessionToken = sessionToken;
      return this;
    }

    /**
     * The settings a client built now would use, without connecting.
     *
     * @return the resolved settings
     * @throws IllegalArgumentException as {@link #build()}
     */
    public ClientConfig resolve() {
      return ClientConfig.resolve(this);
    }

    /**
     * Resolves the options and opens the channel (it connects at the first call). A missing token
     * is no error here: the hub answers UNAUTHENTICATED.
     *
     * @return the client
     * @throws IllegalArgumentException several addresses, a client certificate without its key (or
     *     the reverse), a TLS file that cannot be read, or a timeout that is not positive
     */
    public HubClient build() {
      return new HubClient(resolve());
    }
  }

  /**
   * Adds the caller's metadata to every call (a header the call already has is left as it is), and
   * the default deadline to a unary one without.
   */
  private final class CallerInterceptor implements ClientInterceptor {
    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(
        MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      if (method.getType() == MethodDescriptor.MethodType.UNARY
          && options.getDeadline() == null
          && Context.current().getDeadline() == null) {
        options = options.withDeadlineAfter(config.timeout().toNanos(), TimeUnit.NANOSECONDS);
      }
      Metadata extra = metadata(options.getOption(BEARER_ONLY));
      return new ForwardingClientCall.SimpleForwardingClientCall<Q, R>(next.newCall(method, options)) {
        @Override
        public void start(Listener<R> listener, Metadata headers) {
          // The caller's own value of a header wins: add only the headers the call does not have.
          for (String name : extra.keys()) {
            Metadata.Key<String> header = key(name);
            if (!headers.containsKey(header)) {
              for (String value : extra.getAll(header)) {
                headers.put(header, value);
              }
            }
          }
          super.start(listener, headers);
        }
      };
    }
  }

  private Metadata metadata(boolean bearerOnly) {
    Metadata headers = new Metadata();
    Identity who = identity;
    if (config.token() != null && !config.token().isEmpty()) {
      headers.put(AUTHORIZATION, "Bearer " + config.token());
    }
    if (!bearerOnly && who.agentId() != null && who.agentKey() != null) {
      headers.put(AGENT_ID, who.agentId());
      headers.put(AGENT_KEY, who.agentKey());
    }
    if (config.project() != null) {
      headers.put(PROJECT, config.project());
    }
    if (!bearerOnly && config.attemptToken() != null) {
      headers.put(ATTEMPT_TOKEN, config.attemptToken());
    }
    if (!bearerOnly && config.sessionToken() != null) {
      headers.put(SESSION_TOKEN, config.sessionToken());
    }
    return headers;
  }

  /** Caps the wait between connection attempts: TRANSIENT_FAILURE for 5 s resets the backoff. */
  private void watchConnectivity(ConnectivityState seen) {
    if (closed) {
      return;
    }
    managed.notifyWhenStateChanged(
        seen,
        () -> {
          ConnectivityState now = managed.getState(false);
          if (now == ConnectivityState.SHUTDOWN || closed) {
            return;
          }
          if (now == ConnectivityState.TRANSIENT_FAILURE) {
            try {
              scheduler.schedule(
                  () -> {
                    if (!closed && managed.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
                      managed.resetConnectBackoff();
                    }
                  },
                  MAX_RECONNECT_BACKOFF.toMillis(),
                  TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
              return; // closed meanwhile
            }
          }
          watchConnectivity(now);
        });
  }

  /** Asks the channel to connect now if it is waiting out a backoff (a stream about to reopen). */
  void resetConnectBackoff() {
    if (!closed) {
      managed.resetConnectBackoff();
    }
  }

  // -- configuration and identity ------------------------------------------------------------

  /**
   * The settings this client was built with.
   *
   * @return the resolved configuration
   */
  public ClientConfig config() {
    return config;
  }

  /**
   * The hub's address.
   *
   * @return the address dialled
   */
  public String address() {
    return config.address();
  }

  /**
   * The deadline of a unary call that sets none of its own.
   *
   * @return the default timeout
   */
  public Duration timeout() {
    return config.timeout();
  }

  /**
   * The agent this client acts as.
   *
   * @return its id, or null when it acts with the bearer token only
   */
  public String agentId() {
    return identity.agentId();
  }

  /**
   * The key of {@link #agentId()} (a secret: keep it to act as the same agent later).
   *
   * @return the key, or null
   */
  public String agentKey() {
    return identity.agentKey();
  }

  /**
   * Act as this agent on every later call (null for both: the bearer token only).
   *
   * @param agentId the agent's id
   * @param agentKey its key
   */
  public void useAgent(String agentId, String agentKey) {
    identity = new Identity(agentId, agentKey);
  }

  // -- the generated stubs ---------------------------------------------------------------------

  /**
   * The channel with this client's metadata and default deadline applied, for any stub: {@code
   * MessageServiceGrpc.newStub(hub.channel())} (async), {@code newFutureStub}, ... Their calls
   * report failures as grpc's {@link StatusRuntimeException}; {@link HubException#from} decodes it.
   *
   * @return the intercepted channel
   */
  public Channel channel() {
    return channel;
  }

  /**
   * AgentService (register, heartbeat, list, caller identity, the agent channel).
   *
   * @return the blocking stub, with metadata and default deadline applied
   */
  public AgentServiceGrpc.AgentServiceBlockingStub agents() {
    return agents;
  }

  /**
   * MessageService (send, reply, ack, wait, fanout, subscribe).
   *
   * @return the blocking stub, with metadata and default deadline applied
   */
  public MessageServiceGrpc.MessageServiceBlockingStub messages() {
    return messages;
  }

  /**
   * LeaseService (acquire, renew, release, fencing).
   *
   * @return the blocking stub, with metadata and default deadline applied
   */
  public LeaseServiceGrpc.LeaseServiceBlockingStub leases() {
    return leases;
  }

  /**
   * RuntimeService (runtimes and their sync events).
   *
   * @return the blocking stub, with metadata and default deadline applied
   */
  public RuntimeServiceGrpc.RuntimeServiceBlockingStub runtimes() {
    return runtimes;
  }

  /**
   * AdminService (projects, operators, audit, session tokens; an admin client's).
   *
   * @return the blocking stub, with metadata and default deadline applied
   */
  public AdminServiceGrpc.AdminServiceBlockingStub admin() {
    return admin;
  }

  /**
   * WorkflowService (definitions, runs, checkpoints, assignments).
   *
   * @return the blocking stub, with metadata and default deadline applied
   */
  public WorkflowServiceGrpc.WorkflowServiceBlockingStub workflows() {
    return workflows;
  }

  /**
   * ContextService (context items, state, memory, skills).
   *
   * @return the blocking stub, with metadata and default deadline applied
   */
  public ContextServiceGrpc.ContextServiceBlockingStub context() {
    return context;
  }

  /**
   * OpsService (the operations snapshot and its watch stream).
   *
   * @return the blocking stub, with metadata and default deadline applied
   */
  public OpsServiceGrpc.OpsServiceBlockingStub ops() {
    return ops;
  }

  /**
   * Runs a stub call, turning its failure into a {@link HubException}: {@code hub.call(() ->
   * hub.leases().acquireLease(request))}.
   *
   * @param <T> the call's response type
   * @param rpc the call
   * @return its response
   * @throws HubException the call failed (the status and its details, decoded)
   */
  public <T> T call(Supplier<T> rpc) {
    try {
      return rpc.get();
    } catch (StatusRuntimeException e) {
      throw HubException.from(e);
    }
  }

  // -- helpers -----------------------------------------------------------------------------------

  /**
   * Registers an agent (RegisterAgent, sent with the bearer metadata only) and acts as it on every
   * later call.
   *
   * @param name the agent's name, unique in the project
   * @param purpose what it does (null: none)
   * @param model the model behind it (null: none)
   * @param previousKey the key it had, to resume its identity (null: a new registration)
   * @return the agent and its key
   * @throws HubException the hub refused (INVALID_ARGUMENT with field violations for a bad name,
   *     UNAUTHENTICATED without a valid token, ...)
   */
  public RegisterAgentResponse register(String name, String purpose, String model, String previousKey) {
    RegisterAgentRequest.Builder request = RegisterAgentRequest.newBuilder().setName(name);
    if (purpose != null) {
      request.setPurpose(purpose);
    }
    if (model != null) {
      request.setModel(model);
    }
    if (previousKey != null) {
      request.setPreviousKey(previousKey);
    }
    RegisterAgentResponse registered =
        call(() -> agents.withOption(BEARER_ONLY, true).registerAgent(request.build()));
    useAgent(registered.getAgent().getId(), registered.getAgentKey());
    return registered;
  }

  /**
   * {@link #register(String, String, String, String)} with only a name.
   *
   * @param name the agent's name
   * @return the agent and its key
   * @throws HubException the hub refused
   */
  public RegisterAgentResponse register(String name) {
    return register(name, null, null, null);
  }

  /**
   * Sends a request to another agent of the project (SendMessage).
   *
   * @param target the recipient's name or id
   * @param content the request
   * @return the stored message
   * @throws HubException the hub refused (TARGET_NOT_FOUND, ...)
   */
  public SendMessageResponse send(String target, String content) {
    return send(target, content, null, null);
  }

  /**
   * Sends a request to another agent of the project (SendMessage); with {@code wait} the hub also
   * waits that long for it to end and returns it replied ({@code terminal}), and the call's
   * deadline is the client's timeout plus the wait.
   *
   * @param target the recipient's name or id
   * @param content the request
   * @param idempotencyKey stores one message per key: a repeat returns it ({@code repeated});
   *     null for none
   * @param wait how long the hub waits for the reply, at most 60 s; null: return once stored
   * @return the message (replied when {@code terminal} and its state is REPLIED)
   * @throws HubException the hub refused (TARGET_NOT_FOUND, IDEMPOTENCY_CONFLICT, ...)
   */
  public SendMessageResponse send(String target, String content, String idempotencyKey, Duration wait) {
    SendMessageRequest.Builder request = SendMessageRequest.newBuilder().setTarget(target).setContent(content);
    if (idempotencyKey != null) {
      request.setIdempotencyKey(idempotencyKey);
    }
    if (wait != null) {
      request.setWait(duration(wait));
    }
    return send(request.build());
  }

  /**
   * Sends a request built in full (SendMessage): for the fields the other overloads leave out
   * ({@code allow_offline}, {@code ttl}, {@code correlation_id}, a workflow context...). When it
   * has a {@code wait}, the call's deadline is the client's timeout plus the wait (and the
   * deprecated {@code reply_wait} is set to the same value, for hubs older than {@code wait}).
   *
   * @param request the request
   * @return the message (replied when {@code terminal} and its state is REPLIED)
   * @throws HubException the hub refused (TARGET_NOT_FOUND, IDEMPOTENCY_CONFLICT, ...)
   */
  @SuppressWarnings("deprecation") // reply_wait: the same value, for hubs older than `wait`
  public SendMessageResponse send(SendMessageRequest request) {
    MessageServiceGrpc.MessageServiceBlockingStub stub = messages;
    if (request.hasWait()) {
      request = request.toBuilder().setReplyWait(request.getWait()).build();
      Duration wait = Duration.ofSeconds(request.getWait().getSeconds(), request.getWait().getNanos());
      stub = stub.withDeadlineAfter(config.timeout().plus(wait).toNanos(), TimeUnit.NANOSECONDS);
    }
    MessageServiceGrpc.MessageServiceBlockingStub caller = stub;
    SendMessageRequest sent = request;
    return call(() -> caller.sendMessage(sent));
  }

  /**
   * Replies (once) to a message this agent received (ReplyToMessage).
   *
   * @param messageId the message's id
   * @param content the reply
   * @return the replied message
   * @throws HubException the hub refused (MESSAGE_NOT_FOUND, DUPLICATE_REPLY, ...)
   */
  public ReplyToMessageResponse reply(String messageId, String content) {
    ReplyToMessageRequest request =
        ReplyToMessageRequest.newBuilder().setMessageId(messageId).setContent(content).build();
    return call(() -> messages.replyToMessage(request));
  }

  /**
   * Acknowledges received messages, all or none (AckMessages): they are not redelivered.
   *
   * @param messageIds the messages' ids
   * @return the hub's answer
   * @throws HubException the hub refused
   */
  public AckMessagesResponse ack(String... messageIds) {
    return ack(Arrays.asList(messageIds));
  }

  /**
   * Acknowledges received messages, all or none (AckMessages): they are not redelivered.
   *
   * @param messageIds the messages' ids
   * @return the hub's answer
   * @throws HubException the hub refused
   */
  public AckMessagesResponse ack(Collection<String> messageIds) {
    AckMessagesRequest request = AckMessagesRequest.newBuilder().addAllMessageIds(messageIds).build();
    return call(() -> messages.ackMessages(request));
  }

  /**
   * A message this agent sent or received (GetMessage).
   *
   * @param messageId the message's id
   * @return the message
   * @throws HubException NOT_FOUND (MESSAGE_NOT_FOUND), PERMISSION_DENIED (MESSAGE_FORBIDDEN), ...
   */
  public GetMessageResponse getMessage(String messageId) {
    GetMessageRequest request = GetMessageRequest.newBuilder().setMessageId(messageId).build();
    return call(() -> messages.getMessage(request));
  }

  /**
   * Waits until the message is terminal (replied, cancelled, expired...), for at most {@code
   * wait}. One WaitMessage call covers up to 60 s, so a longer wait takes several; each call's
   * deadline covers its poll. A wait that ends first returns the current state with {@code
   * terminal} false: not an error.
   *
   * @param messageId the message's id
   * @param wait how long to wait; null: until the message is terminal
   * @return the message and whether it is terminal
   * @throws HubException the hub refused (MESSAGE_FORBIDDEN, ...)
   */
  @SuppressWarnings("deprecation") // timeout: the same value, for hubs older than `wait`
  public WaitMessageResponse waitMessage(String messageId, Duration wait) {
    long end = wait == null ? 0 : System.nanoTime() + wait.toNanos();
    Duration remaining = wait;
    while (true) {
      Duration poll =
          remaining == null || remaining.compareTo(MAX_WAIT_CALL) > 0 ? MAX_WAIT_CALL : remaining;
      WaitMessageRequest request =
          WaitMessageRequest.newBuilder()
              .setMessageId(messageId)
              .setWait(duration(poll))
              .setTimeout(duration(poll))
              .build();
      long deadline = poll.plus(LONG_POLL_SLACK).toNanos();
      WaitMessageResponse response =
          call(() -> messages.withDeadlineAfter(deadline, TimeUnit.NANOSECONDS).waitMessage(request));
      if (response.getTerminal() || (remaining != null && remaining.compareTo(MAX_WAIT_CALL) <= 0)) {
        return response;
      }
      if (wait != null) {
        remaining = Duration.ofNanos(Math.max(0, end - System.nanoTime()));
      }
    }
  }

  /**
   * This agent's inbox events from {@code afterSeq} on, as a {@link Subscription} that reopens
   * the stream by itself (see there).
   *
   * @param afterSeq the sequence to resume after (0: from the start of what the hub retains)
   * @return the open subscription; close it when done
   */
  public Subscription subscribe(long afterSeq) {
    return subscribe(afterSeq, false);
  }

  /**
   * {@link #subscribe(long)}, with {@code presenceOnly} asking for presence events only.
   *
   * @param afterSeq the sequence to resume after
   * @param presenceOnly only presence events (agents coming and going)
   * @return the open subscription; close it when done
   */
  public Subscription subscribe(long afterSeq, boolean presenceOnly) {
    ensureOpen();
    Subscription subscription = new Subscription(this, afterSeq, presenceOnly);
    open.add(subscription);
    subscription.start();
    return subscription;
  }

  /**
   * This agent's open workflow assignments, as an iterator that waits for the next one (see
   * {@link Assignments}).
   *
   * @return the assignments; close it to stop waiting
   */
  public Assignments assignments() {
    return assignments(false);
  }

  /**
   * {@link #assignments()}, each read that finds an assignment also assembling its context packet
   * when {@code includeContext} is set.
   *
   * @param includeContext read each assignment's packet too ({@link Assignment#packet()})
   * @return the assignments; close it to stop waiting
   */
  public Assignments assignments(boolean includeContext) {
    ensureOpen();
    Assignments assignments = new Assignments(this, includeContext);
    open.add(assignments);
    return assignments;
  }

  /**
   * Returns a worker's result for an assignment (CompleteAssignment).
   *
   * @param assignmentId the assignment's id
   * @param result the worker's result
   * @return the hub's answer ({@code duplicate} for the same result again)
   * @throws HubException the hub refused (ASSIGNMENT_CLOSED when it closed meanwhile, ...)
   */
  public CompleteAssignmentResponse complete(String assignmentId, WorkerResult result) {
    return complete(CompleteAssignmentRequest.newBuilder().setAssignmentId(assignmentId).setWorkerResult(result));
  }

  /**
   * Returns a reviewer's verdict for an assignment (CompleteAssignment).
   *
   * @param assignmentId the assignment's id
   * @param review the reviewer's envelope
   * @return the hub's answer ({@code duplicate} for the same result again)
   * @throws HubException the hub refused (ASSIGNMENT_CLOSED when it closed meanwhile, ...)
   */
  public CompleteAssignmentResponse complete(String assignmentId, ReviewEnvelope review) {
    return complete(CompleteAssignmentRequest.newBuilder().setAssignmentId(assignmentId).setReview(review));
  }

  private CompleteAssignmentResponse complete(CompleteAssignmentRequest.Builder request) {
    return call(() -> workflows.completeAssignment(request.build()));
  }

  static com.google.protobuf.Duration duration(Duration value) {
    return com.google.protobuf.Duration.newBuilder()
        .setSeconds(value.getSeconds())
        .setNanos(value.getNano())
        .build();
  }

  private void ensureOpen() {
    if (closed) {
      throw HubException.local(Status.Code.CANCELLED, "the client is closed", null);
    }
  }

  void forget(AutoCloseable resource) {
    open.remove(resource);
  }

  boolean isClosed() {
    return closed;
  }

  /**
   * Closes the open subscriptions and assignment iterators, then the channel (calls still running
   * get a second to end, then are cancelled). Calling it again does nothing.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (AutoCloseable resource : List.copyOf(open)) {
      try {
        resource.close();
      } catch (Exception e) {
        // Closing is best effort; the channel's shutdown below ends what is left.
      }
    }
    managed.shutdown();
    try {
      if (!managed.awaitTermination(1, TimeUnit.SECONDS)) {
        managed.shutdownNow();
        managed.awaitTermination(1, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      managed.shutdownNow();
      Thread.currentThread().interrupt();
    } finally {
      scheduler.shutdownNow();
    }
  }
}
