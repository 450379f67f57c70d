// Command conformance runs the kxm client conformance scenario against a live hub and prints a JSON
// transcript ({"language": "go", "ok": ..., "steps": [...]}) to stdout. It exits 1 when a step fails.
//
// Environment: KXM_ADDR (host:port, plaintext), KXM_PROJECT_TOKEN, KXM_NAME_PREFIX.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	kxmv1 "kxm.dev/hub/clients/go/gen/kxm/v1"
)

const missingMessageID = "msg_00000000000000000000000000000000"

// codeNames are the canonical gRPC status code names, indexed by code number.
var codeNames = []string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
	"OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
}

type step map[string]any

type transcript struct {
	Language string `json:"language"`
	OK       bool   `json:"ok"`
	Steps    []step `json:"steps"`
}

func main() {
	out := transcript{Language: "go", OK: true, Steps: []step{}}
	defer func() {
		enc := json.NewEncoder(os.Stdout)
		_ = enc.Encode(out)
		if !out.OK {
			os.Exit(1)
		}
	}()
	add := func(s step) bool {
		out.Steps = append(out.Steps, s)
		if ok, _ := s["ok"].(bool); !ok {
			out.OK = false
		}
		return out.OK
	}

	addr, token, prefix := os.Getenv("KXM_ADDR"), os.Getenv("KXM_PROJECT_TOKEN"), os.Getenv("KXM_NAME_PREFIX")
	if addr == "" || token == "" || prefix == "" {
		add(step{"name": "config", "ok": false, "error": "set KXM_ADDR, KXM_PROJECT_TOKEN and KXM_NAME_PREFIX"})
		return
	}
	conn, err := grpc.NewClient(addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		// The hub accepts client keepalive pings no more often than every 10 s.
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 30 * time.Second, Timeout: 10 * time.Second}),
	)
	if err != nil {
		add(step{"name": "connect", "ok": false, "error": err.Error()})
		return
	}
	defer conn.Close()
	agents := kxmv1.NewAgentServiceClient(conn)
	messages := kxmv1.NewMessageServiceClient(conn)
	project := metadata.Pairs("authorization", "Bearer "+token)

	registered := map[string]*kxmv1.RegisterAgentResponse{}
	for _, suffix := range []string{"a", "b"} {
		name := prefix + "-" + suffix
		ctx, cancel := context.WithTimeout(metadata.NewOutgoingContext(context.Background(), project), 10*time.Second)
		resp, err := agents.RegisterAgent(ctx, &kxmv1.RegisterAgentRequest{Name: name, Purpose: "conformance", Model: "go"})
		cancel()
		s := step{"name": "register_" + suffix, "agent_name": name}
		if err != nil {
			describe(s, err)
			s["ok"] = false
			add(s)
			return
		}
		s["ok"] = resp.GetAgent().GetId() != "" && resp.GetAgentKey() != ""
		s["code"] = "OK"
		s["agent_id"] = resp.GetAgent().GetId()
		registered[suffix] = resp
		if !add(s) {
			return
		}
	}

	a := registered["a"]
	agentMD := metadata.Join(project, metadata.Pairs("x-kxm-agent-id", a.GetAgent().GetId(), "x-kxm-agent-key", a.GetAgentKey()))
	ctx, cancel := context.WithTimeout(metadata.NewOutgoingContext(context.Background(), agentMD), 10*time.Second)
	defer cancel()
	_, err = messages.GetMessage(ctx, &kxmv1.GetMessageRequest{MessageId: missingMessageID})
	s := step{"name": "get_missing_message", "message_id": missingMessageID}
	if err == nil {
		s["code"] = "OK"
		s["ok"] = false
	} else {
		describe(s, err)
		s["ok"] = s["code"] == "NOT_FOUND" && s["reason"] == kxmv1.ErrorReason_ERROR_REASON_MESSAGE_NOT_FOUND.String()
	}
	add(s)
}

// describe records an RPC error's code, message and google.rpc.ErrorInfo (reason, domain) in s.
func describe(s step, err error) {
	st, ok := status.FromError(err)
	if !ok {
		s["code"] = "UNKNOWN"
		s["error"] = err.Error()
		return
	}
	s["code"] = codeName(uint32(st.Code()))
	s["message"] = st.Message()
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			s["reason"] = info.GetReason()
			s["domain"] = info.GetDomain()
		}
	}
}

func codeName(code uint32) string {
	if int(code) < len(codeNames) {
		return codeNames[code]
	}
	return fmt.Sprintf("CODE_%d", code)
}
