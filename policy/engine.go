package policy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// Code is the typed outcome of a decision, for logs, metrics and callers
// that branch on why a hop was refused.
type Code uint8

// Decision codes.
const (
	CodeUnknown      Code = iota // zero value; never produced by Decide
	CodeAllowRule                // an allow rule matched and no deny rule did
	CodeDenyRule                 // a deny rule matched
	CodeDefaultAllow             // no rule matched; the default is allow
	CodeDefaultDeny              // no rule matched; the default is deny
	CodeEvalError                // a rule failed at run time; denied (fail closed)
	CodeCostLimit                // a rule exceeded the cost limit; denied
	CodeCancelled                // the context ended before the decision; denied
	CodeNoPolicy                 // the Engine is nil; denied
)

var codeNames = [...]string{
	CodeUnknown:      "unknown",
	CodeAllowRule:    "allow_rule",
	CodeDenyRule:     "deny_rule",
	CodeDefaultAllow: "default_allow",
	CodeDefaultDeny:  "default_deny",
	CodeEvalError:    "eval_error",
	CodeCostLimit:    "cost_limit",
	CodeCancelled:    "cancelled",
	CodeNoPolicy:     "no_policy",
}

// String returns the code's stable snake_case name.
func (c Code) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "unknown"
}

// Decision is the outcome of one Decide call. The zero value denies.
type Decision struct {
	// Allow reports whether the hop may proceed.
	Allow bool
	// Rule names the deciding rule; empty when the default decided.
	Rule string
	// Reason says why, safe to show the caller: the rule's description when
	// it has one, else a fixed phrase. It never contains input values.
	Reason string
	// Default is true when no rule matched and the configured default decided.
	Default bool
	// Code is the typed outcome.
	Code Code
}

// Engine holds a compiled policy. Its rules never change after Compile; it
// remembers the decisions it made (a decision depends on nothing but the
// rules and the hop) and is safe for concurrent use.
type Engine struct {
	deny, allow  []compiledRule
	defaultAllow bool
	log          *slog.Logger
	logAttrs     func(context.Context) ([3]slog.Attr, int)
	decisions    *prometheus.CounterVec
	counters     sync.Map // decisionKey → its child of decisions
	memo         *memo    // nil: off
}

type compiledRule struct {
	name, reason string
	prg          *program
}

// Compile validates cfg and compiles every rule against the CEL environment.
// On failure it returns Problems listing every problem at once (missing or
// bad default, bad or duplicate names, both or neither of allow/deny, CEL
// syntax and type errors with their positions, non-bool results).
func Compile(cfg Config, opts ...Option) (*Engine, error) {
	o := buildOptions(opts)
	var ps Problems
	e := &Engine{log: o.logger, logAttrs: o.logAttrs, memo: newMemo(o.memo)}
	switch cfg.Default {
	case DefaultAllow:
		e.defaultAllow = true
	case DefaultDeny:
	case "":
		ps = append(ps, &Problem{subject: "default", Field: "default", Msg: `required: set "allow" or "deny"`})
	default:
		ps = append(ps, &Problem{subject: "default", Field: "default", Msg: fmt.Sprintf(`must be "allow" or "deny", got %q`, cfg.Default)})
	}
	seen := make(map[string]int, len(cfg.Rules))
	for i, r := range cfg.Rules {
		subject := fmt.Sprintf("rules[%d]", i)
		switch {
		case r.Name == "":
			ps = append(ps, &Problem{subject: subject, Field: "name", Msg: "name is required"})
		case !validRuleName(r.Name):
			ps = append(ps, &Problem{subject: subject, Field: "name", Msg: fmt.Sprintf("name %q: use letters, digits, '_', '-', '.', ':' (at most 64, starting with a letter or digit)", r.Name)})
		default:
			subject = fmt.Sprintf("rule %q", r.Name)
			if j, dup := seen[r.Name]; dup {
				ps = append(ps, &Problem{Rule: r.Name, subject: subject, Field: "name", Msg: fmt.Sprintf("duplicate name (also rules[%d])", j)})
			} else {
				seen[r.Name] = i
			}
		}
		var expr string
		deny := false
		switch {
		case r.Allow != "" && r.Deny != "":
			ps = append(ps, &Problem{Rule: r.Name, subject: subject, Field: "allow", Msg: "set exactly one of allow or deny, not both"})
			continue
		case r.Allow != "":
			expr = r.Allow
		case r.Deny != "":
			expr, deny = r.Deny, true
		default:
			ps = append(ps, &Problem{Rule: r.Name, subject: subject, Field: "allow", Msg: "set exactly one of allow or deny"})
			continue
		}
		prg, rps := compileBool(expr, subject, &o)
		for _, p := range rps {
			p.Rule = r.Name
		}
		ps = append(ps, rps...)
		if prg == nil {
			continue
		}
		cr := compiledRule{name: r.Name, reason: r.Description, prg: prg}
		if deny {
			if cr.reason == "" {
				cr.reason = "denied by rule"
			}
			e.deny = append(e.deny, cr)
		} else {
			if cr.reason == "" {
				cr.reason = "allowed by rule"
			}
			e.allow = append(e.allow, cr)
		}
	}
	if len(ps) > 0 {
		return nil, ps
	}
	var err error
	if e.decisions, err = decisionsCounter(o.registerer); err != nil {
		return nil, err
	}
	return e, nil
}

