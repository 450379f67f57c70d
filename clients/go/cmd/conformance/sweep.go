package main

// The contract sweep (docs/clients.md, "The contract sweep: every RPC in every language"): every
// call of the JSON file KXM_SWEEP, run through the generated code. The method is found by its full
// name in the generated descriptors (protoregistry.GlobalFiles, filled by importing the generated
// package), so a new RPC is covered without a change here; requests and responses are the
// generated Go types (protoregistry.GlobalTypes).

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Codes of calls the program could not make; every other code is a gRPC status code's name.
const (
	unimplementedInClient  = "UNIMPLEMENTED_IN_CLIENT"   // no such method in the generated code
	invalidRequestInClient = "INVALID_REQUEST_IN_CLIENT" // a request the generated type cannot read
)

// Requests and responses both drop the fields the generated types do not know (Go keeps them by
// default): the program sends, and reports, what its own types carry, so a stale or lossy generated
// type shows in the transcript instead of passing the bytes through unchanged.
var decode = proto.UnmarshalOptions{DiscardUnknown: true}

// sweepCall is one call of the sweep file.
type sweepCall struct {
	Name      string     `json:"name"`
	Method    string     `json:"method"` // "kxm.v1.AgentService/ListAgents"
	Kind      string     `json:"kind"`   // unary, server_stream or bidi_stream
	Metadata  [][]string `json:"metadata"`
	Requests  []string   `json:"requests"`  // base64 of the binary requests
	Responses *int       `json:"responses"` // how many responses a stream is read for (1 when absent)
	TimeoutMS int        `json:"timeout_ms"`
}

