// Package netguard is the bridge's only way out of the process for URLs that
// came from outside the config (A2A push webhook URLs, agent card and JWKS
// fetches, a JWS "jku"), and it also builds the plain client used for
// destinations the operator named in the config.
//
// # What the guarded client guarantees
//
// A client from [Guard.Client] (or [NewClient]):
//
//   - checks the literal IP and port it is about to connect to, inside
//     [net.Dialer.Control], after name resolution and before the connect
//     system call. A DNS answer that changes between [Guard.CheckURL] and the
//     connection (DNS rebinding) is therefore caught: the check runs on the
//     address actually used, once per connection attempt, for every address a
//     name resolves to, and for every redirect hop;
//   - refuses loopback, private (RFC 1918), link-local (including the cloud
//     metadata address 169.254.169.254), shared address space (CGNAT
//     100.64.0.0/10), "this network" 0.0.0.0/8, multicast, broadcast,
//     reserved, benchmarking and documentation ranges, IPv6 unique-local
//     fc00::/7, everything outside IPv6 global unicast 2000::/3, and the IPv6
//     forms that carry an IPv4 address (IPv4-mapped ::ffff:a.b.c.d is unwrapped
//     and checked as IPv4; NAT64 64:ff9b::/96, 6to4 2002::/16 and Teredo
//     2001::/32 are refused outright, and the embedded IPv4 address is named in
//     the error when it is itself a refused one). The rule table is
//     code.dny.dev/ssrf's, generated from the IANA special-purpose registries,
//     with netguard's own named ranges checked first so errors say why;
//   - connects only to allowed ports: 443, plus 80 when [Config.AllowHTTP] is
//     set, unless [Config.Ports] says otherwise. Addresses inside an
//     [Config.UnsafeAllow] prefix may use any port, because those prefixes
//     exist for tests and sidecars whose ports are not known in advance;
//   - never uses a proxy: Transport.Proxy is nil, whatever HTTP_PROXY,
//     HTTPS_PROXY or ALL_PROXY say (a proxy would make the connect-time check
//     see the proxy's address instead of the destination's);
//   - checks every request URL before sending it: scheme https (or http when
//     AllowHTTP is set), no user:password@, a host, and no numeric host
//     spellings such as 2130706433, 0x7f000001 or 0177.0.0.1, which some
//     resolvers and libraries read as IPv4 addresses;
//   - refuses redirects unless [Config.MaxRedirects] is positive, in which case
//     at most that many are followed and each hop is checked again;
//   - bounds the dial, the TLS handshake, the wait for response headers and the
//     whole request, caps response headers at 64 KiB and response bodies at
//     [Config.MaxBodyBytes]: reading past the cap returns an error wrapping
//     [ErrBodyTooLarge] rather than a silently truncated body;
//   - keeps no cookie jar.
//
// Refusals are [*BlockedError] values carrying a typed [Reason]; they match
// [ErrBlocked] with errors.Is, so callers can tell "policy said no" from
// "the network failed". Errors from http.Client quote the request URL, which
// for a push webhook may hold a secret; log [RedactURL] of them.
//
// [Guard.CheckURL] is the early, user-facing check (for example when an A2A
// client registers a push URL). It resolves the name and checks every address,
// but it is not the enforcement point; the connect-time check is, which is why
// push URLs are delivered only through [Guard.Client].
//
// # The trusted client
//
// [Trusted] builds a client for destinations the operator wrote into the
// config. It skips the address and port checks (upstreams often live on
// loopback or a private network), but keeps everything else: no proxy from
// the environment, timeouts, body caps and refused redirects.
//
// Settings that weaken the guard ([Config.UnsafeAllow], [Config.AllowHTTP])
// are listed by [Config.Warnings] so the gateway can log them at start.
package netguard
