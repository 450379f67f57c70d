// Command layercheck exercises the thin client layer (package hub) against a live hub and prints one
// JSON line {"language": "go", "ok": ..., "steps": [...]}: construction from the environment,
// register, decoded errors, the default deadline, and the resuming subscribe across a hub restart.
//
// Midway it prints {"waiting": "restart"} and blocks until the line "restarted" arrives on stdin;
// meanwhile the caller kills the hub and starts it again on the same address and data. On failure
// "ok" is false, "error" says why and the exit status is 1.
//
// Environment: what hub.New reads (KXM_ADDR, KXM_TOKEN, ...), and KXM_NAME_PREFIX (agent names).
package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/durationpb"

	kxmv1 "kxm.dev/hub/clients/go/gen/kxm/v1"
	"kxm.dev/hub/clients/go/hub"
)

const (
	missingMessageID = "msg_00000000000000000000000000000000"
	eventWait        = 15 * time.Second // one stream event, before the restart
	resumeWait       = 30 * time.Second // the message sent after the restart
	retryFor         = 20 * time.Second // the send after the restart, retried on UNAVAILABLE
	retryEvery       = 200 * time.Millisecond
	shortDeadline    = 3 * time.Second  // the short client's default deadline
	serverWait       = 10 * time.Second // the server-side wait it bounds
	endedWithin      = 8 * time.Second  // how soon the wait must end: before serverWait
)

type facts = map[string]any

func main() {
	prefix := cmp.Or(os.Getenv("KXM_NAME_PREFIX"), "layercheck")
	steps := []facts{}
	err := run(context.Background(), prefix, func(f facts) { steps = append(steps, f) })
	out := facts{"language": "go", "ok": err == nil, "steps": steps}
	if err != nil {
		out["error"] = err.Error()
	}
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
	if err != nil {
		os.Exit(1)
	}
}

// check tracks the clients and subscriptions to close at the end.
type check struct {
	prefix  string
	clients []*hub.Client
	subs    []*hub.Subscription
}

func (c *check) client(opts ...hub.Option) (*hub.Client, error) {
	client, err := hub.New(opts...)
	if err == nil {
		c.clients = append(c.clients, client)
	}
	return client, err
}

func (c *check) close() {
	for _, s := range c.subs {
		s.Close()
	}
	for _, client := range c.clients {
		client.Close()
	}
}

func run(ctx context.Context, prefix string, step func(facts)) error {
	c := &check{prefix: prefix}
	defer c.close()

	// 1. Two clients with no arguments, registered; who a is, as the hub sees it.
	a, err := c.client()
	if err != nil {
		return err
	}
	b, err := c.client()
	if err != nil {
		return err
	}
	if _, err := a.Register(ctx, prefix+"-a", hub.WithPurpose("layer check")); err != nil {
		return err
	}
	if _, err := b.Register(ctx, prefix+"-b", hub.WithPurpose("layer check")); err != nil {
		return err
	}
	identity, err := a.Agents().GetCallerIdentity(ctx, &kxmv1.GetCallerIdentityRequest{})
	if err != nil {
		return err
	}
	step(facts{"step": "register", "credential_kind": identity.GetCredentialKind().String(),
		"name_equal": identity.GetAgentName() == prefix+"-a"})

	// 2. A missing message: the layer's error type, decoded.
	_, err = a.GetMessage(ctx, missingMessageID)
	var e *hub.Error
	layerError := errors.As(err, &e)
	if err == nil {
		return errors.New("GetMessage of a missing message succeeded")
	}
	e = hub.FromError(err)
	step(facts{"step": "not_found", "code": e.CodeName(), "reason": e.Reason, "domain": e.Domain, "layer_error": layerError})

	// 3. An empty name: INVALID_ARGUMENT with a field violation.
	third, err := c.client()
	if err != nil {
		return err
	}
	if _, err = third.Register(ctx, ""); err == nil {
		return errors.New("registering an empty name succeeded")
	}
	e = hub.FromError(err)
	fields := []string{}
	for _, v := range e.Violations {
		fields = append(fields, v.Field)
	}
	step(facts{"step": "invalid", "code": e.CodeName(), "reason": e.Reason, "fields": fields})

	// 4. The default deadline (3 s) applies to a call without one of its own: the hub, which ends a
	// long poll before the call's deadline, answers a 10 s wait within it (OK and not terminal;
	// DEADLINE_EXCEEDED when the answer loses the race on a busy machine). A warm-up call first, so
	// the connection is up before the timing starts.
	short, err := c.client(hub.WithAgent(a.AgentID(), a.AgentKey()), hub.WithTimeout(shortDeadline))
	if err != nil {
		return err
	}
	probe, err := a.Send(ctx, prefix+"-b", "deadline probe")
	if err != nil {
		return err
	}
	if _, err := short.Agents().GetCallerIdentity(ctx, &kxmv1.GetCallerIdentityRequest{}); err != nil {
		return err
	}
	started := time.Now()
	waited, err := short.Messages().WaitMessage(ctx, &kxmv1.WaitMessageRequest{
		MessageId: probe.GetMessage().GetId(), Wait: durationpb.New(serverWait)})
	early := (err == nil && !waited.GetTerminal()) || (err != nil && hub.FromError(err).Code == codes.DeadlineExceeded)
	step(facts{"step": "deadline", "ended_before_wait": early && time.Since(started) < endedWithin})

	// 5. b's resuming subscribe, across a restart of the hub.
	return resume(ctx, c, a, b, step)
}

