package card

import "strings"

// presence is how a field's presence is decided when canonicalizing (§8.4.1).
type presence uint8

const (
	// plain fields are omitted when they hold their default value.
	plain presence = iota
	// optional fields (proto3 "optional", oneof members) are kept iff present.
	optional
	// required fields (google.api.field_behavior = REQUIRED) are never dropped.
	required
)

// kind is the JSON shape of a field, which decides what its default is and
// whether the canonicalizer recurses into it.
type kind uint8

const (
	kindString     kind = iota // string; default ""
	kindBool                   // bool; default false
	kindMessage                // singular message; proto3 explicit presence
	kindStruct                 // google.protobuf.Struct; kept verbatim
	kindStrings                // repeated string; default []
	kindMessages               // repeated message; default []
	kindStringMap              // map<string,string>; default {}
	kindMessageMap             // map<string,Message>; default {}
)

// field is one entry of the presence table.
type field struct {
	proto    string // proto field name (snake_case)
	presence presence
	kind     kind
	message  string // nested message name for kindMessage, kindMessages, kindMessageMap
}

// cardSchema is the presence table for AgentCard and every message reachable
// from it, written from shared/spec/a2a.proto (A2A v1.0.1). Fields marked
// REQUIRED in the proto are required; fields declared "optional" and oneof
// members are optional; everything else is plain.
var cardSchema = map[string][]field{
	"AgentCard": {
		{"name", required, kindString, ""},
		{"description", required, kindString, ""},
		{"supported_interfaces", required, kindMessages, "AgentInterface"},
		{"provider", plain, kindMessage, "AgentProvider"},
		{"version", required, kindString, ""},
		{"documentation_url", optional, kindString, ""},
		{"capabilities", required, kindMessage, "AgentCapabilities"},
		{"security_schemes", plain, kindMessageMap, "SecurityScheme"},
		{"security_requirements", plain, kindMessages, "SecurityRequirement"},
		{"default_input_modes", required, kindStrings, ""},
		{"default_output_modes", required, kindStrings, ""},
		{"skills", required, kindMessages, "AgentSkill"},
		{"signatures", plain, kindMessages, "AgentCardSignature"},
		{"icon_url", optional, kindString, ""},
	},
	"AgentInterface": {
		{"url", required, kindString, ""},
		{"protocol_binding", required, kindString, ""},
		{"tenant", plain, kindString, ""},
		{"protocol_version", required, kindString, ""},
	},
	"AgentProvider": {
		{"url", required, kindString, ""},
		{"organization", required, kindString, ""},
	},
	"AgentCapabilities": {
		{"streaming", optional, kindBool, ""},
		{"push_notifications", optional, kindBool, ""},
		{"extensions", plain, kindMessages, "AgentExtension"},
		{"extended_agent_card", optional, kindBool, ""},
	},
	"AgentExtension": {
		{"uri", plain, kindString, ""},
		{"description", plain, kindString, ""},
		{"required", plain, kindBool, ""},
		{"params", plain, kindStruct, ""},
	},
	"AgentSkill": {
		{"id", required, kindString, ""},
		{"name", required, kindString, ""},
		{"description", required, kindString, ""},
		{"tags", required, kindStrings, ""},
		{"examples", plain, kindStrings, ""},
		{"input_modes", plain, kindStrings, ""},
		{"output_modes", plain, kindStrings, ""},
		{"security_requirements", plain, kindMessages, "SecurityRequirement"},
	},
	"AgentCardSignature": {
		{"protected", required, kindString, ""},
		{"signature", required, kindString, ""},
		{"header", plain, kindStruct, ""},
	},
	"StringList": {
		{"list", plain, kindStrings, ""},
	},
	"SecurityRequirement": {
		{"schemes", plain, kindMessageMap, "StringList"},
	},
	"SecurityScheme": { // oneof scheme
		{"api_key_security_scheme", optional, kindMessage, "APIKeySecurityScheme"},
		{"http_auth_security_scheme", optional, kindMessage, "HTTPAuthSecurityScheme"},
		{"oauth2_security_scheme", optional, kindMessage, "OAuth2SecurityScheme"},
		{"open_id_connect_security_scheme", optional, kindMessage, "OpenIdConnectSecurityScheme"},
		{"mtls_security_scheme", optional, kindMessage, "MutualTlsSecurityScheme"},
	},
	"APIKeySecurityScheme": {
		{"description", plain, kindString, ""},
		{"location", required, kindString, ""},
		{"name", required, kindString, ""},
	},
	"HTTPAuthSecurityScheme": {
		{"description", plain, kindString, ""},
		{"scheme", required, kindString, ""},
		{"bearer_format", plain, kindString, ""},
	},
	"OAuth2SecurityScheme": {
		{"description", plain, kindString, ""},
		{"flows", required, kindMessage, "OAuthFlows"},
		{"oauth2_metadata_url", plain, kindString, ""},
	},
	"OpenIdConnectSecurityScheme": {
		{"description", plain, kindString, ""},
		{"open_id_connect_url", required, kindString, ""},
	},
	"MutualTlsSecurityScheme": {
		{"description", plain, kindString, ""},
	},
	"OAuthFlows": { // oneof flow
		{"authorization_code", optional, kindMessage, "AuthorizationCodeOAuthFlow"},
		{"client_credentials", optional, kindMessage, "ClientCredentialsOAuthFlow"},
		{"implicit", optional, kindMessage, "ImplicitOAuthFlow"},
		{"password", optional, kindMessage, "PasswordOAuthFlow"},
		{"device_code", optional, kindMessage, "DeviceCodeOAuthFlow"},
	},
	"AuthorizationCodeOAuthFlow": {
		{"authorization_url", required, kindString, ""},
		{"token_url", required, kindString, ""},
		{"refresh_url", plain, kindString, ""},
		{"scopes", required, kindStringMap, ""},
		{"pkce_required", plain, kindBool, ""},
	},
	"ClientCredentialsOAuthFlow": {
		{"token_url", required, kindString, ""},
		{"refresh_url", plain, kindString, ""},
		{"scopes", required, kindStringMap, ""},
	},
	"ImplicitOAuthFlow": {
		{"authorization_url", plain, kindString, ""},
		{"refresh_url", plain, kindString, ""},
		{"scopes", plain, kindStringMap, ""},
	},
	"PasswordOAuthFlow": {
		{"token_url", plain, kindString, ""},
		{"refresh_url", plain, kindString, ""},
		{"scopes", plain, kindStringMap, ""},
	},
	"DeviceCodeOAuthFlow": {
		{"device_authorization_url", required, kindString, ""},
		{"token_url", required, kindString, ""},
		{"refresh_url", plain, kindString, ""},
		{"scopes", required, kindStringMap, ""},
	},
}

// messageIndex maps message name → JSON key → field. Both the lowerCamelCase
// JSON name and the original proto name are indexed, because ProtoJSON parsers
// accept either; the key itself is always kept as received.
var messageIndex = buildIndex(cardSchema)

func buildIndex(schema map[string][]field) map[string]map[string]*field {
	idx := make(map[string]map[string]*field, len(schema))
	for name, fields := range schema {
		m := make(map[string]*field, 2*len(fields))
		for i := range fields {
			f := &fields[i]
			m[f.proto] = f
			m[jsonName(f.proto)] = f
		}
		idx[name] = m
	}
	return idx
}

// jsonName is protoc's default json_name: drop each underscore and upper-case
// the letter after it.
func jsonName(proto string) string {
	var b strings.Builder
	up := false
	for _, r := range proto {
		if r == '_' {
			up = true
			continue
		}
		if up && 'a' <= r && r <= 'z' {
			r -= 'a' - 'A'
		}
		up = false
		b.WriteRune(r)
	}
	return b.String()
}
