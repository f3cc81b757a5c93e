package policy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// defaultRuleLabel is the rule label of decisions made by the default. Rule
// names must start with a letter or digit, so it cannot collide with one.
const defaultRuleLabel = "_default"

func decisionsCounter(reg prometheus.Registerer) (*prometheus.CounterVec, error) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bridge_policy_decisions_total",
		Help: "Policy decisions, by decision (allow, deny), deciding rule (_default when none matched) and face.",
	}, []string{"decision", "rule", "face"})
	if reg == nil {
		return c, nil
	}
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(*prometheus.CounterVec); ok {
				return existing, nil
			}
		}
		return nil, fmt.Errorf("policy: register bridge_policy_decisions_total: %w", err)
	}
	return c, nil
}

func (e *Engine) audit(ctx context.Context, h *request.Hop, d Decision) {
	rule := d.Rule
	if rule == "" {
		rule = defaultRuleLabel
	}
	e.decisionCounter(d.Allow, rule, faceLabel(h.Face)).Inc()
	auditLog(ctx, e.log, e.logAttrs, h, d)
}

// decisionKey names one child of bridge_policy_decisions_total.
type decisionKey struct {
	allow      bool
	rule, face string
}

// decisionCounter is the counter of one label set, looked up in the vector
// once (the labels are the engine's rule names and a few faces).
func (e *Engine) decisionCounter(allow bool, rule, face string) prometheus.Counter {
	k := decisionKey{allow, rule, face}
	if c, ok := e.counters.Load(k); ok {
		return c.(prometheus.Counter)
	}
	c := e.decisions.WithLabelValues(decisionLabel(allow), rule, face)
	e.counters.Store(k, c)
	return c
}

// auditLog writes the decision's one audit line. It logs who (the
// principal's String form, never its token or claims) and what was asked.
func auditLog(ctx context.Context, l *slog.Logger, more func(context.Context) ([3]slog.Attr, int), h *request.Hop, d Decision) {
	level := slog.LevelInfo
	if d.Code == CodeEvalError || d.Code == CodeCostLimit {
		level = slog.LevelWarn
	}
	if !l.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 17)
	attrs = append(attrs,
		slog.String("who", h.Principal.String()),
		slog.String("face", string(h.Face)),
		slog.String("direction", string(h.Direction)),
		slog.String("agent", h.Agent),
		slog.String("skill", h.Skill),
		slog.String("tool", h.Tool),
	)
	if h.Resource != "" {
		attrs = append(attrs, slog.String("resource", h.Resource))
	}
	if h.Prompt != "" {
		attrs = append(attrs, slog.String("prompt", h.Prompt))
	}
	attrs = append(attrs,
		slog.String("method", h.Method),
		slog.String("decision", decisionLabel(d.Allow)),
		slog.String("rule", d.Rule),
		slog.Bool("default", d.Default),
		slog.String("code", d.Code.String()),
		slog.String("reason", d.Reason),
	)
	if more != nil {
		add, n := more(ctx)
		attrs = append(attrs, add[:n]...)
	}
	l.LogAttrs(ctx, level, "policy decision", attrs...)
}

func decisionLabel(allow bool) string {
	if allow {
		return "allow"
	}
	return "deny"
}

// faceLabel keeps the face label's cardinality fixed.
func faceLabel(f request.Face) string {
	switch f {
	case request.FaceA2A, request.FaceMCP:
		return string(f)
	case "":
		return "none"
	}
	return "other"
}
