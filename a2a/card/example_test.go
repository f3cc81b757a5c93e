package card_test

import (
	"context"
	"fmt"

	"github.com/a2a-mcp-bridge/bridge/a2a/card"
)

// Sign a card with a fresh key, publish the JWKS, and verify the card the way
// a client that pinned that JWKS would.
func Example() {
	pemKey, err := card.GenerateKey(card.ES256)
	if err != nil {
		panic(err)
	}
	key, err := card.ParseSigningKey(pemKey)
	if err != nil {
		panic(err)
	}
	keys := &card.KeySet{Current: key}

	signed, err := card.Sign([]byte(`{"name":"Example Agent","description":"","capabilities":{"streaming":false},"skills":[]}`), keys)
	if err != nil {
		panic(err)
	}
	jwks, err := keys.JWKS() // serve at /.well-known/jwks.json
	if err != nil {
		panic(err)
	}

	pinned, err := card.ParseJWKS(jwks)
	if err != nil {
		panic(err)
	}
	res, err := card.Verify(context.Background(), signed, pinned, card.VerifyOptions{RequireSignature: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.Algorithm, res.Form, res.KeyID == key.KeyID())
	// Output: verified ES256 spec true
}

func ExampleCanonicalize() {
	out, err := card.Canonicalize([]byte(`{"name":"Example Agent","description":"","capabilities":{"streaming":false,"pushNotifications":false,"extensions":[]},"skills":[]}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	// Output: {"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}
}
