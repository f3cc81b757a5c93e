package policy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/interpreter"
	"github.com/prometheus/client_golang/prometheus"
)

// DefaultCostLimit bounds the work of one decision (all rules together) or
// one condition evaluation, in CEL cost units (roughly one per operation and
// per list element visited in a comprehension). Rules over a principal's
// groups and claims stay far below it; a runaway comprehension is stopped and
// the hop denied.
const DefaultCostLimit = 100_000

// interruptCheckFrequency is how many comprehension iterations run between
// checks of the context's cancellation.
const interruptCheckFrequency = 100

// Sentinel errors for failed evaluations, matched with errors.Is. Their text
// never includes values from the principal or the hop.
var (
	// ErrEvaluation is returned when an expression fails at run time (missing
	// map key, bad conversion, ...).
	ErrEvaluation = errors.New("policy: evaluation failed")
	// ErrCostLimit is returned when an expression exceeds the cost limit.
	ErrCostLimit = errors.New("policy: cost limit exceeded")
	// ErrInterrupted is returned when the context ended during evaluation.
	ErrInterrupted = errors.New("policy: evaluation interrupted")
)

// Option tunes Compile and CompileCondition.
type Option func(*options)

type options struct {
	logger     *slog.Logger
	registerer prometheus.Registerer
	costLimit  uint64
	memo       int
	logAttrs   func(context.Context) ([3]slog.Attr, int)
}

func buildOptions(opts []Option) options {
	o := options{costLimit: DefaultCostLimit, memo: DefaultDecisionMemo}
	for _, opt := range opts {
		opt(&o)
	}
	if o.logger == nil {
		o.logger = slog.Default()
	}
	return o
}

// WithLogger sends the audit line of every decision to l. Default: slog.Default().
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithLogAttrs has every audit line end with the first n attributes f
// returns for the decision's context (the request id, the trace): what the
// logger's handler would add itself, given in the line's own list so that
// the line is built in one allocation. Default: none.
func WithLogAttrs(f func(ctx context.Context) (attrs [3]slog.Attr, n int)) Option {
	return func(o *options) { o.logAttrs = f }
}

// WithRegisterer registers the bridge_policy_decisions_total counter with r.
// Default: no registration (the counter is still kept, unexported). Engines
// compiled again (config reload) with the same registerer share the counter.
func WithRegisterer(r prometheus.Registerer) Option { return func(o *options) { o.registerer = r } }

// WithDecisionMemo sets how many decisions an engine remembers (see
// DefaultDecisionMemo); 0 or less turns the memo off, so every decision runs
// the rules. Conditions are not memoized.
func WithDecisionMemo(n int) Option { return func(o *options) { o.memo = n } }

// WithCostLimit sets the cost limit of one decision (all rules together) or
// one condition evaluation. Default DefaultCostLimit;
// 0 keeps the default.
func WithCostLimit(n uint64) Option {
	return func(o *options) {
		if n > 0 {
			o.costLimit = n
		}
	}
}

// program is one compiled, type-checked boolean expression.
type program struct {
	prg cel.Program
}

// compileBool compiles expr against the shared environment and requires a bool
// result. subject names the expression in problems.
func compileBool(expr, subject string, o *options) (*program, Problems) {
	env, err := celEnv()
	if err != nil {
		return nil, Problems{{subject: subject, Msg: err.Error()}}
	}
	if strings.TrimSpace(expr) == "" {
		return nil, Problems{{subject: subject, Msg: "expression is empty"}}
	}
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		var ps Problems
		src := common.NewTextSource(expr)
		for _, e := range iss.Errors() {
			p := &Problem{
				subject: subject,
				Line:    e.Location.Line(),
				Column:  e.Location.Column() + 1,
				Msg:     e.Message,
			}
			if _, snippet, ok := strings.Cut(e.ToDisplayString(src), "\n"); ok {
				p.Snippet = snippet
			}
			ps = append(ps, p)
		}
		return nil, ps
	}
	if !ast.OutputType().IsExactType(types.BoolType) {
		line, col := firstPosition(expr)
		return nil, Problems{{
			subject: subject,
			Line:    line,
			Column:  col,
			Msg:     fmt.Sprintf("expression returns %s, want bool", ast.OutputType()),
		}}
	}
	prg, err := env.Program(ast,
		cel.CostLimit(o.costLimit),
		cel.InterruptCheckFrequency(interruptCheckFrequency),
		cel.EvalOptions(cel.OptOptimize),
	)
	if err != nil {
		return nil, Problems{{subject: subject, Msg: "build program: " + err.Error()}}
	}
	return &program{prg: prg}, nil
}

// firstPosition is the 1-based line and column of the first non-space byte.
func firstPosition(expr string) (line, col int) {
	line, col = 1, 1
	for _, r := range expr {
		switch r {
		case '\n':
			line, col = line+1, 1
		case ' ', '\t', '\r':
			col++
		default:
			return line, col
		}
	}
	return line, col
}

// eval runs the program over a and returns its bool result. Errors are one of
// the sentinels, wrapped with a category that carries no input values.
func (p *program) eval(ctx context.Context, a *activation) (bool, error) {
	f, err := newFrame(ctx, a)
	if err != nil {
		return false, err
	}
	defer f.Close()
	return p.evalFrame(f)
}

// newFrame prepares one evaluation pass over a. Several programs may run in
// the same frame: they then share its context and its cost tracker, so the
// cost limit bounds them together. The caller closes the frame.
func newFrame(ctx context.Context, a *activation) (*interpreter.ExecutionFrame, error) {
	f, err := interpreter.NewExecutionFrame(a)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrEvaluation, "bad input")
	}
	// A context that can never be cancelled needs no interrupt checks.
	if ctx.Done() != nil {
		if err := f.SetContext(ctx, interruptCheckFrequency); err != nil {
			f.Close()
			return nil, fmt.Errorf("%w: %s", ErrEvaluation, "bad context")
		}
	}
	return f, nil
}

func (p *program) evalFrame(f *interpreter.ExecutionFrame) (bool, error) {
	out, _, err := p.prg.Eval(f)
	if err != nil {
		return false, classify(err)
	}
	b, ok := out.(types.Bool)
	if !ok {
		// Unreachable for checked programs; fail closed all the same.
		return false, fmt.Errorf("%w: result is not a bool", ErrEvaluation)
	}
	return bool(b), nil
}

// errorCategories are the CEL run-time error prefixes reported as they are;
// anything else becomes "error". The rest of a CEL message may quote input
// values (a claim that failed to convert), so it is never passed on.
var errorCategories = []string{
	"no such key",
	"no such overload",
	"no such attribute",
	"no such field",
	"type conversion error",
	"division by zero",
	"modulus by zero",
	"index out of range",
	"integer overflow",
	"unsupported type conversion",
	"invalid argument",
}

func classify(err error) error {
	var cancelled interpreter.EvalCancelledError
	switch {
	case errors.As(err, &cancelled) && cancelled.Cause == interpreter.CostLimitExceeded:
		return ErrCostLimit
	case errors.As(err, &cancelled), errors.Is(err, interpreter.InterruptError{}):
		return ErrInterrupted
	}
	msg := err.Error()
	for _, c := range errorCategories {
		if strings.HasPrefix(msg, c) {
			return fmt.Errorf("%w: %s", ErrEvaluation, c)
		}
	}
	return fmt.Errorf("%w: error", ErrEvaluation)
}
