package card

import (
	"os"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/a2a-mcp-bridge/bridge/a2a/a2apb"
)

// TestStrippedFormMatchesProtoJSON is a differential test: for cards without
// unknown fields, FormStripped must equal JCS over protojson's output for the
// same card (protojson omits defaults, keeps optional and message presence,
// and, unlike §8.4.1, drops empty REQUIRED fields). FormSpec must differ from
// it only by those REQUIRED fields, which protojson cannot know about.
func TestStrippedFormMatchesProtoJSON(t *testing.T) {
	full, err := os.ReadFile("testdata/full.card.json")
	if err != nil {
		t.Fatal(err)
	}
	known, err := decodeCard(full)
	if err != nil {
		t.Fatal(err)
	}
	delete(known, "x-future-field") // protojson would refuse it
	fullKnown, err := encodeJCS(known)
	if err != nil {
		t.Fatal(err)
	}
	cards := map[string]string{
		"spec example": `{"name":"Example Agent","description":"","capabilities":{"streaming":false,"pushNotifications":false,"extensions":[]},"skills":[]}`,
		"full card":    string(fullKnown),
		"empty messages and oneofs": `{"provider":{},"securitySchemes":{"m":{"mtlsSecurityScheme":{}},"o":{"oauth2SecurityScheme":{"flows":{"deviceCode":{}}}}},
			"capabilities":{"extensions":[{"params":{}}]}}`,
		"snake case input": `{"default_input_modes":["text/plain"],"icon_url":"","capabilities":{"extended_agent_card":false}}`,
		"signatures":       `{"name":"a","signatures":[{"protected":"e30","signature":"AA","header":{"x":1}}]}`,
	}
	for name, card := range cards {
		t.Run(name, func(t *testing.T) {
			var pb a2apb.AgentCard
			if err := protojson.Unmarshal([]byte(card), &pb); err != nil {
				t.Fatal(err)
			}
			pb.Signatures = nil
			pj, err := protojson.Marshal(&pb)
			if err != nil {
				t.Fatal(err)
			}
			obj, err := decodeCard(pj)
			if err != nil {
				t.Fatal(err)
			}
			want, err := encodeJCS(obj)
			if err != nil {
				t.Fatal(err)
			}
			in, err := decodeCard([]byte(card))
			if err != nil {
				t.Fatal(err)
			}
			// protojson renames snake_case keys, which this package keeps
			// as received; compare over protojson's spelling.
			if name == "snake case input" {
				in, _ = decodeCard(pj)
			}
			got, err := canonicalForm(in, FormStripped)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("stripped form differs from protojson:\n got %s\nwant %s", got, want)
			}
		})
	}
}
