package config

import (
	"fmt"
	"reflect"
	"strconv"
)

// Defaults returns a Config holding only the defaults, as Load would produce
// from an empty file (before validation).
func Defaults() *Config {
	c := &Config{}
	c.applyDefaults()
	return c
}

// applyDefaults fills zero fields from their `default` tags, then the
// defaults that depend on other fields.
func (c *Config) applyDefaults() {
	setDefaults(reflect.ValueOf(c).Elem())
	if c.Limits.Redis == "" {
		c.Limits.Redis = c.Redis
	}
	if c.PublicURL == "" && isLoopbackListen(c.Listen) {
		c.PublicURL = "http://" + c.Listen
	}
	for i := range c.Front.MCP {
		if m := &c.Front.MCP[i]; m.ToolPrefix == "" && m.Name != "" {
			m.ToolPrefix = m.Name + "_"
		}
	}
}

// setDefaults walks v and sets every zero field that has a default tag.
func setDefaults(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			setDefaults(v.Elem())
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			setDefaults(v.Index(i))
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			fv := v.Field(i)
			if d, ok := sf.Tag.Lookup("default"); ok && fv.IsZero() {
				if err := setFromString(fv, d); err != nil {
					panic(fmt.Sprintf("config: bad default tag on %s.%s: %v", t.Name(), sf.Name, err))
				}
				continue
			}
			setDefaults(fv)
		}
	}
}

// setFromString sets v from the text of a default tag.
func setFromString(v reflect.Value, s string) error {
	switch v.Type() {
	case durationType:
		d, err := ParseDuration(s)
		v.Set(reflect.ValueOf(d))
		return err
	case byteSizeType:
		b, err := ParseByteSize(s)
		v.Set(reflect.ValueOf(b))
		return err
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return err
		}
		v.SetInt(n)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return err
		}
		v.SetBool(b)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := setFromString(p.Elem(), s); err != nil {
			return err
		}
		v.Set(p)
	default:
		return fmt.Errorf("unsupported kind %s", v.Kind())
	}
	return nil
}
