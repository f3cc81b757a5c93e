package config

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// plainTextFields are the configuration's text fields that are not
// secret, each checked by hand: names, paths, patterns, public URLs, CEL
// expressions, enumerations. Any other text field must carry a `secret`
// tag (TestEveryTextFieldIsClassified).
var plainTextFields = []string{
	"config.Config.Listen",
	"config.MCPUpstream.Builtin",
	"config.ExposedAgent.Agent",
	"config.FrontedAgent.Builtin",
	"config.Server.RootAgent",
	"config.Config.PublicURL",
	"config.Keys.Signing",
	"config.Keys.Previous",
	"auth.OIDCConfig.Issuer",
	"auth.OIDCConfig.DiscoveryURL",
	"auth.OIDCConfig.Audience",
	"auth.OIDCConfig.Scopes",
	"auth.OIDCConfig.Algorithms",
	"auth.OIDCConfig.GroupsClaim",
	"auth.OIDCConfig.TokenTypes",
	"auth.JWKSConfig.Issuer",
	"auth.JWKSConfig.File",
	"auth.JWKSConfig.Audience",
	"auth.JWKSConfig.Scopes",
	"auth.JWKSConfig.Algorithms",
	"auth.JWKSConfig.GroupsClaim",
	"auth.JWKSConfig.TokenTypes",
	"auth.APIKeyConfig.Name",
	"auth.APIKeyConfig.Scopes",
	"auth.APIKeyConfig.Groups",
	"auth.Config.APIKeyHeader",
	"policy.Config.Default",
	"policy.Rule.Name",
	"policy.Rule.Allow",
	"policy.Rule.Deny",
	"policy.Rule.Description",
	"ratelimit.Rule.Name",
	"ratelimit.Rule.Per",
	"ratelimit.Rule.Rate",
	"ratelimit.Rule.When",
	"ratelimit.Config.OnRedisError",
	"config.PublishedServer.Name",
	"config.PublishedServer.Description",
	"config.Stdio.Command",
	"config.Stdio.InheritEnv",
	"config.Stdio.Dir",
	"auth.StaticSecretConfig.Header",
	"auth.StaticSecretConfig.Env",
	"auth.StaticSecretConfig.File",
	"auth.ClientCredentialsConfig.ClientID",
	"auth.ClientCredentialsConfig.Scopes",
	"auth.ClientCredentialsConfig.Audience",
	"auth.ClientCredentialsConfig.Resource",
	"auth.TokenExchangeConfig.ClientID",
	"auth.TokenExchangeConfig.Audience",
	"auth.TokenExchangeConfig.Resource",
	"auth.TokenExchangeConfig.Scopes",
	"auth.TokenExchangeConfig.SubjectTokenType",
	"auth.TokenExchangeConfig.RequestedTokenType",
	"config.PublishedServer.AllowTools",
	"config.PublishedServer.DenyTools",
	"config.PublishedServer.Audience",
	"config.Expose.ToolNameSeparator",
	"config.ExposedAgent.Alias",
	"config.ExposedAgent.CredentialHosts",
	"config.ExposedAgent.Binding",
	"config.CardVerification.Keys",
	"config.CardVerification.TrustedJKUHosts",
	"config.CardVerification.Algorithms",
	"config.MCPEndpoint.Path",
	"config.MCPEndpoint.AllowedOrigins",
	"config.MCPEndpoint.Audience",
	"config.MCPEndpoint.RateLimitedMethods",
	"config.FrontedAgent.Name",
	"config.FrontedAgent.CredentialHosts",
	"config.FrontedAgent.Binding",
	"config.FrontedAgent.Audience",
	"config.FrontedMCPServer.Name",
	"config.FrontedMCPServer.ToolPrefix",
	"config.Netguard.UnsafeAllow",
	"config.Observability.LogLevel",
	"config.Observability.LogFormat",
	"config.Observability.MetricsPath",
	"config.Observability.ServiceName",
	"config.Server.A2AErrorTable",
	"config.Server.A2AV03",
	"config.Server.A2AV03Card",
	"config.Server.AllowedHosts",
	"config.Server.AllowedOrigins",
	"config.GRPC.Listen",
	"config.GRPC.PublicAddress",
	"config.GRPC.CertFile",
	"config.GRPC.KeyFile", // a path, as keys.signing
	"config.Health.Readiness",
	"config.Admin.Listen",
	"config.Admin.Scope",
}

// textField is a field whose value holds text: a string, or a list or map
// of strings.
type textField struct {
	path string // Type.Field
	tag  string
}

