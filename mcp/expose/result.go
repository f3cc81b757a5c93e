package expose

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// MaxInlineBytes caps raw file bytes put into a result; larger files are
// described by a text block instead.
const MaxInlineBytes = 4 << 20

func shortState(s a2a.TaskState) string {
	if s == "" {
		return "completed"
	}
	return strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_"))
}

func statusText(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var parts []string
	for _, p := range m.Parts {
		if p.Kind == a2a.PartText && strings.TrimSpace(p.Text) != "" {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Part metadata keys for what MCP content carries beyond its payload (the
// same as publish's, so a published MCP server's content crosses two
// bridges whole).
const (
	metaAnnotations = "mcp.annotations"
	metaTitle       = "mcp.title"
	metaDescription = "mcp.description"
	metaMeta        = "mcp.meta"
)

// whole gives c the annotations and _meta p carries: "mcp.annotations" as
// the annotations, "mcp.meta" as _meta (keys reserved by MCP dropped), and
// the part's other metadata under the one _meta key "a2a/metadata", so that
// an agent's metadata cannot pose as a key a host acts on.
func whole(c mcp.Content, p a2a.Part) mcp.Content {
	if len(p.Metadata) == 0 {
		return c
	}
	var ann *mcp.Annotations
	if v, ok := p.Metadata[metaAnnotations].(map[string]any); ok {
		if b, err := json.Marshal(v); err == nil {
			var a mcp.Annotations
			if json.Unmarshal(b, &a) == nil {
				ann = &a
			}
		}
	}
	meta := map[string]any{}
	if v, ok := p.Metadata[metaMeta].(map[string]any); ok {
		for k, x := range v {
			meta[k] = x
		}
	}
	for k := range meta {
		if k == "progressToken" || strings.HasPrefix(k, "io.modelcontextprotocol/") || strings.Contains(k, "modelcontextprotocol.io/") {
			delete(meta, k)
		}
	}
	others := map[string]any{}
	for k, v := range p.Metadata {
		if !strings.HasPrefix(k, "mcp.") {
			others[k] = v
		}
	}
	if len(others) > 0 {
		meta["a2a/metadata"] = others
	}
	var m *mcp.Meta
	if len(meta) > 0 {
		m = &mcp.Meta{AdditionalFields: meta}
	}
	switch x := c.(type) {
	case mcp.TextContent:
		x.Annotations, x.Meta = ann, m
		return x
	case mcp.ImageContent:
		x.Annotations, x.Meta = ann, m
		return x
	case mcp.AudioContent:
		x.Annotations, x.Meta = ann, m
		return x
	case mcp.EmbeddedResource:
		x.Annotations, x.Meta = ann, m
		return x
	case mcp.ResourceLink:
		x.Annotations, x.Meta = ann, m
		return x
	}
	return c
}

// structured is a result's structuredContent. Its fields are in the order of
// their JSON names, so it encodes as the map it replaces did (encoding/json
// sorts map keys), without the map and the sorting per call.
type structured struct {
	Artifacts []artifactRef `json:"artifacts,omitempty"`
	ContextID string        `json:"contextId"`
	Data      any           `json:"data,omitempty"` // one json.RawMessage, or several
	Message   string        `json:"message,omitempty"`
	Question  string        `json:"question,omitempty"`
	State     string        `json:"state"`
	TaskID    string        `json:"taskId"`
	Text      string        `json:"text,omitempty"`
}

type artifactRef struct {
	ArtifactID string `json:"artifactId"`
	Name       string `json:"name"`
}

// result maps what the agent said to a tool result: text parts as text,
// data parts as structuredContent (plus a JSON text block), raw image/audio
// as image/audio content, other raw bytes as an embedded resource, url parts
// as resource links (never fetched). structuredContent always carries
// {taskId, contextId, state} so the model can continue.
func (t *AgentTools) result(a *agent, r *run) *mcp.CallToolResult {
	alias := a.cfg.Alias
	res := &mcp.CallToolResult{}
	sc := &structured{TaskID: r.taskID, ContextID: r.contextID, State: shortState(r.state)}
	var data []json.RawMessage
	var texts []string
	addParts := func(parts []a2a.Part, base string) {
		for i, p := range parts {
			switch p.Kind {
			case a2a.PartText:
				texts = append(texts, p.Text)
				res.Content = append(res.Content, whole(mcp.NewTextContent(p.Text), p))
			case a2a.PartData:
				data = append(data, p.Data)
				res.Content = append(res.Content, whole(mcp.NewTextContent(string(p.Data)), p))
			case a2a.PartRaw:
				if len(p.Raw) > MaxInlineBytes {
					res.Content = append(res.Content, mcp.NewTextContent(fmt.Sprintf("[file %q (%s, %d bytes) omitted: larger than %d bytes]", cleanText(p.Filename, 100), cleanText(p.MediaType, 100), len(p.Raw), MaxInlineBytes)))
					continue
				}
				b64 := base64.StdEncoding.EncodeToString(p.Raw)
				mt := strings.ToLower(p.MediaType)
				switch {
				case strings.HasPrefix(mt, "image/"):
					res.Content = append(res.Content, whole(mcp.NewImageContent(b64, p.MediaType), p))
				case strings.HasPrefix(mt, "audio/"):
					res.Content = append(res.Content, whole(mcp.NewAudioContent(b64, p.MediaType), p))
				default:
					name := p.Filename
					if name == "" {
						name = fmt.Sprintf("part-%d", i)
					}
					mtype := p.MediaType
					if mtype == "" {
						mtype = "application/octet-stream"
					}
					res.Content = append(res.Content, whole(mcp.NewEmbeddedResource(mcp.BlobResourceContents{
						URI: base + "/" + url.PathEscape(name), MIMEType: mtype, Blob: b64,
					}), p))
				}
			case a2a.PartURL:
				name := p.Filename
				if name == "" {
					name = p.URL
				}
				desc := "a file produced by agent " + alias + " (not fetched by the bridge)"
				if d, _ := p.Metadata[metaDescription].(string); d != "" {
					desc = cleanText(d, 500) + " (from agent " + alias + ", not fetched by the bridge)"
				}
				link := mcp.NewResourceLink(p.URL, cleanText(name, 200), desc, p.MediaType)
				if title, _ := p.Metadata[metaTitle].(string); title != "" {
					link.Title = cleanText(title, 200)
				}
				res.Content = append(res.Content, whole(link, p))
			}
		}
	}
	taskBase := "a2a://agents/" + url.PathEscape(alias) + "/tasks/" + url.PathEscape(r.taskID)
	if r.message != nil {
		addParts(r.message.Parts, taskBase+"/message")
	}
	for _, art := range r.artifacts {
		addParts(art.Parts, taskBase+"/artifacts/"+url.PathEscape(art.ArtifactID))
		sc.Artifacts = append(sc.Artifacts, artifactRef{ArtifactID: art.ArtifactID, Name: art.Name})
	}
	switch len(data) {
	case 0:
	case 1:
		sc.Data = data[0]
	default:
		sc.Data = data
	}
	status := statusText(r.status)
	sc.Message = status
	if len(texts) > 0 {
		sc.Text = strings.Join(texts, "\n")
	}
	prefix := func(s string) {
		res.Content = append([]mcp.Content{mcp.NewTextContent(s)}, res.Content...)
	}
	switch r.state {
	case a2a.TaskStateFailed, a2a.TaskStateRejected:
		res.IsError = true
		if status == "" {
			status = "no reason given"
		}
		prefix(fmt.Sprintf("agent %s %s the task: %s", alias, map[bool]string{true: "failed", false: "rejected"}[r.state == a2a.TaskStateFailed], status))
	case a2a.TaskStateCanceled:
		res.IsError = true
		prefix(fmt.Sprintf("agent %s: the task was cancelled", alias))
	case a2a.TaskStateInputRequired:
		if status == "" {
			status = "The agent needs more input."
		}
		sc.Question = status
		prefix(fmt.Sprintf("Agent %s asks: %s\nTo answer, call the tool %s again with taskId %q, contextId %q and your answer as message.", alias, status, a.toolName, r.taskID, r.contextID))
	case a2a.TaskStateAuthRequired:
		res.IsError = true
		if status == "" {
			status = "the agent requires authorization"
		}
		if u := authURL(r.status); u != "" {
			res.Content = append(res.Content, mcp.NewResourceLink(u, "authorization page", "where the user authorizes agent "+alias+" (not opened by the bridge)", "text/html"))
		}
		prefix(fmt.Sprintf("Agent %s needs authorization before it can continue: %s\nThe user must authorize the bridge with this agent; then call the tool %s again with taskId %q.", alias, status, a.toolName, r.taskID))
	default:
		if status != "" && len(res.Content) == 0 {
			res.Content = append(res.Content, mcp.NewTextContent(status))
		}
	}
	if len(res.Content) == 0 {
		res.Content = []mcp.Content{mcp.NewTextContent(fmt.Sprintf("agent %s: task %s", alias, shortState(r.state)))}
	}
	res.StructuredContent = sc
	return res
}

// declined answers a call whose elicitation the user declined or cancelled:
// the task stays open and the model may continue it.
func (t *AgentTools) declined(a *agent, taskID, contextID, question string) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content: []mcp.Content{mcp.NewTextContent(fmt.Sprintf("The user did not answer agent %s's question (%s). The task is still waiting: call the tool %s again with taskId %q and an answer as message to continue.", a.cfg.Alias, question, a.toolName, taskID))},
		StructuredContent: &structured{
			TaskID: taskID, ContextID: contextID, State: shortState(a2a.TaskStateInputRequired), Question: question,
		},
	}
}
