//go:build interop

package mcpconformance

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/gateway/gatewaytest"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/mcp/expose"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// fixtureScenarios are the scenarios that call the suite's own fixture
// tools, resources and prompts (test_simple_text, test://static-text,
// test_simple_prompt, ...). The expose face serves A2A agents as tools, not
// those fixtures, so these fail by construction, with the reason.
var fixtureScenarios = map[string]string{
	"tools-call-simple-text":        "calls the fixture tool test_simple_text",
	"tools-call-image":              "calls the fixture tool test_image_content",
	"tools-call-audio":              "calls the fixture tool test_audio_content",
	"tools-call-embedded-resource":  "calls the fixture tool test_embedded_resource",
	"tools-call-mixed-content":      "calls the fixture tool test_multiple_content_types",
	"tools-call-with-logging":       "calls the fixture tool test_tool_with_logging",
	"tools-call-error":              "calls the fixture tool test_error_handling",
	"tools-call-with-progress":      "calls the fixture tool test_tool_with_progress",
	"tools-call-sampling":           "calls the fixture tool test_sampling",
	"tools-call-elicitation":        "calls the fixture tool test_elicitation",
	"elicitation-sep1034-defaults":  "calls the fixture tool test_elicitation_sep1034_defaults",
	"elicitation-sep1330-enums":     "calls the fixture tool test_elicitation_sep1330_enums",
	"json-schema-2020-12":           "looks for the fixture tool json_schema_2020_12_tool in tools/list",
	"server-sse-polling":            "calls the fixture tool test_reconnection (without it: warnings only, so it passes)",
	"completion-complete":           "completes the fixture prompt's arguments (passes: the face declares completions and answers an empty list)",
	"resources-read-text":           "reads the fixture resource test://static-text",
	"resources-read-binary":         "reads the fixture resource test://static-binary",
	"resources-templates-read":      "reads the fixture template test://template/{id}/data",
	"resources-subscribe":           "subscribes to the fixture resource test://watched-resource",
	"resources-unsubscribe":         "unsubscribes from the fixture resource",
	"prompts-list":                  "expects the fixture prompts in prompts/list (passes on the empty list)",
	"prompts-get-simple":            "gets the fixture prompt test_simple_prompt",
	"prompts-get-with-args":         "gets the fixture prompt test_prompt_with_arguments",
	"prompts-get-embedded-resource": "gets the fixture prompt test_prompt_with_embedded_resource",
	"prompts-get-with-image":        "gets the fixture prompt test_prompt_with_image",
}

// serveExpose runs `bridge demo` in-process (its configuration through
// gateway.Build, as gateway/demo_test.go does): the demo A2A agent exposed
// as MCP tools by expose behind the expose face at /mcp, on 127.0.0.1.
func serveExpose(t *testing.T) string {
	t.Helper()
	_, base := gatewaytest.StartDemo(t, quietLog())
	return base + "/mcp"
}

// TestConformanceExposeFace runs the suite against the expose face serving
// the demo agent's tools. Every scenario that does not depend on the
// suite's fixtures must pass (dns-rebinding-protection, server-initialize,
// ping, logging-set-level, tools-list, resources-list,
// server-sse-multiple-streams); the fixture scenarios are reported only.
func TestConformanceExposeFace(t *testing.T) {
	requireSuite(t)
	t.Run("http", func(t *testing.T) { checkExpose(t, serveExpose(t)) })
	t.Run("stdio", func(t *testing.T) { checkExpose(t, serveStdioShim(t, selfCommand(t, exposeStdioEnv+"=1"))) })
}

// exposeStdioEnv makes the test binary serve the demo agent's tools over
// stdio (the face's stdio transport, as bridge mcp does) instead of running
// tests.
const exposeStdioEnv = "BRIDGE_CONFORMANCE_EXPOSE_STDIO"

// serveExposeStdio is the child mode: the demo agent (gatewaytest.ServeDemo on a
// loopback listener of this process) exposed as MCP tools by expose
// behind the face on this process's stdio.
func serveExposeStdio() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	log := quietLog()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 1
	}
	public := "http://" + ln.Addr().String()
	demo, stopDemo, err := gatewaytest.ServeDemo(ln, log)
	if err != nil {
		log.Error("conformance: demo", "err", err)
		return 1
	}
	defer stopDemo()
	at, err := expose.New(expose.Config{
		// The card is signed by the demo bridge's (ephemeral) key.
		Agents:     []expose.AgentConfig{{Alias: "echo", CardURL: public + "/.well-known/agent-card.json", Keys: demo.Keys(), RequireSignature: true}},
		HTTPClient: netguard.Trusted(netguard.Config{Timeout: -1, MaxBodyBytes: -1}),
		Logger:     log,
	})
	if err != nil {
		log.Error("conformance: expose", "err", err)
		return 1
	}
	go at.Run(ctx)
	f, err := endpoint.New(endpoint.Config{Name: "bridge-demo", Sources: []endpoint.ToolSource{at}, Logger: log})
	if err != nil {
		return 1
	}
	if err := f.ServeStdio(ctx, os.Stdin, os.Stdout); err != nil {
		return 1
	}
	return 0
}

func checkExpose(t *testing.T, url string) {
	res, out := run(t, url)
	names := make([]string, 0, len(res))
	for n := range res {
		names = append(names, n)
	}
	sort.Strings(names)
	var report strings.Builder
	mark := map[bool]string{true: "pass", false: "FAIL"}
	fmt.Fprintf(&report, "%-32s %-6s %s\n", "scenario", "result", "depends on the suite's fixtures")
	for n := range fixtureScenarios {
		if _, ok := res[n]; !ok {
			t.Errorf("fixture scenario %s was not run: the suite changed, review fixtureScenarios", n)
		}
	}
	for _, n := range names {
		fmt.Fprintf(&report, "%-32s %-6s %s\n", n, mark[res[n]], fixtureScenarios[n])
		if _, fixture := fixtureScenarios[n]; !fixture && !res[n] {
			t.Errorf("%s fails against the expose face and does not depend on the suite's fixtures", n)
		}
	}
	t.Logf("conformance results (expose face):\n%s", report.String())
	if t.Failed() {
		t.Logf("suite output:\n%s", out)
	}
}
