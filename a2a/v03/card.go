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
// "supportsAuthenticatedExtendedCard" and "security", and in each entry of
// "securitySchemes" the 0.3 members ("type" and the scheme's own, such as
// "in" and "name" of an API key) beside its 1.0 member. Both versions are
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
	if len(card.SecuritySchemes) > 0 {
		merged, err := schemesWith03(obj["securitySchemes"], card.SecuritySchemes)
		if err != nil {
			return nil, fmt.Errorf("a2a/v03: card: securitySchemes: %w", err)
		}
		obj["securitySchemes"] = merged
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

// schemesWith03 adds to each security scheme of a card's JSON (raw) the
// members a 0.3 reader reads: "type" and the scheme's 0.3 fields, beside
// the 1.0 member they come from, which stays as it is. 0.3 has no device
// code flow: a scheme that offers only that one gets "type" and no flow.
func schemesWith03(raw json.RawMessage, schemes map[string]a2a.SecurityScheme) (json.RawMessage, error) {
	var objs map[string]map[string]json.RawMessage
	if err := json.Unmarshal(raw, &objs); err != nil {
		return nil, err
	}
	for name, sc := range schemes {
		o := objs[name]
		if o == nil {
			continue
		}
		for k, v := range schemeTo03(sc) {
			if _, taken := o[k]; taken {
				continue
			}
			b, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			o[k] = b
		}
	}
	return json.Marshal(objs)
}

// schemeTo03 is the 0.3 form of one security scheme, as members.
func schemeTo03(sc a2a.SecurityScheme) map[string]any {
	m := map[string]any{}
	desc := func(d string) {
		if d != "" {
			m["description"] = d
		}
	}
	switch {
	case sc.APIKey != nil:
		m["type"], m["in"], m["name"] = "apiKey", sc.APIKey.Location, sc.APIKey.Name
		desc(sc.APIKey.Description)
	case sc.HTTPAuth != nil:
		m["type"], m["scheme"] = "http", sc.HTTPAuth.Scheme
		if sc.HTTPAuth.BearerFormat != "" {
			m["bearerFormat"] = sc.HTTPAuth.BearerFormat
		}
		desc(sc.HTTPAuth.Description)
	case sc.OAuth2 != nil:
		f := sc.OAuth2.Flows
		flows := map[string]any{}
		if f.AuthorizationCode != nil {
			flows["authorizationCode"] = map[string]any{"authorizationUrl": f.AuthorizationCode.AuthorizationURL, "tokenUrl": f.AuthorizationCode.TokenURL, "refreshUrl": f.AuthorizationCode.RefreshURL, "scopes": scopes03(f.AuthorizationCode.Scopes)}
		}
		if f.ClientCredentials != nil {
			flows["clientCredentials"] = map[string]any{"tokenUrl": f.ClientCredentials.TokenURL, "refreshUrl": f.ClientCredentials.RefreshURL, "scopes": scopes03(f.ClientCredentials.Scopes)}
		}
		if f.Implicit != nil {
			flows["implicit"] = map[string]any{"authorizationUrl": f.Implicit.AuthorizationURL, "refreshUrl": f.Implicit.RefreshURL, "scopes": scopes03(f.Implicit.Scopes)}
		}
		if f.Password != nil {
			flows["password"] = map[string]any{"tokenUrl": f.Password.TokenURL, "refreshUrl": f.Password.RefreshURL, "scopes": scopes03(f.Password.Scopes)}
		}
		for _, fl := range flows {
			if fm := fl.(map[string]any); fm["refreshUrl"] == "" {
				delete(fm, "refreshUrl")
			}
		}
		m["type"], m["flows"] = "oauth2", flows
		if sc.OAuth2.OAuth2MetadataURL != "" {
			m["oauth2MetadataUrl"] = sc.OAuth2.OAuth2MetadataURL
		}
		desc(sc.OAuth2.Description)
	case sc.OpenIDConnect != nil:
		m["type"], m["openIdConnectUrl"] = "openIdConnect", sc.OpenIDConnect.OpenIDConnectURL
		desc(sc.OpenIDConnect.Description)
	case sc.MTLS != nil:
		m["type"] = "mutualTLS"
		desc(sc.MTLS.Description)
	}
	return m
}

// scopes03 is a flow's scopes, never null (0.3 requires the member).
func scopes03(s map[string]string) map[string]string {
	if s == nil {
		return map[string]string{}
	}
	return s
}
