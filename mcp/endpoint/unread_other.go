//go:build !linux

package endpoint

// unreadBytes cannot tell on this system.
func unreadBytes(any) (int, bool) { return 0, false }
