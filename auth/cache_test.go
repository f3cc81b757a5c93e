package auth_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/request"
)

func TestTokenCache(t *testing.T) {
	clk := newClock()
	c := auth.NewTokenCache(32, time.Minute, clk.Now)
	p := &request.Principal{Subject: "alice", Token: "tok-a", Expiry: clk.Now().Add(10 * time.Second)}
	c.Put(p)
	if c.Get("tok-a") != p {
		t.Fatal("miss right after Put")
	}
	if c.Get("tok-b") != nil {
		t.Fatal("another token hit alice's entry")
	}
	clk.Add(10 * time.Second)
	if c.Get("tok-a") != nil {
		t.Fatal("entry outlived the token's exp")
	}

	long := &request.Principal{Subject: "bob", Token: "tok-long", Expiry: clk.Now().Add(time.Hour)}
	c.Put(long)
	clk.Add(time.Minute)
	if c.Get("tok-long") != nil {
		t.Fatal("entry outlived max TTL")
	}

	c.Put(&request.Principal{Subject: "key", Token: "apikey"}) // no expiry: never cached
	if c.Get("apikey") != nil {
		t.Fatal("principal without expiry cached")
	}

	for i := range 1000 {
		c.Put(&request.Principal{Subject: "s", Token: fmt.Sprint("t", i), Expiry: clk.Now().Add(time.Hour)})
	}
	if n := c.Len(); n > 32+16 {
		t.Fatalf("cache holds %d entries; bound is about 32", n)
	}
	if c.Get("t999") == nil {
		t.Error("most recent entry evicted")
	}
}
