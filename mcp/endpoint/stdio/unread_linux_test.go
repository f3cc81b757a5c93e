//go:build linux

package stdio

import (
	"os"
	"syscall"
	"testing"
)

// TestUnreadBytesCountsWhatTheHostHasNotRead: on a pipe (a host that
// spawned the bridge with pipes) and on a Unix socket (Node's children),
// UnreadBytes says that bytes written are unread, and 0 once the reader
// has read them; on what is neither it cannot tell.
func TestUnreadBytesCountsWhatTheHostHasNotRead(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	ua, ub, err := unixPair()
	if err != nil {
		t.Fatal(err)
	}
	defer ua.Close()
	defer ub.Close()
	for _, c := range []struct {
		name string
		w    any
		wr   func([]byte) (int, error)
		rd   func([]byte) (int, error)
	}{
		{"pipe", pw, pw.Write, pr.Read},
		{"unix socket", ua, ua.Write, ub.Read},
	} {
		t.Run(c.name, func(t *testing.T) {
			if n, ok := UnreadBytes(c.w); !ok || n != 0 {
				t.Fatalf("before writing: %d, %v; want 0, true", n, ok)
			}
			if _, err := c.wr([]byte("hello\n")); err != nil {
				t.Fatal(err)
			}
			// A pipe counts bytes; a Unix socket the memory its queued
			// messages take. Either is 0 exactly when all was read.
			if n, ok := UnreadBytes(c.w); !ok || n == 0 || c.name == "pipe" && n != 6 {
				t.Fatalf("after writing 6 bytes: %d, %v; want more than 0 (6 on a pipe), true", n, ok)
			}
			buf := make([]byte, 16)
			if n, err := c.rd(buf); err != nil || n != 6 {
				t.Fatalf("read %d, %v", n, err)
			}
			if n, ok := UnreadBytes(c.w); !ok || n != 0 {
				t.Fatalf("after the reader read: %d, %v; want 0, true", n, ok)
			}
		})
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, ok := UnreadBytes(f); ok {
		t.Fatal("a regular file reported unread bytes")
	}
	if _, ok := UnreadBytes(struct{}{}); ok {
		t.Fatal("a writer without a file reported unread bytes")
	}
}

// unixPair is a connected pair of Unix stream sockets.
func unixPair() (*os.File, *os.File, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "a"), os.NewFile(uintptr(fds[1]), "b"), nil
}
