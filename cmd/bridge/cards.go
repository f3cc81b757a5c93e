package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/a2a-mcp-bridge/bridge/a2a/card"
)

// runKeys: bridge keys generate [--alg ES256|EdDSA] FILE | bridge keys jwks PEM...
func runKeys(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "jwks" {
		if len(args) < 2 {
			return fmt.Errorf("%w: keys jwks PEM [PEM...]", errUsage)
		}
		ks := &card.KeySet{}
		for i, p := range args[1:] {
			k, err := card.LoadSigningKey(p)
			if err != nil {
				return err
			}
			if i == 0 {
				ks.Current = k
			} else {
				ks.Previous = append(ks.Previous, k)
			}
		}
		b, err := ks.JWKS()
		if err != nil {
			return err
		}
		_, err = stdout.Write(append(b, '\n'))
		return err
	}
	if len(args) == 0 || args[0] != "generate" {
		return fmt.Errorf("%w: bridge keys generate [--alg ES256|EdDSA] FILE | bridge keys jwks PEM...", errUsage)
	}
	fs := flag.NewFlagSet("keys generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	alg := fs.String("alg", card.ES256, "signing algorithm: ES256, ES384 or EdDSA")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: keys generate needs one FILE to write the private key to", errUsage)
	}
	if dir := filepath.Dir(fs.Arg(0)); dir != "." {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create key directory: %w", err)
		}
	}
	kid, err := card.GenerateKeyFile(fs.Arg(0), *alg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s key %s (kid %s)\n", *alg, fs.Arg(0), kid)
	return nil
}

// runCard: bridge card sign --key PEM [--previous PEM]... FILE | bridge card verify --jwks FILE [--require-signature] FILE
func runCard(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: bridge card sign|verify …", errUsage)
	}
	switch args[0] {
	case "sign":
		fs := flag.NewFlagSet("card sign", flag.ContinueOnError)
		fs.SetOutput(stderr)
		keyPath := fs.String("key", "", "PEM file of the signing key (bridge keys generate)")
		jku := fs.String("jku", "", "optional JWKS URL to put in the signature header")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 1 || *keyPath == "" {
			return fmt.Errorf("%w: card sign --key PEM FILE", errUsage)
		}
		key, err := card.LoadSigningKey(*keyPath)
		if err != nil {
			return err
		}
		in, err := os.ReadFile(fs.Arg(0))
		if err != nil {
			return fmt.Errorf("read card: %w", err)
		}
		out, err := card.SignFile(in, &card.KeySet{Current: key, JKU: *jku})
		if err != nil {
			return err
		}
		_, err = stdout.Write(append(out, '\n'))
		return err
	case "verify":
		fs := flag.NewFlagSet("card verify", flag.ContinueOnError)
		fs.SetOutput(stderr)
		jwksPath := fs.String("jwks", "", "JWKS file with the trusted public keys")
		require := fs.Bool("require-signature", true, "fail when the card carries no signature")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 1 || *jwksPath == "" {
			return fmt.Errorf("%w: card verify --jwks FILE CARD", errUsage)
		}
		in, err := os.ReadFile(fs.Arg(0))
		if err != nil {
			return fmt.Errorf("read card: %w", err)
		}
		jwks, err := os.ReadFile(*jwksPath)
		if err != nil {
			return fmt.Errorf("read jwks: %w", err)
		}
		res, err := card.VerifyFile(in, jwks, card.VerifyOptions{RequireSignature: *require})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s (kid %s, %s)\n", fs.Arg(0), res.Status, res.KeyID, res.Algorithm)
		return nil
	}
	return fmt.Errorf("%w: unknown card subcommand %q", errUsage, args[0])
}
