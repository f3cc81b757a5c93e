//go:build linux

package stdio

import (
	"syscall"
	"unsafe"
)

// UnreadBytes reports how much of what was written to w (a pipe, such as
// the stdout a host reads, or a Unix socket) the reader has not read yet,
// when w can say: bytes on a pipe, the memory the queued messages take on
// a Unix socket; 0 on either exactly when everything was read.
func UnreadBytes(w any) (int, bool) {
	sc, ok := w.(syscall.Conn)
	if !ok {
		return 0, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, false
	}
	var n int32
	known := false
	if err := rc.Control(func(fd uintptr) {
		var st syscall.Stat_t
		if syscall.Fstat(int(fd), &st) != nil {
			return
		}
		var req uintptr
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFIFO:
			req = syscall.TIOCINQ // a pipe: the bytes in it, from either end
		case syscall.S_IFSOCK:
			req = syscall.TIOCOUTQ // a Unix socket (how Node spawns children): sent, not yet read by the peer (its buffers' size, not bytes)
		default:
			return
		}
		_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(unsafe.Pointer(&n)))
		known = errno == 0
	}); err != nil || !known {
		return 0, false
	}
	return int(n), true
}
