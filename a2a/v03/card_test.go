package v03

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// TestCardSecuritySchemesReadableBy03: each security scheme of the 0.3
// view carries the 0.3 members (type and the scheme's own) beside its 1.0
// member, which stays as it was, so a 0.3 reader that requires "type"
// (a2a-python 0.3's models do) reads a secured bridge's card.
func TestCardSecuritySchemesReadableBy03(t *testing.T) {
	card := &a2a.AgentCard{
		Name: "secured", Version: "1",
		SupportedInterfaces: []a2a.AgentInterface{{URL: "https://b.example/a2a/x", ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: "1.0"}},
		SecuritySchemes: map[string]a2a.SecurityScheme{
			"key":    {APIKey: &a2a.APIKeySecurityScheme{Location: "header", Name: "X-API-Key"}},
			"bearer": {HTTPAuth: &a2a.HTTPAuthSecurityScheme{Scheme: "Bearer", BearerFormat: "JWT", Description: "a token of the IdP"}},
			"oauth":  {OAuth2: &a2a.OAuth2SecurityScheme{Flows: a2a.OAuthFlows{ClientCredentials: &a2a.ClientCredentialsOAuthFlow{TokenURL: "https://idp.example/token", Scopes: map[string]string{"a2a": "call"}}}}},
			"oidc":   {OpenIDConnect: &a2a.OpenIDConnectSecurityScheme{OpenIDConnectURL: "https://idp.example/.well-known/openid-configuration"}},
			"mtls":   {MTLS: &a2a.MutualTLSSecurityScheme{}},
			"device": {OAuth2: &a2a.OAuth2SecurityScheme{Flows: a2a.OAuthFlows{DeviceCode: &a2a.DeviceCodeOAuthFlow{DeviceAuthorizationURL: "https://idp.example/device", TokenURL: "https://idp.example/token"}}}},
		},
	}
	in, err := json.Marshal(card)
	if err != nil {
		t.Fatal(err)
	}
	out, err := CardJSON(in)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		SecuritySchemes map[string]map[string]any `json:"securitySchemes"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]any{
		"key":    {"type": "apiKey", "in": "header", "name": "X-API-Key"},
		"bearer": {"type": "http", "scheme": "Bearer", "bearerFormat": "JWT", "description": "a token of the IdP"},
		"oauth":  {"type": "oauth2", "flows": map[string]any{"clientCredentials": map[string]any{"tokenUrl": "https://idp.example/token", "scopes": map[string]any{"a2a": "call"}}}},
		"oidc":   {"type": "openIdConnect", "openIdConnectUrl": "https://idp.example/.well-known/openid-configuration"},
		"mtls":   {"type": "mutualTLS"},
		"device": {"type": "oauth2", "flows": map[string]any{}},
	}
	oneOf := map[string]string{"key": "apiKeySecurityScheme", "bearer": "httpAuthSecurityScheme", "oauth": "oauth2SecurityScheme", "oidc": "openIdConnectSecurityScheme", "mtls": "mtlsSecurityScheme", "device": "oauth2SecurityScheme"}
	for name, w := range want {
		g := got.SecuritySchemes[name]
		for k, v := range w {
			if !reflect.DeepEqual(g[k], v) {
				t.Errorf("%s.%s = %#v, want %#v", name, k, g[k], v)
			}
		}
		if _, ok := g[oneOf[name]]; !ok {
			t.Errorf("%s lost its 1.0 member %s: %v", name, oneOf[name], g)
		}
	}
	// The 1.0 reading of the view is the card it was made from.
	var back a2a.AgentCard
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.SecuritySchemes, card.SecuritySchemes) {
		t.Errorf("the 1.0 members changed:\n%+v\n%+v", back.SecuritySchemes, card.SecuritySchemes)
	}
}
