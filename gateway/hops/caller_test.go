package hops

import (
	"context"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/request"
)

type otherKey struct{}

func TestWithCaller_CarriesPrincipalOwnerAndParent(t *testing.T) {
	p := &request.Principal{Issuer: "https://idp.example", Subject: "alice"}
	parent := context.WithValue(context.Background(), otherKey{}, "v")
	ctx := withCaller(parent, p)
	if got := request.PrincipalFrom(ctx); got != p {
		t.Errorf("PrincipalFrom = %v, want %v", got, p)
	}
	if got, _ := server.OwnerFromContext(ctx); got != p.Key() {
		t.Errorf("OwnerFromContext = %q, want %q", got, p.Key())
	}
	if got := ctx.Value(otherKey{}); got != "v" {
		t.Errorf("parent value = %v, want v", got)
	}
	// Values set on top still shadow the caller's, as with context.WithValue.
	q := &request.Principal{Issuer: "https://idp.example", Subject: "bob"}
	if got := request.PrincipalFrom(request.WithPrincipal(ctx, q)); got != q {
		t.Errorf("PrincipalFrom over WithPrincipal = %v, want %v", got, q)
	}
	// An anonymous caller (no principal) owns as server.AnonymousOwner.
	if got, _ := server.OwnerFromContext(withCaller(parent, nil)); got != server.AnonymousOwner {
		t.Errorf("OwnerFromContext(nil principal) = %q, want %q", got, server.AnonymousOwner)
	}
}
