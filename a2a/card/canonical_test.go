package card

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// TestCanonicalizeSpecWorkedExample reproduces the A2A 1.0 §8.4.1 example
// byte for byte.
func TestCanonicalizeSpecWorkedExample(t *testing.T) {
	in := `{"name":"Example Agent","description":"","capabilities":{"streaming":false,"pushNotifications":false,"extensions":[]},"skills":[]}`
	want := `{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}`
	got, err := Canonicalize([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("canonical form:\n got %s\nwant %s", got, want)
	}
}

func TestCanonicalizePresenceRules(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"signatures dropped", `{"name":"a","signatures":[{"protected":"x","signature":"y"}]}`, `{"name":"a"}`},
		{"nested signatures key kept", `{"x":{"signatures":1}}`, `{"x":{"signatures":1}}`},
		{"optional false kept", `{"capabilities":{"extendedAgentCard":false}}`, `{"capabilities":{"extendedAgentCard":false}}`},
		{"optional empty string kept", `{"iconUrl":"","documentationUrl":""}`, `{"documentationUrl":"","iconUrl":""}`},
		{"required empties kept", `{"version":"","supportedInterfaces":[],"defaultInputModes":[],"defaultOutputModes":[]}`, `{"defaultInputModes":[],"defaultOutputModes":[],"supportedInterfaces":[],"version":""}`},
		{"absent required not invented", `{}`, `{}`},
		{"plain defaults dropped", `{"securitySchemes":{},"securityRequirements":[]}`, `{}`},
		{"null on known field dropped", `{"provider":null,"name":null,"iconUrl":null}`, `{}`},
		{"null on unknown field kept", `{"future":null}`, `{"future":null}`},
		{"unknown fields kept verbatim", `{"future":{"a":"","b":[],"c":false}}`, `{"future":{"a":"","b":[],"c":false}}`},
		{"empty message kept (proto3 presence)", `{"provider":{}}`, `{"provider":{}}`},
		{"interface tenant dropped, required kept", `{"supportedInterfaces":[{"url":"","protocolBinding":"JSONRPC","tenant":"","protocolVersion":"1.0"}]}`, `{"supportedInterfaces":[{"protocolBinding":"JSONRPC","protocolVersion":"1.0","url":""}]}`},
		{"skill plain fields dropped", `{"skills":[{"id":"s","name":"n","description":"","tags":[],"examples":[],"inputModes":[],"outputModes":[],"securityRequirements":[]}]}`, `{"skills":[{"description":"","id":"s","name":"n","tags":[]}]}`},
		{"extension defaults dropped, params verbatim", `{"capabilities":{"extensions":[{"uri":"u","description":"","required":false,"params":{"x":"","y":[]}}]}}`, `{"capabilities":{"extensions":[{"params":{"x":"","y":[]},"uri":"u"}]}}`},
		{"extension empty params kept", `{"capabilities":{"extensions":[{"params":{}}]}}`, `{"capabilities":{"extensions":[{"params":{}}]}}`},
		{"security scheme oneof empty member kept", `{"securitySchemes":{"m":{"mtlsSecurityScheme":{}}}}`, `{"securitySchemes":{"m":{"mtlsSecurityScheme":{}}}}`},
		{"security scheme fields", `{"securitySchemes":{"k":{"apiKeySecurityScheme":{"description":"","location":"header","name":""}},"h":{"httpAuthSecurityScheme":{"scheme":"Bearer","bearerFormat":""}}}}`, `{"securitySchemes":{"h":{"httpAuthSecurityScheme":{"scheme":"Bearer"}},"k":{"apiKeySecurityScheme":{"location":"header","name":""}}}}`},
		{"oauth flows", `{"securitySchemes":{"o":{"oauth2SecurityScheme":{"description":"","oauth2MetadataUrl":"","flows":{"authorizationCode":{"authorizationUrl":"a","tokenUrl":"t","refreshUrl":"","scopes":{},"pkceRequired":false}}}}}}`, `{"securitySchemes":{"o":{"oauth2SecurityScheme":{"flows":{"authorizationCode":{"authorizationUrl":"a","scopes":{},"tokenUrl":"t"}}}}}}`},
		{"implicit flow plain scopes dropped", `{"securitySchemes":{"o":{"oauth2SecurityScheme":{"flows":{"implicit":{"scopes":{},"refreshUrl":""}}}}}}`, `{"securitySchemes":{"o":{"oauth2SecurityScheme":{"flows":{"implicit":{}}}}}}`},
		{"security requirement string list", `{"securityRequirements":[{"schemes":{"g":{"list":[]},"h":{"list":["a"]}}},{"schemes":{}}]}`, `{"securityRequirements":[{"schemes":{"g":{},"h":{"list":["a"]}}},{}]}`},
		{"proto names accepted, key kept", `{"icon_url":"","default_input_modes":[],"security_schemes":{}}`, `{"default_input_modes":[],"icon_url":""}`},
		{"wrong type kept", `{"capabilities":{"streaming":"yes","extensions":{}},"skills":7}`, `{"capabilities":{"extensions":{},"streaming":"yes"},"skills":7}`},
		{"numbers JCS formatted", `{"future":[1.0,1e21,-0.0,100]}`, `{"future":[1,1e+21,0,100]}`},
		{"html not escaped", `{"description":"<a&b>\u2028"}`, "{\"description\":\"<a&b>\u2028\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonicalize([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestCanonicalizeStrippedForm(t *testing.T) {
	in := `{"name":"Example Agent","description":"","capabilities":{"streaming":false,"extensions":[]},"skills":[]}`
	obj, err := decodeCard([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got, err := canonicalForm(obj, FormStripped)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"capabilities":{"streaming":false},"name":"Example Agent"}`; string(got) != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

func TestCanonicalizeRejects(t *testing.T) {
	tests := []struct {
		name, in string
	}{
		{"duplicate key smuggling", `{"name":"a","name":"b"}`},
		{"duplicate nested key", `{"capabilities":{"streaming":true,"streaming":false}}`},
		{"not an object", `[]`},
		{"trailing data", `{} {}`},
		{"truncated", `{"name":`},
		{"invalid utf8", "{\"name\":\"\xff\"}"},
		{"lone high surrogate", `{"name":"\ud800"}`},
		{"lone low surrogate", `{"name":"\udc00x"}`},
		{"deep nesting in params", `{"x":` + strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1) + `}`},
		{"number out of range", `{"x":1e400}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Canonicalize([]byte(tt.in))
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.HasPrefix(err.Error(), "card: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
	if _, err := Canonicalize([]byte(`{"name":"\ud83d\ude00"}`)); err != nil {
		t.Errorf("valid surrogate pair refused: %v", err)
	}
	if _, err := Canonicalize([]byte(`{"a":1,"a":2}`)); !errors.Is(err, ErrInvalidCard) {
		t.Errorf("duplicate key error %v does not wrap ErrInvalidCard", err)
	}
}

// TestCanonicalizeGolden compares realistic cards with their canonical form
// in testdata/; regenerate with go test -run Golden -update.
func TestCanonicalizeGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.card.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Canonicalize(data)
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(in, ".card.json") + ".canonical.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("canonical form differs from %s:\n got %s\nwant %s", golden, got, want)
			}
		})
	}
}

