package publish

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// callResult is an MCP CallToolResult as sent.
type callResult struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent"`
	IsError           bool              `json:"isError"`
}

type contentBlock struct {
	Type        string          `json:"type"`
	Text        string          `json:"text"`
	Data        string          `json:"data"`
	MimeType    string          `json:"mimeType"`
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Annotations json.RawMessage `json:"annotations"`
	Meta        json.RawMessage `json:"_meta"`
	Resource    *struct {
		URI      string  `json:"uri"`
		MimeType string  `json:"mimeType"`
		Text     *string `json:"text"`
		Blob     *string `json:"blob"`
	} `json:"resource"`
}

// Part metadata that carries what an MCP content block has beyond its
// payload, so that nothing of it is lost on the way to A2A (and back,
// expose reads the same keys).
const (
	MetaAnnotations = "mcp.annotations" // the block's annotations object
	MetaTitle       = "mcp.title"       // a resource link's title
	MetaDescription = "mcp.description" // a resource link's description
	MetaMeta        = "mcp.meta"        // the block's _meta object
)

// keep copies c's annotations, title, description and _meta into p's
// metadata.
func keep(p a2a.Part, c contentBlock) a2a.Part {
	set := func(k string, v any) {
		if p.Metadata == nil {
			p.Metadata = a2a.Metadata{}
		}
		p.Metadata[k] = v
	}
	object := func(k string, raw json.RawMessage) {
		var obj map[string]any
		if len(raw) > 0 && json.Unmarshal(raw, &obj) == nil && len(obj) > 0 {
			set(k, obj)
		}
	}
	object(MetaAnnotations, c.Annotations)
	object(MetaMeta, c.Meta)
	if c.Title != "" {
		set(MetaTitle, c.Title)
	}
	if c.Description != "" {
		set(MetaDescription, c.Description)
	}
	return p
}

// toParts maps a tool result to A2A parts: text → text part; image and
// audio → raw part with its media type; resource_link → url part (name,
// media type); embedded resource → text or raw part with media type and
// file name; structuredContent → data part. Each block's annotations,
// title, description and _meta go into its part's metadata (keep). errText
// is the text of an isError result.
func toParts(raw json.RawMessage) (parts []a2a.Part, isError bool, errText string, err error) {
	var res callResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, false, "", fmt.Errorf("the tool's result is not a CallToolResult: %v", err)
	}
	var texts []string
	for _, b := range res.Content {
		var c contentBlock
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, false, "", fmt.Errorf("a content block of the tool's result is malformed: %v", err)
		}
		switch c.Type {
		case "text":
			parts = append(parts, keep(a2a.TextPart(c.Text), c))
			texts = append(texts, c.Text)
		case "image", "audio":
			data, err := base64.StdEncoding.DecodeString(c.Data)
			if err != nil {
				return nil, false, "", fmt.Errorf("the tool's %s content is not valid base64", c.Type)
			}
			parts = append(parts, keep(a2a.RawPart(data, c.MimeType, ""), c))
		case "resource_link":
			parts = append(parts, keep(a2a.URLPart(c.URI, c.MimeType, c.Name), c))
		case "resource":
			r := c.Resource
			if r == nil {
				return nil, false, "", fmt.Errorf("the tool's embedded resource has no contents")
			}
			name := path.Base(r.URI)
			if name == "." || name == "/" {
				name = ""
			}
			switch {
			case r.Text != nil:
				p := a2a.TextPart(*r.Text)
				p.MediaType, p.Filename = r.MimeType, name
				parts = append(parts, keep(p, c))
			case r.Blob != nil:
				data, err := base64.StdEncoding.DecodeString(*r.Blob)
				if err != nil {
					return nil, false, "", fmt.Errorf("the tool's embedded resource %s is not valid base64", r.URI)
				}
				parts = append(parts, keep(a2a.RawPart(data, r.MimeType, name), c))
			default:
				parts = append(parts, keep(a2a.URLPart(r.URI, r.MimeType, name), c))
			}
		default:
			// A content type this version does not know: keep it as data so
			// nothing is lost.
			p, err := a2a.DataPart(b)
			if err == nil {
				parts = append(parts, p)
			}
		}
	}
	if sc := bytes.TrimSpace(res.StructuredContent); len(sc) > 0 && string(sc) != "null" {
		p, err := a2a.DataPart(json.RawMessage(sc))
		if err != nil {
			return nil, false, "", fmt.Errorf("the tool's structured content is malformed: %v", err)
		}
		p.MediaType = "application/json"
		parts = append(parts, p)
	}
	if res.IsError {
		return parts, true, strings.Join(texts, "\n"), nil
	}
	return parts, false, "", nil
}
