package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestLifecycleProblems pins the exact messages of the lifecycle settings:
// the lease TTL, the read timeout, the connection limits and the reload
// watch.
func TestLifecycleProblems(t *testing.T) {
	const base = "auth: {anonymous: true}\npolicy: {default: deny}\n"
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"lease too short", "tasks: {lease_ttl: 500ms}\n", []string{
			`t.yaml:3:9: tasks.lease_ttl: 500ms is out of range: use a duration from 1s to 10m, such as 15s`,
		}},
		{"lease too long", "tasks: {lease_ttl: 1h}\n", []string{
			`t.yaml:3:9: tasks.lease_ttl: 1h0m0s is out of range: use a duration from 1s to 10m, such as 15s`,
		}},
		{"read timeout negative", "server: {read_timeout: -1s}\n", []string{
			`t.yaml:3:10: server.read_timeout: must be positive, such as 60s: it bounds reading every request body`,
		}},
		{"negative limits", "server: {max_connections: -1, max_connections_per_client: -2}\n", []string{
			`t.yaml:3:10: server.max_connections: must not be negative (0 turns the limit off)`,
			`t.yaml:3:31: server.max_connections_per_client: must not be negative (0 turns the limit off)`,
		}},
		{"per client above total", "server: {max_connections: 10, max_connections_per_client: 11}\n", []string{
			`t.yaml:3:31: server.max_connections_per_client: 11 is above server.max_connections (10): lower it, or it never bites`,
		}},
		{"watch interval", "reload: {watch: true, watch_interval: 100ms}\n", []string{
			`t.yaml:3:23: reload.watch_interval: must be at least 1s, such as 5s`,
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

func TestLifecycleDefaults(t *testing.T) {
	c, err := Parse([]byte("auth: {anonymous: true}\npolicy: {default: deny}\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Tasks.LeaseTTL.D() != 15*time.Second || c.Server.MaxConnections != 10000 || c.Server.MaxConnectionsPerClient != 0 ||
		c.Reload.Watch || c.Reload.WatchInterval.D() != 5*time.Second || c.Server.ReadTimeout.D() != time.Minute {
		t.Errorf("defaults: tasks %+v, server %+v, reload %+v", c.Tasks, c.Server, c.Reload)
	}
}
