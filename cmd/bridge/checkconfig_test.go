package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRunCheckConfig(t *testing.T) {
	t.Setenv("REDIS_URL", "redis://127.0.0.1:6379/0")
	t.Setenv("BILLING_CLIENT_SECRET", "s")
	tests := []struct {
		name    string
		args    []string
		wantOut string
		wantErr string
	}{
		{"valid examples", []string{"--file-only", "../../examples/quickstart.yaml", "../../examples/secured.yaml"},
			"../../examples/quickstart.yaml: ok\n../../examples/secured.yaml: ok\n", ""},
		{"quickstart runs here", []string{"../../examples/quickstart.yaml"}, "../../examples/quickstart.yaml: ok\n", ""},
		{"the demo's configuration runs here", []string{"--probe", "../../examples/demo.yaml"}, "../../examples/demo.yaml: ok\n", ""},
		{"probe and file-only", []string{"--probe", "--file-only", "../../examples/quickstart.yaml"}, "", "exclude each other"},
		{"broken file", []string{"../../config/testdata/unsafe_nonloopback.yaml"},
			"../../config/testdata/unsafe_nonloopback.yaml:4:3: auth.anonymous: refused on the non-loopback listener 0.0.0.0:8080: anyone who can reach it would be a caller; listen on 127.0.0.1, configure oidc/jwks/api_keys, or confirm with auth.unsafe_anonymous_non_loopback: true\n" +
				"../../config/testdata/unsafe_nonloopback.yaml:7:3: netguard.unsafe_allow: weakens SSRF protection on the non-loopback listener 0.0.0.0:8080: remove it, listen on 127.0.0.1, or confirm with netguard.unsafe_allow_confirm: true\n",
			"1 of 1 files have problems"},
		{"missing file", []string{"does-not-exist.yaml"}, "config: read does-not-exist.yaml: no such file or directory\n", "1 of 1 files have problems"},
		{"no file", nil, "", "name a configuration file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := runCheckConfig(context.Background(), tt.args, &out, &errOut)
			if out.String() != tt.wantOut {
				t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), tt.wantOut)
			}
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
