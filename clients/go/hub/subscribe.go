package hub

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	kxmv1 "kxm.dev/hub/clients/go/gen/kxm/v1"
)

const (
	initialBackoff = 100 * time.Millisecond
	maxBackoff     = 5 * time.Second
	// remembered is how many yielded message ids a subscription keeps to drop their redeliveries.
	remembered = 1024
)

// Subscription is the agent's inbox stream, opened again by itself whenever it ends: read events
// from Events until it is closed, then Err says why it ended. Stop it with Close or by cancelling the
// context given to Subscribe.
type Subscription struct {
	events chan *kxmv1.SubscribeResponse
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	err    error
	closed bool
}

// Subscribe opens the agent's inbox stream from afterSeq (0: from the oldest event kept) and keeps it
// open across stream ends until the caller stops it.
//
// Each (re)connection starts with a ready event; then come redelivered unacknowledged messages
// (redelivered set) and the events after the cursor, each with its seq. The cursor is the ready
// event's after_seq, then the highest seq seen. When the stream ends OK or with UNAVAILABLE,
// DEADLINE_EXCEEDED, CANCELLED (not the caller's), UNKNOWN, INTERNAL or RESOURCE_EXHAUSTED (the hub
// restarted or went away, a slow reader was cut off, the connection broke), it is opened again with
// after_seq = the cursor after a jittered backoff (between half and all of a delay starting at
// 0.1 s, doubling up to 5 s, back to 0.1 s after a ready event). Any other error (bad credentials,
// the agent's key replaced, a bad argument) ends the subscription: Events is closed and Err returns
// the *Error. Closing the client (Client.Close) ends it too: Events is closed and Err is a
// CANCELLED *Error.
//
// Within one subscription a message is delivered once: a redelivery of one already delivered (its
// acknowledgement had not reached the hub before a reconnect) is dropped; the latest 1,024 ids are
// remembered. A new subscription gets every unacknowledged message again: acknowledge messages
// (Ack, or Reply) once handled. Streams carry no deadline.
func (c *Client) Subscribe(ctx context.Context, afterSeq uint64) *Subscription {
	ctx, cancel := context.WithCancel(ctx)
	s := &Subscription{events: make(chan *kxmv1.SubscribeResponse), cancel: cancel, done: make(chan struct{})}
	go s.run(ctx, c, afterSeq)
	return s
}

// Events delivers the subscription's events in order. It is closed when the subscription ends.
func (s *Subscription) Events() <-chan *kxmv1.SubscribeResponse { return s.events }

// Err is why the subscription ended, once Events is closed: the *Error that ended it (CANCELLED when
// the client was closed), the context's error when the context given to Subscribe was cancelled,
// nil after Close (and while it runs).
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close stops the subscription and waits until its stream is closed. Calling it again does nothing.
func (s *Subscription) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	<-s.done
}

// run opens the stream, and again after every resumable end, until the context is done, the client
// is closed or an error ends the subscription.
func (s *Subscription) run(ctx context.Context, c *Client, afterSeq uint64) {
	defer close(s.done)
	defer close(s.events)
	defer s.cancel()
	cursor, delay := afterSeq, initialBackoff
	seen := newRecentIDs(remembered)
	for {
		err := s.stream(ctx, c, &cursor, &delay, seen)
		if ctx.Err() != nil {
			s.end(ctx.Err())
			return
		}
		if c.isClosed() { // every new stream would fail CANCELLED: ErrClientConnClosing
			s.end(clientClosed(err))
			return
		}
		if !resumable(err) {
			s.end(err)
			return
		}
		// Uniform between half and all of the delay, so clients cut off together come back apart.
		wait := delay/2 + rand.N(delay/2+1)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			s.end(ctx.Err())
			return
		case <-c.closing:
			s.end(clientClosed(nil))
			return
		}
		delay = min(maxBackoff, delay*2)
	}
}

// stream reads one Subscribe stream to its end, delivering its events: nil when it ended OK, else
// the error it ended with.
func (s *Subscription) stream(ctx context.Context, c *Client, cursor *uint64, delay *time.Duration, seen *recentIDs) error {
	stream, err := c.messages.Subscribe(ctx, &kxmv1.SubscribeRequest{AfterSeq: *cursor})
	if err != nil {
		return err
	}
	for {
		event, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if ready := event.GetReady(); ready != nil {
			*delay = initialBackoff
			*cursor = ready.GetAfterSeq()
		} else {
			*cursor = max(*cursor, event.GetSeq())
		}
		if message := event.GetMessage(); message != nil {
			if event.GetRedelivered() && seen.has(message.GetId()) {
				continue // delivered on an earlier connection of this subscription
			}
			seen.add(message.GetId())
		}
		select {
		case s.events <- event:
		case <-ctx.Done():
			return ctx.Err()
		case <-c.closing:
			return clientClosed(nil)
		}
	}
}

// end records why the subscription ended (nil when Close stopped it).
func (s *Subscription) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		err = nil
	}
	s.err = err
}

// clientClosed is why a subscription of a closed client ended: the stream's own error when it is
// CANCELLED (the connection closing), else a CANCELLED *Error saying the client was closed.
func clientClosed(err error) error {
	if e := FromError(err); e != nil && e.Code == codes.Canceled {
		return e
	}
	return FromError(status.Error(codes.Canceled, "hub: the client was closed"))
}

// resumable is whether a stream that ended with err is opened again: it ended OK, or the hub stopped
// or moved, the connection broke, or a limit passes (RESOURCE_EXHAUSTED: a slow reader cut off, or
// the agent's old streams not yet closed after a reconnect).
func resumable(err error) bool {
	if err == nil {
		return true
	}
	switch FromError(err).Code {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.Unknown, codes.Internal,
		codes.ResourceExhausted:
		return true
	}
	return false
}

// recentIDs remembers the latest n ids added.
type recentIDs struct {
	order []string
	next  int
	set   map[string]struct{}
}

func newRecentIDs(n int) *recentIDs {
	return &recentIDs{order: make([]string, 0, n), set: make(map[string]struct{}, n)}
}

func (r *recentIDs) has(id string) bool {
	_, ok := r.set[id]
	return ok
}

func (r *recentIDs) add(id string) {
	if r.has(id) {
		return
	}
	if len(r.order) < cap(r.order) {
		r.order = append(r.order, id)
	} else {
		delete(r.set, r.order[r.next])
		r.order[r.next] = id
		r.next = (r.next + 1) % len(r.order)
	}
	r.set[id] = struct{}{}
}
