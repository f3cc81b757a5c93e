package expose

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// TestContentKeptWhole: what an A2A part's metadata carries of MCP content
// (annotations, a link's title and description, _meta) is on the MCP
// content again; the agent's own metadata rides under a2a/metadata, and
// _meta keys reserved by MCP are dropped.
func TestContentKeptWhole(t *testing.T) {
	text := a2a.TextPart("hi")
	text.Metadata = a2a.Metadata{
		metaAnnotations: map[string]any{"audience": []any{"user"}, "priority": 0.9},
		metaMeta:        map[string]any{"example.com/trace": "t-1", "io.modelcontextprotocol/related-task": "x"},
		"origin":        "agent",
	}
	link := a2a.URLPart("https://files.example/r.pdf", "application/pdf", "r.pdf")
	link.Metadata = a2a.Metadata{metaTitle: "Quarterly report", metaDescription: "Q3 numbers"}
	tools := &AgentTools{}
	r := &run{taskID: "t", contextID: "c", state: a2a.TaskStateCompleted, artifacts: []a2a.Artifact{{ArtifactID: "a", Parts: []a2a.Part{text, link}}}}
	res := tools.result(&agent{cfg: AgentConfig{Alias: "billing"}, toolName: "billing"}, r)
	b, err := json.Marshal(res.Content)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("content %s", b)
	}
	ann, _ := got[0]["annotations"].(map[string]any)
	meta, _ := got[0]["_meta"].(map[string]any)
	if ann["priority"] != 0.9 || meta["example.com/trace"] != "t-1" || meta["io.modelcontextprotocol/related-task"] != nil {
		t.Errorf("text content %s", b)
	}
	if am, _ := meta["a2a/metadata"].(map[string]any); am["origin"] != "agent" {
		t.Errorf("agent metadata not under a2a/metadata: %s", b)
	}
	if got[1]["title"] != "Quarterly report" || !strings.HasPrefix(got[1]["description"].(string), "Q3 numbers") || got[1]["type"] != "resource_link" {
		t.Errorf("link content %s", b)
	}
}

// TestCauseTextNamesTheKindNotTheAddress: a down agent's call says why,
// but never which address or URL the bridge dialled.
func TestCauseTextNamesTheKindNotTheAddress(t *testing.T) {
	refused := &url.Error{Op: "Get", URL: "http://10.0.0.7:9000/.well-known/agent-card.json", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	tests := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("expose: agent %q: fetch card: %w", "x", refused), "connection refused"},
		{fmt.Errorf("fetch card: %w", &net.DNSError{Err: "no such host", Name: "billing.internal", IsNotFound: true}), "its host name does not resolve"},
		{fmt.Errorf("fetch card: %w", context.DeadlineExceeded), "the connection timed out"},
		{errors.New(`expose: agent "x": fetch card: HTTP status 503`), "HTTP status 503"},
		{fmt.Errorf("fetch card: %w", netguard.ErrBlocked), "the bridge's egress policy refuses its address"},
		{errors.New("something else at 10.0.0.7"), "the connection failed"},
	}
	for _, tt := range tests {
		got := causeText(tt.err)
		if got != tt.want || strings.Contains(got, "10.0.0.7") || strings.Contains(got, "billing.internal") {
			t.Errorf("causeText(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestStructuredEncodesAsTheMap: structuredContent is the bytes the map it
// replaced encoded to, every field set or only the required ones.
func TestStructuredEncodesAsTheMap(t *testing.T) {
	data := json.RawMessage(`{"k":1}`)
	for _, tc := range []struct {
		name string
		sc   structured
		m    map[string]any
	}{
		{"required only", structured{TaskID: "t", State: "completed"},
			map[string]any{"taskId": "t", "contextId": "", "state": "completed"}},
		{"every field", structured{
			Artifacts: []artifactRef{{ArtifactID: "a1", Name: "n"}, {ArtifactID: "a2"}},
			ContextID: "c", Data: []json.RawMessage{data, data}, Message: "m", Question: "q", State: "input_required", TaskID: "t", Text: "x\ny",
		}, map[string]any{
			"artifacts": []map[string]any{{"artifactId": "a1", "name": "n"}, {"artifactId": "a2", "name": ""}},
			"contextId": "c", "data": []json.RawMessage{data, data}, "message": "m", "question": "q", "state": "input_required", "taskId": "t", "text": "x\ny",
		}},
		{"one data part", structured{TaskID: "t", ContextID: "c", State: "completed", Data: data},
			map[string]any{"taskId": "t", "contextId": "c", "state": "completed", "data": data}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(&tc.sc)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(tc.m)
			if string(got) != string(want) {
				t.Fatalf("structured = %s\nmap        = %s", got, want)
			}
		})
	}
}
