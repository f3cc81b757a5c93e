package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestGRPCProblems(t *testing.T) {
	const base = "auth: {anonymous: true}\npolicy: {default: deny}\n"
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"settings without enabled", "server: {grpc: {listen: 127.0.0.1:9090}}\n", []string{
			`t.yaml:3:10: server.grpc.enabled: must be true when listen, public_address, cert_file or key_file is set`,
		}},
		{"bad addresses", "server: {grpc: {enabled: true, listen: nope, public_address: a/b:1}}\n", []string{
			`t.yaml:3:32: server.grpc.listen: "nope" is not HOST:PORT: write an address such as 127.0.0.1:9090`,
			`t.yaml:3:46: server.grpc.public_address: "a/b:1" is not HOST:PORT: write the address clients dial, such as grpc.example.com:443`,
		}},
		{"main listener's address", "server: {grpc: {enabled: true, listen: \"127.0.0.1:8080\"}}\n", []string{
			`t.yaml:3:32: server.grpc.listen: is the main listener's address: leave it empty to serve gRPC there`,
		}},
		{"TLS halves and main listener", "server: {grpc: {enabled: true, cert_file: c.pem}}\n", []string{
			`t.yaml:3:32: server.grpc.cert_file: cert_file and key_file go together: set both or neither`,
			`t.yaml:3:32: server.grpc.cert_file: TLS is configured for the binding's own listener: set server.grpc.listen too (the main listener has no TLS of its own)`,
		}},
		{"unknown binding", "front: {a2a: [{name: a, url: \"https://a.example\", binding: soap}]}\n", []string{
			`t.yaml:3:51: front.a2a[0].binding: "soap" is not a binding: use JSONRPC, HTTP+JSON or GRPC (or leave it out: the card decides)`,
		}},
		{"limits", "server: {grpc: {enabled: true, max_recv_message_bytes: 2GiB, max_unary_duration: -1s, keepalive_time: 1s, keepalive_timeout: 500ms, min_ping_interval: 500ms, max_connection_age: -1s}}\n", []string{
			`t.yaml:3:32: server.grpc.max_recv_message_bytes: must be positive and at most 1GiB, such as 4MiB`,
			`t.yaml:3:62: server.grpc.max_unary_duration: must be positive, such as 5m`,
			`t.yaml:3:87: server.grpc.keepalive_time: must be at least 10s, such as 2m`,
			`t.yaml:3:107: server.grpc.keepalive_timeout: must be at least 1s, such as 20s`,
			`t.yaml:3:133: server.grpc.min_ping_interval: must be at least 1s, such as 30s`,
			`t.yaml:3:159: server.grpc.max_connection_age: must not be negative (0 turns it off)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(base+tt.yaml), "t.yaml")
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("Parse error = %v, want Problems", err)
			}
			if got, want := ps.Error(), strings.Join(tt.want, "\n"); got != want {
				t.Errorf("problems:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestGRPCDefaults(t *testing.T) {
	c, err := Parse([]byte("auth: {anonymous: true}\npolicy: {default: deny}\nserver: {grpc: {enabled: true}}\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g := c.Server.GRPC
	if g.MaxRecvMessageBytes != 4<<20 || g.MaxSendMessageBytes != 16<<20 || g.MaxUnaryDuration.D() != 5*time.Minute ||
		g.KeepaliveTime.D() != 2*time.Minute || g.KeepaliveTimeout.D() != 20*time.Second || g.MinPingInterval.D() != 30*time.Second ||
		g.MaxConnectionIdle.D() != 15*time.Minute || g.MaxConnectionAge != 0 || g.MaxConnectionAgeGrace.D() != 30*time.Second {
		t.Errorf("defaults: %+v", g)
	}
}
