package gateway_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/a2agrpc"
	pb "github.com/a2a-mcp-bridge/bridge/a2a/a2apb"
	"github.com/a2a-mcp-bridge/bridge/auth/authtest"
)

// The guards of issue 14 on the gRPC binding: per-face audiences, one
// principal per call.

const grpcOn = "server: {grpc: {enabled: true}}\n"

// grpcList calls ListTasks on the published agent "tools" over gRPC with md.
func grpcList(t *testing.T, e *env, md ...string) *status.Status {
	t.Helper()
	cc, err := grpc.NewClient("passthrough:///"+strings.TrimPrefix(e.url, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ctx = metadata.NewOutgoingContext(ctx, metadata.Pairs(append([]string{"a2a-version", "1.0"}, md...)...))
	err = cc.Invoke(ctx, a2agrpc.PathPrefix+a2a.MethodListTasks, &pb.ListTasksRequest{Tenant: "tools"}, &pb.ListTasksResponse{})
	return status.Convert(err)
}

func TestGRPC_TokenForTheMCPEndpointIsRefused(t *testing.T) {
	idp := authtest.NewIdP(t)
	jwks := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(jwks, idp.JWKS(), 0o600); err != nil {
		t.Fatal(err)
	}
	e := startAttackEnv(t, strings.Replace(attackBase, "auth:\n", fmt.Sprintf("auth:\n  jwks: [{issuer: %q, file: %q, audience: [\"{PUBLIC}\"]}]\n", idp.Issuer, jwks), 1)+grpcOn)
	mcpTok := idp.Sign(t, idp.Claims("alice", e.url+"/mcp", time.Now()))
	if st := grpcList(t, e, "authorization", "Bearer "+mcpTok); st.Code() != codes.Unauthenticated {
		t.Fatalf("an /mcp token over gRPC: %s %s", st.Code(), st.Message())
	}
	a2aTok := idp.Sign(t, idp.Claims("alice", e.url, time.Now()))
	if st := grpcList(t, e, "authorization", "Bearer "+a2aTok); st.Code() != codes.OK {
		t.Fatalf("an A2A token over gRPC: %s %s", st.Code(), st.Message())
	}
}

func TestGRPC_ConflictingCredentialsAreRefused(t *testing.T) {
	e := startAttackEnv(t, attackBase+grpcOn)
	for _, tc := range []struct {
		name string
		md   []string
		want codes.Code
	}{
		{"bearer and API key", []string{"authorization", "Bearer " + aliceKey, "x-api-key", bobKey}, codes.Unauthenticated},
		{"two bearers", []string{"authorization", "Bearer " + aliceKey, "authorization", "Bearer " + bobKey}, codes.InvalidArgument},
		{"two API keys", []string{"x-api-key", aliceKey, "x-api-key", bobKey}, codes.InvalidArgument},
		{"malformed bearer", []string{"authorization", "Bearer a b"}, codes.Unauthenticated},
		{"API key alone", []string{"x-api-key", aliceKey}, codes.OK},
		{"bearer alone", []string{"authorization", "Bearer " + aliceKey}, codes.OK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if st := grpcList(t, e, tc.md...); st.Code() != tc.want {
				t.Fatalf("%s: %s (%s), want %s", tc.name, st.Code(), st.Message(), tc.want)
			}
		})
	}
}
