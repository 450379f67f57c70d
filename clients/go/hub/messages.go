package hub

import (
	"context"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	kxmv1 "kxm.dev/hub/clients/go/gen/kxm/v1"
)

const (
	// longPollSlack is how much longer than its wait a long poll's deadline is: the hub answers by
	// itself when the wait ends.
	longPollSlack = 5 * time.Second
	// maxWaitCall is the longest wait one WaitMessage call covers; Wait makes as many as it needs.
	maxWaitCall = 60 * time.Second
)

// A RegisterOption sets a field of the RegisterAgent request (WithPurpose, WithModel,
// WithPreviousKey, or a function of your own).
type RegisterOption func(*kxmv1.RegisterAgentRequest)

// WithPurpose is what the agent is for, shown to the project's other agents.
func WithPurpose(purpose string) RegisterOption {
	return func(r *kxmv1.RegisterAgentRequest) { r.Purpose = purpose }
}

// WithModel is the model behind the agent.
func WithModel(model string) RegisterOption {
	return func(r *kxmv1.RegisterAgentRequest) { r.Model = model }
}

// WithPreviousKey resumes the agent of that name with its current key: the hub issues a new key,
// revokes the old one and ends the streams opened with it (resumed is true in the response).
func WithPreviousKey(key string) RegisterOption {
	return func(r *kxmv1.RegisterAgentRequest) { r.PreviousKey = key }
}

// Register registers (or resumes, WithPreviousKey) the agent name in the token's project and makes
// the client act as it from then on: every later call carries the returned id and key. The call
// itself carries the bearer metadata only (no agent headers, no tool-policy tokens).
//
// It returns the hub's response, or an *Error: INVALID_ARGUMENT (ERROR_REASON_PROTOCOL_ERROR, with a
// violation for "name") for a bad name, ALREADY_EXISTS (ERROR_REASON_DUPLICATE_AGENT_NAME) for a name
// live elsewhere, UNAUTHENTICATED for a bad or missing token.
func (c *Client) Register(ctx context.Context, name string, opts ...RegisterOption) (*kxmv1.RegisterAgentResponse, error) {
	request := &kxmv1.RegisterAgentRequest{Name: name}
	for _, opt := range opts {
		opt(request)
	}
	response, err := c.agents.RegisterAgent(context.WithValue(ctx, bearerOnly{}, true), request)
	if err != nil {
		return nil, err
	}
	c.UseAgent(response.GetAgent().GetId(), response.GetAgentKey())
	return response, nil
}

// A SendOption sets a field of the SendMessage request (WithIdempotencyKey, WithServerWait, or a
// function of your own).
type SendOption func(*kxmv1.SendMessageRequest)

// WithIdempotencyKey makes a repeated send (the same key and request) return the first message with
// repeated set instead of sending again: use it when you retry a send.
func WithIdempotencyKey(key string) SendOption {
	return func(r *kxmv1.SendMessageRequest) { r.IdempotencyKey = key }
}

// WithServerWait has the hub wait up to d (at most 60 s) for the message to end before it answers:
// the response is then terminal with the reply, saving a WaitMessage call. Without a deadline of the
// caller's, the call's deadline is the client's timeout plus d.
func WithServerWait(d time.Duration) SendOption {
	return func(r *kxmv1.SendMessageRequest) { r.Wait = durationpb.New(d) }
}

// WithAllowOffline sends to a registered agent that is offline too (its inbox keeps the message).
func WithAllowOffline() SendOption {
	return func(r *kxmv1.SendMessageRequest) { r.AllowOffline = true }
}

