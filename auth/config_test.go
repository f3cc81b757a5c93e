package auth_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/auth/authtest"
	"github.com/goccy/go-yaml"
)

func TestConfigDecodesFromYAML(t *testing.T) {
	src := `
oidc:
  - issuer: https://idp.example.com
    audience: [https://bridge.example.com]
    scopes: [agents]
    algorithms: [ES256]
    clock_skew: 45s
    groups_claim: roles
    token_types: [at+jwt]
api_keys:
  - {name: ci-bot, sha256: "` + hashKey("k") + `", scopes: [agents]}
api_key_header: X-API-Key
cache: {max_entries: 100, max_ttl: 1m}
ip_limit: {rate: 5, burst: 10}
`
	var cfg auth.Config
	if err := yaml.UnmarshalWithOptions([]byte(src), &cfg, yaml.Strict()); err != nil {
		t.Fatal(err)
	}
	o := cfg.OIDC[0]
	if o.ClockSkew != 45*time.Second || o.GroupsClaim != "roles" || !slices.Equal(o.TokenTypes, []string{"at+jwt"}) ||
		cfg.Cache.MaxTTL != time.Minute || cfg.IPLimit.Burst != 10 || cfg.APIKeys[0].Name != "ci-bot" {
		t.Errorf("decoded %+v", cfg)
	}
	if errs := cfg.Validate(); errs != nil {
		t.Errorf("Validate = %v", errs)
	}
}

func TestConfigValidateListsEveryProblem(t *testing.T) {
	cfg := auth.Config{
		OIDC: []auth.OIDCConfig{
			{Issuer: "idp.example.com", Algorithms: []string{"HS256"}, ClockSkew: time.Hour},
			{Issuer: "https://a.example", Audience: []string{"x"}},
			{Issuer: "https://a.example", Audience: []string{"x"}},
		},
		JWKS:                       []auth.JWKSConfig{{Issuer: "https://j.example", Audience: []string{"x"}}},
		APIKeys:                    []auth.APIKeyConfig{{Name: "a", SHA256: "zz"}, {Name: "a", SHA256: hashKey("k")}},
		APIKeyHeader:               "Bad Header",
		UnsafeAnonymousNonLoopback: true,
	}
	want := []string{
		`auth.oidc[0].issuer: "idp.example.com" is not an absolute URL`,
		`auth.oidc[0].audience: required: the bridge's public URL, so tokens for other resources are refused`,
		`auth.oidc[0].algorithms: "HS256": symmetric and unsigned algorithms are never accepted`,
		`auth.oidc[0].clock_skew: 1h0m0s is outside 0..5m0s`,
		`auth.oidc[2].issuer: "https://a.example" is configured twice: one verifier per issuer`,
		`auth.jwks[0].file: required: path of the JWKS document`,
		"auth.api_keys[0].sha256: must be 64 hex characters (sha256 of the key, e.g. `printf %s KEY | sha256sum`)",
		`auth.api_keys[1].name: "a" is used twice`,
		`auth.api_key_header: "Bad Header" is not a valid header name`,
		`auth.unsafe_anonymous_non_loopback: set without anonymous: remove it`,
	}
	var got []string
	for _, e := range cfg.Validate() {
		got = append(got, e.Error())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\n\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	empty := auth.Config{}
	if errs := empty.Validate(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "no authentication method configured") {
		t.Errorf("empty config: %v", errs)
	}
}

func TestDescribeAndResourceMetadata(t *testing.T) {
	idp := authtest.NewIdP(t)
	cfg := oidcConfig(idp)
	cfg.OIDC[0].Scopes = []string{"agents"}
	cfg.APIKeys = []auth.APIKeyConfig{{Name: "ci", SHA256: hashKey("k")}}
	cfg.APIKeyHeader = "x-api-key"
	chain := newChain(t, cfg, newClock())
	got := chain.Describe()
	if len(got) != 2 {
		t.Fatalf("Describe = %+v", got)
	}
	o, k := got[0], got[1]
	if o.Kind != auth.SchemeOIDC || o.Issuer != idp.Issuer || o.DiscoveryURL != idp.Issuer+"/.well-known/openid-configuration" ||
		!slices.Equal(o.Scopes, []string{"agents"}) || o.BearerFormat != "JWT" || o.Header != "Authorization" {
		t.Errorf("oidc scheme %+v", o)
	}
	if k.Kind != auth.SchemeAPIKey || k.Header != "X-Api-Key" {
		t.Errorf("api key scheme %+v", k)
	}
	md, err := chain.ResourceMetadata(resource)
	if err != nil {
		t.Fatal(err)
	}
	if md.Resource != resource || !slices.Equal(md.AuthorizationServers, []string{idp.Issuer}) ||
		!slices.Equal(md.ScopesSupported, []string{"agents"}) || !slices.Equal(md.BearerMethodsSupported, []string{"header"}) {
		t.Errorf("metadata %+v", md)
	}
}
