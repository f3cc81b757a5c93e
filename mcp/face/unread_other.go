//go:build !linux

package face

// unreadBytes cannot tell on this system.
func unreadBytes(any) (int, bool) { return 0, false }