// Send sends a request to another agent of the project (its name or id) as the client's agent.
//
// It returns the hub's response (with WithServerWait, terminal and the reply when the message ended
// in time), or an *Error: NOT_FOUND (ERROR_REASON_TARGET_NOT_FOUND) for no such live agent (or no such
// agent at all, WithAllowOffline),
// INVALID_ARGUMENT (ERROR_REASON_SELF_TARGET, ERROR_REASON_PROTOCOL_ERROR), ABORTED
// (ERROR_REASON_IDEMPOTENCY_CONFLICT) for a key reused for another request, UNAVAILABLE when the hub
// cannot be reached (retry with the same idempotency key).
func (c *Client) Send(ctx context.Context, target, content string, opts ...SendOption) (*kxmv1.SendMessageResponse, error) {
	request := &kxmv1.SendMessageRequest{Target: target, Content: content}
	for _, opt := range opts {
		opt(request)
	}
	if wait := request.GetWait(); wait != nil {
		if request.ReplyWait == nil {
			// The deprecated field too, with the same value: a hub older than `wait` reads only it.
			request.ReplyWait = durationpb.New(wait.AsDuration())
		}
		if _, ok := ctx.Deadline(); !ok && c.timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, c.timeout+wait.AsDuration())
			defer cancel()
		}
	}
	return c.messages.SendMessage(ctx, request)
}

// Reply answers (once) a message the client's agent received.
//
// It returns the replied message, or an *Error: NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND),
// PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN) for a message not addressed to this agent,
// FAILED_PRECONDITION (ERROR_REASON_DUPLICATE_REPLY, ERROR_REASON_INVALID_MESSAGE_STATE).
func (c *Client) Reply(ctx context.Context, messageID, content string) (*kxmv1.ReplyToMessageResponse, error) {
	return c.messages.ReplyToMessage(ctx, &kxmv1.ReplyToMessageRequest{MessageId: messageID, Content: content})
}

// Ack acknowledges received messages (all or none): they are not redelivered on a stream.
//
// It returns the acknowledged messages, or an *Error as Reply's.
func (c *Client) Ack(ctx context.Context, messageIDs ...string) (*kxmv1.AckMessagesResponse, error) {
	return c.messages.AckMessages(ctx, &kxmv1.AckMessagesRequest{MessageIds: messageIDs})
}

// GetMessage reads a message the client's agent sent or received.
//
// It returns the message, or an *Error: NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND), PERMISSION_DENIED
// (ERROR_REASON_MESSAGE_FORBIDDEN), INVALID_ARGUMENT for a malformed id.
func (c *Client) GetMessage(ctx context.Context, messageID string) (*kxmv1.GetMessageResponse, error) {
	return c.messages.GetMessage(ctx, &kxmv1.GetMessageRequest{MessageId: messageID})
}

// Wait waits until the message is terminal (replied, cancelled, expired), for at most wait. A wait
// that ends first returns the current state with terminal false; that is not an error. One
// WaitMessage call covers up to 60 s of wait, so a longer one makes several; each call's deadline is
// its wait plus 5 s (a deadline of the caller's context bounds them all).
//
// It returns the last response, or an *Error: NOT_FOUND (ERROR_REASON_MESSAGE_NOT_FOUND),
// PERMISSION_DENIED (ERROR_REASON_MESSAGE_FORBIDDEN).
func (c *Client) Wait(ctx context.Context, messageID string, wait time.Duration) (*kxmv1.WaitMessageResponse, error) {
	end := time.Now().Add(wait)
	for {
		poll := min(max(time.Until(end), 0), maxWaitCall)
		response, err := c.waitOnce(ctx, messageID, poll)
		if err != nil || response.GetTerminal() || !time.Now().Before(end) {
			return response, err
		}
	}
}

// waitOnce is one WaitMessage call with a server-side wait of poll.
func (c *Client) waitOnce(ctx context.Context, messageID string, poll time.Duration) (*kxmv1.WaitMessageResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, poll+longPollSlack)
	defer cancel()
	// The deprecated `timeout` field too, with the same value, for hubs older than `wait`.
	return c.messages.WaitMessage(ctx, &kxmv1.WaitMessageRequest{
		MessageId: messageID, Wait: durationpb.New(poll), Timeout: durationpb.New(poll),
	})
}
