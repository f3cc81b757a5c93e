package sserelease

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// watchPipe runs Watch on one end of a pipe whose stream is released and
// reusable; it returns the client's end and a function that ends the
// stream as a2a/server's writer does once the last chunk is written.
func watchPipe(t *testing.T, srv *http.Server) (client net.Conn, end func()) {
	t.Helper()
	server, client := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	var woken atomic.Bool
	_, cancel := context.WithCancel(context.Background())
	go Watch(server, nil, woken.Load, cancel, func(c net.Conn, pending []byte) { HandBack(srv, c, pending) })
	return client, func() {
		woken.Store(true)
		_ = server.SetReadDeadline(time.Now())
	}
}

// An idle stream must not be made to hold whatever a client sends during
// it: past net/http's buffer size, the bytes are dropped and the
// connection closes when the stream ends, unanswered.
func TestFloodSentDuringAReleasedStreamIsNotKept(t *testing.T) {
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), ReadHeaderTimeout: time.Second}
	client, end := watchPipe(t, srv)
	flood := bytes.Repeat([]byte("x\r\n"), 1<<18) // each line a bad request, were it read as one
	_, _ = client.Write(flood)                    // fails once the connection is closed
	end()
	_ = client.SetReadDeadline(time.Now().Add(5 * time.Second))
	if b, err := io.ReadAll(client); len(b) > 0 || err != nil {
		t.Fatalf("after a flood: %.100q %v, want the connection closed unanswered", b, err)
	}
}

// Below that size, what the client sent is the next request, answered
// once the stream ends.
func TestRequestSentDuringAReleasedStreamIsKeptForTheServer(t *testing.T) {
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "next "+r.URL.Path) })}
	client, end := watchPipe(t, srv)
	if _, err := io.WriteString(client, "GET /after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	end()
	_ = client.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, _ := io.ReadAll(client)
	if !strings.HasPrefix(string(b), "HTTP/1.1 200") || !strings.HasSuffix(string(b), "next /after") {
		t.Fatalf("the request sent during the stream: %q", b)
	}
}

// A client with many streams on one connection must not make it a stack
// of wrappers, one per hand-back, each read and write going through all.
// What a wrapper still holds comes after what was read through it.
func TestHandBackDoesNotStackWrappers(t *testing.T) {
	conns := make(chan net.Conn, 1)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Method+" "+r.URL.Path+" "+r.Host) }),
		ConnState: func(c net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns <- c
			}
		},
	}
	server, client := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	handed := &prefixedConn{Conn: server, prefix: []byte("Host: x\r\n")}
	go HandBack(srv, handed, []byte("GET /a HTTP/1.1\r\n"))
	c := <-conns
	if pc, ok := c.(*prefixedConn); !ok || pc.Conn != server {
		t.Fatalf("the server was handed %T wrapping %T, want one wrapper of the connection", c, pc.Conn)
	}
	_ = client.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(client, "Connection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(client)
	if !strings.HasSuffix(string(b), "GET /a x") {
		t.Fatalf("the request made of the bytes read ahead: %q", b)
	}
}