func TestJSONNamesMatchProtoc(t *testing.T) {
	for _, tc := range [][2]string{
		{"supported_interfaces", "supportedInterfaces"},
		{"oauth2_security_scheme", "oauth2SecurityScheme"},
		{"oauth2_metadata_url", "oauth2MetadataUrl"},
		{"open_id_connect_url", "openIdConnectUrl"},
		{"pkce_required", "pkceRequired"},
		{"name", "name"},
	} {
		if got := jsonName(tc[0]); got != tc[1] {
			t.Errorf("jsonName(%q) = %q, want %q", tc[0], got, tc[1])
		}
	}
	for msg, fields := range cardSchema {
		for _, f := range fields {
			if f.kind == kindMessage || f.kind == kindMessages || f.kind == kindMessageMap {
				if _, ok := cardSchema[f.message]; !ok {
					t.Errorf("%s.%s names unknown message %q", msg, f.proto, f.message)
				}
			}
		}
	}
}

func FuzzCanonicalize(f *testing.F) {
	seeds := []string{
		`{"name":"Example Agent","description":"","capabilities":{"streaming":false,"pushNotifications":false,"extensions":[]},"skills":[]}`,
		`{"signatures":[{"protected":"e30","signature":"AA"}],"x":[1.5,-0,1e21,"\u2028"]}`,
		`{"securitySchemes":{"o":{"oauth2SecurityScheme":{"flows":{"implicit":{"scopes":{}}}}}},"provider":{}}`,
		`{"capabilities":{"extensions":[{"params":{"a":{"b":[null,true]}}}]}}`,
		`{"skills":[{"id":"","tags":[],"securityRequirements":[{"schemes":{"a":{"list":[]}}}]}]}`,
		`{"a":1,"a":2}`,
		`[]`,
		`{"name":"\ud800"}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	if data, err := os.ReadFile("testdata/full.card.json"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Canonicalize(in)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("output is not valid JSON: %q", out)
		}
		again, err := Canonicalize(out)
		if err != nil {
			t.Fatalf("canonical output refused: %v (%q)", err, out)
		}
		if !bytes.Equal(out, again) {
			t.Fatalf("not idempotent:\n once  %s\n twice %s", out, again)
		}
	})
}
