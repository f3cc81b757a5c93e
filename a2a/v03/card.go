package v03

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// CardJSON returns a 1.0 card's JSON with the members a 0.3 client reads
// beside the 1.0 ones: "url" and "preferredTransport" (the first JSON-RPC
// interface, else the first HTTP+JSON one), "additionalInterfaces" (every
// JSON-RPC and HTTP+JSON interface), "protocolVersion" ("0.3.0"),
// "supportsAuthenticatedExtendedCard" and "security". Both versions are
// answered at the same URLs: a request is told apart by its A2A-Version
// header, its method name and its path. The other members are kept as
// they are (1.0 readers, and the card signatures, see them unchanged);
// a 1.0 reader that finds supportedInterfaces reads the card as 1.0.
func CardJSON(cardJSON []byte) ([]byte, error) {
	var card a2a.AgentCard
	if err := json.Unmarshal(cardJSON, &card); err != nil {
		return nil, fmt.Errorf("a2a/v03: card: %w", err)
	}
	view := ViewOf(&card)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(cardJSON, &obj); err != nil {
		return nil, fmt.Errorf("a2a/v03: card: %w", err)
	}
	set := func(k string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		obj[k] = b
		return nil
	}
	if view.URL != "" {
		if err := set("url", view.URL); err != nil {
			return nil, err
		}
		if err := set("preferredTransport", view.PreferredTransport); err != nil {
			return nil, err
		}
		if err := set("additionalInterfaces", view.AdditionalInterfaces); err != nil {
			return nil, err
		}
	}
	if err := set("protocolVersion", view.ProtocolVersion); err != nil {
		return nil, err
	}
	if view.SupportsAuthenticatedExtendedCard != nil {
		if err := set("supportsAuthenticatedExtendedCard", *view.SupportsAuthenticatedExtendedCard); err != nil {
			return nil, err
		}
	}
	if sec := securityTo03(card.SecurityRequirements); len(sec) > 0 {
		if err := set("security", sec); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		return nil, fmt.Errorf("a2a/v03: card: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// ViewOf is the 0.3 view of a 1.0 card's interfaces.
func ViewOf(c *a2a.AgentCard) CardView {
	v := CardView{ProtocolVersion: ProtocolVersion}
	var jsonrpc, rest *a2a.AgentInterface
	for i := range c.SupportedInterfaces {
		in := &c.SupportedInterfaces[i]
		if !strings.HasPrefix(strings.TrimSpace(in.ProtocolVersion), "1.") {
			continue
		}
		switch {
		case strings.EqualFold(in.ProtocolBinding, a2a.BindingJSONRPC):
			if jsonrpc == nil {
				jsonrpc = in
			}
		case strings.EqualFold(in.ProtocolBinding, a2a.BindingHTTPJSON):
			if rest == nil {
				rest = in
			}
		default:
			continue
		}
		v.AdditionalInterfaces = append(v.AdditionalInterfaces, AgentInterface{URL: in.URL, Transport: strings.ToUpper(in.ProtocolBinding)})
	}
	switch {
	case jsonrpc != nil:
		v.URL, v.PreferredTransport = jsonrpc.URL, a2a.BindingJSONRPC
	case rest != nil:
		v.URL, v.PreferredTransport = rest.URL, a2a.BindingHTTPJSON
	}
	if c.Capabilities.ExtendedAgentCard != nil {
		b := *c.Capabilities.ExtendedAgentCard
		v.SupportsAuthenticatedExtendedCard = &b
	}
	return v
}

// securityTo03 is the 0.3 form of security requirements: a list of maps
// from scheme name to scopes.
func securityTo03(reqs []a2a.SecurityRequirement) []map[string][]string {
	var out []map[string][]string
	for _, r := range reqs {
		m := make(map[string][]string, len(r.Schemes))
		for name, scopes := range r.Schemes {
			m[name] = append([]string{}, scopes.List...)
		}
		out = append(out, m)
	}
	return out
}
