package hub

import (
	"context"
	"errors"
	"fmt"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/types/known/durationpb"

	kxmv1 "kxm.dev/hub/clients/go/gen/kxm/v1"
)

// fakeHub is a MessageService whose Subscribe streams follow a script, one entry per connection.
type fakeHub struct {
	kxmv1.UnimplementedMessageServiceServer
	mu        sync.Mutex
	afterSeqs []uint64
	agentIDs  []string
	streams   [][]*kxmv1.SubscribeResponse
	ends      []error
}

func (f *fakeHub) Subscribe(req *kxmv1.SubscribeRequest, stream grpc.ServerStreamingServer[kxmv1.SubscribeResponse]) error {
	f.mu.Lock()
	n := len(f.afterSeqs)
	f.afterSeqs = append(f.afterSeqs, req.GetAfterSeq())
	f.mu.Unlock()
	ready := &kxmv1.SubscribeResponse{Event: &kxmv1.SubscribeResponse_Ready{Ready: &kxmv1.SubscribeReady{AfterSeq: req.GetAfterSeq()}}}
	if n >= len(f.streams) { // past the script: open until the client goes
		if err := stream.Send(ready); err != nil {
			return err
		}
		<-stream.Context().Done()
		return nil
	}
	for _, ev := range append([]*kxmv1.SubscribeResponse{ready}, f.streams[n]...) {
		if err := stream.Send(ev); err != nil {
			return err
		}
	}
	return f.ends[n]
}

func (f *fakeHub) GetMessage(ctx context.Context, req *kxmv1.GetMessageRequest) (*kxmv1.GetMessageResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	f.mu.Lock()
	f.agentIDs = append(f.agentIDs, md.Get("x-kxm-agent-id")...)
	f.mu.Unlock()
	if req.GetMessageId() == "slow" {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	st, _ := status.New(codes.NotFound, "no message "+req.GetMessageId()).WithDetails(
		&errdetails.ErrorInfo{Reason: "ERROR_REASON_MESSAGE_NOT_FOUND", Domain: "kxm.dev", Metadata: map[string]string{"messageId": req.GetMessageId()}},
		&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "message_id", Description: "unknown"}}},
		&errdetails.RetryInfo{RetryDelay: durationpb.New(1500 * time.Millisecond)},
	)
	return nil, st.Err()
}

// serve starts fake on an in-memory listener and returns a client of it.
func serve(t *testing.T, fake *fakeHub, opts ...Option) *Client {
	t.Helper()
	hermetic(t)
	listener := bufconn.Listen(1 << 20)
	server := grpc.NewServer()
	kxmv1.RegisterMessageServiceServer(server, fake)
	go server.Serve(listener)
	t.Cleanup(server.Stop)
	dialer := func(ctx context.Context, _ string) (net.Conn, error) { return listener.DialContext(ctx) }
	opts = append([]Option{WithAddress("passthrough:///fake"), WithToken("tok"),
		WithDialOptions(grpc.WithContextDialer(dialer))}, opts...)
	c, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func message(id string, seq uint64, redelivered bool) *kxmv1.SubscribeResponse {
	return &kxmv1.SubscribeResponse{Seq: seq, Redelivered: redelivered,
		Event: &kxmv1.SubscribeResponse_Message{Message: &kxmv1.Message{Id: id, Seq: seq}}}
}

func TestErrorsAreDecoded(t *testing.T) {
	c := serve(t, &fakeHub{}, WithAgent("agt_1", "key"))
	_, err := c.GetMessage(context.Background(), "msg_1")
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("not an *Error: %T %v", err, err)
	}
	if e.CodeName() != "NOT_FOUND" || !e.HasReason(kxmv1.ErrorReason_ERROR_REASON_MESSAGE_NOT_FOUND) || e.Domain != "kxm.dev" ||
		e.Message != "no message msg_1" || e.Metadata["messageId"] != "msg_1" ||
		!reflect.DeepEqual(e.Violations, []FieldViolation{{"message_id", "unknown"}}) ||
		!e.HasRetryDelay || e.RetryDelay != 1500*time.Millisecond {
		t.Fatalf("decoded: %+v", e)
	}
	if status.Code(err) != codes.NotFound {
		t.Fatal("status.Code still works")
	}
	if e.Error() != "NOT_FOUND ERROR_REASON_MESSAGE_NOT_FOUND: no message msg_1" {
		t.Fatal(e.Error())
	}
}