// Decide decides whether hop may proceed and audits the decision (one slog
// line, one counter increment).
//
// Deny rules are evaluated first: a match, or a failure (run-time error, cost
// limit, interruption), denies. Then allow rules: the first match allows. If
// none matched but one failed, the hop is denied rather than given the
// default, so a failing rule never grants more than a false one. Otherwise
// the configured default decides. A nil Engine denies everything.
//
// A hop decided before (the same principal value and the same hop fields)
// gets the remembered decision without running the rules again; it is still
// audited. The principal must not be modified once authenticated.
//
// Under a [WithListing] context the decision is one item of a listing: it is
// recorded there and audited with the listing's one line.
func (e *Engine) Decide(ctx context.Context, hop request.Hop) Decision {
	if ctx == nil {
		ctx = context.Background()
	}
	a := newActivation(hop)
	var d Decision
	if e == nil {
		d = Decision{Reason: "no policy configured", Code: CodeNoPolicy}
	} else {
		d = e.decide(ctx, a)
	}
	if l := listingFrom(ctx); l != nil {
		l.add(e, &a.hop, d) // audited once for the whole listing
		return d
	}
	if e == nil {
		auditLog(ctx, slog.Default(), nil, &a.hop, d)
		return d
	}
	e.audit(ctx, &a.hop, d)
	return d
}

func (e *Engine) decide(ctx context.Context, a *activation) Decision {
	if ctx.Err() != nil {
		return Decision{Reason: "request cancelled", Code: CodeCancelled}
	}
	if len(e.deny)+len(e.allow) == 0 {
		return e.byDefault()
	}
	if e.memo == nil {
		d, _ := e.evaluate(ctx, a)
		return d
	}
	if d, ok := e.memo.get(&a.hop); ok {
		return d
	}
	d, clean := e.evaluate(ctx, a)
	if clean && remembered(d.Code) {
		e.memo.put(&a.hop, d)
	}
	return d
}

// evaluate runs the rules over a. clean reports that no rule failed on the
// way (a decision reached past a failure, such as an interruption, is not
// one to remember).
func (e *Engine) evaluate(ctx context.Context, a *activation) (d Decision, clean bool) {
	f, err := newFrame(ctx, a)
	if err != nil {
		return failed("", err), false
	}
	defer f.Close()
	for i := range e.deny {
		r := &e.deny[i]
		ok, err := r.prg.evalFrame(f)
		if err != nil {
			return failed(r.name, err), false
		}
		if ok {
			return Decision{Rule: r.name, Reason: r.reason, Code: CodeDenyRule}, true
		}
	}
	var firstErr error
	var errRule string
	for i := range e.allow {
		r := &e.allow[i]
		ok, err := r.prg.evalFrame(f)
		if err != nil {
			if firstErr == nil {
				firstErr, errRule = err, r.name
			}
			continue
		}
		if ok {
			return Decision{Allow: true, Rule: r.name, Reason: r.reason, Code: CodeAllowRule}, firstErr == nil
		}
	}
	if firstErr != nil {
		return failed(errRule, firstErr), false
	}
	return e.byDefault(), true
}

func (e *Engine) byDefault() Decision {
	if e.defaultAllow {
		return Decision{Allow: true, Default: true, Reason: "allowed by default", Code: CodeDefaultAllow}
	}
	return Decision{Default: true, Reason: "denied by default", Code: CodeDefaultDeny}
}

// failed turns a rule's evaluation error into a deny. err comes from
// classify, so its text holds no input values.
func failed(rule string, err error) Decision {
	code := CodeEvalError
	switch {
	case errors.Is(err, ErrCostLimit):
		code = CodeCostLimit
	case errors.Is(err, ErrInterrupted):
		code = CodeCancelled
	}
	return Decision{Rule: rule, Reason: strings.TrimPrefix(err.Error(), "policy: "), Code: code}
}
