//go:build interop

// Package fault is the fault suite: the real bridge binary between real
// peers (server-everything, the @a2a-js/sdk agent, our own MCP test server,
// another bridge), each test breaking one thing the way it breaks in
// production (a peer killed, restarted, late, re-keyed, …) and asserting that
// the bridge recovers, and how fast. Each test is named after its fault.
//
// Run it with `make interop` or
//
//	go test -tags interop -race -v ./interop/fault/
//
// It needs node (v20+) and npm; the pinned peers come from package-lock.json
// here and in ../a2ajs (npm ci runs when node_modules is missing). Every
// socket is on 127.0.0.1; the processes are started by internal/bridgetest
// (Proc, StartBridge, the peers). Timing bounds are generous liveness bounds: each
// test logs the recovery time it measured.
package fault

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// APIKey is the key every bridge config of the suite accepts (apiKeyAuth).
const APIKey = "change-me"

// apiKeyAuth is the auth section for APIKey (sha256 of "change-me").
const apiKeyAuth = `auth:
  api_keys:
    - {name: tester, sha256: e2186dbdb1bb4193608605e84f33208765b5693b55edd4f730a719a100eeea6f}
`

// allowAll is a policy that lets the tester do everything.
const allowAll = `policy:
  default: deny
  rules:
    - {name: tester, allow: 'principal.subject == "tester"'}
`

func TestMain(m *testing.M) { os.Exit(bridgetest.Main(m)) }

// startBridge runs `bridge serve` on cfg (bridgetest.StartBridge) until
// /healthz answers: the suite starts bridges whose peers are down, so
// it does not wait for /readyz.
func startBridge(t *testing.T, cfg string) *bridgetest.Bridge {
	t.Helper()
	return bridgetest.StartBridge(t, cfg, bridgetest.UntilHealthy())
}

// RPCError is a JSON-RPC error object as the bridge sends it.
type RPCError struct {
	Code    int              `json:"code"`
	Message string           `json:"message"`
	Data    []map[string]any `json:"data"`
}

// Reason is the google.rpc.ErrorInfo reason in the error's data, if any.
func (e *RPCError) Reason() string {
	if e == nil {
		return ""
	}
	for _, d := range e.Data {
		if d["@type"] == "type.googleapis.com/google.rpc.ErrorInfo" {
			r, _ := d["reason"].(string)
			return r
		}
	}
	return ""
}

// a2aCall posts one JSON-RPC request to an A2A agent's base URL with the
// suite's API key and returns the HTTP status, the result and the error.
func a2aCall(t *testing.T, url, method string, params any) (int, json.RawMessage, *RPCError) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Authorization", "Bearer "+APIKey)
	resp, err := bridgetest.Client.Do(req)
	if err != nil {
		t.Fatalf("fault: POST %s %s: %v", url, method, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return resp.StatusCode, nil, &RPCError{Code: 0, Message: "not JSON-RPC: " + string(raw)}
	}
	return resp.StatusCode, out.Result, out.Error
}

// textMessage is SendMessage params with one text part.
func textMessage(text string) map[string]any {
	return map[string]any{"message": map[string]any{
		"messageId": fmt.Sprintf("m-%d", time.Now().UnixNano()), "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": text}},
	}}
}

// toolMessage is SendMessage params that call a published tool.
func toolMessage(tool string, args any) map[string]any {
	return map[string]any{"message": map[string]any{
		"messageId": fmt.Sprintf("m-%d", time.Now().UnixNano()), "role": "ROLE_USER",
		"parts": []any{map[string]any{"data": map[string]any{"tool": tool, "arguments": args}, "mediaType": "application/json"}},
	}}
}

// taskState is the state of the task in a SendMessage result ("" for a
// direct message).
func taskState(result json.RawMessage) string {
	var r struct {
		Task *struct {
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"task"`
	}
	_ = json.Unmarshal(result, &r)
	if r.Task == nil {
		return ""
	}
	return r.Task.Status.State
}
