package policy

import (
	"context"
	"fmt"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// Condition is a standalone boolean expression over principal and hop, such
// as the when: clause of a rate limit. It is immutable and safe for
// concurrent use.
type Condition struct {
	expr string
	prg  *program
}

// CompileCondition compiles and type-checks expr against the same
// environment as policy rules. It must return bool. Problems name the
// expression "condition" and carry CEL positions; callers add their own
// context (which limit, which field).
func CompileCondition(expr string, opts ...Option) (*Condition, error) {
	o := buildOptions(opts)
	prg, ps := compileBool(expr, "condition", &o)
	if len(ps) > 0 {
		return nil, ps
	}
	return &Condition{expr: expr, prg: prg}, nil
}

// Eval evaluates the condition for hop. On failure it returns false and an
// error matching ErrEvaluation, ErrCostLimit or ErrInterrupted; callers
// should treat that as the restrictive outcome.
func (c *Condition) Eval(hop request.Hop) (bool, error) {
	return c.EvalContext(context.Background(), hop)
}

// EvalContext is Eval with a context whose cancellation stops long
// comprehensions.
func (c *Condition) EvalContext(ctx context.Context, hop request.Hop) (bool, error) {
	if c == nil {
		return false, fmt.Errorf("%w: nil condition", ErrEvaluation)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return c.prg.eval(ctx, newActivation(hop))
}

// String returns the condition's source expression.
func (c *Condition) String() string {
	if c == nil {
		return ""
	}
	return c.expr
}
