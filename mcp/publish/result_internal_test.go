package publish

import (
	"encoding/json"
	"testing"
)

// TestContentKeptWhole: annotations, a resource link's title and
// description and _meta reach the A2A parts' metadata.
func TestContentKeptWhole(t *testing.T) {
	raw := json.RawMessage(`{"content":[
	  {"type":"text","text":"hi","annotations":{"audience":["user"],"priority":0.9},"_meta":{"example.com/trace":"t-1"}},
	  {"type":"resource_link","uri":"https://files.example/r.pdf","name":"r.pdf","title":"Quarterly report","description":"Q3 numbers","mimeType":"application/pdf","annotations":{"lastModified":"2026-01-01T00:00:00Z"}}
	]}`)
	parts, _, _, err := toParts(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 {
		t.Fatalf("parts %+v", parts)
	}
	ann, _ := parts[0].Metadata[MetaAnnotations].(map[string]any)
	meta, _ := parts[0].Metadata[MetaMeta].(map[string]any)
	if ann["priority"] != 0.9 || meta["example.com/trace"] != "t-1" {
		t.Errorf("text part metadata %+v", parts[0].Metadata)
	}
	link := parts[1]
	if link.URL != "https://files.example/r.pdf" || link.Filename != "r.pdf" || link.Metadata[MetaTitle] != "Quarterly report" || link.Metadata[MetaDescription] != "Q3 numbers" {
		t.Errorf("link part %+v", link)
	}
	if a, _ := link.Metadata[MetaAnnotations].(map[string]any); a["lastModified"] != "2026-01-01T00:00:00Z" {
		t.Errorf("link annotations %+v", link.Metadata)
	}
	plain, _, _, err := toParts(json.RawMessage(`{"content":[{"type":"text","text":"plain"}]}`))
	if err != nil || plain[0].Metadata != nil {
		t.Errorf("a plain block got metadata: %+v %v", plain, err)
	}
}
