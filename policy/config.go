package policy

// Config is the policy section of the bridge configuration.
//
//	policy:
//	  default: deny
//	  rules:
//	    - {name: staff-billing, allow: 'principal.groups.exists(g, g == "staff") && hop.agent == "billing"'}
//	    - {name: bots-no-destructive, deny: 'principal.client_id.startsWith("bot-") && hop.tool_destructive'}
type Config struct {
	// Default is the decision when no rule matches: "allow" or "deny". It is
	// required; there is no implicit default. "deny" is the safe choice.
	Default string `yaml:"default"`
	// Rules are evaluated deny rules first, then allow rules. Any matching
	// deny rule denies, even when an allow rule matches too.
	Rules []Rule `yaml:"rules"`
}

// Rule is one named CEL condition over principal and hop. Exactly one of
// Allow and Deny is set, and the expression must evaluate to a bool.
type Rule struct {
	// Name identifies the rule in decisions, audit logs and metrics. Required,
	// unique, letters, digits, '_', '-', '.' and ':' only, at most 64 bytes.
	Name string `yaml:"name"`
	// Allow is a CEL expression; when true the hop is allowed (unless a deny
	// rule matches).
	Allow string `yaml:"allow,omitempty"`
	// Deny is a CEL expression; when true the hop is denied.
	Deny string `yaml:"deny,omitempty"`
	// Description is shown as the decision's reason when the rule decides;
	// it should say why, in words a caller may read.
	Description string `yaml:"description,omitempty"`
}

// Default decisions.
const (
	DefaultAllow = "allow"
	DefaultDeny  = "deny"
)

// Validate reports every problem with c, as Problems, or nil. It compiles
// every rule, so it is what `bridge check-config` runs.
func (c Config) Validate() error {
	_, err := Compile(c)
	return err
}

func validRuleName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '_' || c == '-' || c == '.' || c == ':'):
		default:
			return false
		}
	}
	return true
}
