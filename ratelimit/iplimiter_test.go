package ratelimit

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

func TestIPLimiter(t *testing.T) {
	clock := newClock()
	l, err := NewIPLimiter(MustParseRate("2/s"), WithClock(clock.now))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, true, false, false} {
		if got := l.Allow("192.0.2.1"); got != want {
			t.Fatalf("call %d from 192.0.2.1: %v, want %v", i+1, got, want)
		}
	}
	if !l.Allow("192.0.2.2") {
		t.Fatal("a second address shares the first one's count")
	}
	res := l.Check("192.0.2.1")
	if res.Allowed || res.Rule != "per-ip" || res.Policy != `"per-ip";q=2;w=1` || !res.Reset.Equal(t0.Add(time.Second)) {
		t.Fatalf("Check over the limit: %+v", res)
	}
	h := http.Header{}
	setHeaders(h, res, clock.now())
	if h.Get("Retry-After") != "1" || h.Get("RateLimit") != `"per-ip";r=0;t=1` {
		t.Fatalf("headers %v", h)
	}
	clock.advance(time.Second)
	if !l.Allow("192.0.2.1") {
		t.Fatal("still refused after the window ended")
	}
}

// TestIPLimiterIPv6RotationWithinA64 pins that a client cannot escape the
// pre-auth limit by cycling through the addresses of its own /64.
func TestIPLimiterIPv6RotationWithinA64(t *testing.T) {
	l, err := NewIPLimiter(MustParseRate("3/m"), WithClock(newClock().now))
	if err != nil {
		t.Fatal(err)
	}
	allowed := 0
	for i := 0; i < 100; i++ {
		if l.Allow(fmt.Sprintf("2001:db8:aa:bb::%x", i+1)) {
			allowed++
		}
	}
	if allowed != 3 {
		t.Fatalf("%d of 100 requests from one /64 allowed, want 3", allowed)
	}
	if !l.Allow("2001:db8:aa:cc::1") {
		t.Fatal("the neighbouring /64 was refused")
	}
}

// TestIPLimiterAddressSprayStaysBounded pins that spraying addresses cannot
// grow the pre-auth limiter without bound.
func TestIPLimiterAddressSprayStaysBounded(t *testing.T) {
	l, err := NewIPLimiter(MustParseRate("10/h"), WithClock(newClock().now), WithMaxKeys(1024))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50_000; i++ {
		l.Allow(fmt.Sprintf("198.18.%d.%d", i>>8&0xff, i&0xff))
	}
	if n := l.store.len(); n > 1024 {
		t.Fatalf("limiter holds %d counters after a spray, bound is 1024", n)
	}
}

func TestNewIPLimiterRejectsInvalidRate(t *testing.T) {
	for _, r := range []Rate{{}, {Limit: 1}, {Limit: 0, Period: time.Second}, {Limit: MaxRateLimit + 1, Period: time.Second}, {Limit: 1, Period: time.Millisecond}} {
		if _, err := NewIPLimiter(r); err == nil {
			t.Fatalf("NewIPLimiter(%+v) accepted an invalid rate", r)
		}
	}
}
