package sserelease

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRequestConsumed(t *testing.T) {
	tests := []struct {
		name     string
		body     io.Reader
		length   int64
		bodyRead int64
		want     bool
	}{
		{name: "no body", body: nil, length: 0, bodyRead: -1, want: true},
		{name: "body read to its end", body: strings.NewReader("abc"), length: 3, bodyRead: 3, want: true},
		{name: "body not read", body: strings.NewReader("abc"), length: 3, bodyRead: -1, want: false},
		{name: "body cut short", body: strings.NewReader("abc"), length: 3, bodyRead: 2, want: false},
		{name: "body of no declared length", body: strings.NewReader("abc"), length: -1, bodyRead: 3, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", tt.body)
			r.ContentLength = tt.length
			if got := RequestConsumed(r, tt.bodyRead); got != tt.want {
				t.Fatalf("RequestConsumed = %v, want %v", got, tt.want)
			}
		})
	}
}

type hijackable struct{ http.ResponseWriter }

func (hijackable) Hijack() (net.Conn, *bufio.ReadWriter, error) { return nil, nil, nil }

type observer struct{ http.ResponseWriter }

func (w observer) Unwrap() http.ResponseWriter                  { return w.ResponseWriter }
func (observer) StreamReleased(func([]byte) error) (end func()) { return nil }

type plain struct{ http.ResponseWriter }

func (w plain) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func TestChainOf(t *testing.T) {
	inner := hijackable{httptest.NewRecorder()}
	tests := []struct {
		name      string
		w         http.ResponseWriter
		wantOK    bool
		observers int
	}{
		{name: "net/http's writer alone", w: inner, wantOK: true},
		{name: "observing wrappers", w: observer{observer{inner}}, wantOK: true, observers: 2},
		{name: "a wrapper that does not observe", w: observer{plain{inner}}, wantOK: false},
		{name: "a writer that cannot be taken over", w: observer{httptest.NewRecorder()}, wantOK: false},
		{name: "a wrapper of nothing", w: observer{}, wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chain, ok := ChainOf(tt.w)
			if ok != tt.wantOK || (ok && len(chain.Observers) != tt.observers) {
				t.Fatalf("ChainOf: ok %v with %d observers, want %v with %d", ok, len(chain.Observers), tt.wantOK, tt.observers)
			}
			if ok && chain.Inner == nil {
				t.Fatal("ChainOf: ok without the writer to take over")
			}
		})
	}
}
