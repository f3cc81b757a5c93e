package config_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/a2a-mcp-bridge/bridge/config/internal/reference"
)

// TestGeneratedFilesAreFresh fails when config/schema.json or
// docs/config.md no longer match the Go types and their doc comments.
func TestGeneratedFilesAreFresh(t *testing.T) {
	root, err := reference.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	schema, md, err := reference.Build(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path string
		want []byte
	}{
		{filepath.Join(root, "config", "schema.json"), schema},
		{filepath.Join(root, "docs", "config.md"), md},
	} {
		got, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.want) {
			t.Errorf("%s is stale: run go generate ./config", f.path)
		}
	}
}

func TestEveryFieldIsDocumented(t *testing.T) {
	root, err := reference.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := reference.Keys(root)
	if err != nil {
		t.Fatal(err) // Build fails on any field without a doc comment.
	}
	md, err := os.ReadFile(filepath.Join(root, "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !bytes.Contains(md, []byte("`"+k+"`")) {
			t.Errorf("docs/config.md does not document %s", k)
		}
	}
	for _, k := range []string{"publish[].stdio.command", "expose.agents[].card.trusted_jku_hosts", "netguard.unsafe_allow_confirm", "limits.rules[].when"} {
		if !strings.Contains(string(md), "`"+k+"`") {
			t.Errorf("docs/config.md misses %s", k)
		}
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(reference.SchemaID, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(reference.SchemaID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func yamlDoc(t *testing.T, data []byte) any {
	t.Helper()
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSchemaAcceptsExamples(t *testing.T) {
	s := compileSchema(t)
	files, _ := filepath.Glob("../examples/*.yaml")
	files = append(files, "testdata/full.yaml")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(yamlDoc(t, data)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestSchemaRejects(t *testing.T) {
	s := compileSchema(t)
	for _, src := range []string{
		"listen: 1\nlistn: x\n",
		"policy: {default: maybe}\n",
		"publish: [{name: a, stdio: {command: x, shell: true}}]\n",
		"server: {read_timeout: 5 minutes}\n",
		"netguard: {ports: [70000]}\n",
		"expose: {mcp: {sessions: sometimes}}\n",
	} {
		if err := s.Validate(yamlDoc(t, []byte(src))); err == nil {
			t.Errorf("schema accepted %q", src)
		}
	}
}