// textFields walks t and returns every text field, by its type and name.
func textFields(t reflect.Type, seen map[reflect.Type]bool) []textField {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return nil
	}
	seen[t] = true
	var out []textField
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() || sf.Tag.Get("yaml") == "-" {
			continue
		}
		ft := sf.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array {
			ft = ft.Elem()
		}
		isText := ft.Kind() == reflect.String || ft.Kind() == reflect.Map && (ft.Elem().Kind() == reflect.String || ft.Key().Kind() == reflect.String && ft.Elem().Kind() != reflect.Struct)
		if isText {
			out = append(out, textField{path: t.PkgPath()[strings.LastIndex(t.PkgPath(), "/")+1:] + "." + t.Name() + "." + sf.Name, tag: sf.Tag.Get(secretTag)})
			continue
		}
		out = append(out, textFields(sf.Type, seen)...)
	}
	return out
}

// TestEveryTextFieldIsClassified walks the configuration type: every text
// field is either tagged secret (and redacted for display) or listed in
// plainTextFields. A new field that may hold a secret cannot reach the
// status page unredacted without someone deciding so here.
func TestEveryTextFieldIsClassified(t *testing.T) {
	var unclassified []string
	for _, f := range textFields(reflect.TypeFor[Config](), map[reflect.Type]bool{}) {
		switch {
		case f.tag == secretValue || f.tag == secretURL:
			if slices.Contains(plainTextFields, f.path) {
				t.Errorf("%s is tagged secret:%q and listed as plain", f.path, f.tag)
			}
		case f.tag != "":
			t.Errorf("%s: unknown secret tag %q: use %q or %q", f.path, f.tag, secretValue, secretURL)
		case !slices.Contains(plainTextFields, f.path):
			unclassified = append(unclassified, f.path)
		}
	}
	if len(unclassified) > 0 {
		t.Errorf("text fields neither tagged secret nor listed in plainTextFields:\n\t%s", strings.Join(unclassified, "\n\t"))
	}
}

// sentinel marks a secret in TestRedactedHidesEverySecretField.
const sentinel = "S3CRET"

// fill sets every field of v: secret text to values carrying the
// sentinel (as a password, a query value and a plain value), other text
// to "plain", one element in every list and map, every pointer set.
func fill(v reflect.Value, mode string) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), mode)
	case reflect.Struct:
		for i := range v.NumField() {
			sf := v.Type().Field(i)
			if sf.IsExported() {
				fill(v.Field(i), sf.Tag.Get(secretTag))
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), mode)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, "")
		fill(e, mode)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		switch mode {
		case secretURL:
			v.SetString("https://user:" + sentinel + "@host.example/path?key=" + sentinel + "#" + sentinel)
		case secretValue:
			v.SetString(sentinel)
		default:
			v.SetString("plain")
		}
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint16, reflect.Uint, reflect.Uint64:
		if v.CanInt() {
			v.SetInt(7)
		} else {
			v.SetUint(7)
		}
	case reflect.Float64:
		v.SetFloat(1.5)
	}
}

// TestRedactedHidesEverySecretField fills every field of a configuration,
// each secret-tagged one with a secret, and finds none of them in what the
// status page and the admin API show, while the plain fields and the
// non-secret parts of secret URLs stay visible.
func TestRedactedHidesEverySecretField(t *testing.T) {
	var c Config
	fill(reflect.ValueOf(&c).Elem(), "")
	js, err := json.Marshal(c.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	ym, err := c.Redacted().YAML()
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"json": string(js), "yaml": string(ym)} {
		if strings.Contains(out, sentinel) {
			t.Errorf("%s shows a secret:\n%s", name, out)
		}
		for _, want := range []string{"plain", "https://user:" + RedactedText + "@host.example/path?key=" + RedactedText, RedactedText} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, out)
			}
		}
	}
	// Every secret field was filled: count them in the tree.
	secrets := 0
	for _, f := range textFields(reflect.TypeFor[Config](), map[reflect.Type]bool{}) {
		if f.tag != "" {
			secrets++
		}
	}
	if n := strings.Count(string(js), RedactedText); n < secrets {
		t.Errorf("%d redactions in the JSON, want at least one per secret field (%d)", n, secrets)
	}
}

func TestRedactURLSecrets(t *testing.T) {
	tests := []struct{ in, want string }{
		{"sqlite:./bridge.db", "sqlite:./bridge.db"},
		{"memory:", "memory:"},
		{"postgres://bridge:pw@db.internal:5432/bridge?sslmode=require", "postgres://bridge:[redacted]@db.internal:5432/bridge?sslmode=[redacted]"},
		{"postgres://bridge@db.internal/bridge", "postgres://bridge@db.internal/bridge"},
		{"rediss://:pw@redis.internal:6380/0", "rediss://:[redacted]@redis.internal:6380/0"},
		{"https://mcp.example.com/mcp?api_key=k", "https://mcp.example.com/mcp?api_key=[redacted]"},
		{"sqlite:file.db?_pragma=key(x)", RedactedText},
		{"sqlite:./bridge.db?synchronous=normal", "sqlite:./bridge.db?synchronous=normal"},
		{"host=db password=pw", RedactedText},
		{"%zz://x", RedactedText},
	}
	for _, tt := range tests {
		if got := redactURLSecrets(tt.in); got != tt.want {
			t.Errorf("redactURLSecrets(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
