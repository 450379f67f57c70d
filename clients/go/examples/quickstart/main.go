// Command quickstart registers two agents: bob answers every request with "pong: <content>", alice
// sends bob "ping" and prints the answer. The hub and the project token come from KXM_ADDR and
// KXM_TOKEN, or from the credentials file. Run: go run ./examples/quickstart
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"kxm.dev/hub/clients/go/hub"
)

func main() {
	if err := run(context.Background()); err != nil {
		report(err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	prefix := cmp.Or(os.Getenv("KXM_NAME_PREFIX"), "quickstart")
	alice, err := hub.New() // everything from the environment or the credentials file
	if err != nil {
		return err
	}
	defer alice.Close()
	bob, err := hub.New()
	if err != nil {
		return err
	}
	defer bob.Close()
	if _, err := alice.Register(ctx, prefix+"-alice", hub.WithPurpose("asks")); err != nil {
		return err
	}
	if _, err := bob.Register(ctx, prefix+"-bob", hub.WithPurpose("answers")); err != nil {
		return err
	}

	// Bob reads his inbox (resumed by itself if the stream drops) and answers every request.
	inbox := bob.Subscribe(ctx, 0)
	answered := make(chan struct{})
	defer func() { inbox.Close(); <-answered }() // before bob.Close: let a reply in flight finish
	go func() {
		defer close(answered)
		for event := range inbox.Events() {
			if m := event.GetMessage(); m != nil {
				_, err := bob.Ack(ctx, m.GetId())
				if err == nil {
					_, err = bob.Reply(ctx, m.GetId(), "pong: "+m.GetContent())
				}
				if err != nil {
					report(err)
				}
			}
		}
	}()

	// Alice asks; the hub waits up to 10 s for the reply before it answers.
	sent, err := alice.Send(ctx, prefix+"-bob", "ping", hub.WithServerWait(10*time.Second))
	if err != nil {
		return err
	}
	if !sent.GetTerminal() {
		return errors.New("no answer within 10 s")
	}
	fmt.Println("answered:", sent.GetMessage().GetReply().GetContent())
	return nil
}

// report prints an error to stderr: a hub error as its code, reason and message.
func report(err error) {
	var e *hub.Error
	if errors.As(err, &e) {
		fmt.Fprintf(os.Stderr, "error: code=%s reason=%s message=%s\n", e.CodeName(), e.Reason, e.Message)
	} else {
		fmt.Fprintln(os.Stderr, "error:", err)
	}
}
