package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-mcp-bridge/bridge/config/internal/yamlwalk"
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

// Duration is a time.Duration written in the file as a Go duration string
// ("30s", "5m", "1h30m"); 0 may also be written as a bare number.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String formats d the way it is written in the file.
func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalYAML accepts a Go duration string or the number 0; an error
// carries the value's position.
func (d *Duration) UnmarshalYAML(n ast.Node) error {
	v, err := durationFromNode(n)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

func durationFromNode(n ast.Node) (Duration, error) {
	switch v := scalarValue(n).(type) {
	case string:
		p, err := ParseDuration(v)
		if err != nil {
			return 0, positioned(n, err.Error())
		}
		return p, nil
	case uint64:
		if v == 0 {
			return 0, nil
		}
	case int64:
		if v == 0 {
			return 0, nil
		}
	}
	return 0, positioned(n, `invalid duration: write a Go duration such as "30s", "5m" or "1h30m"`)
}

// MarshalYAML writes d as a duration string.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// ParseDuration parses a Go duration string ("30s", "1h30m").
func ParseDuration(s string) (Duration, error) {
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: write a Go duration such as \"30s\", \"5m\" or \"1h30m\"", clip(s))
	}
	return Duration(v), nil
}

// ByteSize is a size in bytes, written as a number or with a unit:
// B, KiB, MiB, GiB (powers of 1024) or kB, MB, GB (powers of 1000),
// for example "1MiB" or "512KiB".
type ByteSize int64

var byteUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"kB", 1000}, {"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000},
	{"B", 1},
}

// ParseByteSize parses "1048576", "1MiB", "512KiB", "10MB".
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("invalid size %q: write bytes as a number or with a unit, such as \"1MiB\" or \"512KiB\"", clip(s))
	}
	return ByteSize(n * mult), nil
}

// String formats b with the largest binary unit that divides it.
func (b ByteSize) String() string {
	switch {
	case b != 0 && b%(1<<30) == 0:
		return strconv.FormatInt(int64(b)>>30, 10) + "GiB"
	case b != 0 && b%(1<<20) == 0:
		return strconv.FormatInt(int64(b)>>20, 10) + "MiB"
	case b != 0 && b%(1<<10) == 0:
		return strconv.FormatInt(int64(b)>>10, 10) + "KiB"
	}
	return strconv.FormatInt(int64(b), 10)
}

// UnmarshalYAML accepts a number of bytes or a string with a unit; an
// error carries the value's position.
func (b *ByteSize) UnmarshalYAML(n ast.Node) error {
	v, err := byteSizeFromNode(n)
	if err != nil {
		return err
	}
	*b = v
	return nil
}

func byteSizeFromNode(n ast.Node) (ByteSize, error) {
	switch v := scalarValue(n).(type) {
	case string:
		p, err := ParseByteSize(v)
		if err != nil {
			return 0, positioned(n, err.Error())
		}
		return p, nil
	case uint64:
		if v <= 1<<62 {
			return ByteSize(v), nil
		}
	case int64:
		if v >= 0 {
			return ByteSize(v), nil
		}
	}
	return 0, positioned(n, `invalid size: write bytes as a number or with a unit, such as "1MiB" or "512KiB"`)
}

// scalarValue is the value of a scalar node, or nil for anything else.
func scalarValue(n ast.Node) any {
	n = yamlwalk.Unwrap(n)
	if s, ok := n.(ast.ScalarNode); ok {
		if _, isNull := n.(*ast.NullNode); isNull {
			return nil
		}
		return s.GetValue()
	}
	return nil
}

// positioned is an error carrying n's position, as the decoder reports it.
func positioned(n ast.Node, msg string) error {
	return &yaml.SyntaxError{Message: msg, Token: n.GetToken()}
}

// MarshalYAML writes b with its unit.
func (b ByteSize) MarshalYAML() (any, error) { return b.String(), nil }

// clip shortens s for an error message.
func clip(s string) string { return yamlwalk.Clip(s) }

// scalars are the configuration types the walker sees decoded from a scalar,
// with the check of their value.
var (
	durationType = reflect.TypeOf(Duration(0))
	byteSizeType = reflect.TypeOf(ByteSize(0))
)

var scalars = yamlwalk.Scalars{
	durationType:                     func(n ast.Node) error { _, err := durationFromNode(n); return err },
	byteSizeType:                     func(n ast.Node) error { _, err := byteSizeFromNode(n); return err },
	reflect.TypeOf(time.Duration(0)): nil,
}