// resume is step 5 (subscribe, the restart, resume) and step 6 (closed).
func resume(ctx context.Context, c *check, a, b *hub.Client, step func(facts)) error {
	inbox := &reader{sub: b.Subscribe(ctx, 0)}
	c.subs = append(c.subs, inbox.sub)
	first, err := inbox.next(eventWait)
	if err != nil {
		return err
	}
	step(facts{"step": "subscribe", "first": kind(first)})
	probe, err := inbox.nextMessage(eventWait)
	if err != nil {
		return err
	}
	if _, err := b.Ack(ctx, probe.GetMessage().GetId()); err != nil {
		return err
	}

	fmt.Println(`{"waiting": "restart"}`)
	if err := awaitLine("restarted"); err != nil {
		return err
	}
	if err := sendRetrying(ctx, a, c.prefix); err != nil {
		return err
	}
	deadline := time.Now().Add(resumeWait)
	for {
		ev, err := inbox.nextMessage(time.Until(deadline))
		if err != nil {
			return err
		}
		if ev.GetMessage().GetContent() == "after restart" {
			step(facts{"step": "resume", "readies": inbox.readies, "after_seq_is_cursor": inbox.cursorKept,
				"received": true, "redelivered": ev.GetRedelivered()})
			break
		}
	}
	c.close()
	c.subs, c.clients = nil, nil
	step(facts{"step": "closed"})
	return nil
}

// sendRetrying sends b "after restart" with an idempotency key, again every 0.2 s while the hub
// answers UNAVAILABLE (it is restarting; the connection comes back by itself), for up to 20 s.
func sendRetrying(ctx context.Context, a *hub.Client, prefix string) error {
	until := time.Now().Add(retryFor)
	for {
		// WithAllowOffline: the restarted hub counts b offline until its stream is back.
		_, err := a.Send(ctx, prefix+"-b", "after restart",
			hub.WithIdempotencyKey(prefix+"-after-restart"), hub.WithAllowOffline())
		if err == nil || hub.FromError(err).Code != codes.Unavailable || time.Now().After(until) {
			return err
		}
		time.Sleep(retryEvery)
	}
}

// awaitLine blocks until the line want arrives on stdin.
func awaitLine(want string) error {
	lines := bufio.NewScanner(os.Stdin)
	for lines.Scan() {
		if strings.TrimSpace(lines.Text()) == want {
			return nil
		}
	}
	return fmt.Errorf("stdin ended before %q", want)
}

// reader takes events from a subscription with a time limit, counting ready events and checking
// that each ready after the first resumes at the highest seq seen before it.
type reader struct {
	sub        *hub.Subscription
	readies    int
	highest    uint64
	cursorKept bool
}

func (r *reader) next(wait time.Duration) (*kxmv1.SubscribeResponse, error) {
	select {
	case ev, ok := <-r.sub.Events():
		if !ok {
			return nil, fmt.Errorf("the subscription ended: %v", r.sub.Err())
		}
		if ready := ev.GetReady(); ready != nil {
			r.readies++
			if r.readies > 1 {
				r.cursorKept = ready.GetAfterSeq() == r.highest
			}
		}
		r.highest = max(r.highest, ev.GetSeq())
		return ev, nil
	case <-time.After(wait):
		return nil, errors.New("no stream event in time")
	}
}

// nextMessage is the next message event, skipping presence and ready events.
func (r *reader) nextMessage(wait time.Duration) (*kxmv1.SubscribeResponse, error) {
	deadline := time.Now().Add(wait)
	for {
		ev, err := r.next(time.Until(deadline))
		if err != nil {
			return nil, err
		}
		switch kind(ev) {
		case "message":
			return ev, nil
		case "presence", "ready":
		default:
			return nil, fmt.Errorf("unexpected %s event", kind(ev))
		}
	}
}

// kind is the name of the event's oneof case.
func kind(ev *kxmv1.SubscribeResponse) string {
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
