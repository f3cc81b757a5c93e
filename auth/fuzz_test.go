package auth

import (
	"encoding/base64"
	"strings"
	"testing"
)

func FuzzParseBearer(f *testing.F) {
	for _, s := range []string{
		"Bearer abc", "bearer abc.def.ghi", "BEARER   x", "Bearer", "Bearer ", "Bearer a b",
		"Basic dXNlcjpwYXNz", "BearerX abc", "Bearer abc==", "Bearer ab=c", "Bearer \x00",
		"Bearer " + strings.Repeat("a", DefaultMaxTokenBytes+1), "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		tok, err := ParseBearer(v, 0)
		if err != nil {
			if tok != "" {
				t.Fatalf("error %v with token %q", err, tok)
			}
			e, ok := err.(*Error)
			if !ok || (e.Status != 400 && e.Status != 401) || strings.Contains(e.Error(), v) && len(v) > 16 {
				t.Fatalf("bad error %T %v", err, err)
			}
			return
		}
		if tok == "" {
			return
		}
		if len(tok) > DefaultMaxTokenBytes || !isB64Token(tok) || !strings.Contains(v, tok) {
			t.Fatalf("accepted %q from %q", tok, v)
		}
		if !strings.EqualFold(v[:6], "bearer") {
			t.Fatalf("accepted a non-bearer scheme: %q", v)
		}
	})
}

func FuzzPeekJWT(f *testing.F) {
	enc := base64.RawURLEncoding.EncodeToString
	for _, s := range []string{
		enc([]byte(`{"alg":"ES256","kid":"k"}`)) + "." + enc([]byte(`{"iss":"https://i"}`)) + ".c2ln",
		enc([]byte(`{"alg":"none"}`)) + "." + enc([]byte(`{}`)) + ".",
		enc([]byte(`{"alg":"RS256","crit":["exp"]}`)) + "." + enc([]byte(`{"iss":1}`)) + ".x",
		"a.b.c", "..", "a.b", "a.b.c.d", "",
		enc([]byte(`{"alg":"ES256"}`)) + "." + enc([]byte(`[1,2]`)) + ".x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		p, err := peekJWT(tok)
		if err != nil {
			return
		}
		if strings.Count(tok, ".") != 2 || p.Alg == "" {
			t.Fatalf("accepted %q as %+v", tok, p)
		}
		if looksLikeJWT(tok) != true {
			t.Fatalf("peekJWT accepts %q but looksLikeJWT does not", tok)
		}
	})
}