func TestTheDefaultDeadline(t *testing.T) {
	fake := &fakeHub{}
	c := serve(t, fake, WithTimeout(100*time.Millisecond), WithAgent("agt_1", "key"))
	start := time.Now()
	_, err := c.Messages().GetMessage(context.Background(), &kxmv1.GetMessageRequest{MessageId: "slow"})
	if e := FromError(err); e.CodeName() != "DEADLINE_EXCEEDED" || time.Since(start) > 5*time.Second {
		t.Fatalf("%v after %v", err, time.Since(start))
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if !reflect.DeepEqual(fake.agentIDs, []string{"agt_1"}) {
		t.Fatalf("metadata: %v", fake.agentIDs)
	}
}

func TestSubscribeResumes(t *testing.T) {
	unauthenticated, _ := status.New(codes.Unauthenticated, "key replaced").WithDetails(
		&errdetails.ErrorInfo{Reason: "ERROR_REASON_INVALID_AGENT_IDENTITY", Domain: "kxm.dev"})
	fake := &fakeHub{
		streams: [][]*kxmv1.SubscribeResponse{
			{message("m1", 1, false), message("m2", 2, false)},
			{message("m2", 2, true), message("m3", 3, false)},
			{},
		},
		ends: []error{status.Error(codes.Unavailable, "hub restarting"), nil, unauthenticated.Err()},
	}
	c := serve(t, fake)
	sub := c.Subscribe(context.Background(), 0)
	defer sub.Close()
	var got []string
	timeout := time.After(10 * time.Second)
	for open := true; open; {
		select {
		case ev, ok := <-sub.Events():
			switch {
			case !ok:
				open = false
			case ev.GetReady() != nil:
				got = append(got, "ready")
			default:
				got = append(got, ev.GetMessage().GetId())
			}
		case <-timeout:
			t.Fatalf("still open after %v", got)
		}
	}
	if want := []string{"ready", "m1", "m2", "ready", "m3", "ready"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if !reflect.DeepEqual(fake.afterSeqs, []uint64{0, 2, 3}) {
		t.Fatalf("after_seq %v", fake.afterSeqs)
	}
	if e := FromError(sub.Err()); e == nil || !e.HasReason(kxmv1.ErrorReason_ERROR_REASON_INVALID_AGENT_IDENTITY) {
		t.Fatalf("end: %v", sub.Err())
	}
}

func TestSubscribeStopsOnClose(t *testing.T) {
	c := serve(t, &fakeHub{})
	sub := c.Subscribe(context.Background(), 5)
	if ev := <-sub.Events(); ev.GetReady() == nil {
		t.Fatalf("first event %v", ev)
	}
	sub.Close()
	sub.Close()
	if _, ok := <-sub.Events(); ok || sub.Err() != nil {
		t.Fatalf("after Close: %v", sub.Err())
	}
	ctx, cancel := context.WithCancel(context.Background())
	sub = c.Subscribe(ctx, 0)
	cancel()
	for range sub.Events() {
	}
	if !errors.Is(sub.Err(), context.Canceled) {
		t.Fatalf("after cancel: %v", sub.Err())
	}
}

// drained waits until sub's Events is closed, as a `for range sub.Events()` consumer does, failing
// the test when it is still open after 5 s.
func drained(t *testing.T, sub *Subscription) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range sub.Events() {
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Events still open 5 s after the client was closed")
	}
}

func TestSubscribeEndsWhenTheClientCloses(t *testing.T) {
	// An open stream (the fake keeps it open until the client goes), one whose consumer is not
	// reading (an event waits to be taken) and one made after Close: each ends CANCELLED.
	fake := &fakeHub{streams: [][]*kxmv1.SubscribeResponse{{message("m1", 1, false)}}, ends: []error{nil}}
	c := serve(t, fake)
	unread := c.Subscribe(context.Background(), 0)
	if ev := <-unread.Events(); ev.GetReady() == nil {
		t.Fatalf("first event %v", ev)
	}
	open := c.Subscribe(context.Background(), 0)
	if ev := <-open.Events(); ev.GetReady() == nil {
		t.Fatalf("first event %v", ev)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	late := c.Subscribe(context.Background(), 0)
	for name, sub := range map[string]*Subscription{"open": open, "unread": unread, "late": late} {
		drained(t, sub)
		if e := FromError(sub.Err()); e == nil || e.Code != codes.Canceled {
			t.Fatalf("%s: ended with %v, want CANCELLED", name, sub.Err())
		}
		sub.Close() // after the end: returns at once, Err stays
		if FromError(sub.Err()).Code != codes.Canceled {
			t.Fatalf("%s: Err after Close: %v", name, sub.Err())
		}
	}
}

func TestClientHidesSecrets(t *testing.T) {
	hermetic(t)
	c, err := New(WithAddress("10.0.0.1:7000"), WithToken("secret-token"), WithProject("blue"),
		WithAgent("agt_1", "secret-key"), WithAttemptToken("secret-attempt"), WithSessionToken("secret-session"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.UseAgent("agt_2", "secret-key-2")
	text := fmt.Sprintf("%v %+v %#v", c, c, c)
	other := fmt.Sprintf("%s %q %d %x %10.40v %v %+v", c, c, c, c, c, []any{c}, struct{ C *Client }{c})
	for _, shown := range []string{text, other} {
		if strings.Contains(shown, "secret") {
			t.Fatalf("a secret is shown: %s", shown)
		}
	}
	want := `hub.Client{Address: "10.0.0.1:7000", Project: "blue", AgentID: "agt_2"}`
	if c.String() != want || c.GoString() != want || text != want+" "+want+" "+want {
		t.Fatalf("shown as %s", text)
	}
	var none *Client
	if got := fmt.Sprint(none); got != "hub.Client(nil)" {
		t.Fatal(got)
	}
}

func TestRecentIDs(t *testing.T) {
	r := newRecentIDs(2)
	r.add("a")
	r.add("b")
	r.add("a")
	r.add("c")
	if r.has("a") || !r.has("b") || !r.has("c") {
		t.Fatalf("%v", r.set)
	}
}
