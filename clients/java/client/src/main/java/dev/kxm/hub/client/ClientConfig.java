package dev.kxm.hub.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;

/**
 * The settings a {@link HubClient} connects with: what the {@link HubClient.Builder} was given,
 * completed from the {@code KXM_*} environment variables and then from one credentials file, in
 * the order the Python client's {@code resolve} uses.
 *
 * <ul>
 *   <li>address: the option, else {@code KXM_ADDR}, else the credentials file's {@code address},
 *       else {@value #DEFAULT_ADDRESS} (one address: a comma-separated list is refused);
 *   <li>token: the option, else {@code KXM_TOKEN} ({@code KXM_ADMIN_TOKEN} for an admin client),
 *       else the file's {@code projects[<project or "default">]} ({@code admin_token} for an admin
 *       client); none found is not an error here: the hub answers UNAUTHENTICATED;
 *   <li>project: the option, else {@code KXM_PROJECT}; agent id and key: the options, else
 *       {@code KXM_AGENT_ID} and {@code KXM_AGENT_KEY};
 *   <li>TLS: the options, else {@code KXM_TLS_CA} (enables TLS trusting that CA's PEM file),
 *       {@code KXM_TLS_CERT} and {@code KXM_TLS_KEY} (a client certificate, for mTLS);
 *   <li>tool-policy tokens: the options, else {@code KXM_ATTEMPT_TOKEN}, {@code KXM_SESSION_TOKEN}.
 * </ul>
 *
 * <p>At most one credentials file is read: {@code $KXM_CREDENTIALS} if set; else
 * {@code $KXM_DATA_DIR/credentials.json} if {@code KXM_DATA_DIR} is set; else
 * {@code ./.kxm/credentials.json} if it or {@code ./.kxm/agents} exists (the local state of a hub
 * started in this folder); else the per-user profile {@code
 * ${XDG_CONFIG_HOME:-$HOME/.config}/kxm/credentials.json} if it exists and either no address was
 * given (option or {@code KXM_ADDR}) or the profile's {@code address} (default {@value
 * #DEFAULT_ADDRESS}) is the one given. A file that cannot be read or is not a JSON object counts as
 * absent.
 *
 * <p>Instances are immutable; {@link #toString()} leaves the secrets out.
 */
public final class ClientConfig {
  /** The address dialled when neither an option, {@code KXM_ADDR} nor a credentials file names one. */
  public static final String DEFAULT_ADDRESS = "127.0.0.1:7331";

  /** The deadline of a unary call that sets none of its own, unless the builder sets another. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(15);

  private final String address;
  private final String token;
  private final String tokenSource;
  private final boolean admin;
  private final String project;
  private final String agentId;
  private final String agentKey;
  private final String attemptToken;
  private final String sessionToken;
  private final Path credentialsFile;
  private final Path tlsCa;
  private final Path tlsCertificate;
  private final Path tlsKey;
  private final Duration timeout;

  private ClientConfig(
      String address,
      String token,
      String tokenSource,
      boolean admin,
      String project,
      String agentId,
      String agentKey,
      String attemptToken,
      String sessionToken,
      Path credentialsFile,
      Path tlsCa,
      Path tlsCertificate,
      Path tlsKey,
      Duration timeout) {
    this.address = address;
    this.token = token;
    this.tokenSource = tokenSource;
    this.admin = admin;
    this.project = project;
    this.agentId = agentId;
    this.agentKey = agentKey;
    this.attemptToken = attemptToken;
    this.sessionToken = sessionToken;
    this.credentialsFile = credentialsFile;
    this.tlsCa = tlsCa;
    this.tlsCertificate = tlsCertificate;
    this.tlsKey = tlsKey;
    this.timeout = timeout;
  }

  /**
   * Resolves the builder's options against the process environment and the credentials file.
   *
   * @param options what the caller gave (null fields: not given)
   * @return the resolved settings
   * @throws IllegalArgumentException the address names several hubs, a client certificate comes
   *     without its key (or the reverse), or the timeout is not positive
   */
  static ClientConfig resolve(HubClient.Builder options) {
    return resolve(options, System.getenv());
  }

