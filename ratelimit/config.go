package ratelimit

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Field names one part of a hop that a rule counts separately.
type Field string

// The fields a rule may list under per. Each names a part of request.Hop.
const (
	// FieldPrincipal is the caller (request.Hop.Principal.Key()); anonymous
	// callers and requests without a principal are counted by remote IP.
	FieldPrincipal Field = "principal"
	// FieldAgent is the configured agent name (request.Hop.Agent).
	FieldAgent Field = "agent"
	// FieldSkill is the A2A skill id (request.Hop.Skill).
	FieldSkill Field = "skill"
	// FieldTool is the MCP tool name (request.Hop.Tool).
	FieldTool Field = "tool"
	// FieldHop is the route: face, direction and agent together.
	FieldHop Field = "hop"
	// FieldIP is the remote address, IPv6 masked to its /64.
	FieldIP Field = "ip"
	// FieldMethod is the protocol method ("SendMessage", "tools/call", ...).
	FieldMethod Field = "method"
)

var knownFields = []Field{FieldPrincipal, FieldAgent, FieldSkill, FieldTool, FieldHop, FieldIP, FieldMethod}

func (f Field) known() bool {
	for _, k := range knownFields {
		if f == k {
			return true
		}
	}
	return false
}

// Fields is the list under a rule's per. In YAML and JSON it is either one
// name (per: principal) or a list (per: [principal, tool]).
type Fields []string

// UnmarshalYAML accepts a single string or a sequence of strings.
func (f *Fields) UnmarshalYAML(unmarshal func(any) error) error {
	var one string
	if err := unmarshal(&one); err == nil {
		*f = Fields{one}
		return nil
	}
	var list []string
	if err := unmarshal(&list); err != nil {
		return errors.New("ratelimit: per must be a field name or a list of field names")
	}
	*f = list
	return nil
}

// UnmarshalJSON accepts a single string or an array of strings.
func (f *Fields) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*f = Fields{one}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return errors.New("ratelimit: per must be a field name or a list of field names")
	}
	*f = list
	return nil
}

// Rule is one limit: requests whose hop matches When are counted per distinct
// value of the Per fields, at most Rate per window.
//
// A hop that has no value for a listed field (no tool on an A2A SendMessage,
// no remote IP on stdio) is not counted by that rule, the way an Envoy
// descriptor that cannot be built does not apply. The principal field never
// lacks a value while the hop has a remote IP: anonymous callers are counted
// by address.
type Rule struct {
	// Name identifies the rule in keys, metrics and the RateLimit headers.
	// Default: "per-" followed by the Per fields joined with "-"
	// ("per-principal-tool"). Lower-case letters, digits, '-', '_' and '.',
	// at most 64 characters; unique within the config.
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Per lists the hop fields counted separately: principal, agent, skill,
	// tool, hop, ip, method. Required.
	Per Fields `yaml:"per" json:"per"`
	// Rate is the quota, "N/U" with U one of s, m, h, d ("60/m"). Required.
	Rate string `yaml:"rate" json:"rate"`
	// When is an optional condition (a policy expression over the hop); the
	// rule counts only hops for which it is true. Empty: every hop. A
	// condition that fails to evaluate counts the hop (a limit errs on the
	// side of limiting).
	When string `yaml:"when,omitempty" json:"when,omitempty"`
}

// DisplayName is the rule's Name, or the default derived from Per.
func (r Rule) DisplayName() string {
	if r.Name != "" {
		return r.Name
	}
	return "per-" + strings.Join(r.Per, "-")
}

// Redis failure modes for Config.OnRedisError.
const (
	// RedisFailOpen lets requests through while Redis cannot be reached.
	RedisFailOpen = "open"
	// RedisFailClosed refuses requests while Redis cannot be reached.
	RedisFailClosed = "closed"
)

// Config is the limits section of the bridge configuration.
type Config struct {
	// Rules are evaluated together on every hop; the most restrictive
	// outcome wins. Empty: no limits.
	Rules []Rule `yaml:"rules" json:"rules"`
	// Redis is a redis://, rediss:// or unix:// URL. When set, counts live in
	// Redis and are shared by every replica that points at it; otherwise they
	// are kept in this process. Default: empty (in-process).
	Redis string `yaml:"redis,omitempty" json:"redis,omitempty" secret:"url"`
	// OnRedisError is what happens to a request while Redis cannot be
	// reached: "open" lets it through (availability over enforcement),
	// "closed" refuses it. Required when Redis is set; no default, because
	// either choice trades security against availability.
	OnRedisError string `yaml:"on_redis_error,omitempty" json:"on_redis_error,omitempty"`
}

// Validate reports every problem in c, each naming the field (relative to
// the limits section: "rules[1].rate", "redis") and the fix. It does not
// compile When conditions; New does.
func (c Config) Validate() []error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("ratelimit: "+format, args...))
	}
	seen := map[string]int{}
	for i, r := range c.Rules {
		p := fmt.Sprintf("rules[%d]", i)
		if len(r.Per) == 0 {
			add("%s.per: missing: list the fields to count by, e.g. per: principal or per: [principal, tool]", p)
		}
		dup := map[string]bool{}
		for j, f := range r.Per {
			if !Field(f).known() {
				add("%s.per[%d]: unknown field %q: use one of principal, agent, skill, tool, hop, ip, method", p, j, clip(f))
			} else if dup[f] {
				add("%s.per[%d]: field %q listed twice: list each field once", p, j, f)
			}
			dup[f] = true
		}
		if r.Rate == "" {
			add("%s.rate: missing: set a quota such as rate: 60/m", p)
		} else if _, err := ParseRate(r.Rate); err != nil {
			add("%s.rate: %s", p, strings.TrimPrefix(err.Error(), "ratelimit: "))
		}
		if r.Name != "" && !validName(r.Name) {
			add("%s.name: %q is not a valid name: use 1 to 64 lower-case letters, digits, '-', '_' or '.'", p, clip(r.Name))
		}
		name := r.DisplayName()
		if prev, ok := seen[name]; ok {
			if r.Name == "" {
				add("%s.name: default name %q is already used by rules[%d]: give one of them a distinct name", p, name, prev)
			} else {
				add("%s.name: %q is already used by rules[%d]: rule names must be unique", p, name, prev)
			}
		} else {
			seen[name] = i
		}
	}
	switch {
	case c.Redis == "" && c.OnRedisError != "":
		add("on_redis_error: set without redis: remove it, or set redis to a redis:// URL")
	case c.Redis != "":
		// The URL may carry a password: never quote it or the parser's error.
		if _, err := redis.ParseURL(c.Redis); err != nil {
			add("redis: not a valid redis://, rediss:// or unix:// URL: fix the URL (it is not repeated here because it may hold a password)")
		}
		switch c.OnRedisError {
		case RedisFailOpen, RedisFailClosed:
		case "":
			add("on_redis_error: missing: with redis set, choose \"open\" (let requests through while Redis is down) or \"closed\" (refuse them)")
		default:
			add("on_redis_error: %q is not valid: use \"open\" or \"closed\"", clip(c.OnRedisError))
		}
	}
	return errs
}

func validName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}
