package card

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

func TestSecurityDeclaresWhatIsAccepted(t *testing.T) {
	tests := []struct {
		name      string
		creds     []Credential
		anonymous bool
		want      string // {"schemes":…,"reqs":…}
	}{
		{name: "nothing accepted", anonymous: true, want: `{"schemes":null,"reqs":null}`},
		{name: "oidc with scopes, twice", creds: []Credential{{Kind: CredentialOIDC, DiscoveryURL: "https://a/.well-known/openid-configuration", Scopes: []string{"agents"}}, {Kind: CredentialOIDC, DiscoveryURL: "https://b/.well-known/openid-configuration"}},
			want: `{"schemes":{"oidc":{"openIdConnectSecurityScheme":{"openIdConnectUrl":"https://a/.well-known/openid-configuration"}},"oidc2":{"openIdConnectSecurityScheme":{"openIdConnectUrl":"https://b/.well-known/openid-configuration"}}},"reqs":[{"schemes":{"oidc":{"list":["agents"]}}},{"schemes":{"oidc2":{}}}]}`},
		{name: "bearer JWT and an API key, anonymous too", creds: []Credential{{Kind: CredentialBearerJWT}, {Kind: CredentialAPIKey, Header: "X-API-Key"}}, anonymous: true,
			want: `{"schemes":{"apikey":{"apiKeySecurityScheme":{"description":"API key, also accepted as Authorization: Bearer KEY","location":"header","name":"X-API-Key"}},"bearer":{"httpAuthSecurityScheme":{"scheme":"Bearer","bearerFormat":"JWT"}}},"reqs":[{"schemes":{"bearer":{}}},{"schemes":{"apikey":{}}},{}]}`},
		{name: "an API key in Authorization", creds: []Credential{{Kind: CredentialAPIKey}},
			want: `{"schemes":{"apikey":{"apiKeySecurityScheme":{"description":"API key, also accepted as Authorization: Bearer KEY","location":"header","name":"Authorization"}}},"reqs":[{"schemes":{"apikey":{}}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schemes, reqs := Security(tt.creds, tt.anonymous)
			got, err := json.Marshal(struct {
				Schemes map[string]a2a.SecurityScheme `json:"schemes"`
				Reqs    []a2a.SecurityRequirement     `json:"reqs"`
			}{schemes, reqs})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestSignAgentCardVerifiesAndReplacesOldSignatures(t *testing.T) {
	pemKey, err := GenerateKey(ES256)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ParseSigningKey(pemKey)
	if err != nil {
		t.Fatal(err)
	}
	ks := &KeySet{Current: key}
	c := &a2a.AgentCard{Name: "a", Description: "d", Version: "1",
		SupportedInterfaces: []a2a.AgentInterface{{URL: "https://a.example/a2a/a", ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.ProtocolVersion}},
		Signatures:          []a2a.AgentCardSignature{{Protected: "stale", Signature: "stale"}}}
	c.SecuritySchemes, c.SecurityRequirements = Security([]Credential{{Kind: CredentialBearerJWT}}, false)
	signed, err := SignAgentCard(c, ks)
	if err != nil {
		t.Fatal(err)
	}
	if len(signed.Signatures) == 0 || slices.ContainsFunc(signed.Signatures, func(s a2a.AgentCardSignature) bool { return s.Signature == "stale" }) || len(c.Signatures) != 1 {
		t.Fatalf("signatures: %+v (the input's: %+v)", signed.Signatures, c.Signatures)
	}
	raw, err := json.Marshal(signed)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Verify(context.Background(), raw, ks, VerifyOptions{RequireSignature: true, SpecFormOnly: true})
	if err != nil || res.Status != StatusVerified {
		t.Fatalf("verify: %+v %v", res, err)
	}
	if _, err := SignAgentCard(c, &KeySet{}); err == nil {
		t.Fatal("signed without a key")
	}
}
