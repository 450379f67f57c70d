package dev.kxm.hub.client;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A failed call, decoded: the gRPC status code, and the {@code google.rpc.ErrorInfo},
 * {@code google.rpc.BadRequest} and {@code google.rpc.RetryInfo} details the hub puts in the
 * {@code grpc-status-details-bin} trailer (docs/errors.md).
 *
 * <p>Every method of {@link HubClient}, {@link Subscription} and {@link Assignments} throws it; a
 * call made on a generated stub (from {@link HubClient#messages()} and the others) throws grpc's
 * {@link StatusRuntimeException}, which {@link HubClient#call} or {@link #from(Throwable)} turn
 * into one. Branch on {@link #reason()} (stable, an {@code ErrorReason} name), not on the message.
 *
 * <pre>{@code
 * try {
 *   hub.getMessage(id);
 * } catch (HubException e) {
 *   if (e.reason().equals(ErrorReason.ERROR_REASON_MESSAGE_NOT_FOUND.name())) { ... }
 * }
 * }</pre>
 */
public final class HubException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * One invalid request field of a {@code google.rpc.BadRequest}.
   *
   * @param field the field's path ({@code name}, {@code targets[2]})
   * @param description what is wrong with it
   */
  public record FieldViolation(String field, String description) {}

  /** The gRPC status code. */
  private final Status.Code code;
  /** ErrorInfo's reason, or empty. */
  private final String reason;
  /** ErrorInfo's domain, or empty. */
  private final String domain;
  /** ErrorInfo's metadata. */
  private final Map<String, String> metadata;
  /** BadRequest's field violations. */
  private final List<FieldViolation> fieldViolations;
  /** RetryInfo's delay, or null. */
  private final Duration retryDelay;

  HubException(
      Status.Code code,
      String message,
      String reason,
      String domain,
      Map<String, String> metadata,
      List<FieldViolation> fieldViolations,
      Duration retryDelay,
      Throwable cause) {
    super(message, cause);
    this.code = code;
    this.reason = reason;
    this.domain = domain;
    this.metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    this.fieldViolations = List.copyOf(fieldViolations);
    this.retryDelay = retryDelay;
  }

  /** A failure of this library's own (no call was answered), with only a code and a message. */
  static HubException local(Status.Code code, String message, Throwable cause) {
    return new HubException(code, message, "", "", Map.of(), List.of(), null, cause);
  }

  /**
   * Decodes a failed call: the first {@link StatusRuntimeException} or {@link StatusException} in
   * {@code error}'s cause chain (its status and trailers). A {@code HubException} is returned as
   * it is; anything else becomes code UNKNOWN with {@code error}'s text as the message.
   *
   * @param error what a call threw
   * @return the decoded error, with {@code error} as its cause
   */
  public static HubException from(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof HubException) {
        return (HubException) t;
      }
      if (t instanceof StatusRuntimeException) {
        StatusRuntimeException e = (StatusRuntimeException) t;
        return decode(e.getStatus(), e.getTrailers(), error);
      }
      if (t instanceof StatusException) {
        StatusException e = (StatusException) t;
        return decode(e.getStatus(), e.getTrailers(), error);
      }
    }
    return local(Status.Code.UNKNOWN, String.valueOf(error), error);
  }

  private static HubException decode(Status status, Metadata trailers, Throwable cause) {
    String message = status.getDescription();
    if (message == null || message.isEmpty()) {
      message = status.getCode().name();
    }
    if (status.getCause() != null && status.getCause().getMessage() != null) {
      // A failure on this side (no connection): grpc's text is generic ("io exception").
      message += " (" + status.getCause().getMessage() + ")";
    }
    String reason = "";
    String domain = "";
    Map<String, String> metadata = new LinkedHashMap<>();
    List<FieldViolation> violations = new ArrayList<>();
    Duration retryDelay = null;
    com.google.rpc.Status details =
        trailers == null ? null : StatusProto.fromStatusAndTrailers(status, trailers);
    if (details != null) {
      for (Any detail : details.getDetailsList()) {
        try {
          if (detail.is(ErrorInfo.class)) {
            ErrorInfo info = detail.unpack(ErrorInfo.class);
            reason = info.getReason();
            domain = info.getDomain();
            metadata.putAll(info.getMetadataMap());
          } else if (detail.is(BadRequest.class)) {
            for (BadRequest.FieldViolation v : detail.unpack(BadRequest.class).getFieldViolationsList()) {
              violations.add(new FieldViolation(v.getField(), v.getDescription()));
            }
          } else if (detail.is(RetryInfo.class)) {
            com.google.protobuf.Duration delay = detail.unpack(RetryInfo.class).getRetryDelay();
            retryDelay = Duration.ofSeconds(delay.getSeconds(), delay.getNanos());
          }
        } catch (InvalidProtocolBufferException e) {
          // A detail that does not decode is left out; the status itself still stands.
        }
      }
    }
    return new HubException(
        status.getCode(), message, reason, domain, metadata, violations, retryDelay, cause);
  }

  /**
   * The gRPC status code.
   *
   * @return the code ({@code Status.Code.NOT_FOUND})
   */
  public Status.Code code() {
    return code;
  }

  /**
   * The status code's name.
   *
   * @return the name ({@code "NOT_FOUND"})
   */
  public String codeName() {
    return code.name();
  }

  /**
   * The stable cause: {@code ErrorInfo.reason}, an {@code ErrorReason} name such as
   * {@code ERROR_REASON_MESSAGE_NOT_FOUND} (a newer hub may send one this build does not know).
   *
   * @return the reason, or {@code ""} when the status carries no ErrorInfo (a transport failure,
   *     a deadline passed on the client)
   */
  public String reason() {
    return reason;
  }

  /**
   * {@code ErrorInfo.domain}.
   *
   * @return the domain ({@code "kxm.dev"} for the hub's errors), or {@code ""} without ErrorInfo
   */
  public String domain() {
    return domain;
  }

  /**
   * {@code ErrorInfo.metadata}: every dynamic part of the message, as strings.
   *
   * @return an unmodifiable map, empty without ErrorInfo
   */
  public Map<String, String> metadata() {
    return metadata;
  }

  /**
   * The invalid request fields of a {@code google.rpc.BadRequest} (INVALID_ARGUMENT).
   *
   * @return an unmodifiable list, empty when the status carries none
   */
  public List<FieldViolation> fieldViolations() {
    return fieldViolations;
  }

  /**
   * {@code RetryInfo.retry_delay}: how long to wait before trying again (RESOURCE_EXHAUSTED,
   * UNAVAILABLE).
   *
   * @return the delay, or empty when the status carries no RetryInfo
   */
  public Optional<Duration> retryDelay() {
    return Optional.ofNullable(retryDelay);
  }

  /** The code, the reason when there is one, and the message: {@code NOT_FOUND ERROR_REASON_MESSAGE_NOT_FOUND: ...}. */
  @Override
  public String toString() {
    return code.name() + (reason.isEmpty() ? "" : " " + reason) + ": " + getMessage();
  }
}
