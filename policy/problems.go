package policy

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with a policy config or a condition. Expression
// problems carry the CEL position.
type Problem struct {
	// Rule names the rule: its name, or rules[i] when it has none. Empty for
	// problems that belong to no rule (the default, a standalone condition).
	Rule string
	// Field is the config field at fault when the problem is not in an
	// expression ("default", "name", "allow"), else empty.
	Field string
	// Line and Column are the 1-based position in the expression; 0 when the
	// problem is not in an expression.
	Line, Column int
	// Msg says what is wrong.
	Msg string
	// Snippet is the offending source line with a caret under Column, for
	// printing under Error(); empty when there is none.
	Snippet string

	subject string // "rule \"x\"", "rules[2]", "condition", "default"
}

// Error renders the problem on one line, e.g.
// policy: rule "x": ERROR: <input>:1:5: undeclared reference to 'hopp'.
func (p *Problem) Error() string {
	var b strings.Builder
	b.WriteString("policy: ")
	b.WriteString(p.subject)
	b.WriteString(": ")
	if p.Line > 0 {
		fmt.Fprintf(&b, "ERROR: <input>:%d:%d: ", p.Line, p.Column)
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Problems lists every problem found in one pass, so an operator can fix them
// all at once. Compile and CompileCondition return it as their error.
type Problems []*Problem

// Error joins the problems one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes each problem to errors.Is and errors.As.
func (ps Problems) Unwrap() []error {
	errs := make([]error, len(ps))
	for i, p := range ps {
		errs[i] = p
	}
	return errs
}