  /** {@link #resolve(HubClient.Builder)} with {@code env} as the environment. */
  static ClientConfig resolve(HubClient.Builder options, Map<String, String> env) {
    Path found = credentialsFile(options.address, env);
    Map<String, Object> saved = read(found);

    String project = firstOf(options.project, env.get("KXM_PROJECT"));
    String variable = options.admin ? "KXM_ADMIN_TOKEN" : "KXM_TOKEN";
    String token = options.token;
    String tokenSource = token != null ? "the token option" : null;
    if (token == null && given(env.get(variable))) {
      token = env.get(variable);
      tokenSource = variable;
    }
    if (token == null && found != null) {
      if (options.admin) {
        token = text(saved.get("admin_token"));
      } else if (saved.get("projects") instanceof Map) {
        Map<?, ?> tokens = (Map<?, ?>) saved.get("projects");
        token = text(tokens.get(project != null ? project : "default"));
      }
      tokenSource = token != null ? found.toAbsolutePath().toString() : null;
    }

    String address;
    if (given(options.address)) {
      address = options.address.trim();
    } else if (given(env.get("KXM_ADDR"))) {
      address = env.get("KXM_ADDR").trim();
    } else if (given(text(saved.get("address")))) {
      address = text(saved.get("address")).trim();
    } else {
      address = DEFAULT_ADDRESS;
    }
    if (address.contains(",")) {
      throw new IllegalArgumentException(
          "several hub addresses (" + address + ") are not supported by the Java client: give one");
    }

    Path tlsCa = options.tlsCa != null ? options.tlsCa : path(env.get("KXM_TLS_CA"));
    Path cert = options.tlsCertificate != null ? options.tlsCertificate : path(env.get("KXM_TLS_CERT"));
    Path key = options.tlsKey != null ? options.tlsKey : path(env.get("KXM_TLS_KEY"));
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException(
          "a client certificate and its key go together (KXM_TLS_CERT and KXM_TLS_KEY)");
    }
    Duration timeout = options.timeout != null ? options.timeout : DEFAULT_TIMEOUT;
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("the timeout must be positive, not " + timeout);
    }
    return new ClientConfig(
        address,
        token,
        tokenSource,
        options.admin,
        project,
        firstOf(options.agentId, env.get("KXM_AGENT_ID")),
        firstOf(options.agentKey, env.get("KXM_AGENT_KEY")),
        firstOf(options.attemptToken, env.get("KXM_ATTEMPT_TOKEN")),
        firstOf(options.sessionToken, env.get("KXM_SESSION_TOKEN")),
        found,
        tlsCa,
        cert,
        key,
        timeout);
  }

  /**
   * The one credentials file a client reads (see the class comment), or null when none applies or
   * the one that applies does not exist.
   */
  static Path credentialsFile(String addressOption, Map<String, String> env) {
    Path local;
    if (given(env.get("KXM_CREDENTIALS"))) {
      local = Path.of(env.get("KXM_CREDENTIALS"));
    } else {
      Path dataDir = Path.of(given(env.get("KXM_DATA_DIR")) ? env.get("KXM_DATA_DIR") : ".kxm");
      local = dataDir.resolve("credentials.json");
    }
    boolean localState =
        given(env.get("KXM_CREDENTIALS"))
            || given(env.get("KXM_DATA_DIR"))
            || Files.exists(Path.of(".kxm", "credentials.json"))
            || Files.exists(Path.of(".kxm", "agents"));
    if (localState) {
      return Files.isRegularFile(local) ? local : null;
    }
    Path profile = userCredentialsFile(env);
    if (!Files.isRegularFile(profile)) {
      return null; // and ./.kxm/credentials.json does not exist either (it would be local state)
    }
    String wanted = given(addressOption) ? addressOption : env.get("KXM_ADDR");
    if (given(wanted)) {
      String theirs = text(read(profile).get("address"));
      theirs = given(theirs) ? theirs.trim() : DEFAULT_ADDRESS;
      if (!theirs.equals(wanted.trim())) {
        return null; // the profile belongs to another hub
      }
    }
    return profile;
  }

  /** The per-user profile's credentials file: {@code ${XDG_CONFIG_HOME:-$HOME/.config}/kxm/credentials.json}. */
  static Path userCredentialsFile(Map<String, String> env) {
    Path base;
    if (given(env.get("XDG_CONFIG_HOME"))) {
      base = Path.of(env.get("XDG_CONFIG_HOME"));
    } else {
      String home = given(env.get("HOME")) ? env.get("HOME") : System.getProperty("user.home");
      base = Path.of(home, ".config");
    }
    return base.resolve("kxm").resolve("credentials.json");
  }

  /** The JSON object in {@code file}; empty when null, missing, unreadable or not an object. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> read(Path file) {
    if (file == null) {
      return Collections.emptyMap();
    }
    try {
      Object value = JsonReader.parse(Files.readString(file, StandardCharsets.UTF_8));
      return value instanceof Map ? (Map<String, Object>) value : Collections.emptyMap();
    } catch (IOException | IllegalArgumentException | SecurityException e) {
      return Collections.emptyMap();
    }
  }

  private static boolean given(String value) {
    return value != null && !value.isEmpty();
  }

  private static String firstOf(String option, String variable) {
    if (given(option)) {
      return option;
    }
    return given(variable) ? variable : null;
  }

  private static String text(Object value) {
    return value instanceof String ? (String) value : null;
  }

  private static Path path(String value) {
    return given(value) ? Path.of(value) : null;
  }

  /**
   * The hub's address, as the gRPC channel target ({@code host:port}, or any target gRPC takes).
   *
   * @return the address dialled
   */
  public String address() {
    return address;
  }

  /**
   * The bearer token every call presents: a project token, or the admin token of an admin client.
   *
   * @return the token, or null when none was found (the hub then answers UNAUTHENTICATED)
   */
  public String token() {
    return token;
  }

  /**
   * Where {@link #token()} came from: {@code "the token option"}, a variable's name, or the
   * credentials file's absolute path.
   *
   * @return the source, or null when no token was found
   */
  public String tokenSource() {
    return tokenSource;
  }

  /**
   * Whether this client looked for the admin token ({@code KXM_ADMIN_TOKEN}, {@code admin_token}).
   *
   * @return true for an admin client
   */
  public boolean admin() {
    return admin;
  }

  /**
   * The project sent as {@code x-kxm-project}, and whose token the credentials file gives.
   *
   * @return the project, or null (the token's own project; {@code "default"} in the file)
   */
  public String project() {
    return project;
  }

  /**
   * The agent the client starts out acting as ({@link HubClient#register} replaces it).
   *
   * @return the agent id, or null
   */
  public String agentId() {
    return agentId;
  }

  /**
   * The key of {@link #agentId()}.
   *
   * @return the agent key, or null
   */
  public String agentKey() {
    return agentKey;
  }

  /**
   * The workflow attempt token sent as {@code x-kxm-attempt-token}.
   *
   * @return the token, or null
   */
  public String attemptToken() {
    return attemptToken;
  }

  /**
   * The session token sent as {@code x-kxm-session-token}.
   *
   * @return the token, or null
   */
  public String sessionToken() {
    return sessionToken;
  }

  /**
   * The credentials file that was read (see the class comment).
   *
   * @return its path, or null when none applied or existed
   */
  public Path credentialsFile() {
    return credentialsFile;
  }

  /**
   * The PEM file of the CA the hub's certificate is checked against.
   *
   * @return the file, or null
   */
  public Path tlsCa() {
    return tlsCa;
  }

  /**
   * The PEM client certificate presented to a hub that requires one (mTLS).
   *
   * @return the file, or null
   */
  public Path tlsCertificate() {
    return tlsCertificate;
  }

  /**
   * The PEM private key of {@link #tlsCertificate()}.
   *
   * @return the file, or null
   */
  public Path tlsKey() {
    return tlsKey;
  }

  /**
   * Whether the channel uses TLS: a CA or a client certificate was given (without a CA the
   * system's trusted roots check the hub).
   *
   * @return true for TLS, false for plaintext
   */
  public boolean tls() {
    return tlsCa != null || tlsCertificate != null;
  }

  /**
   * The deadline of every unary call that sets none of its own.
   *
   * @return the default timeout ({@link #DEFAULT_TIMEOUT} unless the builder set another)
   */
  public Duration timeout() {
    return timeout;
  }

  /** The settings without the secrets (tokens and the agent key show as set or not). */
  @Override
  public String toString() {
    return "ClientConfig{address="
        + address
        + ", token="
        + (token == null ? "none" : "set (" + tokenSource + ")")
        + ", admin="
        + admin
        + ", project="
        + project
        + ", agentId="
        + agentId
        + ", agentKey="
        + (agentKey == null ? "none" : "set")
        + ", tls="
        + tls()
        + ", timeout="
        + timeout
        + ", credentialsFile="
        + credentialsFile
        + "}";
  }
}
