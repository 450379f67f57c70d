// Command conformance runs the kxm client conformance scenario against a live hub and prints one
// JSON transcript ({"language": "go", "ok": ..., "steps": [...]}) to stdout.
//
// Every step holds only normalised facts (no ids, times or language-specific text), so the
// transcripts of the five languages compare equal step by step (tests/test_conformance.py). When a
// call fails unexpectedly the transcript ends with a "failed" step, "ok" is false, "error" says why
// and the exit status is 1.
//
// Environment: KXM_ADDR (host:port, plaintext), KXM_TOKEN, KXM_TLS_ADDR (host:port, TLS), KXM_TLS_CA
// (PEM file of the only CA the TLS connection trusts), KXM_TLS_TOKEN, KXM_SWEEP (the contract
// sweep's JSON file, see sweep.go), KXM_NAME_PREFIX.
// The same scenario, step by step, is in clients/python/conformance.py and the other clients.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	kxmv1 "kxm.dev/hub/clients/go/gen/kxm/v1"
)

const (
	deadline      = 10 * time.Second // every unary call
	eventWait     = 15 * time.Second // waiting for a stream event
	waitTimeout   = 10 * time.Second // WaitMessage's wait (the call's deadline is 5 s longer)
	fanoutTimeout = 20 * time.Second // FanoutMessages' gathering time (the call's deadline is 5 s longer)
	barrierWait   = 15 * time.Second // how long a fanout handler waits for the other one
	leaseTTL      = 30 * time.Second
	channelWait   = 10 * time.Second // the channel's send command's wait for the reply

	missingMessageID = "msg_00000000000000000000000000000000"
	request          = "conformance request"
	idempotencyKey   = "conformance-request-1"
	reply            = "conformance reply"
	fanout           = "conformance fanout"
	fanoutKeyPrefix  = "conformance-fanout"
	channelRequest   = "conformance channel request"
	channelReply     = "conformance channel reply"
	redeliverRequest = "conformance redeliver"
)

var resumeContents = []string{"conformance resume 1", "conformance resume 2"}

// codeNames are the canonical gRPC status code names, indexed by code number.
var codeNames = []string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
	"OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
}

type facts = map[string]any

// stepFailed is a step that could not finish for a reason other than an RPC error.
type stepFailed struct {
	detail string
	facts  facts
}

func (e *stepFailed) Error() string { return e.detail }

func fanoutReply(suffix string) string { return "fanout reply from " + suffix }

// errorFacts is the status code and the google.rpc.ErrorInfo reason and domain from the status details.
func errorFacts(err error) facts {
	f := facts{"code": "UNKNOWN", "reason": "", "domain": ""}
	st, ok := status.FromError(err)
	if !ok {
		return f
	}
	if code := int(st.Code()); code < len(codeNames) {
		f["code"] = codeNames[code]
	} else {
		f["code"] = fmt.Sprintf("CODE_%d", code)
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			f["reason"] = info.GetReason()
			f["domain"] = info.GetDomain()
		}
	}
	return f
}

// codeName is the name of err's status code ("OK" for nil or io.EOF, the end of a stream).
func codeName(err error) string {
	if err == nil || errors.Is(err, io.EOF) {
		return "OK"
	}
	return errorFacts(err)["code"].(string)
}

// eventKind is the name of the event's oneof case: ready, message, reply, cancelled, expired or presence.
func eventKind(ev *kxmv1.SubscribeResponse) string {
	switch ev.GetEvent().(type) {
	case *kxmv1.SubscribeResponse_Ready:
		return "ready"
	case *kxmv1.SubscribeResponse_Message:
		return "message"
	case *kxmv1.SubscribeResponse_Reply:
		return "reply"
	case *kxmv1.SubscribeResponse_Cancelled:
		return "cancelled"
	case *kxmv1.SubscribeResponse_Expired:
		return "expired"
	case *kxmv1.SubscribeResponse_Presence:
		return "presence"
	}
	return "none"
}

type received struct {
	ev  *kxmv1.SubscribeResponse
	err error
}

// inbox is one Subscribe stream of an agent, read by a goroutine into a channel. seen is the seq of
// the last event the scenario took from the channel (what it "saw").
type inbox struct {
	cancel context.CancelFunc
	events chan received
	seen   uint64
}

