package hub

import (
	"context"
	"fmt"
	"iter"
	"time"

	"google.golang.org/protobuf/proto"

	kxmv1 "kxm.dev/hub/clients/go/gen/kxm/v1"
)

const (
	minPoll = 50 * time.Millisecond
	maxPoll = time.Second
)

// Assignments yields the open assignments of the client's agent (the workflow worker's loop), oldest
// first, waiting while there is none, until ctx is cancelled or the loop breaks:
//
//	for assignment, err := range worker.Assignments(ctx) {
//		if err != nil {
//			return err
//		}
//		result := &kxmv1.WorkerResult{Ok: true, Outcome: "passed"}
//		if _, err := worker.Complete(ctx, assignment.GetAssignmentId(), result); err != nil { ... }
//	}
//
// It calls NextAssignment with after_assignment_id = the last one yielded; when there is none after
// it, it looks again from the oldest, and when there is none at all it waits (0.05 s, doubling up to
// 1 s; back to 0.05 s after an assignment). An assignment still open after it was yielded (skipped,
// or its Complete failed) comes again after the next wait, so nothing is lost. A failed
// NextAssignment is yielded as an *Error (with a nil assignment) and ends the loop; cancelling ctx
// ends it without one.
func (c *Client) Assignments(ctx context.Context) iter.Seq2[*kxmv1.AssignmentRequest, error] {
	return func(yield func(*kxmv1.AssignmentRequest, error) bool) {
		cursor := ""
		round := map[string]bool{} // yielded since the last wait: not yielded again before one
		delay := minPoll
		for ctx.Err() == nil {
			response, err := c.workflows.NextAssignment(ctx, &kxmv1.NextAssignmentRequest{AfterAssignmentId: cursor})
			if err != nil {
				if ctx.Err() == nil {
					yield(nil, err)
				}
				return
			}
			found := response.GetAssignment().GetAssignmentId()
			if found != "" && !round[found] {
				cursor, round[found], delay = found, true, minPoll
				if !yield(response.GetAssignment(), nil) {
					return
				}
				continue
			}
			if cursor != "" && found == "" {
				cursor = "" // nothing after the last one: look from the oldest again (one may be older)
				continue
			}
			cursor, round = "", map[string]bool{}
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				return
			}
			delay = min(maxPoll, delay*2)
		}
	}
}

// Complete returns the agent's result for one of its assignments: a *kxmv1.WorkerResult, or a
// *kxmv1.ReviewEnvelope for a reviewer's assignment. Exactly one result per assignment: the same
// result again is answered as the first (duplicate), another is refused.
//
// It returns the hub's response, or an *Error: FAILED_PRECONDITION (ERROR_REASON_ASSIGNMENT_CLOSED)
// when the assignment closed meanwhile (drop it and go on to the next), INVALID_ARGUMENT
// (ERROR_REASON_PROTOCOL_ERROR) for a result that does not fit the assignment, NOT_FOUND
// (ERROR_REASON_ASSIGNMENT_NOT_FOUND), PERMISSION_DENIED (ERROR_REASON_ASSIGNMENT_FORBIDDEN). A
// result of another type is a plain error, before any call.
func (c *Client) Complete(ctx context.Context, assignmentID string, result proto.Message) (*kxmv1.CompleteAssignmentResponse, error) {
	request := &kxmv1.CompleteAssignmentRequest{AssignmentId: assignmentID}
	switch r := result.(type) {
	case *kxmv1.WorkerResult:
		request.Result = &kxmv1.CompleteAssignmentRequest_WorkerResult{WorkerResult: r}
	case *kxmv1.ReviewEnvelope:
		request.Result = &kxmv1.CompleteAssignmentRequest_Review{Review: r}
	default:
		return nil, fmt.Errorf("hub: Complete takes a *kxmv1.WorkerResult or a *kxmv1.ReviewEnvelope, not %T", result)
	}
	return c.workflows.CompleteAssignment(ctx, request)
}