// 13. every call of the contract sweep, in order, never stopping at a failed one
func (s *scenario) sweep() error {
	raw, err := os.ReadFile(s.cfg.sweepFile)
	if err != nil {
		return &stepFailed{"cannot read KXM_SWEEP: " + err.Error(), facts{"error": "sweep_file"}}
	}
	var file struct {
		Calls []sweepCall `json:"calls"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		return &stepFailed{"cannot parse KXM_SWEEP: " + err.Error(), facts{"error": "sweep_file"}}
	}
	calls := []facts{}
	for _, call := range file.Calls {
		calls = append(calls, s.sweepOne(call))
	}
	s.add("sweep", facts{"calls": calls})
	return nil
}

// sweepOne makes one call and records its outcome.
func (s *scenario) sweepOne(call sweepCall) facts {
	record := facts{"name": call.Name, "code": "", "reason": "", "domain": "", "violations": []string{}, "responses": []string{}}
	method, ok := findMethod(call.Method)
	if !ok || !hasGeneratedTypes(method) {
		record["code"] = unimplementedInClient
		return record
	}
	requests, err := decodeRequests(method, call.Requests)
	if err != nil {
		record["code"] = invalidRequestInClient
		return record
	}
	md := metadata.MD{}
	for _, pair := range call.Metadata {
		if len(pair) == 2 {
			md.Append(pair[0], pair[1])
		}
	}
	ctx, cancel := context.WithTimeout(metadata.NewOutgoingContext(context.Background(), md),
		time.Duration(call.TimeoutMS)*time.Millisecond)
	defer cancel() // also what ends a stream once it gave its responses
	want := 1
	if call.Responses != nil {
		want = *call.Responses
	}
	responses, err := s.invoke(ctx, method, requests, want)
	encoded := []string{}
	for _, resp := range responses {
		b, merr := knownFields(resp)
		if merr != nil {
			err = merr
			break
		}
		encoded = append(encoded, base64.StdEncoding.EncodeToString(b))
	}
	record["responses"] = encoded
	for k, v := range sweepErrorFacts(err) {
		record[k] = v
	}
	return record
}

// knownFields is the binary encoding of m without the fields its generated type does not know.
func knownFields(m proto.Message) ([]byte, error) {
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, err
	}
	known := m.ProtoReflect().New().Interface()
	if err := decode.Unmarshal(b, known); err != nil {
		return nil, err
	}
	return proto.Marshal(known)
}

// findMethod is the generated descriptor of the method "package.Service/Method".
func findMethod(fullName string) (protoreflect.MethodDescriptor, bool) {
	service, name, ok := strings.Cut(fullName, "/")
	if !ok {
		return nil, false
	}
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(service))
	if err != nil {
		return nil, false
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, false
	}
	md := sd.Methods().ByName(protoreflect.Name(name))
	return md, md != nil
}

// hasGeneratedTypes says whether the method's request and response types are generated Go types.
func hasGeneratedTypes(method protoreflect.MethodDescriptor) bool {
	_, inErr := newMessage(method.Input())
	_, outErr := newMessage(method.Output())
	return inErr == nil && outErr == nil
}

// newMessage is an empty message of the generated Go type of desc.
func newMessage(desc protoreflect.MessageDescriptor) (proto.Message, error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(desc.FullName())
	if err != nil {
		return nil, err
	}
	return mt.New().Interface(), nil
}

// decodeRequests decodes the base64 requests into the method's generated request type.
func decodeRequests(method protoreflect.MethodDescriptor, encoded []string) ([]proto.Message, error) {
	var out []proto.Message
	for _, e := range encoded {
		b, err := base64.StdEncoding.DecodeString(e)
		if err != nil {
			return nil, err
		}
		req, err := newMessage(method.Input())
		if err != nil {
			return nil, err
		}
		if err := decode.Unmarshal(b, req); err != nil {
			return nil, err
		}
		out = append(out, req)
	}
	return out, nil
}

// invoke calls the method as its descriptor says (unary, server or client streaming) and returns
// the responses it received and the call's end (nil when it answered, or gave want responses).
func (s *scenario) invoke(ctx context.Context, method protoreflect.MethodDescriptor, requests []proto.Message, want int) ([]proto.Message, error) {
	path := "/" + string(method.Parent().FullName()) + "/" + string(method.Name())
	if !method.IsStreamingClient() && !method.IsStreamingServer() {
		req, err := firstRequest(method, requests)
		if err != nil {
			return nil, err
		}
		resp, err := newMessage(method.Output())
		if err != nil {
			return nil, err
		}
		if err := s.conn.Invoke(ctx, path, req, resp); err != nil {
			return nil, err
		}
		return []proto.Message{resp}, nil
	}
	desc := &grpc.StreamDesc{
		StreamName:    string(method.Name()),
		ServerStreams: method.IsStreamingServer(),
		ClientStreams: method.IsStreamingClient(),
	}
	stream, err := s.conn.NewStream(ctx, desc, path)
	if err != nil {
		return nil, err
	}
	if err := sendRequests(stream, method, requests); err != nil {
		return nil, err
	}
	return receive(stream, method, want)
}

// firstRequest is the one request of a call that takes one (an empty one when the file gave none).
func firstRequest(method protoreflect.MethodDescriptor, requests []proto.Message) (proto.Message, error) {
	if len(requests) > 0 {
		return requests[0], nil
	}
	return newMessage(method.Input())
}

// sendRequests sends the requests in order. A server-streaming call takes one request and closes
// its side; a bidirectional one keeps its side open (the hub would end the stream otherwise); a
// client-streaming one closes it, since the hub answers only then.
func sendRequests(stream grpc.ClientStream, method protoreflect.MethodDescriptor, requests []proto.Message) error {
	if !method.IsStreamingClient() {
		req, err := firstRequest(method, requests)
		if err != nil {
			return err
		}
		requests = []proto.Message{req}
	}
	for _, req := range requests {
		// io.EOF: the hub already ended the stream; receiving reports its status.
		if err := stream.SendMsg(req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
	if method.IsStreamingClient() && method.IsStreamingServer() {
		return nil
	}
	return stream.CloseSend()
}

// receive reads up to want responses; the stream's end when it ended before (nil when it ended OK).
func receive(stream grpc.ClientStream, method protoreflect.MethodDescriptor, want int) ([]proto.Message, error) {
	var out []proto.Message
	for len(out) < want {
		resp, err := newMessage(method.Output())
		if err != nil {
			return out, err
		}
		if err := stream.RecvMsg(resp); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		out = append(out, resp)
	}
	return out, nil
}

// sweepErrorFacts are the call's code, ErrorInfo reason and domain, and the fields of the
// BadRequest violations in order, from the status details.
func sweepErrorFacts(err error) facts {
	f := errorFacts(err)
	if err == nil {
		f["code"] = "OK"
	}
	violations := []string{}
	for _, d := range status.Convert(err).Details() {
		if bad, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range bad.GetFieldViolations() {
				violations = append(violations, v.GetField())
			}
		}
	}
	f["violations"] = violations
	return f
}
