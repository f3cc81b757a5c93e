package auth_test

import (
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/auth/authtest"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// benchChain returns a chain over a fake IdP and a warmed-up key set.
func benchChain(b *testing.B, cache bool) (*auth.Chain, *authtest.IdP, *clock) {
	idp := authtest.NewIdP(b)
	clk := newClock()
	cfg := oidcConfig(idp)
	cfg.Cache.Disable = !cache
	chain := newChain(b, cfg, clk)
	if _, err := chain.Authenticate(bearerRequest(idp.Sign(b, idp.Claims("warm", resource, clk.Now())))); err != nil {
		b.Fatal(err)
	}
	return chain, idp, clk
}

func benchmarkVerify(b *testing.B, alg string, cache bool) {
	chain, idp, clk := benchChain(b, cache)
	c := idp.Claims("alice", resource, clk.Now())
	c["scope"] = "agents tools"
	c["azp"] = "cli"
	var tok string
	switch alg {
	case "ES256":
		tok = idp.Sign(b, c)
	case "RS256":
		tok = authtest.SignJWT(b, idp.RSA, "RS256", authtest.KidRSA, "", c)
	}
	r := bearerRequest(tok)
	if _, err := chain.Authenticate(r); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := chain.Authenticate(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyCold verifies the signature and claims on every request
// (cache disabled): the cost of a token seen for the first time.
func BenchmarkVerifyCold(b *testing.B) {
	b.Run("ES256", func(b *testing.B) { benchmarkVerify(b, "ES256", false) })
	b.Run("RS256", func(b *testing.B) { benchmarkVerify(b, "RS256", false) })
}

// BenchmarkVerifyCacheHit is a repeat token answered from the cache.
func BenchmarkVerifyCacheHit(b *testing.B) {
	b.Run("ES256", func(b *testing.B) { benchmarkVerify(b, "ES256", true) })
}

// BenchmarkTokenCacheParallel measures cache hits under contention.
func BenchmarkTokenCacheParallel(b *testing.B) {
	c := auth.NewTokenCache(1000, time.Minute, nil)
	keys := make([]string, 256)
	for i := range keys {
		keys[i] = strings.Repeat("t", 600) + time.Duration(i).String()
		c.Put(&request.Principal{Subject: "s", Token: keys[i], Expiry: time.Now().Add(time.Hour)})
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if c.Get(keys[i&255]) == nil {
				b.Fatal("miss")
			}
			i++
		}
	})
}
