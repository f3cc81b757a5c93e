package endpoint_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/policy"
)

// The gateway mounts the face at /mcp on the bridge's mux. The authenticator
// is the auth.Chain built from the config, whose issuers list the canonical
// resource URL (public_url + "/mcp") as their audience; the same URL is the
// resource of the RFC 9728 document. Tool sources (expose.AgentTools,
// front-MCP upstreams) are passed in; the policy engine filters tools per
// principal.
func Example_mount() {
	ctx := context.Background()
	public := "https://bridge.example.com"
	chain, err := auth.New(ctx, auth.Config{Anonymous: true}, auth.Options{ListenAddr: "127.0.0.1:8080"})
	if err != nil {
		log.Fatal(err)
	}
	md, _ := chain.ResourceMetadata(public + endpoint.DefaultPath)
	engine, err := policy.Compile(policy.Config{Default: "allow"})
	if err != nil {
		log.Fatal(err)
	}
	f, err := endpoint.New(endpoint.Config{
		PublicURL:     public,
		Authenticator: chain,
		Metadata:      md,
		Policy:        engine,
		Sources:       []endpoint.ToolSource{tools{"echo"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	f.Mount(mux) // /mcp and /.well-known/oauth-protected-resource/mcp
	fmt.Println(f.Resource())
	fmt.Println(f.ResourceMetadataURL())
	// Output:
	// https://bridge.example.com/mcp
	// https://bridge.example.com/.well-known/oauth-protected-resource/mcp
}

// `bridge mcp` serves the same face over stdio: no HTTP authenticator, the
// local user is the principal (Config.StdioPrincipal).
func Example_stdio() {
	f, err := endpoint.New(endpoint.Config{Sources: []endpoint.ToolSource{tools{"echo"}}})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a real command runs until stdin closes or a signal arrives
	if err := f.ServeStdio(ctx, os.Stdin, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
