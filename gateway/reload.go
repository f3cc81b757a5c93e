package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/ratelimit"
)

// livePolicy is the policy engine in use; Reload swaps it.
type livePolicy struct{ p atomic.Pointer[policy.Engine] }

var _ Authorizer = (*livePolicy)(nil)

// Decide implements Authorizer.
func (l *livePolicy) Decide(ctx context.Context, hop policy.Hop) policy.Decision {
	return l.p.Load().Decide(ctx, hop)
}

// liveLimits is the limiter in use; Reload swaps it.
type liveLimits struct {
	p atomic.Pointer[ratelimit.Limiter]
}

var _ Limiter = (*liveLimits)(nil)

// Allow implements Limiter.
func (l *liveLimits) Allow(ctx context.Context, hop policy.Hop) (ratelimit.Result, error) {
	return l.p.Load().Allow(ctx, hop)
}

// Reload applies what can change safely while serving: the policy rules and
// the rate limits. Everything else in cfg is ignored (restart to change
// it). On error nothing changes. Counters start afresh under new limits.
func (b *Bridge) Reload(cfg *config.Config) error {
	b.reloadMu.Lock()
	defer b.reloadMu.Unlock()
	reg := replacingRegisterer{b.reg}
	eng, err := policy.Compile(cfg.Policy, policy.WithLogger(b.log), policy.WithRegisterer(reg))
	if err != nil {
		return fmt.Errorf("gateway: reload policy: %w", err)
	}
	lim, err := ratelimit.New(cfg.Limits, ratelimit.WithCompiler(celCondition), ratelimit.WithLogger(b.log), ratelimit.WithRegisterer(reg))
	if err != nil {
		return fmt.Errorf("gateway: reload limits: %w", err)
	}
	b.policy.p.Store(eng)
	old := b.limits.p.Swap(lim)
	b.retired = append(b.retired, old)
	return nil
}

// replacingRegisterer registers a reloaded component's collectors in place
// of the previous generation's (their counters restart from zero).
type replacingRegisterer struct{ *prometheus.Registry }

// Register implements prometheus.Registerer.
func (r replacingRegisterer) Register(c prometheus.Collector) error {
	err := r.Registry.Register(c)
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		r.Registry.Unregister(are.ExistingCollector)
		return r.Registry.Register(c)
	}
	return err
}

// MustRegister implements prometheus.Registerer.
func (r replacingRegisterer) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}
