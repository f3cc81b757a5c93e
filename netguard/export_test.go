package netguard

import "net/http"

// SetConnectHook installs a hook that runs after the policy allowed a
// connection and before connect; tests use it to refuse anything that is not
// loopback, so no test packet can leave the machine.
func SetConnectHook(g *Guard, hook func(network, address string) error) { g.connectHook = hook }

// Control runs the guard's net.Dialer.Control check.
func Control(g *Guard, network, address string) error { return g.control(network, address, nil) }

// ParseNumericHost exposes the inet_aton-style host parser.
var ParseNumericHost = parseNumericHost

// DoesDirect reports whether Do calls hc's transport without hc.
func DoesDirect(hc *http.Client, req *http.Request) bool {
	_, ok := direct(hc, req)
	return ok
}