func (in *inbox) next() (*kxmv1.SubscribeResponse, error) {
	select {
	case r, ok := <-in.events:
		if !ok {
			return nil, &stepFailed{"the stream ended", facts{"error": "stream_ended"}}
		}
		if r.err != nil {
			return nil, r.err
		}
		if r.ev.GetSeq() > 0 {
			in.seen = r.ev.GetSeq()
		}
		return r.ev, nil
	case <-time.After(eventWait):
		return nil, &stepFailed{"no stream event in time", facts{"error": "timeout"}}
	}
}

// nextMessage is the next message event, skipping presence events of the project's other agents.
func (in *inbox) nextMessage() (*kxmv1.SubscribeResponse, error) {
	for {
		ev, err := in.next()
		if err != nil {
			return nil, err
		}
		switch eventKind(ev) {
		case "message":
			return ev, nil
		case "presence":
		default:
			return nil, &stepFailed{"unexpected " + eventKind(ev) + " event", facts{"error": "unexpected_event"}}
		}
	}
}

// end reads the stream to its end, skipping presence events: the status it ended with. Any other
// event before the end fails the step.
func (in *inbox) end() (*status.Status, error) {
	for {
		ev, err := in.next()
		var failed *stepFailed
		if errors.As(err, &failed) {
			return nil, err
		}
		if errors.Is(err, io.EOF) {
			return status.New(codes.OK, ""), nil
		}
		if err != nil {
			return status.Convert(err), nil
		}
		if eventKind(ev) != "presence" {
			return nil, &stepFailed{"unexpected " + eventKind(ev) + " event before the stream's end",
				facts{"error": "unexpected_event"}}
		}
	}
}

// close drops the stream (cancels the call).
func (in *inbox) close() { in.cancel() }

// config is the program's environment.
type config struct {
	addr, token, prefix      string
	tlsAddr, tlsCA, tlsToken string
	sweepFile                string
}

type scenario struct {
	cfg      config
	conn     *grpc.ClientConn
	prefix   string
	project  metadata.MD
	md       map[string]metadata.MD // per agent suffix: project token + agent identity
	keys     map[string]string      // per agent suffix: the agent key RegisterAgent returned last
	agents   kxmv1.AgentServiceClient
	messages kxmv1.MessageServiceClient
	leases   kxmv1.LeaseServiceClient
	steps    []facts
	inboxes  []*inbox
}

func (s *scenario) name(suffix string) string { return s.prefix + "-" + suffix }

func (s *scenario) add(step string, f facts) {
	f["step"] = step
	s.steps = append(s.steps, f)
}

// call is a context for one unary call as agent suffix, with a deadline.
func (s *scenario) call(suffix string, timeout time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(metadata.NewOutgoingContext(context.Background(), s.md[suffix]), timeout)
}

