package policy

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/a2a-mcp-bridge/bridge/request"
)

func loadConfig(t *testing.T, path string) (Config, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg Config
	err = yaml.UnmarshalWithOptions(data, &cfg, yaml.Strict())
	return cfg, err
}

func TestConfigFromYAML(t *testing.T) {
	cfg, err := loadConfig(t, "testdata/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := mustCompile(t, cfg)
	if d := e.Decide(context.Background(), request.Hop{Principal: staff(), Tool: "list", ToolReadOnly: true}); !d.Allow || d.Rule != "readers" ||
		d.Reason != "read-only tools for anyone holding tickets:read" {
		t.Fatalf("Decide = %+v, want allow by readers", d)
	}
	if d := e.Decide(context.Background(), request.Hop{Principal: bot(), Agent: "billing", ToolDestructive: true}); d.Allow || d.Rule != "bots-no-destructive" {
		t.Fatalf("Decide = %+v, want deny by bots-no-destructive", d)
	}
}

func TestBrokenConfigListsEveryProblem(t *testing.T) {
	cfg, err := loadConfig(t, "testdata/broken_policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.Validate()
	want := strings.Join([]string{
		`policy: default: must be "allow" or "deny", got "maybe"`,
		`policy: rule "typo": ERROR: <input>:1:4: undefined field 'agnet'`,
		`policy: rule "not-bool": ERROR: <input>:1:1: expression returns list(string), want bool`,
		`policy: rule "both": set exactly one of allow or deny, not both`,
		`policy: rules[3]: name is required`,
		`policy: rules[3]: ERROR: <input>:1:13: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`,
		`policy: rule "typo": duplicate name (also rules[0])`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Fatalf("Validate =\n%v\nwant\n%s", err, want)
	}
}

func TestUnknownKeyRejectedByStrictDecode(t *testing.T) {
	if _, err := loadConfig(t, "testdata/unknown_key.yaml"); err == nil || !strings.Contains(err.Error(), "alow") {
		t.Fatalf("strict decode error = %v, want one naming alow", err)
	}
}
