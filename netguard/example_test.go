package netguard_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// A push URL is checked when it is registered and delivered through the
// guarded client, which checks the address again at connect time.
func ExampleGuard_CheckURL() {
	g, err := netguard.New(netguard.Config{})
	if err != nil {
		panic(err)
	}
	err = g.CheckURL(context.Background(), "https://2130706433/hook")
	var be *netguard.BlockedError
	if errors.As(err, &be) {
		fmt.Println(be.Reason, be.Addr)
	}
	fmt.Println(errors.Is(err, netguard.ErrBlocked))
	// Deliveries then go through g.Client().
	// Output:
	// loopback 127.0.0.1
	// true
}

func ExampleConfig_Warnings() {
	cfg := netguard.Config{UnsafeAllow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	for _, w := range cfg.Warnings() {
		fmt.Println(w)
	}
	// Output:
	// netguard: UnsafeAllow lets untrusted URLs reach 127.0.0.0/8 on any port; use only for tests or a known sidecar
}
