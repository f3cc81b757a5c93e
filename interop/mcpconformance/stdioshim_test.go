//go:build interop

package mcpconformance

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// stdioShim lets the suite, which speaks only streamable HTTP, reach a face
// served over stdio: every session (initialize) gets its own child process
// (the face on its stdin/stdout), each POSTed message is written to the
// child as one line, and what the child writes back goes out as SSE on the
// POST of the request it belongs to (its response, the notifications with
// its progress token) or, for what names no request (log messages, server
// requests such as elicitation/create), on the tools/call POST in flight.
// The standalone GET stream is refused (405), as the face refuses it with
// sessions. The shim only carries bytes: every answer comes from the child.
type stdioShim struct {
	t       *testing.T
	command func() *exec.Cmd

	mu       sync.Mutex
	sessions map[string]*shimSession
}

type shimSession struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	wmu   sync.Mutex

	mu      sync.Mutex
	pending map[string]*shimStream // open POST streams by request id
	tokens  map[string]*shimStream // by progress token
	calls   []*shimStream          // open tools/call streams, oldest first
}

type shimStream struct {
	out  chan []byte // messages for this POST; closed after its response
	done bool        // out is closed; guarded by the session's mu
}

// end closes the stream's channel once; the session's mu is held.
func (s *shimStream) end() {
	if !s.done {
		s.done = true
		close(s.out)
	}
}

// serveStdioShim starts the shim on 127.0.0.1 and returns its /mcp URL.
func serveStdioShim(t *testing.T, command func() *exec.Cmd) string {
	t.Helper()
	sh := &stdioShim{t: t, command: command, sessions: map[string]*shimSession{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &httptest.Server{Listener: ln, Config: &http.Server{Handler: sh}}
	hs.Start()
	t.Cleanup(func() {
		hs.Close()
		sh.mu.Lock()
		defer sh.mu.Unlock()
		for _, s := range sh.sessions {
			s.close()
		}
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

type shimHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	} `json:"params"`
}

func (h shimHead) hasID() bool { return len(h.ID) > 0 && string(h.ID) != "null" }

func (sh *stdioShim) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		host = hh
	}
	if host != "127.0.0.1" && host != "localhost" && host != "[::1]" && host != "::1" {
		// The stdio face has no Host to check; the shim's own listener is
		// loopback, where a foreign Host is a rebinding attempt.
		http.Error(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid Host header"}}`, http.StatusForbidden)
		return
	}
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		sh.mu.Lock()
		s := sh.sessions[r.Header.Get("Mcp-Session-Id")]
		delete(sh.sessions, r.Header.Get("Mcp-Session-Id"))
		sh.mu.Unlock()
		if s == nil {
			http.Error(w, "unknown session", http.StatusNotFound)
			return
		}
		s.close()
		w.WriteHeader(http.StatusOK)
		return
	default:
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "no standalone event stream; use POST", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	var h shimHead
	if err := json.Unmarshal(body, &h); err != nil {
		// The child answers malformed input itself: pass it on below.
		h = shimHead{}
	}
	id := r.Header.Get("Mcp-Session-Id")
	sh.mu.Lock()
	s := sh.sessions[id]
	if h.Method == "initialize" {
		var b [12]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
		s, err = sh.start()
		if err == nil {
			sh.sessions[id] = s
		}
	}
	sh.mu.Unlock()
	if err != nil {
		sh.t.Logf("stdio shim: start the face: %v", err)
		http.Error(w, "cannot start the face", http.StatusInternalServerError)
		return
	}
	if s == nil {
		http.Error(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"unknown or missing Mcp-Session-Id"}}`, http.StatusNotFound)
		return
	}
	if !h.hasID() || h.Method == "" {
		// A notification, or the host's answer to a server request.
		if err := s.write(body); err != nil {
			http.Error(w, "the face has gone", http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	st := &shimStream{out: make(chan []byte, 64)}
	key := string(h.ID)
	s.mu.Lock()
	s.pending[key] = st
	if len(h.Params.Meta.ProgressToken) > 0 {
		s.tokens[string(h.Params.Meta.ProgressToken)] = st
	}
	if h.Method == "tools/call" {
		s.calls = append(s.calls, st)
	}
	s.mu.Unlock()
	defer s.forget(key, st)
	if err := s.write(body); err != nil {
		http.Error(w, "the face has gone", http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Mcp-Session-Id", id)
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	for {
		select {
		case msg, ok := <-st.out:
			if !ok {
				return
			}
			_, _ = w.Write([]byte("event: message\ndata: "))
			_, _ = w.Write(msg)
			_, _ = w.Write([]byte("\n\n"))
			if fl != nil {
				fl.Flush()
			}
		case <-r.Context().Done():
			if h.Method != "initialize" {
				// The host closed its stream: on stdio that is a cancel.
				n, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": json.RawMessage(h.ID)}})
				_ = s.write(n)
			}
			return
		}
	}
}

// start runs a child serving the face over stdio and routes its output.
func (sh *stdioShim) start() (*shimSession, error) {
	cmd := sh.command()
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &shimSession{cmd: cmd, stdin: in, pending: map[string]*shimStream{}, tokens: map[string]*shimStream{}}
	go s.read(out)
	return s, nil
}

func (s *shimSession) write(line []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	b := append(bytes.TrimSpace(line), '\n')
	_, err := s.stdin.Write(b)
	return err
}

func (s *shimSession) read(out io.Reader) {
	br := bufio.NewReaderSize(out, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 {
			s.route(append([]byte(nil), t...))
		}
		if err != nil {
			s.mu.Lock()
			for _, st := range s.pending {
				st.end()
			}
			s.mu.Unlock()
			return
		}
	}
}

// route sends a message of the child to the POST stream it belongs to.
func (s *shimSession) route(msg []byte) {
	var h struct {
		shimHead
		Params struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"params"`
	}
	_ = json.Unmarshal(msg, &h)
	s.mu.Lock()
	defer s.mu.Unlock()
	var st *shimStream
	response := h.hasID() && h.Method == ""
	switch {
	case response:
		st = s.pending[string(h.ID)]
	case strings.HasPrefix(h.Method, "notifications/progress") && len(h.Params.ProgressToken) > 0:
		st = s.tokens[string(h.Params.ProgressToken)]
	}
	if st == nil && !response {
		for _, c := range s.calls {
			if !c.done {
				st = c
				break
			}
		}
	}
	if st == nil || st.done {
		return // nothing open to carry it (list changes between requests)
	}
	select {
	case st.out <- msg:
	default:
	}
	if response {
		st.end()
	}
}

func (s *shimSession) forget(key string, st *shimStream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pending, key)
	for k, v := range s.tokens {
		if v == st {
			delete(s.tokens, k)
		}
	}
	for i, c := range s.calls {
		if c == st {
			s.calls = append(s.calls[:i], s.calls[i+1:]...)
			break
		}
	}
}

func (s *shimSession) close() {
	_ = s.stdin.Close()
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}
