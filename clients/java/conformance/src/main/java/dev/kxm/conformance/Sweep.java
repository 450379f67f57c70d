package dev.kxm.conformance;

import com.google.protobuf.Any;
import com.google.protobuf.DiscardUnknownFieldsParser;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import dev.kxm.v1.AdminServiceGrpc;
import dev.kxm.v1.AgentServiceGrpc;
import dev.kxm.v1.ContextServiceGrpc;
import dev.kxm.v1.LeaseServiceGrpc;
import dev.kxm.v1.MessageServiceGrpc;
import dev.kxm.v1.OpsServiceGrpc;
import dev.kxm.v1.RuntimeServiceGrpc;
import dev.kxm.v1.WorkflowServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The contract sweep (docs/clients.md, "The contract sweep: every RPC in every language"): runs the
 * calls of the JSON file named by KXM_SWEEP through the generated method descriptors and records
 * each call's outcome as {"name", "code", "reason", "domain", "violations", "responses"}.
 *
 * <p>A method is found by its full name ({@code kxm.v1.AgentService/ListAgents}) among the methods
 * of the generated service descriptors, so a new RPC of a service is covered without a change
 * here; a name no descriptor has is recorded as {@value #NOT_IN_CLIENT}. Requests are decoded and
 * responses encoded again by the generated types, through their parsers wrapped by {@link
 * DiscardUnknownFieldsParser} (recursively): protobuf-java keeps unknown fields and writes them
 * back, so without it a stale generated type would pass the server's bytes through unchanged and a
 * field the type does not know could not be seen missing. Only the fields the type knows are sent
 * and recorded.
 */
final class Sweep {
  static final String NOT_IN_CLIENT = "UNIMPLEMENTED_IN_CLIENT";

  /** How much longer than a call's deadline the program waits for gRPC to end the call itself. */
  private static final long GRACE_MS = 5_000;

  /** Every service of kxm.v1 (proto/kxm/v1/*_service.proto). */
  private static final List<ServiceDescriptor> SERVICES =
      List.of(
          AdminServiceGrpc.getServiceDescriptor(),
          AgentServiceGrpc.getServiceDescriptor(),
          ContextServiceGrpc.getServiceDescriptor(),
          LeaseServiceGrpc.getServiceDescriptor(),
          MessageServiceGrpc.getServiceDescriptor(),
          OpsServiceGrpc.getServiceDescriptor(),
          RuntimeServiceGrpc.getServiceDescriptor(),
          WorkflowServiceGrpc.getServiceDescriptor());

  /** The end of a stream that completed with status OK (a queue item). */
  private static final Object END = new Object();

  private final Channel channel;
  private final Map<String, MethodDescriptor<?, ?>> methods = new HashMap<>();

  Sweep(Channel channel) {
    this.channel = channel;
    for (ServiceDescriptor service : SERVICES) {
      for (MethodDescriptor<?, ?> method : service.getMethods()) {
        methods.put(method.getFullMethodName(), method);
      }
    }
  }

  /** Every call of the sweep file, in order; a failed call is recorded, never thrown. */
  List<Map<String, Object>> run(Path file) throws IOException {
    Map<?, ?> sweep = (Map<?, ?>) Json.parse(Files.readString(file));
    List<Map<String, Object>> recorded = new ArrayList<>();
    for (Object call : (List<?>) sweep.get("calls")) {
      recorded.add(call((Map<?, ?>) call));
    }
    return recorded;
  }

  /** What a call gave: the responses received, encoded in base64, and its error (null: OK). */
  private record Outcome(List<String> responses, Throwable error) {}

  private Map<String, Object> call(Map<?, ?> call) {
    String name = String.valueOf(call.get("name"));
    MethodDescriptor<?, ?> method = methods.get(String.valueOf(call.get("method")));
    if (method == null) {
      return record(name, NOT_IN_CLIENT, new Outcome(List.of(), null));
    }
    Outcome outcome;
    try {
      outcome = invoke(method, call);
    } catch (RuntimeException e) {
      // A request that does not decode, a malformed entry: recorded as the call's error.
      outcome = new Outcome(List.of(), e);
    }
    String code = outcome.error() == null ? "OK" : Status.fromThrowable(outcome.error()).getCode().name();
    return record(name, code, outcome);
  }

  private <ReqT, RespT> Outcome invoke(MethodDescriptor<ReqT, RespT> method, Map<?, ?> call) {
    Parser<ReqT> requestParser = knownFields(method.getRequestMarshaller());
    Parser<RespT> responseParser = knownFields(method.getResponseMarshaller());
    List<ReqT> requests = new ArrayList<>();
    for (Object encoded : (List<?>) call.get("requests")) {
      byte[] bytes = Base64.getDecoder().decode((String) encoded);
      try {
        requests.add(requestParser.parseFrom(bytes));
      } catch (InvalidProtocolBufferException e) {
        // As the method's marshaller reports bytes that do not decode.
        throw Status.INTERNAL.withDescription("Invalid protobuf byte sequence").withCause(e).asRuntimeException();
      }
    }
    long timeoutMs = ((Number) call.get("timeout_ms")).longValue();
    int wanted = ((Number) call.get("responses")).intValue();
    Channel withMetadata =
        ClientInterceptors.intercept(
            channel, MetadataUtils.newAttachHeadersInterceptor(metadata((List<?>) call.get("metadata"))));
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS);
    String kind = String.valueOf(call.get("kind"));
    return switch (kind) {
      case "unary" -> unary(withMetadata, method, responseParser, options, requests.get(0));
      case "server_stream", "bidi_stream" ->
          stream(withMetadata, method, responseParser, options, kind, requests, wanted, timeoutMs);
      default -> throw new IllegalArgumentException("unknown call kind " + kind);
    };
  }

  private static <ReqT, RespT> Outcome unary(
      Channel channel,
      MethodDescriptor<ReqT, RespT> method,
      Parser<RespT> responseParser,
      CallOptions options,
      ReqT request) {
    try {
      RespT response = ClientCalls.blockingUnaryCall(channel, method, options, request);
      return new Outcome(List.of(encode(method, responseParser, response)), null);
    } catch (RuntimeException e) {
      return new Outcome(List.of(), e);
    }
  }

  /**
   * A server stream (one request) or a bidirectional one (every request in order, the sending side
   * left open): reads {@code wanted} responses, or the stream's end if it comes first, then cancels.
   */
  private static <ReqT, RespT> Outcome stream(
      Channel channel,
      MethodDescriptor<ReqT, RespT> method,
      Parser<RespT> responseParser,
      CallOptions options,
      String kind,
      List<ReqT> requests,
      int wanted,
      long timeoutMs) {
    ClientCall<ReqT, RespT> call = channel.newCall(method, options);
    LinkedBlockingQueue<Object> items = new LinkedBlockingQueue<>();
    StreamObserver<RespT> observer =
        new StreamObserver<>() {
          @Override
          public void onNext(RespT response) {
            items.add(response);
          }

          @Override
          public void onError(Throwable t) {
            items.add(t);
          }

          @Override
          public void onCompleted() {
            items.add(END);
          }
        };
    if (kind.equals("server_stream")) {
      ClientCalls.asyncServerStreamingCall(call, requests.get(0), observer);
    } else {
      StreamObserver<ReqT> sending = ClientCalls.asyncBidiStreamingCall(call, observer);
      requests.forEach(sending::onNext);
    }
    List<String> responses = new ArrayList<>();
    Throwable error = null;
    try {
      // The call's deadline ends a stream that gives too little; the grace only guards against a
      // call that never ends.
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs + GRACE_MS);
      while (responses.size() < wanted) {
        Object item = items.poll(until - System.nanoTime(), TimeUnit.NANOSECONDS);
        if (item == null) {
          error = Status.DEADLINE_EXCEEDED.withDescription("the call did not end").asRuntimeException();
          break;
        }
        if (item == END) {
          break; // ended OK with fewer responses
        }
        if (item instanceof Throwable t) {
          error = t;
          break;
        }
        @SuppressWarnings("unchecked")
        RespT response = (RespT) item;
        responses.add(encode(method, responseParser, response));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      error = Status.CANCELLED.withCause(e).asRuntimeException();
    } finally {
      call.cancel("the sweep read what it needed", null);
    }
    return new Outcome(responses, error);
  }

  /**
   * The parser of a marshaller's generated type, wrapped to drop (recursively) the fields the type
   * does not know.
   */
  @SuppressWarnings("unchecked")
  private static <T> Parser<T> knownFields(MethodDescriptor.Marshaller<T> marshaller) {
    if (marshaller instanceof MethodDescriptor.PrototypeMarshaller<T> typed
        && typed.getMessagePrototype() instanceof Message prototype) {
      return (Parser<T>) DiscardUnknownFieldsParser.wrap(prototype.getParserForType());
    }
    throw new IllegalStateException("not a generated message's marshaller: " + marshaller);
  }

  /**
   * A response encoded again to binary by its generated type, in base64: its bytes decoded by the
   * type's parser that drops unknown fields, then encoded, so only the fields the type knows remain.
   */
  private static <RespT> String encode(
      MethodDescriptor<?, RespT> method, Parser<RespT> known, RespT response) {
    try {
      RespT kept = known.parseFrom(bytes(method.streamResponse(response)));
      return Base64.getEncoder().encodeToString(bytes(method.streamResponse(kept)));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("a response did not decode again", e);
    }
  }

  private static byte[] bytes(InputStream stream) {
    try (InputStream in = stream) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The call's metadata, exactly the pairs given ("-bin" keys carry base64 of their bytes). */
  private static Metadata metadata(List<?> pairs) {
    Metadata md = new Metadata();
    for (Object pair : pairs) {
      List<?> kv = (List<?>) pair;
      String key = (String) kv.get(0);
      String value = (String) kv.get(1);
      if (key.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
        md.put(Metadata.Key.of(key, Metadata.BINARY_BYTE_MARSHALLER), Base64.getDecoder().decode(value));
      } else {
        md.put(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER), value);
      }
    }
    return md;
  }

  /** One call's record: its code, and the ErrorInfo and BadRequest of its status details. */
  private static Map<String, Object> record(String name, String code, Outcome outcome) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("name", name);
    r.put("code", code);
    r.put("reason", "");
    r.put("domain", "");
    List<String> violations = new ArrayList<>();
    com.google.rpc.Status status =
        outcome.error() == null ? null : StatusProto.fromThrowable(outcome.error());
    if (status != null) {
      for (Any detail : status.getDetailsList()) {
        try {
          if (detail.is(ErrorInfo.class)) {
            ErrorInfo info = detail.unpack(ErrorInfo.class);
            r.put("reason", info.getReason());
            r.put("domain", info.getDomain());
          } else if (detail.is(BadRequest.class)) {
            for (BadRequest.FieldViolation v : detail.unpack(BadRequest.class).getFieldViolationsList()) {
              violations.add(v.getField());
            }
          }
        } catch (InvalidProtocolBufferException ignored) {
          // A malformed detail is reported as a missing one.
        }
      }
    }
    r.put("violations", violations);
    r.put("responses", outcome.responses());
    return r;
  }
}
