package h1pool

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"testing"
)

// fastBytes is what writeRequest writes for req (built by mk twice, since
// writing consumes the body), beside what req.Write writes.
func fastBytes(t testing.TB, mk func() *http.Request) (fast, std string, fastErr, stdErr error) {
	t.Helper()
	var a, b bytes.Buffer
	pc := &pconn{bw: bufio.NewWriterSize(&a, 64)} // small: the body copy flushes midway
	fastErr = pc.writeRequest(mk())
	_ = pc.bw.Flush()
	bw := bufio.NewWriter(&b)
	stdErr = mk().Write(bw)
	_ = bw.Flush()
	return a.String(), b.String(), fastErr, stdErr
}

func newReq(method, rawURL string, body []byte, h http.Header) func() *http.Request {
	return func() *http.Request {
		u, err := url.Parse(rawURL)
		if err != nil {
			panic(err)
		}
		r := &http.Request{Method: method, URL: u, Host: u.Host, Header: http.Header{}, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
		for k, vv := range h {
			r.Header[k] = append([]string(nil), vv...)
		}
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		return r
	}
}

func TestWriteRequest_SameBytes(t *testing.T) {
	send := []byte(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`)
	a2aHeader := http.Header{"A2a-Version": {"1.0"}, "Accept": {"application/json"}, "Content-Type": {"application/json"}, "Authorization": {"Bearer abc"}}
	many := http.Header{}
	for _, k := range []string{"X-B", "X-A", "X-D", "X-C", "Accept", "Content-Type"} {
		many[k] = []string{"v " + k, " spaced\t"}
	}
	tests := []struct {
		name string
		mk   func() *http.Request
	}{
		{"a2a send", newReq("POST", "http://127.0.0.1:8080/a2a", send, a2aHeader)},
		{"query and path escapes", newReq("POST", "http://agent.example/a%20b/c?x=1&y=%2F", send, a2aHeader)},
		{"empty path", newReq("POST", "http://agent.example", send, nil)},
		{"ipv6 host", newReq("PUT", "http://[::1]:9000/x", []byte("x"), nil)},
		{"headers sorted, values trimmed, repeated", newReq("POST", "http://h/x", send, many)},
		{"user agent set", newReq("POST", "http://h/x", send, http.Header{"User-Agent": {" bridge/1 "}})},
		{"user agent empty", newReq("POST", "http://h/x", send, http.Header{"User-Agent": {""}})},
		{"user agent no values", newReq("POST", "http://h/x", send, http.Header{"User-Agent": nil})},
		{"excluded fields from the header", newReq("POST", "http://h/x", send, http.Header{"Host": {"evil"}, "Content-Length": {"1"}, "Transfer-Encoding": {"chunked"}, "Trailer": {"X"}})},
		{"non-canonical key written as is", newReq("POST", "http://h/x", send, http.Header{"x-lower": {"1"}})},
		{"default method", newReq("", "http://h/x", send, nil)},
		{"large body", newReq("POST", "http://h/x", bytes.Repeat([]byte("0123456789"), 1000), a2aHeader)},
		{"fallback: no body", newReq("GET", "http://h/x", nil, a2aHeader)},
		{"fallback: close", func() *http.Request { r := newReq("POST", "http://h/x", send, nil)(); r.Close = true; return r }},
		{"fallback: host override", func() *http.Request { r := newReq("POST", "http://h/x", send, nil)(); r.Host = "other:81"; return r }},
		{"fallback: invalid host", func() *http.Request { r := newReq("POST", "http://h/x", send, nil)(); r.Host = "a b"; return r }},
		{"fallback: zone", newReq("POST", "http://[fe80::1%25eth0]:80/x", send, nil)},
		{"fallback: trailer", func() *http.Request {
			r := newReq("POST", "http://h/x", send, nil)()
			r.Trailer = http.Header{"X-T": nil}
			return r
		}},
		{"fallback: trace", func() *http.Request {
			r := newReq("POST", "http://h/x", send, nil)()
			return r.WithContext(httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{}))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fast, std, ferr, serr := fastBytes(t, tt.mk)
			if (ferr == nil) != (serr == nil) {
				t.Fatalf("errors differ: writeRequest %v, Write %v", ferr, serr)
			}
			if fast != std {
				t.Errorf("writeRequest wrote\n%q\nWrite wrote\n%q", fast, std)
			}
		})
	}
}

// TestWriteRequest_BodyLengthMismatch: a body shorter or longer than its
// ContentLength is an error and nothing past ContentLength leaves (a longer
// body must not smuggle a second request).
func TestWriteRequest_BodyLengthMismatch(t *testing.T) {
	for _, tt := range []struct {
		name string
		body string
		n    int64
	}{{"shorter", "abc", 5}, {"longer", "abcdef\r\n\r\nGET /smuggled HTTP/1.1", 3}} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			pc := &pconn{bw: bufio.NewWriter(&out)}
			r := newReq("POST", "http://h/x", nil, nil)()
			r.Body, r.ContentLength = io.NopCloser(strings.NewReader(tt.body)), tt.n
			err := pc.writeRequest(r)
			_ = pc.bw.Flush()
			if err == nil {
				t.Fatal("writeRequest: no error")
			}
			if strings.Contains(out.String(), "smuggled") || strings.Contains(out.String(), "def") {
				t.Errorf("wrote past ContentLength: %q", out.String())
			}
		})
	}
}

func TestWriteRequest_NoAllocations(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":1}`)
	mk := newReq("POST", "http://127.0.0.1:8080/a2a", body, http.Header{"A2a-Version": {"1.0"}, "Accept": {"application/json"}, "Content-Type": {"application/json"}})
	r := mk()
	rd := bytes.NewReader(body)
	r.Body = io.NopCloser(rd)
	pc := &pconn{bw: bufio.NewWriter(io.Discard)}
	if n := testing.AllocsPerRun(100, func() {
		rd.Reset(body)
		if err := pc.writeRequest(r); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("writeRequest allocates %v times, want 0", n)
	}
}

// FuzzWriteRequest holds writeRequest to req.Write's bytes and errors for
// any method, URL, header field and body that checkRequest lets through.
func FuzzWriteRequest(f *testing.F) {
	f.Add("POST", "http://127.0.0.1:8080/a2a?x=1", "", "Content-Type", "application/json", "User-Agent", "x", []byte(`{"a":1}`))
	f.Add("PUT", "http://[::1]:1/%41", "h:1", "Accept", " a ,b\t", "X-Y", "", []byte("x"))
	f.Fuzz(func(t *testing.T, method, rawURL, host, k1, v1, k2, v2 string, body []byte) {
		u, err := url.Parse(rawURL)
		if err != nil {
			return
		}
		mk := func() *http.Request {
			r := &http.Request{Method: method, URL: u, Host: host, Header: http.Header{k1: {v1}, k2: {v2}}}
			if len(body) > 0 {
				r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			}
			return r
		}
		if _, err := checkRequest(mk()); err != nil {
			return // refused before anything is written
		}
		fast, std, ferr, serr := fastBytes(t, mk)
		if (ferr == nil) != (serr == nil) {
			t.Fatalf("errors differ: writeRequest %v, Write %v", ferr, serr)
		}
		if ferr == nil && fast != std {
			t.Fatalf("writeRequest wrote\n%q\nWrite wrote\n%q", fast, std)
		}
	})
}
