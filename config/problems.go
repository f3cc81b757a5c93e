package config

import (
	"strconv"
	"strings"
)

// Problem is one thing wrong with a configuration: where it is, which field,
// and what to do about it.
type Problem struct {
	// File is the name given to Parse or Load; empty for a Config built in Go.
	File string
	// Line and Column are 1-based; 0 when the position is not known (a
	// missing field of a section absent from the file).
	Line, Column int
	// Path is the field path, e.g. "publish[1].stdio.command"; empty for
	// problems with the file as a whole.
	Path string
	// Message says what is wrong and how to fix it. It never quotes a value
	// that may hold a secret.
	Message string
}

// Error renders the problem as FILE:LINE:COL: PATH: MESSAGE, leaving out
// the parts that are not known.
func (p Problem) Error() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Line > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(p.Line))
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(p.Column))
		}
		b.WriteString(": ")
	} else if p.Line > 0 {
		b.WriteString(strconv.Itoa(p.Line))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(p.Column))
		b.WriteString(": ")
	}
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Problems lists every problem found in one pass, so an operator can fix
// them all at once. Load and Parse return it as their error.
type Problems []Problem

// Error joins the problems one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Err returns ps as an error, or nil when there are no problems (so a nil
// Problems never becomes a non-nil error).
func (ps Problems) Err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}
