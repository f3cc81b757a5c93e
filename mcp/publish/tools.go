package publish

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"unicode"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
)

// tool is an upstream tool with its compiled input schema.
type tool struct {
	connector.Tool
	schema    *jsonschema.Schema
	schemaErr error
	// textArg is the tool's only property when the schema is an object with
	// exactly one property, a required string.
	textArg string
	props   map[string]any
	req     []string
}

type toolSet struct {
	list   []*tool
	byName map[string]*tool
	digest string
}

func newToolSet(tools []connector.Tool, log *slog.Logger) *toolSet {
	ts := &toolSet{byName: map[string]*tool{}}
	h := sha256.New()
	for _, ut := range tools {
		t := &tool{Tool: ut}
		t.schema, t.schemaErr = compileSchema(ut.InputSchema)
		if t.schemaErr != nil {
			log.Warn("publish: tool input schema does not compile; calls to it are refused", "tool", ut.Name, "err", t.schemaErr)
		}
		var s struct {
			Type       any            `json:"type"`
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		if json.Unmarshal(ut.InputSchema, &s) == nil {
			t.props, t.req = s.Properties, s.Required
			if len(s.Properties) == 1 && len(s.Required) == 1 {
				if p, ok := s.Properties[s.Required[0]].(map[string]any); ok && p["type"] == "string" {
					t.textArg = s.Required[0]
				}
			}
		}
		ts.list = append(ts.list, t)
		ts.byName[ut.Name] = t
		h.Write(ut.Raw)
		h.Write([]byte{0})
	}
	ts.digest = hex.EncodeToString(h.Sum(nil))[:12]
	return ts
}

// compileSchema compiles a tool's input schema. Nothing is ever loaded from
// outside the schema itself: a $ref to a URL or file fails to compile.
func compileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	const loc = "urn:a2a-mcp-bridge:tool-input-schema"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// names lists the tools for error messages.
func (ts *toolSet) len() int { return len(ts.list) }

func (ts *toolSet) names() string {
	if len(ts.list) == 0 {
		return "(this server has no tools)"
	}
	n := make([]string, len(ts.list))
	for i, t := range ts.list {
		n[i] = t.Name
	}
	return strings.Join(n, ", ")
}

// textTool is the tool plain text goes to: the only tool, when it takes one
// required string.
func (ts *toolSet) textTool() *tool {
	if len(ts.list) == 1 && ts.list[0].textArg != "" {
		return ts.list[0]
	}
	return nil
}

// Selection is what a message asks of the server: the tool it names and
// the arguments it gives, before they are checked against the tool set.
type Selection struct {
	// Tool is the tool named by a data part's "tool" member or by the skill
	// id; "" when the message names none (plain text).
	Tool string
	// Skill is the skill id the message asks for, if any.
	Skill string
	// Arguments is the data part's "arguments" member (data-part selection)
	// or the one data object (skill selection); nil when none was given.
	Arguments json.RawMessage
	// ByData reports a selection by a data part's "tool" member.
	ByData bool

	datas []json.RawMessage
	texts []string
}

// Select reads which tool a message names. It is the one function that
// decides it: the guards count and authorize the tool Select names, and
// Execute runs that tool. A message that names a tool two ways is refused
// rather than read one way by one reader and the other way by another: two
// data parts with a "tool" member, a data part's tool and a different
// skill id, a "tool" that is not a string. Data parts are read exactly:
// their members are data, so "Tool" is not "tool".
func Select(msg *a2a.Message, reqMeta a2a.Metadata) (Selection, error) {
	var sel Selection
	if msg == nil {
		return sel, nil
	}
	skill, err := server.SkillID(msg, reqMeta)
	if err != nil {
		return sel, err
	}
	sel.Skill = skill
	for _, p := range msg.Parts {
		switch p.Kind {
		case a2a.PartData:
			sel.datas = append(sel.datas, p.Data)
		case a2a.PartText:
			sel.texts = append(sel.texts, p.Text)
		}
	}
	for _, d := range sel.datas {
		raw, args, hasTool, hasArgs, isObject := toolMembers(d)
		if !isObject || !hasTool {
			continue // not an object (arguments of nothing), or no tool
		}
		name, err := stringValue(raw)
		if err != nil {
			return Selection{}, a2a.ErrInvalidParams.With(`the data part's "tool" must be a string naming the tool`)
		}
		if sel.ByData {
			return Selection{}, a2a.ErrInvalidParams.Withf("two data parts name a tool (%q and %q): send one", clean(sel.Tool, 64), clean(name, 64))
		}
		if skill != "" && skill != name {
			return Selection{}, a2a.ErrInvalidParams.Withf("the data part names tool %q and the metadata skill %q: name one", clean(name, 64), clean(skill, 64))
		}
		sel.Tool, sel.ByData, sel.Arguments = name, true, args
		if !hasArgs {
			sel.Arguments = json.RawMessage{}
		}
	}
	if !sel.ByData && skill != "" {
		sel.Tool = skill
		for _, d := range sel.datas {
			if b := bytes.TrimSpace(d); len(b) > 0 && b[0] == '{' {
				sel.Arguments = b
				break
			}
		}
	}
	return sel, nil
}

// ToolOf is the tool a message would run on this agent, as Execute
// resolves it: the tool Select names, or for plain text the server's only
// one-string tool. An error is a message that names a tool two ways.
func (a *Agent) ToolOf(msg *a2a.Message, reqMeta a2a.Metadata) (string, error) {
	sel, err := Select(msg, reqMeta)
	if err != nil || sel.Tool != "" {
		return sel.Tool, err
	}
	if len(sel.datas) == 0 && len(sel.texts) > 0 {
		if t := a.toolSet().textTool(); t != nil {
			return t.Name, nil
		}
	}
	return "", nil
}

// selectTool finds the tool and arguments a message asks for (Select),
// or says what is wrong with it.
func (ts *toolSet) selectTool(msg *a2a.Message, reqMeta a2a.Metadata) (*tool, json.RawMessage, string) {
	sel, err := Select(msg, reqMeta)
	if err != nil {
		return nil, nil, err.(*a2a.Error).Message
	}
	how := fmt.Sprintf(`send a data part {"tool": NAME, "arguments": {...}}; tools: %s`, ts.names())
	// 1. {"tool": NAME, "arguments": {...}}
	if sel.ByData {
		t := ts.byName[sel.Tool]
		if t == nil {
			return nil, nil, fmt.Sprintf("unknown tool %q; %s", sel.Tool, how)
		}
		args := bytes.TrimSpace(sel.Arguments)
		if len(args) == 0 || string(args) == "null" {
			args = []byte("{}")
		}
		if args[0] != '{' {
			return nil, nil, fmt.Sprintf("arguments of tool %q must be a JSON object; tools: %s", t.Name, ts.names())
		}
		return t, args, ""
	}
	// 2. a skill id in the message's or the request's metadata.
	if skill := sel.Skill; skill != "" {
		t := ts.byName[skill]
		if t == nil {
			return nil, nil, fmt.Sprintf("unknown skill %q; %s", skill, how)
		}
		var objs int
		for _, d := range sel.datas {
			if b := bytes.TrimSpace(d); len(b) > 0 && b[0] == '{' {
				objs++
			}
		}
		switch {
		case objs == 1:
			return t, sel.Arguments, ""
		case objs > 1:
			return nil, nil, fmt.Sprintf("skill %q: send the arguments in exactly one data part, got %d; tools: %s", skill, objs, ts.names())
		case t.textArg != "" && len(sel.texts) > 0:
			args, _ := json.Marshal(map[string]string{t.textArg: strings.Join(sel.texts, "\n")})
			return t, args, ""
		case len(t.req) == 0:
			return t, json.RawMessage("{}"), ""
		}
		return nil, nil, fmt.Sprintf("skill %q needs arguments in a data part (required: %s); tools: %s", skill, strings.Join(t.req, ", "), ts.names())
	}
	// 3. plain text, only for a server with one one-string tool.
	if len(sel.datas) == 0 && len(sel.texts) > 0 {
		if t := ts.textTool(); t != nil {
			args, _ := json.Marshal(map[string]string{t.textArg: strings.Join(sel.texts, "\n")})
			return t, args, ""
		}
		return nil, nil, "plain text cannot select a tool on this server; " + how
	}
	return nil, nil, "the message does not say which tool to call; " + how
}

// validate checks arguments against the tool's input schema.
func (t *tool) validate(args json.RawMessage) error {
	if t.schemaErr != nil {
		return fmt.Errorf("the input schema of tool %q does not compile, so its arguments cannot be checked: %v", t.Name, t.schemaErr)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("arguments of tool %q are not valid JSON: %v", t.Name, err)
	}
	if err := t.schema.Validate(inst); err != nil {
		return fmt.Errorf("arguments of tool %q do not match its input schema: %s", t.Name, oneLine(err.Error()))
	}
	return nil
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 1000 {
		s = s[:1000] + "…"
	}
	return s
}

// clean makes untrusted upstream text safe to put in a card: no control
// characters, capped length.
func clean(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	if len(s) > max {
		s = s[:max] + "…"
	}
	return strings.TrimSpace(s)
}

// example synthesises a call of t from its schema.
func (t *tool) example() string {
	args := map[string]any{}
	for _, name := range t.req {
		p, _ := t.props[name].(map[string]any)
		args[name] = placeholder(name, p)
	}
	b, _ := json.Marshal(map[string]any{"tool": t.Name, "arguments": args})
	return string(b)
}

func placeholder(name string, p map[string]any) any {
	if p == nil {
		return nil
	}
	if d, ok := p["default"]; ok {
		return d
	}
	if e, ok := p["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	if ex, ok := p["examples"].([]any); ok && len(ex) > 0 {
		return ex[0]
	}
	typ, _ := p["type"].(string)
	switch typ {
	case "string":
		return "<" + name + ">"
	case "number", "integer":
		if m, ok := p["minimum"].(float64); ok {
			return m
		}
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	return nil
}

func (t *tool) tags() []string {
	tags := []string{"mcp-tool"}
	a := t.Annotations
	if a.ReadOnly() {
		tags = append(tags, "read-only")
	}
	if a.Destructive() {
		tags = append(tags, "destructive")
	}
	if a.IdempotentHint != nil && *a.IdempotentHint {
		tags = append(tags, "idempotent")
	}
	if a.OpenWorldHint != nil && *a.OpenWorldHint {
		tags = append(tags, "open-world")
	}
	return tags
}

// Card builds the agent card for the agent served at baseURL (JSON-RPC at
// the base, HTTP+JSON under /rest): one skill per tool, and the raw input
// schemas in the SchemaExtensionURI extension. The version carries a digest
// of the tool list, so it changes when the tools do. Sign it before serving.
func (a *Agent) Card(baseURL string) *a2a.AgentCard {
	ts := a.toolSet()
	baseURL = strings.TrimRight(baseURL, "/")
	name := a.cfg.Name
	if name == "" {
		name = "MCP tools"
	}
	desc := a.cfg.Description
	if desc == "" {
		desc = fmt.Sprintf(`%s: an MCP server published as an A2A agent, one skill per tool. Call a tool with a data part {"tool": NAME, "arguments": {...}}; each tool's input schema is in the %s card extension.`, name, SchemaExtensionURI)
	}
	in := []string{"application/json"}
	textTool := ts.textTool()
	if textTool != nil {
		in = append(in, "text/plain")
	}
	schemas := a2a.Metadata{}
	skills := make([]a2a.AgentSkill, 0, len(ts.list))
	for _, t := range ts.list {
		title := t.Title
		if title == "" {
			title = t.Name
		}
		sk := a2a.AgentSkill{
			ID: t.Name, Name: clean(title, 200), Description: clean(t.Description, 2000),
			Tags: t.tags(), Examples: []string{t.example()}, InputModes: []string{"application/json"},
		}
		if sk.Description == "" {
			sk.Description = "MCP tool " + t.Name
		}
		if t == textTool {
			sk.InputModes = append(sk.InputModes, "text/plain")
		}
		if len(t.OutputSchema) > 0 {
			sk.OutputModes = []string{"application/json"}
		}
		skills = append(skills, sk)
		schemas[t.Name] = t.InputSchema
	}
	return &a2a.AgentCard{
		Name:        clean(name, 200),
		Description: desc,
		SupportedInterfaces: []a2a.AgentInterface{
			{URL: baseURL, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.ProtocolVersion},
			{URL: baseURL + "/rest", ProtocolBinding: a2a.BindingHTTPJSON, ProtocolVersion: a2a.ProtocolVersion},
		},
		Provider: a.cfg.Provider,
		Version:  a.cfg.Version + "+tools." + ts.digest,
		Capabilities: a2a.AgentCapabilities{
			Streaming: a2a.Ptr(true), PushNotifications: a2a.Ptr(false),
			Extensions: []a2a.AgentExtension{{
				URI:         SchemaExtensionURI,
				Description: "Input JSON Schema of each skill (MCP tool), by skill id.",
				Params:      schemas,
			}},
		},
		DefaultInputModes:  in,
		DefaultOutputModes: []string{"text/plain", "application/json", "application/octet-stream"},
		Skills:             skills,
	}
}