func (s *scenario) openInbox(suffix string, afterSeq uint64) (*inbox, *kxmv1.SubscribeResponse, error) {
	// A stream has no deadline; keepalive detects a dead connection.
	ctx, cancel := context.WithCancel(metadata.NewOutgoingContext(context.Background(), s.md[suffix]))
	in := &inbox{cancel: cancel, events: make(chan received, 1024), seen: afterSeq}
	s.inboxes = append(s.inboxes, in)
	stream, err := s.messages.Subscribe(ctx, &kxmv1.SubscribeRequest{AfterSeq: afterSeq})
	if err != nil {
		return nil, nil, err
	}
	go func() {
		defer close(in.events)
		for {
			ev, err := stream.Recv()
			select {
			case in.events <- received{ev, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	first, err := in.next()
	return in, first, err
}

func (s *scenario) run() error {
	if err := s.register(); err != nil {
		return err
	}
	inboxB, err := s.subscribe()
	if err != nil {
		return err
	}
	messageID, err := s.sendIdempotent()
	if err != nil {
		return err
	}
	for _, step := range []func() error{
		func() error { return s.receiveAckReply(inboxB, messageID) },
		func() error { return s.wait(messageID) },
		func() error { return s.fanout(inboxB) },
		s.getMissing,
		s.lease,
		func() error { return s.resume(inboxB) },
		s.channel,
		s.redeliver,
		s.tlsIdentity,
		s.sweep,
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// registerAgent registers agent suffix with the project token and keeps its credentials.
func (s *scenario) registerAgent(suffix string) (*kxmv1.RegisterAgentResponse, error) {
	return s.registerAgentResuming(suffix, "")
}

// registerAgentResuming registers agent suffix, proving its identity with previousKey when not
// empty (the hub then resumes the agent under a new key), and keeps its new credentials.
func (s *scenario) registerAgentResuming(suffix, previousKey string) (*kxmv1.RegisterAgentResponse, error) {
	ctx, cancel := context.WithTimeout(metadata.NewOutgoingContext(context.Background(), s.project), deadline)
	defer cancel()
	resp, err := s.agents.RegisterAgent(ctx, &kxmv1.RegisterAgentRequest{
		Name: s.name(suffix), Purpose: "conformance", Model: "go", PreviousKey: previousKey,
	})
	if err != nil {
		return nil, err
	}
	s.keys[suffix] = resp.GetAgentKey()
	s.md[suffix] = metadata.Join(s.project,
		metadata.Pairs("x-kxm-agent-id", resp.GetAgent().GetId(), "x-kxm-agent-key", resp.GetAgentKey()))
	return resp, nil
}

// 1. register a, b and c
func (s *scenario) register() error {
	for _, suffix := range []string{"a", "b", "c"} {
		resp, err := s.registerAgent(suffix)
		if err != nil {
			return err
		}
		s.add("register_"+suffix, facts{
			"resumed":    resp.GetResumed(),
			"presence":   resp.GetAgent().GetPresence().String(),
			"name_equal": resp.GetAgent().GetName() == s.name(suffix),
		})
	}
	return nil
}

// 2. subscribe b and wait for the ready event
func (s *scenario) subscribe() (*inbox, error) {
	in, first, err := s.openInbox("b", 0)
	if err != nil {
		return nil, err
	}
	s.add("subscribe", facts{
		"first_event": eventKind(first),
		"after_seq":   first.GetReady().GetAfterSeq(),
		"ready_seq":   first.GetSeq(),
		"agent_is_b":  first.GetReady().GetAgent().GetName() == s.name("b"),
	})
	return in, nil
}

// 3. a sends b a message with an idempotency key, twice
func (s *scenario) sendIdempotent() (string, error) {
	req := &kxmv1.SendMessageRequest{Target: s.name("b"), Content: request, IdempotencyKey: idempotencyKey}
	var sent [2]*kxmv1.SendMessageResponse
	for i := range sent {
		ctx, cancel := s.call("a", deadline)
		resp, err := s.messages.SendMessage(ctx, req)
		cancel()
		if err != nil {
			return "", err
		}
		sent[i] = resp
	}
	first, second := sent[0], sent[1]
	s.add("send_repeat", facts{
		"first_repeated": first.GetRepeated(),
		"first_state":    first.GetMessage().GetState().String(),
		"repeated":       second.GetRepeated(),
		"same_id":        second.GetMessage().GetId() == first.GetMessage().GetId(),
		"same_seq":       second.GetMessage().GetSeq() == first.GetMessage().GetSeq(),
	})
	return first.GetMessage().GetId(), nil
}

// 4. b receives it on the stream, acknowledges it and replies
func (s *scenario) receiveAckReply(in *inbox, messageID string) error {
	ev, err := in.nextMessage()
	if err != nil {
		return err
	}
	m := ev.GetMessage()
	s.add("receive", facts{
		"event":         "message",
		"seq_positive":  ev.GetSeq() >= 1,
		"seq_matches":   m.GetSeq() == ev.GetSeq(),
		"same_id":       m.GetId() == messageID,
		"content_equal": m.GetContent() == request,
		"from_a":        m.GetFromAgentName() == s.name("a"),
		"redelivered":   ev.GetRedelivered(),
	})
	ctx, cancel := s.call("b", deadline)
	acked, err := s.messages.AckMessages(ctx, &kxmv1.AckMessagesRequest{MessageIds: []string{m.GetId()}})
	cancel()
	if err != nil {
		return err
	}
	s.add("ack", facts{"count": len(acked.GetMessages()), "state": acked.GetMessages()[0].GetState().String()})
	ctx, cancel = s.call("b", deadline)
	replied, err := s.messages.ReplyToMessage(ctx, &kxmv1.ReplyToMessageRequest{MessageId: m.GetId(), Content: reply})
	cancel()
	if err != nil {
		return err
	}
	s.add("reply", facts{"state": replied.GetMessage().GetState().String()})
	return nil
}

// 5. a awaits the reply
func (s *scenario) wait(messageID string) error {
	ctx, cancel := s.call("a", waitTimeout+5*time.Second)
	defer cancel()
	waited, err := s.messages.WaitMessage(ctx,
		&kxmv1.WaitMessageRequest{MessageId: messageID, Wait: durationpb.New(waitTimeout)})
	if err != nil {
		return err
	}
	s.add("wait", facts{
		"terminal":    waited.GetTerminal(),
		"state":       waited.GetMessage().GetState().String(),
		"reply_equal": waited.GetMessage().GetReply().GetContent() == reply,
	})
	return nil
}

// barrier releases its waiters once n of them arrived.
type barrier struct {
	mu      sync.Mutex
	n       int
	arrived chan struct{}
}

func (b *barrier) wait(timeout time.Duration) bool {
	b.mu.Lock()
	b.n--
	if b.n == 0 {
		close(b.arrived)
	}
	b.mu.Unlock()
	select {
	case <-b.arrived:
		return true
	case <-time.After(timeout):
		return false
	}
}

type handled struct {
	facts facts
	err   error
}

// 6. a fans out to b and c, which handle it concurrently (one goroutine each), and gathers
func (s *scenario) fanout(inboxB *inbox) error {
	inboxC, readyC, err := s.openInbox("c", 0)
	if err != nil {
		return err
	}
	bothReceived := &barrier{n: 2, arrived: make(chan struct{})}
	handle := func(suffix string, in *inbox, out chan<- handled) {
		ev, err := in.nextMessage()
		if err != nil {
			out <- handled{err: err}
			return
		}
		m := ev.GetMessage()
		ctx, cancel := s.call(suffix, deadline)
		acked, err := s.messages.AckMessages(ctx, &kxmv1.AckMessagesRequest{MessageIds: []string{m.GetId()}})
		cancel()
		if err != nil {
			out <- handled{err: err}
			return
		}
		// Both handlers hold their message before either replies: they run concurrently.
		concurrent := bothReceived.wait(barrierWait)
		ctx, cancel = s.call(suffix, deadline)
		replied, err := s.messages.ReplyToMessage(ctx,
			&kxmv1.ReplyToMessageRequest{MessageId: m.GetId(), Content: fanoutReply(suffix)})
		cancel()
		if err != nil {
			out <- handled{err: err}
			return
		}
		out <- handled{facts: facts{
			"content_equal": m.GetContent() == fanout,
			"ack_state":     acked.GetMessages()[0].GetState().String(),
			"reply_state":   replied.GetMessage().GetState().String(),
			"concurrent":    concurrent,
		}}
	}
	doneB, doneC := make(chan handled, 1), make(chan handled, 1)
	go handle("b", inboxB, doneB)
	go handle("c", inboxC, doneC)

	ctx, cancel := s.call("a", fanoutTimeout+5*time.Second)
	gathered, err := s.messages.FanoutMessages(ctx, &kxmv1.FanoutMessagesRequest{
		Targets:              []string{s.name("b"), s.name("c")},
		Content:              fanout,
		IdempotencyKeyPrefix: fanoutKeyPrefix,
		Wait:                 durationpb.New(fanoutTimeout),
	})
	cancel()
	if err != nil {
		return err
	}
	handledB, handledC := <-doneB, <-doneC
	for _, h := range []handled{handledB, handledC} {
		if h.err != nil {
			return h.err
		}
	}
	targets := map[string]string{strings.ToLower(s.name("b")): "b", strings.ToLower(s.name("c")): "c"}
	results := []facts{}
	for _, r := range gathered.GetResults() {
		target, ok := targets[r.GetTarget()]
		if !ok {
			target = "unexpected"
		}
		results = append(results, facts{
			"target":      target,
			"status":      r.GetStatus().String(),
			"state":       r.GetMessage().GetState().String(),
			"reply_equal": r.GetMessage().GetReply().GetContent() == fanoutReply(target),
		})
	}
	s.add("fanout", facts{
		"c_first_event": eventKind(readyC),
		"results":       results,
		"handler_b":     handledB.facts,
		"handler_c":     handledC.facts,
	})
	return nil
}

// 7. GetMessage with an unknown id
func (s *scenario) getMissing() error {
	ctx, cancel := s.call("a", deadline)
	defer cancel()
	_, err := s.messages.GetMessage(ctx, &kxmv1.GetMessageRequest{MessageId: missingMessageID})
	if err == nil {
		s.add("get_missing", facts{"code": "OK", "reason": "", "domain": ""})
	} else {
		s.add("get_missing", errorFacts(err))
	}
	return nil
}

// 8. a acquires a lease, releases it, acquires it again; the first token is refused
func (s *scenario) lease() error {
	name := s.name("lease")
	acquire := func() (*kxmv1.AcquireLeaseResponse, error) {
		ctx, cancel := s.call("a", deadline)
		defer cancel()
		return s.leases.AcquireLease(ctx, &kxmv1.AcquireLeaseRequest{Name: name, Ttl: durationpb.New(leaseTTL)})
	}
	release := func(token uint64) (*kxmv1.ReleaseLeaseResponse, error) {
		ctx, cancel := s.call("a", deadline)
		defer cancel()
		return s.leases.ReleaseLease(ctx, &kxmv1.ReleaseLeaseRequest{Name: name, FencingToken: token})
	}
	check := func(token uint64) (*kxmv1.CheckFenceResponse, error) {
		ctx, cancel := s.call("a", deadline)
		defer cancel()
		return s.leases.CheckFence(ctx, &kxmv1.CheckFenceRequest{Name: name, FencingToken: token})
	}
	first, err := acquire()
	if err != nil {
		return err
	}
	firstToken := first.GetLease().GetFencingToken()
	released, err := release(firstToken)
	if err != nil {
		return err
	}
	second, err := acquire()
	if err != nil {
		return err
	}
	secondToken := second.GetLease().GetFencingToken()
	s.add("lease", facts{
		"first_live":           first.GetLease().GetLive(),
		"first_renewed":        first.GetRenewed(),
		"released_token_equal": released.GetLease().GetFencingToken() == firstToken,
		"second_renewed":       second.GetRenewed(),
		"token_grew":           secondToken > firstToken,
	})
	current, err := check(secondToken)
	if err != nil {
		return err
	}
	stale := facts{"code": "OK", "reason": "", "domain": ""}
	if _, err := check(firstToken); err != nil {
		stale = errorFacts(err)
	}
	s.add("fence", facts{
		"current_live":        current.GetLease().GetLive(),
		"current_token_equal": current.GetLease().GetFencingToken() == secondToken,
		"stale":               stale,
	})
	_, err = release(secondToken)
	return err
}

// 9. b's stream is dropped after seq N; a sends two more; b resumes after N
func (s *scenario) resume(inboxB *inbox) error {
	cursor := inboxB.seen
	inboxB.close()
	var sent []string
	for _, content := range resumeContents {
		ctx, cancel := s.call("a", deadline)
		resp, err := s.messages.SendMessage(ctx, &kxmv1.SendMessageRequest{Target: s.name("b"), Content: content})
		cancel()
		if err != nil {
			return err
		}
		sent = append(sent, resp.GetMessage().GetId())
	}
	in, ready, err := s.openInbox("b", cursor)
	if err != nil {
		return err
	}
	var seqs []uint64
	var messageIDs, contents []string
	redelivered := false
	for !containsAll(messageIDs, sent) {
		ev, err := in.next()
		if err != nil {
			return err
		}
		seqs = append(seqs, ev.GetSeq())
		redelivered = redelivered || ev.GetRedelivered()
		if eventKind(ev) == "message" {
			messageIDs = append(messageIDs, ev.GetMessage().GetId())
			contents = append(contents, ev.GetMessage().GetContent())
		}
	}
	contiguous := true
	for i, seq := range seqs {
		contiguous = contiguous && seq == cursor+1+uint64(i)
	}
	unique := map[string]bool{}
	for _, id := range messageIDs {
		unique[id] = true
	}
	s.add("resume", facts{
		"first_event":               eventKind(ready),
		"ready_after_seq_is_cursor": ready.GetReady().GetAfterSeq() == cursor,
		"first_seq_is_next":         seqs[0] == cursor+1,
		"contiguous":                contiguous,
		"duplicates":                len(unique) != len(messageIDs),
		"messages":                  len(messageIDs),
		"contents_in_order":         slices.Equal(contents, resumeContents),
		"redelivered":               redelivered,
	})
	return nil
}

// 10. a and a new agent d exchange a request and its reply on channels (AgentService.OpenChannel)
func (s *scenario) channel() error {
	if _, err := s.registerAgent("d"); err != nil {
		return err
	}
	aChannel, err := s.openChannel("a")
	if err != nil {
		return err
	}
	defer aChannel.close()
	dChannel, err := s.openChannel("d")
	if err != nil {
		return err
	}
	defer dChannel.close()

	if err := dChannel.write(&kxmv1.OpenChannelRequest{Subscribe: &kxmv1.SubscribeRequest{AfterSeq: 0}}); err != nil {
		return err
	}
	dReady, err := dChannel.ready()
	if err != nil {
		return err
	}
	aReady, err := aChannel.ready()
	if err != nil {
		return err
	}
	first, err := dChannel.event()
	if err != nil {
		return err
	}
	send := &kxmv1.ChannelCommand{CommandId: "ch-send", Command: &kxmv1.ChannelCommand_Send{
		Send: &kxmv1.SendMessageRequest{Target: s.name("d"), Content: channelRequest, Wait: durationpb.New(channelWait)},
	}}
	if err := aChannel.write(&kxmv1.OpenChannelRequest{Commands: []*kxmv1.ChannelCommand{send}}); err != nil {
		return err
	}
	ev, err := dChannel.event()
	if err != nil {
		return err
	}
	m := ev.GetMessage()
	if err := dChannel.write(&kxmv1.OpenChannelRequest{Commands: []*kxmv1.ChannelCommand{
		{CommandId: "ch-ack", Command: &kxmv1.ChannelCommand_Ack{
			Ack: &kxmv1.AckMessagesRequest{MessageIds: []string{m.GetId()}},
		}},
		{CommandId: "ch-reply", Command: &kxmv1.ChannelCommand_Reply{
			Reply: &kxmv1.ReplyToMessageRequest{MessageId: m.GetId(), Content: channelReply},
		}},
	}}); err != nil {
		return err
	}
	acked, err := dChannel.result()
	if err != nil {
		return err
	}
	replied, err := dChannel.result()
	if err != nil {
		return err
	}
	sent, err := aChannel.result()
	if err != nil {
		return err
	}
	// the same command again
	if err := aChannel.write(&kxmv1.OpenChannelRequest{Commands: []*kxmv1.ChannelCommand{send}}); err != nil {
		return err
	}
	replay, err := aChannel.result()
	if err != nil {
		return err
	}
	missing := &kxmv1.ChannelCommand{CommandId: "ch-get", Command: &kxmv1.ChannelCommand_Get{
		Get: &kxmv1.GetMessageRequest{MessageId: missingMessageID},
	}}
	if err := aChannel.write(&kxmv1.OpenChannelRequest{Commands: []*kxmv1.ChannelCommand{missing}}); err != nil {
		return err
	}
	failed, err := aChannel.result()
	if err != nil {
		return err
	}
	aEnd, err := aChannel.end()
	if err != nil {
		return err
	}
	dEnd, err := dChannel.end()
	if err != nil {
		return err
	}
	resultIDs := []string{acked.GetCommandId(), replied.GetCommandId()}
	errorCode := fmt.Sprint(failed.GetError().GetCode())
	if failed.GetError().GetCode() == int32(codes.NotFound) {
		errorCode = "NOT_FOUND"
	}
	s.add("channel", facts{
		"a_ready":                  aReady.GetAgent().GetName() == s.name("a"),
		"d_ready":                  dReady.GetAgent().GetName() == s.name("d"),
		"max_commands_per_request": aReady.GetMaxCommandsPerRequest(),
		"max_in_flight_positive":   aReady.GetMaxInFlight() > 0,
		"d_first_event":            eventKind(first),
		"event":                    eventKind(ev),
		"content_equal":            m.GetContent() == channelRequest,
		"from_a":                   m.GetFromAgentName() == s.name("a"),
		"seq_positive":             ev.GetSeq() > 0,
		"ack_state":                acked.GetAck().GetMessages()[0].GetState().String(),
		"reply_state":              replied.GetReply().GetMessage().GetState().String(),
		"results_in_order":         slices.Equal(resultIDs, []string{"ch-ack", "ch-reply"}),
		"send_terminal":            sent.GetSend().GetTerminal(),
		"send_reply_equal":         sent.GetSend().GetMessage().GetReply().GetContent() == channelReply,
		"send_key_is_command_id":   sent.GetSend().GetMessage().GetIdempotencyKey() == "ch-send",
		"send_replayed":            sent.GetReplayed(),
		"replayed":                 replay.GetReplayed(),
		"replay_same_id":           replay.GetSend().GetMessage().GetId() == sent.GetSend().GetMessage().GetId(),
		"error":                    facts{"code": errorCode, "reason": failed.GetError().GetReason()},
		"a_end":                    aEnd,
		"d_end":                    dEnd,
	})
	return nil
}

// 11. a new agent e takes a request without acknowledging it, registers again with its key (which
// ends its stream), and gets the request again, redelivered, on a new stream after its cursor
func (s *scenario) redeliver() error {
	if _, err := s.registerAgent("e"); err != nil {
		return err
	}
	oldInbox, first, err := s.openInbox("e", 0)
	if err != nil {
		return err
	}
	defer oldInbox.close()
	ctx, cancel := s.call("a", deadline)
	_, err = s.messages.SendMessage(ctx, &kxmv1.SendMessageRequest{Target: s.name("e"), Content: redeliverRequest})
	cancel()
	if err != nil {
		return err
	}
	delivered, err := oldInbox.nextMessage()
	if err != nil {
		return err
	}
	// Not acknowledged: the request stays open for e, to be redelivered.
	resumed, err := s.registerAgentResuming("e", s.keys["e"])
	if err != nil {
		return err
	}
	end, err := oldInbox.end()
	if err != nil {
		return err
	}
	cursor := oldInbox.seen
	newInbox, ready, err := s.openInbox("e", cursor)
	if err != nil {
		return err
	}
	defer newInbox.close()
	again, err := newInbox.nextMessage()
	if err != nil {
		return err
	}
	ctx, cancel = s.call("e", deadline)
	acked, err := s.messages.AckMessages(ctx, &kxmv1.AckMessagesRequest{MessageIds: []string{again.GetMessage().GetId()}})
	cancel()
	if err != nil {
		return err
	}
	s.add("redeliver", facts{
		"e_ready":                   eventKind(first) == "ready",
		"resumed":                   resumed.GetResumed(),
		"end_code":                  codeName(end.Err()),
		"end_reason":                errorFacts(end.Err())["reason"],
		"ready_after_seq_is_cursor": ready.GetReady().GetAfterSeq() == cursor,
		"redelivered":               again.GetRedelivered(),
		"same_id":                   again.GetMessage().GetId() == delivered.GetMessage().GetId(),
		"content_equal":             again.GetMessage().GetContent() == redeliverRequest,
		"ack_state":                 acked.GetMessages()[0].GetState().String(),
	})
	return nil
}

// 12. a new connection over TLS, trusting only the CA of KXM_TLS_CA, asks who its token is
func (s *scenario) tlsIdentity() error {
	pem, err := os.ReadFile(s.cfg.tlsCA)
	if err != nil {
		return &stepFailed{"cannot read KXM_TLS_CA: " + err.Error(), facts{"error": "tls_ca"}}
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return &stepFailed{"no certificate in KXM_TLS_CA " + s.cfg.tlsCA, facts{"error": "tls_ca"}}
	}
	// The server name is the address's host (127.0.0.1), checked against the certificate's IP SAN.
	conn, err := dial(s.cfg.tlsAddr, credentials.NewTLS(&tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}))
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(
		metadata.NewOutgoingContext(context.Background(), metadata.Pairs("authorization", "Bearer "+s.cfg.tlsToken)),
		deadline)
	defer cancel()
	identity, err := kxmv1.NewAgentServiceClient(conn).GetCallerIdentity(ctx, &kxmv1.GetCallerIdentityRequest{})
	if err != nil {
		return err
	}
	s.add("tls", facts{"credential_kind": identity.GetCredentialKind().String()})
	return nil
}

// channelItem is one thing a channel's responses carried, by kind: its ready, an inbox event, a
// command result, or the end of the stream (end is its status code's name).
type channelItem struct {
	kind   string // ready, event, result or end
	ready  *kxmv1.ChannelReady
	event  *kxmv1.SubscribeResponse
	result *kxmv1.ChannelResult
	end    string
}

// agentChannel is one OpenChannel stream of an agent, on the generated client. Its responses are
// read by a goroutine and taken apart into the channel's ready, the inbox events and the command
// results, each read in order.
type agentChannel struct {
	cancel context.CancelFunc
	stream grpc.BidiStreamingClient[kxmv1.OpenChannelRequest, kxmv1.OpenChannelResponse]
	items  chan channelItem
}

func (s *scenario) openChannel(suffix string) (*agentChannel, error) {
	// A stream has no deadline; keepalive detects a dead connection.
	ctx, cancel := context.WithCancel(metadata.NewOutgoingContext(context.Background(), s.md[suffix]))
	stream, err := s.agents.OpenChannel(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	ch := &agentChannel{cancel: cancel, stream: stream, items: make(chan channelItem, 1024)}
	go func() {
		defer close(ch.items)
		put := func(item channelItem) bool {
			select {
			case ch.items <- item:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for {
			resp, err := stream.Recv()
			if err != nil {
				put(channelItem{kind: "end", end: codeName(err)})
				return
			}
			if resp.GetReady() != nil && !put(channelItem{kind: "ready", ready: resp.GetReady()}) {
				return
			}
			for _, ev := range resp.GetEvents() {
				if eventKind(ev) == "presence" {
					continue // the project's other agents (the other programs' among them) come and go at any moment
				}
				if !put(channelItem{kind: "event", event: ev}) {
					return
				}
			}
			for _, r := range resp.GetResults() {
				if !put(channelItem{kind: "result", result: r}) {
					return
				}
			}
		}
	}()
	return ch, nil
}

// write sends one request. A stream the hub ended makes Send return io.EOF: its status is the
// channel's end, which the next read reports.
func (ch *agentChannel) write(req *kxmv1.OpenChannelRequest) error {
	if err := ch.stream.Send(req); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

func (ch *agentChannel) next(kind string) (channelItem, error) {
	select {
	case item, ok := <-ch.items:
		if !ok {
			return item, &stepFailed{"the channel ended", facts{"error": "stream_ended"}}
		}
		if item.kind != kind {
			return item, &stepFailed{"a channel " + item.kind + " came before its " + kind,
				facts{"error": "unexpected_" + item.kind}}
		}
		return item, nil
	case <-time.After(eventWait):
		return channelItem{}, &stepFailed{"no channel " + kind + " in time", facts{"error": "timeout"}}
	}
}

func (ch *agentChannel) ready() (*kxmv1.ChannelReady, error) {
	item, err := ch.next("ready")
	return item.ready, err
}

func (ch *agentChannel) event() (*kxmv1.SubscribeResponse, error) {
	item, err := ch.next("event")
	return item.event, err
}

func (ch *agentChannel) result() (*kxmv1.ChannelResult, error) {
	item, err := ch.next("result")
	return item.result, err
}

// end closes the sending side and waits for the hub to end the stream: its status code's name.
func (ch *agentChannel) end() (string, error) {
	if err := ch.stream.CloseSend(); err != nil {
		return "", err
	}
	item, err := ch.next("end")
	return item.end, err
}

// close drops the stream (cancels the call).
func (ch *agentChannel) close() { ch.cancel() }

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

func main() {
	out := map[string]any{"language": "go", "ok": true, "steps": []facts{}}
	cfg := config{
		addr: os.Getenv("KXM_ADDR"), token: os.Getenv("KXM_TOKEN"), prefix: os.Getenv("KXM_NAME_PREFIX"),
		tlsAddr: os.Getenv("KXM_TLS_ADDR"), tlsCA: os.Getenv("KXM_TLS_CA"), tlsToken: os.Getenv("KXM_TLS_TOKEN"),
		sweepFile: os.Getenv("KXM_SWEEP"),
	}
	if slices.Contains([]string{cfg.addr, cfg.token, cfg.prefix, cfg.tlsAddr, cfg.tlsCA, cfg.tlsToken, cfg.sweepFile}, "") {
		out["ok"], out["error"] = false,
			"set KXM_ADDR, KXM_TOKEN, KXM_TLS_ADDR, KXM_TLS_CA, KXM_TLS_TOKEN, KXM_SWEEP and KXM_NAME_PREFIX"
	} else if err := runScenario(cfg, out); err != nil {
		out["ok"], out["error"] = false, err.Error()
	}
	_ = json.NewEncoder(os.Stdout).Encode(out)
	if out["ok"] != true {
		os.Exit(1)
	}
}

// dial opens a connection to addr with the given transport credentials.
func dial(addr string, creds credentials.TransportCredentials) (*grpc.ClientConn, error) {
	return grpc.NewClient(addr,
		grpc.WithTransportCredentials(creds),
		// The hub accepts client keepalive pings no more often than every 10 s.
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 30 * time.Second, Timeout: 10 * time.Second}),
	)
}

func runScenario(cfg config, out map[string]any) error {
	conn, err := dial(cfg.addr, insecure.NewCredentials())
	if err != nil {
		return err
	}
	defer conn.Close()
	s := &scenario{
		cfg:      cfg,
		conn:     conn,
		prefix:   cfg.prefix,
		project:  metadata.Pairs("authorization", "Bearer "+cfg.token),
		md:       map[string]metadata.MD{},
		keys:     map[string]string{},
		agents:   kxmv1.NewAgentServiceClient(conn),
		messages: kxmv1.NewMessageServiceClient(conn),
		leases:   kxmv1.NewLeaseServiceClient(conn),
		steps:    []facts{},
	}
	err = s.run()
	for _, in := range s.inboxes {
		in.close()
	}
	if err != nil {
		var failed *stepFailed
		if errors.As(err, &failed) {
			s.add("failed", failed.facts)
		} else {
			s.add("failed", errorFacts(err))
		}
	}
	out["steps"] = s.steps
	return err
}
