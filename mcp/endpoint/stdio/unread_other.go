//go:build !linux

package stdio

// UnreadBytes cannot tell on this system.
func UnreadBytes(any) (int, bool) { return 0, false }
