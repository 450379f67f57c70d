package hub

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	kxmv1 "kxm.dev/hub/clients/go/gen/kxm/v1"
)

// Error is a failed call, decoded from its gRPC status and the google.rpc.Status details the hub
// sends in the grpc-status-details-bin trailer. Every call made through a Client (the helpers, the
// service accessors and their streams) fails with an *Error; take it with errors.As:
//
//	var e *hub.Error
//	if errors.As(err, &e) && e.HasReason(kxmv1.ErrorReason_ERROR_REASON_TARGET_NOT_FOUND) { ... }
//
// Branch on Reason, not on Message. Failures of the transport (the hub unreachable: UNAVAILABLE, a
// deadline passed: DEADLINE_EXCEEDED) are *Error values too, with an empty Reason.
type Error struct {
	// Code is the gRPC status code; CodeName gives its canonical name (NOT_FOUND).
	Code codes.Code
	// Reason is google.rpc.ErrorInfo's reason, a kxm.v1.ErrorReason name such as
	// ERROR_REASON_MESSAGE_NOT_FOUND, or "" when the status carries no ErrorInfo.
	Reason string
	// Domain is ErrorInfo's domain ("kxm.dev"), or "".
	Domain string
	// Message is the status message (for people; it may change between hub versions).
	Message string
	// Metadata is ErrorInfo's metadata: every dynamic part of the message, as strings (never nil).
	Metadata map[string]string
	// Violations are google.rpc.BadRequest's field violations, in order (INVALID_ARGUMENT).
	Violations []FieldViolation
	// RetryDelay is google.rpc.RetryInfo's delay when the hub sent one (HasRetryDelay), else 0.
	RetryDelay time.Duration
	// HasRetryDelay is whether the status carried a RetryInfo.
	HasRetryDelay bool
	// Hint is the client's own note, or "": for CREDENTIAL_MISSING while it has no token, every place
	// it looked for one.
	Hint string

	status *status.Status
}

// FieldViolation is one google.rpc.BadRequest.FieldViolation: the request field (a path such as
// "name" or "items[0].key") and what is wrong with it.
type FieldViolation struct {
	Field       string
	Description string
}

// codeNames are the canonical gRPC status code names, indexed by code number.
var codeNames = [...]string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
	"OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
}

// CodeName is the canonical name of a gRPC status code: "NOT_FOUND", "UNAVAILABLE", ... ("CODE_<n>"
// for a number outside the standard 17).
func CodeName(code codes.Code) string {
	if int(code) < len(codeNames) {
		return codeNames[code]
	}
	return fmt.Sprintf("CODE_%d", uint32(code))
}

// CodeName is the canonical name of the error's status code ("NOT_FOUND").
func (e *Error) CodeName() string { return CodeName(e.Code) }

// HasReason reports whether the error's ErrorInfo reason is r.
func (e *Error) HasReason(r kxmv1.ErrorReason) bool { return e.Reason == r.String() }

// Error is "NOT_FOUND ERROR_REASON_MESSAGE_NOT_FOUND: <message>" (without the reason when there is
// none), followed by the hint if any.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.CodeName())
	if e.Reason != "" {
		b.WriteString(" " + e.Reason)
	}
	b.WriteString(": " + e.Message)
	if e.Hint != "" {
		b.WriteString(" (hint: " + e.Hint + ")")
	}
	return b.String()
}

// GRPCStatus is the status the error was decoded from, so status.FromError and status.Code keep
// working on it.
func (e *Error) GRPCStatus() *status.Status { return e.status }

// FromError decodes any error into an *Error: nil stays nil, an *Error (or an error wrapping one) is
// returned as is, a gRPC status error is decoded with its details, a context error becomes
// CANCELLED or DEADLINE_EXCEEDED, and anything else UNKNOWN with the error's text as Message.
func FromError(err error) *Error {
	if err == nil {
		return nil
	}
	var decoded *Error
	if errors.As(err, &decoded) {
		return decoded
	}
	st, ok := status.FromError(err)
	if !ok {
		st = status.FromContextError(err)
	}
	e := &Error{Code: st.Code(), Message: st.Message(), Metadata: map[string]string{}, status: st}
	for _, detail := range st.Details() {
		switch d := detail.(type) {
		case *errdetails.ErrorInfo:
			e.Reason, e.Domain = d.GetReason(), d.GetDomain()
			for k, v := range d.GetMetadata() {
				e.Metadata[k] = v
			}
		case *errdetails.BadRequest:
			for _, v := range d.GetFieldViolations() {
				e.Violations = append(e.Violations, FieldViolation{Field: v.GetField(), Description: v.GetDescription()})
			}
		case *errdetails.RetryInfo:
			e.RetryDelay, e.HasRetryDelay = d.GetRetryDelay().AsDuration(), true
		}
	}
	return e
}
