package card

import (
	"context"
	"os"
	"testing"
)

func realisticCard(b *testing.B) []byte {
	b.Helper()
	data, err := os.ReadFile("testdata/full.card.json")
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkCanonicalize(b *testing.B) {
	card := realisticCard(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(card)))
	for b.Loop() {
		if _, err := Canonicalize(card); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSign(b *testing.B) {
	card := realisticCard(b)
	for _, alg := range []string{ES256, EdDSA} {
		b.Run(alg, func(b *testing.B) {
			ks := &KeySet{Current: newKey(b, alg)}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Sign(card, ks); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkVerify(b *testing.B) {
	card := realisticCard(b)
	for _, alg := range []string{ES256, EdDSA} {
		b.Run(alg, func(b *testing.B) {
			ks := &KeySet{Current: newKey(b, alg)}
			signed, err := Sign(card, ks)
			if err != nil {
				b.Fatal(err)
			}
			keys, err := ks.JWKS()
			if err != nil {
				b.Fatal(err)
			}
			pinned, err := ParseJWKS(keys)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			opts := VerifyOptions{RequireSignature: true}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Verify(ctx, signed, pinned, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
