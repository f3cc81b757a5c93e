package gateway_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/a2agrpc"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/gateway/listener"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
)

func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// selfSigned writes a certificate for 127.0.0.1 and its key to dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "bridge test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// The binding on a listener of its own (server.grpc.listen), over TLS:
// the card names it, calls go through the hop chain, and the listener is
// drained with the main one: a stream still open when the grace expires is
// ended and Serve returns.
func TestGRPCOwnListenerOverTLSIsDrained(t *testing.T) {
	up := startFrontUpstream(t)
	grpcAddr := freeLoopbackAddr(t)
	certFile, keyFile, pool := selfSigned(t, t.TempDir())
	yaml := frontYAML(up.srv.URL, fmt.Sprintf("server: {shutdown_grace: 200ms, grpc: {enabled: true, listen: %q, cert_file: %q, key_file: %q, max_connection_age: 1h}}\n", grpcAddr, certFile, keyFile))
	cfg, err := config.Parse([]byte(yaml), "inline.yaml")
	if err != nil {
		t.Fatal(err)
	}
	l := &listener.Listener{Addr: "127.0.0.1:0", GRPCAddr: cfg.Server.GRPC.Listen, Grace: cfg.Server.ShutdownGrace.D(), Log: quiet}
	if err := l.Listen(); err != nil {
		t.Fatal(err)
	}
	pub := "http://" + l.BoundAddr()
	mcpSrv := connectortest.NewServer(connectortest.Options{})
	b, err := gateway.Build(context.Background(), cfg, gateway.Options{Logger: quiet, PublicURL: pub,
		DialUpstream: func(ctx context.Context, c connector.Config) (*connector.Conn, error) {
			return connector.InProcess(ctx, mcpSrv.MCP, c)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	l.Handler, l.GRPC = b.Handler(), b.GRPC()
	l.Settle, l.Stop = b.Settle, b.Stop
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- l.Serve(ctx) }()

	conn, err := a2agrpc.NewConnector(a2agrpc.ConnectorConfig{TLS: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, Dial: func(ctx context.Context, addr string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c, err := client.Dial(context.Background(), pub+"/a2a/agent/.well-known/agent-card.json",
		client.WithHTTPClient(&http.Client{Transport: http.DefaultTransport}),
		client.WithBinding(a2a.BindingGRPC), client.WithTransport(a2a.BindingGRPC, conn.Factory(false)),
		client.WithHeader(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+aliceKey)
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Interface(); got.URL != grpcAddr || got.Tenant != "agent" {
		t.Fatalf("GRPC interface %+v, want %s tenant agent", got, grpcAddr)
	}
	cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.SendMessage(cctx, &a2a.SendMessageRequest{Message: textMsg("over tls")})
	if err != nil || res.Task == nil || artifactText(res.Task) != "echo: over tls" {
		t.Fatalf("SendMessage = %+v, %v", res, err)
	}
	s, err := c.SendStreamingMessage(cctx, &a2a.SendMessageRequest{Message: textMsg("/slow 1000")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	stop() // SIGTERM
	var last a2a.TaskState
	for {
		ev, err := s.Next()
		if err != nil {
			break
		}
		if ev.StatusUpdate != nil {
			last = ev.StatusUpdate.Status.State
		}
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-cctx.Done():
		t.Fatal("serve did not return after the drain")
	}
	if last.Terminal() && last != a2a.TaskStateFailed {
		t.Fatalf("the stream's task ended %s at the shutdown", last)
	}
}

// TestGRPCOwnListener_ConnectionFloodRefused: a client flooding the gRPC
// binding's own listener (server.grpc.listen) with connections meets
// server.max_connections and max_connections_per_client as on the main
// listener, counted together with the main listener's: one connection past
// a cap is closed at once, before the gRPC server writes anything.
func TestGRPCOwnListener_ConnectionFloodRefused(t *testing.T) {
	// served reports whether a fresh connection to addr is served: the
	// gRPC server writes its SETTINGS frame first, a refused connection
	// is closed with nothing written.
	served := func(c net.Conn) bool {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, _ := c.Read(make([]byte, 64))
		return n > 0
	}
	for _, tt := range []struct {
		name             string
		total, perClient int
		firstOnMain      bool
	}{
		{"total, with the main listener's", 1, 0, true},
		{"per client", 0, 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gs, err := a2agrpc.New(a2agrpc.Config{
				Resolve: func(context.Context, string) (*a2agrpc.Target, error) {
					return nil, a2a.ErrInvalidParams.With("no agent")
				},
				MaxRecvBytes: 1 << 20, MaxSendBytes: 1 << 20, MaxUnaryDuration: time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			grpcAddr := freeLoopbackAddr(t)
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
			addr, _ := serveListener(t, h, func(l *listener.Listener) {
				l.MaxConns, l.MaxConnsPerClient = tt.total, tt.perClient
				l.GRPCAddr, l.GRPC = grpcAddr, gs
			})
			first := grpcAddr
			if tt.firstOnMain {
				first = addr
			}
			c, err := net.Dial("tcp", first)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if tt.firstOnMain {
				fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			}
			if !served(c) {
				t.Fatal("the connection under the limit was not served")
			}
			over, err := net.Dial("tcp", grpcAddr)
			if err != nil {
				t.Fatal(err)
			}
			defer over.Close()
			if served(over) {
				t.Fatal("a gRPC connection past the limit was served")
			}
		})
	}
}
