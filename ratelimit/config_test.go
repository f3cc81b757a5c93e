package ratelimit

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{name: "empty is valid", cfg: Config{}},
		{name: "sketch is valid", cfg: Config{Rules: []Rule{
			{Per: Fields{"principal"}, Rate: "60/m"},
			{Per: Fields{"principal", "tool"}, When: `hop.tool == "search"`, Rate: "10/s"},
		}}},
		{name: "redis with fail mode", cfg: Config{Redis: "redis://:secret@127.0.0.1:6379/0", OnRedisError: "closed"}},
		{name: "missing per and rate", cfg: Config{Rules: []Rule{{Name: "x"}}}, want: []string{
			"ratelimit: rules[0].per: missing: list the fields to count by, e.g. per: principal or per: [principal, tool]",
			"ratelimit: rules[0].rate: missing: set a quota such as rate: 60/m",
		}},
		{name: "unknown and repeated fields", cfg: Config{Rules: []Rule{{Per: Fields{"user", "tool", "tool"}, Rate: "1/s"}}}, want: []string{
			`ratelimit: rules[0].per[0]: unknown field "user": use one of principal, agent, skill, tool, hop, ip, method`,
			`ratelimit: rules[0].per[2]: field "tool" listed twice: list each field once`,
		}},
		{name: "bad rate", cfg: Config{Rules: []Rule{{Per: Fields{"ip"}, Rate: "60/min"}}}, want: []string{
			`ratelimit: rules[0].rate: invalid rate "60/min": unit "min" is not one of s, m, h, d`,
		}},
		{name: "bad name", cfg: Config{Rules: []Rule{{Name: "Per Principal", Per: Fields{"ip"}, Rate: "1/s"}}}, want: []string{
			`ratelimit: rules[0].name: "Per Principal" is not a valid name: use 1 to 64 lower-case letters, digits, '-', '_' or '.'`,
		}},
		{name: "duplicate default names", cfg: Config{Rules: []Rule{
			{Per: Fields{"principal"}, Rate: "60/m"},
			{Per: Fields{"principal"}, Rate: "1000/h"},
		}}, want: []string{
			`ratelimit: rules[1].name: default name "per-principal" is already used by rules[0]: give one of them a distinct name`,
		}},
		{name: "duplicate explicit names", cfg: Config{Rules: []Rule{
			{Name: "a", Per: Fields{"principal"}, Rate: "60/m"},
			{Name: "a", Per: Fields{"tool"}, Rate: "60/m"},
		}}, want: []string{
			`ratelimit: rules[1].name: "a" is already used by rules[0]: rule names must be unique`,
		}},
		{name: "redis without fail mode", cfg: Config{Redis: "redis://127.0.0.1:6379"}, want: []string{
			`ratelimit: on_redis_error: missing: with redis set, choose "open" (let requests through while Redis is down) or "closed" (refuse them)`,
		}},
		{name: "bad fail mode", cfg: Config{Redis: "redis://127.0.0.1:6379", OnRedisError: "maybe"}, want: []string{
			`ratelimit: on_redis_error: "maybe" is not valid: use "open" or "closed"`,
		}},
		{name: "fail mode without redis", cfg: Config{OnRedisError: "open"}, want: []string{
			"ratelimit: on_redis_error: set without redis: remove it, or set redis to a redis:// URL",
		}},
		{name: "bad redis url", cfg: Config{Redis: "http://user:hunter2@127.0.0.1/", OnRedisError: "open"}, want: []string{
			"ratelimit: redis: not a valid redis://, rediss:// or unix:// URL: fix the URL (it is not repeated here because it may hold a password)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, err := range tt.cfg.Validate() {
				got = append(got, err.Error())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Validate() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestValidateNeverEchoesRedisPassword(t *testing.T) {
	for _, u := range []string{"http://user:hunter2@127.0.0.1/", "redis://user:hunter2@[::1", "redis://:hunter2@127.0.0.1:6379/notadb"} {
		for _, err := range (Config{Redis: u, OnRedisError: "open"}).Validate() {
			if strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("error leaks the password: %v", err)
			}
		}
	}
}

func TestConfigDecodeYAML(t *testing.T) {
	src := `
rules:
  - {per: principal, rate: 60/m}
  - {name: search, per: [principal, tool], when: 'hop.tool == "search"', rate: 10/s}
redis: redis://127.0.0.1:6379/0
on_redis_error: open
`
	var got Config
	if err := yaml.UnmarshalWithOptions([]byte(src), &got, yaml.Strict()); err != nil {
		t.Fatal(err)
	}
	want := Config{
		Rules: []Rule{
			{Per: Fields{"principal"}, Rate: "60/m"},
			{Name: "search", Per: Fields{"principal", "tool"}, When: `hop.tool == "search"`, Rate: "10/s"},
		},
		Redis:        "redis://127.0.0.1:6379/0",
		OnRedisError: "open",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %+v, want %+v", got, want)
	}
	if errs := got.Validate(); len(errs) != 0 {
		t.Fatalf("Validate: %v", errs)
	}
}

func TestConfigDecodeRejectsUnknownKeys(t *testing.T) {
	var got Config
	err := yaml.UnmarshalWithOptions([]byte("rules:\n  - {per: ip, rate: 1/s, burst: 5}\n"), &got, yaml.Strict())
	if err == nil {
		t.Fatal("strict decode accepted an unknown key")
	}
}

func TestFieldsDecodeRejectsMapping(t *testing.T) {
	var got Config
	if err := yaml.Unmarshal([]byte("rules:\n  - {per: {a: b}, rate: 1/s}\n"), &got); err == nil {
		t.Fatal("per accepted a mapping")
	}
	if err := json.Unmarshal([]byte(`{"rules":[{"per":{"a":"b"},"rate":"1/s"}]}`), &got); err == nil {
		t.Fatal("per accepted a JSON object")
	}
}

func TestConfigDecodeJSON(t *testing.T) {
	var got Config
	if err := json.Unmarshal([]byte(`{"rules":[{"per":"ip","rate":"5/s"},{"per":["agent","method"],"rate":"1/m"}]}`), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Rules[0].Per, Fields{"ip"}) || !reflect.DeepEqual(got.Rules[1].Per, Fields{"agent", "method"}) {
		t.Fatalf("decoded %+v", got.Rules)
	}
}
