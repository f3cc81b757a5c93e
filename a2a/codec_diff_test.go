package a2a_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/a2apb"
)

// The differential tests use a2apb with protojson as the oracle. Direction
// one: a proto message → protojson → our types → our JSON → protojson
// (strict: unknown fields are errors) must give a message proto.Equal to
// the original. Direction two: our value → our JSON → protojson → protojson
// JSON → our types must give our value back after normalisation.

// diffCasesPerKind is how many random messages of each kind are checked.
const diffCasesPerKind = 60

// pbGen builds random but valid a2apb messages from a fixed seed. It never
// produces a shape our types represent differently on purpose:
//   - every part has content (a content-less part is an unknown kind and is
//     dropped by design);
//   - a Struct is either nil or has at least one key (our Metadata drops
//     an empty object, proto keeps an empty-but-set Struct);
//   - Message.role is never ROLE_UNSPECIFIED (see TestDiff_RoleUnspecified);
//   - a data part never holds a top-level null (see TestDiff_DataNullPart);
//   - enum values are all known to 1.0.
type pbGen struct{ r *rand.Rand }

func newPBGen(seed uint64) *pbGen { return &pbGen{r: rand.New(rand.NewPCG(seed, 0xa2a))} }

var sampleStrings = []string{
	"", "a", "hello world", "ünïcødé ✓", "emoji 🛫🧳", "quotes \" and \\ backslash", "<script>&amp;</script>",
	"line\nbreak\ttab", "\u2028\u2029 separators", "日本語テキスト", "control \u0001\u001f", strings.Repeat("x", 300),
}

func (g *pbGen) str() string {
	if g.r.IntN(3) == 0 {
		return fmt.Sprintf("id-%d", g.r.Uint32())
	}
	return sampleStrings[g.r.IntN(len(sampleStrings))]
}

func (g *pbGen) nonEmpty() string {
	return fmt.Sprintf("v%d-%s", g.r.IntN(1000), sampleStrings[g.r.IntN(len(sampleStrings))])
}

func (g *pbGen) strs(max int) []string {
	n := g.r.IntN(max + 1)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = g.str()
	}
	return out
}

func (g *pbGen) number() float64 {
	switch g.r.IntN(6) {
	case 0:
		return float64(g.r.IntN(1000))
	case 1:
		return -float64(g.r.IntN(1 << 30))
	case 2:
		return g.r.Float64() * 1e6
	case 3:
		return math.Ldexp(g.r.Float64(), g.r.IntN(2000)-1000)
	case 4:
		return float64(g.r.Int64N(1 << 53))
	}
	return 0.1 + g.r.Float64()
}

func (g *pbGen) value(depth int) *structpb.Value {
	k := g.r.IntN(6)
	if depth <= 0 && k >= 4 {
		k = g.r.IntN(4)
	}
	switch k {
	case 0:
		return structpb.NewNullValue()
	case 1:
		return structpb.NewBoolValue(g.r.IntN(2) == 0)
	case 2:
		return structpb.NewNumberValue(g.number())
	case 3:
		return structpb.NewStringValue(g.str())
	case 4:
		n := g.r.IntN(4)
		l := &structpb.ListValue{}
		for range n {
			l.Values = append(l.Values, g.value(depth-1))
		}
		return structpb.NewListValue(l)
	}
	s := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	for range g.r.IntN(4) {
		s.Fields[g.str()] = g.value(depth - 1)
	}
	return structpb.NewStructValue(s)
}

// structOrNil returns nil or a Struct with at least one field.
func (g *pbGen) structOrNil() *structpb.Struct {
	if g.r.IntN(2) == 0 {
		return nil
	}
	s := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	for range 1 + g.r.IntN(3) {
		s.Fields[g.nonEmpty()] = g.value(2)
	}
	return s
}

// timestamp has 0, 3, 6 or 9 fraction digits, between 1970 and 2100.
func (g *pbGen) timestamp() *timestamppb.Timestamp {
	ts := &timestamppb.Timestamp{Seconds: g.r.Int64N(4102444800)}
	switch g.r.IntN(4) {
	case 1:
		ts.Nanos = int32(g.r.IntN(1000)) * 1e6
	case 2:
		ts.Nanos = int32(g.r.IntN(1e6)) * 1e3
	case 3:
		ts.Nanos = int32(g.r.IntN(1e9))
	}
	return ts
}

func (g *pbGen) maybeTimestamp() *timestamppb.Timestamp {
	if g.r.IntN(3) == 0 {
		return nil
	}
	return g.timestamp()
}

func (g *pbGen) optInt32() *int32 {
	if g.r.IntN(2) == 0 {
		return nil
	}
	v := int32(g.r.IntN(3)) * int32(g.r.IntN(200))
	return &v
}

func (g *pbGen) optBool() *bool {
	if g.r.IntN(3) == 0 {
		return nil
	}
	b := g.r.IntN(2) == 0
	return &b
}

func (g *pbGen) part() *a2apb.Part {
	p := &a2apb.Part{Metadata: g.structOrNil()}
	if g.r.IntN(2) == 0 {
		p.Filename = g.str()
		p.MediaType = []string{"text/plain", "application/json", "image/png", ""}[g.r.IntN(4)]
	}
	switch g.r.IntN(4) {
	case 0:
		p.Content = &a2apb.Part_Text{Text: g.str()}
	case 1:
		b := make([]byte, g.r.IntN(40))
		for i := range b {
			b[i] = byte(g.r.IntN(256))
		}
		p.Content = &a2apb.Part_Raw{Raw: b}
	case 2:
		p.Content = &a2apb.Part_Url{Url: "https://files.example.com/" + g.nonEmpty()}
	default:
		v := g.value(3)
		for isNull(v) {
			v = g.value(3)
		}
		p.Content = &a2apb.Part_Data{Data: v}
	}
	return p
}

func isNull(v *structpb.Value) bool {
	_, ok := v.GetKind().(*structpb.Value_NullValue)
	return ok
}

func (g *pbGen) parts() []*a2apb.Part {
	n := g.r.IntN(4)
	out := make([]*a2apb.Part, 0, n)
	for range n {
		out = append(out, g.part())
	}
	return out
}

func (g *pbGen) message() *a2apb.Message {
	return &a2apb.Message{
		MessageId:        g.nonEmpty(),
		ContextId:        g.str(),
		TaskId:           g.str(),
		Role:             a2apb.Role(1 + g.r.IntN(2)),
		Parts:            g.parts(),
		Metadata:         g.structOrNil(),
		Extensions:       g.strs(2),
		ReferenceTaskIds: g.strs(2),
	}
}

func (g *pbGen) artifact() *a2apb.Artifact {
	return &a2apb.Artifact{
		ArtifactId:  g.nonEmpty(),
		Name:        g.str(),
		Description: g.str(),
		Parts:       g.parts(),
		Metadata:    g.structOrNil(),
		Extensions:  g.strs(2),
	}
}

func (g *pbGen) status() *a2apb.TaskStatus {
	s := &a2apb.TaskStatus{State: a2apb.TaskState(g.r.IntN(9)), Timestamp: g.maybeTimestamp()}
	if g.r.IntN(2) == 0 {
		s.Message = g.message()
	}
	return s
}

func (g *pbGen) task() *a2apb.Task {
	t := &a2apb.Task{Id: g.nonEmpty(), ContextId: g.str(), Status: g.status(), Metadata: g.structOrNil()}
	for range g.r.IntN(3) {
		t.Artifacts = append(t.Artifacts, g.artifact())
	}
	for range g.r.IntN(4) {
		t.History = append(t.History, g.message())
	}
	return t
}

func (g *pbGen) statusUpdate() *a2apb.TaskStatusUpdateEvent {
	return &a2apb.TaskStatusUpdateEvent{TaskId: g.nonEmpty(), ContextId: g.nonEmpty(), Status: g.status(), Metadata: g.structOrNil()}
}

func (g *pbGen) artifactUpdate() *a2apb.TaskArtifactUpdateEvent {
	return &a2apb.TaskArtifactUpdateEvent{
		TaskId: g.nonEmpty(), ContextId: g.nonEmpty(), Artifact: g.artifact(),
		Append: g.r.IntN(2) == 0, LastChunk: g.r.IntN(2) == 0, Metadata: g.structOrNil(),
	}
}

func (g *pbGen) streamResponse() *a2apb.StreamResponse {
	switch g.r.IntN(4) {
	case 0:
		return &a2apb.StreamResponse{Payload: &a2apb.StreamResponse_Task{Task: g.task()}}
	case 1:
		return &a2apb.StreamResponse{Payload: &a2apb.StreamResponse_Message{Message: g.message()}}
	case 2:
		return &a2apb.StreamResponse{Payload: &a2apb.StreamResponse_StatusUpdate{StatusUpdate: g.statusUpdate()}}
	}
	return &a2apb.StreamResponse{Payload: &a2apb.StreamResponse_ArtifactUpdate{ArtifactUpdate: g.artifactUpdate()}}
}

func (g *pbGen) pushConfig() *a2apb.TaskPushNotificationConfig {
	c := &a2apb.TaskPushNotificationConfig{Tenant: g.str(), Id: g.str(), TaskId: g.str(), Url: "https://hooks.example.com/" + g.nonEmpty(), Token: g.str()}
	if g.r.IntN(2) == 0 {
		c.Authentication = &a2apb.AuthenticationInfo{Scheme: "Bearer", Credentials: g.str()}
	}
	return c
}

func (g *pbGen) sendMessageRequest() *a2apb.SendMessageRequest {
	r := &a2apb.SendMessageRequest{Tenant: g.str(), Message: g.message(), Metadata: g.structOrNil()}
	if g.r.IntN(3) != 0 {
		r.Configuration = &a2apb.SendMessageConfiguration{
			AcceptedOutputModes: g.strs(3),
			HistoryLength:       g.optInt32(),
			ReturnImmediately:   g.r.IntN(2) == 0,
		}
		if g.r.IntN(2) == 0 {
			r.Configuration.TaskPushNotificationConfig = g.pushConfig()
		}
	}
	return r
}

func (g *pbGen) sendMessageResponse() *a2apb.SendMessageResponse {
	if g.r.IntN(2) == 0 {
		return &a2apb.SendMessageResponse{Payload: &a2apb.SendMessageResponse_Task{Task: g.task()}}
	}
	return &a2apb.SendMessageResponse{Payload: &a2apb.SendMessageResponse_Message{Message: g.message()}}
}

func (g *pbGen) listTasksRequest() *a2apb.ListTasksRequest {
	return &a2apb.ListTasksRequest{
		Tenant: g.str(), ContextId: g.str(), Status: a2apb.TaskState(g.r.IntN(9)), PageSize: g.optInt32(),
		PageToken: g.str(), HistoryLength: g.optInt32(), StatusTimestampAfter: g.maybeTimestamp(), IncludeArtifacts: g.optBool(),
	}
}

func (g *pbGen) listTasksResponse() *a2apb.ListTasksResponse {
	r := &a2apb.ListTasksResponse{NextPageToken: g.str(), PageSize: int32(g.r.IntN(101)), TotalSize: int32(g.r.IntN(1000))}
	for range g.r.IntN(3) {
		r.Tasks = append(r.Tasks, g.task())
	}
	return r
}

func (g *pbGen) scopes() map[string]string {
	m := map[string]string{}
	for range 1 + g.r.IntN(3) {
		m[g.nonEmpty()] = g.str()
	}
	return m
}

func (g *pbGen) securityScheme() *a2apb.SecurityScheme {
	switch g.r.IntN(5) {
	case 0:
		return &a2apb.SecurityScheme{Scheme: &a2apb.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: &a2apb.APIKeySecurityScheme{
			Description: g.str(), Location: []string{"query", "header", "cookie"}[g.r.IntN(3)], Name: g.nonEmpty()}}}
	case 1:
		return &a2apb.SecurityScheme{Scheme: &a2apb.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2apb.HTTPAuthSecurityScheme{
			Description: g.str(), Scheme: "Bearer", BearerFormat: g.str()}}}
	case 2:
		flows := &a2apb.OAuthFlows{}
		u := func() string { return "https://idp.example.com/" + g.nonEmpty() }
		switch g.r.IntN(5) {
		case 0:
			flows.Flow = &a2apb.OAuthFlows_AuthorizationCode{AuthorizationCode: &a2apb.AuthorizationCodeOAuthFlow{
				AuthorizationUrl: u(), TokenUrl: u(), RefreshUrl: g.str(), Scopes: g.scopes(), PkceRequired: g.r.IntN(2) == 0}}
		case 1:
			flows.Flow = &a2apb.OAuthFlows_ClientCredentials{ClientCredentials: &a2apb.ClientCredentialsOAuthFlow{TokenUrl: u(), RefreshUrl: g.str(), Scopes: g.scopes()}}
		case 2:
			flows.Flow = &a2apb.OAuthFlows_Implicit{Implicit: &a2apb.ImplicitOAuthFlow{AuthorizationUrl: u(), RefreshUrl: g.str(), Scopes: g.scopes()}}
		case 3:
			flows.Flow = &a2apb.OAuthFlows_Password{Password: &a2apb.PasswordOAuthFlow{TokenUrl: u(), RefreshUrl: g.str(), Scopes: g.scopes()}}
		default:
			flows.Flow = &a2apb.OAuthFlows_DeviceCode{DeviceCode: &a2apb.DeviceCodeOAuthFlow{DeviceAuthorizationUrl: u(), TokenUrl: u(), RefreshUrl: g.str(), Scopes: g.scopes()}}
		}
		return &a2apb.SecurityScheme{Scheme: &a2apb.SecurityScheme_Oauth2SecurityScheme{Oauth2SecurityScheme: &a2apb.OAuth2SecurityScheme{
			Description: g.str(), Flows: flows, Oauth2MetadataUrl: g.str()}}}
	case 3:
		return &a2apb.SecurityScheme{Scheme: &a2apb.SecurityScheme_OpenIdConnectSecurityScheme{OpenIdConnectSecurityScheme: &a2apb.OpenIdConnectSecurityScheme{
			Description: g.str(), OpenIdConnectUrl: "https://idp.example.com/.well-known/openid-configuration"}}}
	}
	return &a2apb.SecurityScheme{Scheme: &a2apb.SecurityScheme_MtlsSecurityScheme{MtlsSecurityScheme: &a2apb.MutualTlsSecurityScheme{Description: g.str()}}}
}

func (g *pbGen) securityRequirements() []*a2apb.SecurityRequirement {
	var out []*a2apb.SecurityRequirement
	for range g.r.IntN(3) {
		req := &a2apb.SecurityRequirement{Schemes: map[string]*a2apb.StringList{}}
		for range 1 + g.r.IntN(2) {
			req.Schemes[g.nonEmpty()] = &a2apb.StringList{List: g.strs(2)}
		}
		out = append(out, req)
	}
	return out
}

func (g *pbGen) agentCard() *a2apb.AgentCard {
	c := &a2apb.AgentCard{
		Name: g.nonEmpty(), Description: g.str(), Version: g.nonEmpty(),
		Capabilities:         &a2apb.AgentCapabilities{Streaming: g.optBool(), PushNotifications: g.optBool(), ExtendedAgentCard: g.optBool()},
		SecurityRequirements: g.securityRequirements(),
		DefaultInputModes:    g.strs(3),
		DefaultOutputModes:   g.strs(3),
	}
	for range 1 + g.r.IntN(3) {
		c.SupportedInterfaces = append(c.SupportedInterfaces, &a2apb.AgentInterface{
			Url: "https://agent.example.com/" + g.nonEmpty(), ProtocolBinding: []string{"JSONRPC", "HTTP+JSON", "GRPC"}[g.r.IntN(3)],
			Tenant: g.str(), ProtocolVersion: "1.0"})
	}
	if g.r.IntN(2) == 0 {
		c.Provider = &a2apb.AgentProvider{Url: "https://example.com", Organization: g.nonEmpty()}
	}
	if g.r.IntN(2) == 0 {
		s := "https://docs.example.com/" + g.str()
		c.DocumentationUrl = &s
	}
	if g.r.IntN(2) == 0 {
		s := g.str()
		c.IconUrl = &s
	}
	for range g.r.IntN(3) {
		c.Capabilities.Extensions = append(c.Capabilities.Extensions, &a2apb.AgentExtension{
			Uri: g.str(), Description: g.str(), Required: g.r.IntN(2) == 0, Params: g.structOrNil()})
	}
	if g.r.IntN(3) != 0 {
		c.SecuritySchemes = map[string]*a2apb.SecurityScheme{}
		for range 1 + g.r.IntN(4) {
			c.SecuritySchemes[g.nonEmpty()] = g.securityScheme()
		}
	}
	for range g.r.IntN(3) {
		c.Skills = append(c.Skills, &a2apb.AgentSkill{
			Id: g.nonEmpty(), Name: g.str(), Description: g.str(), Tags: g.strs(3), Examples: g.strs(2),
			InputModes: g.strs(2), OutputModes: g.strs(2), SecurityRequirements: g.securityRequirements()})
	}
	for range g.r.IntN(2) {
		c.Signatures = append(c.Signatures, &a2apb.AgentCardSignature{Protected: g.nonEmpty(), Signature: g.nonEmpty(), Header: g.structOrNil()})
	}
	return c
}

// diffKind pairs a generator of proto messages with the Go type of ours
// that carries the same message.
type diffKind struct {
	name string
	gen  func(*pbGen) proto.Message
	ours reflect.Type
}

var diffKinds = []diffKind{
	{"Task", func(g *pbGen) proto.Message { return g.task() }, reflect.TypeFor[a2a.Task]()},
	{"Message", func(g *pbGen) proto.Message { return g.message() }, reflect.TypeFor[a2a.Message]()},
	{"Part", func(g *pbGen) proto.Message { return g.part() }, reflect.TypeFor[a2a.Part]()},
	{"StreamResponse", func(g *pbGen) proto.Message { return g.streamResponse() }, reflect.TypeFor[a2a.StreamResponse]()},
	{"SendMessageRequest", func(g *pbGen) proto.Message { return g.sendMessageRequest() }, reflect.TypeFor[a2a.SendMessageRequest]()},
	{"SendMessageResponse", func(g *pbGen) proto.Message { return g.sendMessageResponse() }, reflect.TypeFor[a2a.SendMessageResponse]()},
	{"ListTasksRequest", func(g *pbGen) proto.Message { return g.listTasksRequest() }, reflect.TypeFor[a2a.ListTasksRequest]()},
	{"ListTasksResponse", func(g *pbGen) proto.Message { return g.listTasksResponse() }, reflect.TypeFor[a2a.ListTasksResponse]()},
	{"TaskPushNotificationConfig", func(g *pbGen) proto.Message { return g.pushConfig() }, reflect.TypeFor[a2a.TaskPushNotificationConfig]()},
	{"AgentCard", func(g *pbGen) proto.Message { return g.agentCard() }, reflect.TypeFor[a2a.AgentCard]()},
}

// TestDiff_ProtoToOursToProto: proto → protojson → ours → our JSON →
// protojson gives back an equal proto message.
func TestDiff_ProtoToOursToProto(t *testing.T) {
	for ki, k := range diffKinds {
		t.Run(k.name, func(t *testing.T) {
			g := newPBGen(uint64(1000 + ki))
			for i := range diffCasesPerKind {
				m := k.gen(g)
				pj, err := protojson.Marshal(m)
				if err != nil {
					t.Fatalf("case %d: protojson marshal: %v", i, err)
				}
				ptr := reflect.New(k.ours)
				if err := json.Unmarshal(pj, ptr.Interface()); err != nil {
					t.Fatalf("case %d: our decoder rejects protojson output: %v\n%s", i, err, pj)
				}
				ours, err := json.Marshal(ptr.Interface())
				if err != nil {
					t.Fatalf("case %d: our encoder: %v", i, err)
				}
				back := m.ProtoReflect().New().Interface()
				if err := protojson.Unmarshal(ours, back); err != nil {
					t.Fatalf("case %d: protojson rejects our output: %v\nprotojson:\n%s\nours:\n%s", i, err, pj, ours)
				}
				if !proto.Equal(m, back) {
					t.Fatalf("case %d: round trip through our types changed the message\nprotojson:\n%s\nours:\n%s", i, pj, ours)
				}
			}
		})
	}
}

// TestDiff_OursToProtoToOurs: ours → our JSON → protojson → protojson's JSON
// → ours gives back our value, normalised (timestamps in UTC, data parts
// compared as JSON values).
func TestDiff_OursToProtoToOurs(t *testing.T) {
	plus2 := time.FixedZone("+02:00", 2*3600)
	offset := time.Date(2026, 5, 28, 12, 0, 0, 500_000_000, plus2)
	table := []struct {
		name  string
		value any
		newPB func() proto.Message
	}{
		{"sample task", sampleTask(), func() proto.Message { return &a2apb.Task{} }},
		{"sample card", sampleCard(), func() proto.Message { return &a2apb.AgentCard{} }},
		{"task with offset timestamp", a2a.Task{ID: "t", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &offset}}, func() proto.Message { return &a2apb.Task{} }},
		{"push config", samplePushConfig(), func() proto.Message { return &a2apb.TaskPushNotificationConfig{} }},
		{"raw part", a2a.RawPart([]byte{0xff, 0xfe, 0xfd}, "", ""), func() proto.Message { return &a2apb.Part{} }},
		{"data part with big number", a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`{"n":1e21,"m":0.000001}`)}, func() proto.Message { return &a2apb.Part{} }},
	}
	for _, c := range table {
		t.Run(c.name, func(t *testing.T) { checkOursRoundTrip(t, c.value, c.newPB()) })
	}
	// Randomised: generated proto messages, brought into our types.
	for ki, k := range diffKinds {
		t.Run("random/"+k.name, func(t *testing.T) {
			g := newPBGen(uint64(2000 + ki))
			for range diffCasesPerKind {
				m := k.gen(g)
				pj, err := protojson.Marshal(m)
				if err != nil {
					t.Fatal(err)
				}
				ptr := reflect.New(k.ours)
				if err := json.Unmarshal(pj, ptr.Interface()); err != nil {
					t.Fatalf("our decoder: %v\n%s", err, pj)
				}
				checkOursRoundTrip(t, ptr.Elem().Interface(), m.ProtoReflect().New().Interface())
			}
		})
	}
}

func checkOursRoundTrip(t *testing.T, value any, m proto.Message) {
	t.Helper()
	ours, err := json.Marshal(value)
	if err != nil {
		t.Fatalf("our encoder: %v", err)
	}
	if err := protojson.Unmarshal(ours, m); err != nil {
		t.Fatalf("protojson rejects our output: %v\n%s", err, ours)
	}
	pj, err := protojson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	back := reflect.New(reflect.TypeOf(value))
	if err := json.Unmarshal(pj, back.Interface()); err != nil {
		t.Fatalf("our decoder rejects protojson output: %v\n%s", err, pj)
	}
	want := reflect.New(reflect.TypeOf(value))
	want.Elem().Set(reflect.ValueOf(value))
	// Compare copies normalised through our own decoder, so that the input
	// value's aliasing of slices and maps is left alone.
	wantN, gotN := normalised(t, want.Interface()), normalised(t, back.Interface())
	if !reflect.DeepEqual(wantN, gotN) {
		t.Fatalf("round trip through protojson changed the value\nours:\n%s\nprotojson:\n%s", ours, pj)
	}
}

// normalised returns a deep copy of *v (v is a pointer) with every
// time.Time in UTC, every json.RawMessage re-encoded from its parsed value,
// an empty TaskState as TASK_STATE_UNSPECIFIED, and empty slices and maps
// made nil.
func normalised(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	cp := reflect.New(reflect.TypeOf(v).Elem())
	if err := json.Unmarshal(b, cp.Interface()); err != nil {
		t.Fatal(err)
	}
	normalise(cp.Elem())
	return cp.Elem().Interface()
}

var (
	timeType  = reflect.TypeFor[time.Time]()
	rawType   = reflect.TypeFor[json.RawMessage]()
	stateType = reflect.TypeFor[a2a.TaskState]()
)

func normalise(v reflect.Value) {
	switch {
	case v.Type() == stateType:
		if v.String() == "" {
			v.SetString(string(a2a.TaskStateUnspecified))
		}
		return
	case v.Type() == timeType:
		v.Set(reflect.ValueOf(v.Interface().(time.Time).UTC()))
		return
	case v.Type() == rawType:
		raw := v.Interface().(json.RawMessage)
		if raw == nil {
			return
		}
		var x any
		if json.Unmarshal(raw, &x) == nil {
			b, _ := json.Marshal(x)
			v.Set(reflect.ValueOf(json.RawMessage(b)))
		}
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			normalise(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				normalise(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Len() == 0 {
			v.SetZero()
			return
		}
		for i := range v.Len() {
			normalise(v.Index(i))
		}
	case reflect.Map:
		if v.Len() == 0 {
			v.SetZero()
			return
		}
		if v.Type().Elem().Kind() == reflect.Struct {
			for _, k := range v.MapKeys() {
				e := reflect.New(v.Type().Elem()).Elem()
				e.Set(v.MapIndex(k))
				normalise(e)
				v.SetMapIndex(k, e)
			}
		}
	}
}

// TestDiff_Inputs decodes inputs that ProtoJSON allows in several spellings
// with both decoders and checks they agree.
func TestDiff_Inputs(t *testing.T) {
	lenient := protojson.UnmarshalOptions{DiscardUnknown: true}
	t.Run("timestamps", func(t *testing.T) {
		for _, s := range []string{
			"2026-05-28T10:00:00Z",
			"2026-05-28T10:00:00.123Z",
			"2026-05-28T10:00:00.123456Z",
			"2026-05-28T10:00:00.123456789Z",
			"2026-05-28T12:00:00.5+02:00",
			"2026-05-28T04:30:00-05:30",
			"1970-01-01T00:00:00Z",
			"9999-12-31T23:59:59.999999999Z",
		} {
			in := fmt.Sprintf(`{"state":"TASK_STATE_WORKING","timestamp":%q}`, s)
			var ours a2a.TaskStatus
			if err := json.Unmarshal([]byte(in), &ours); err != nil {
				t.Errorf("%s: our decoder: %v", s, err)
				continue
			}
			var pb a2apb.TaskStatus
			if err := lenient.Unmarshal([]byte(in), &pb); err != nil {
				t.Errorf("%s: protojson: %v", s, err)
				continue
			}
			if ours.Timestamp == nil || !ours.Timestamp.Equal(pb.GetTimestamp().AsTime()) {
				t.Errorf("%s: ours %v, protojson %v", s, ours.Timestamp, pb.GetTimestamp().AsTime())
			}
		}
	})
	t.Run("bytes", func(t *testing.T) {
		for _, b := range [][]byte{{}, {0}, {0xfb}, {0xfb, 0xff}, {0xfb, 0xff, 0xbf}, []byte("any carnal pleas"), {0xff, 0xfe, 0xfd, 0xfc, 0x3e, 0x3f}} {
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
				s := enc.EncodeToString(b)
				in := fmt.Sprintf(`{"raw":%q}`, s)
				var ours a2a.Part
				if err := json.Unmarshal([]byte(in), &ours); err != nil {
					t.Errorf("%q: our decoder: %v", s, err)
					continue
				}
				var pb a2apb.Part
				if err := lenient.Unmarshal([]byte(in), &pb); err != nil {
					t.Errorf("%q: protojson: %v", s, err)
					continue
				}
				if ours.Kind != a2a.PartRaw || !bytes.Equal(ours.Raw, b) || !bytes.Equal(pb.GetRaw(), b) {
					t.Errorf("%q: ours kind %v %x, protojson %x, want %x", s, ours.Kind, ours.Raw, pb.GetRaw(), b)
				}
			}
		}
	})
	t.Run("enums as numbers", func(t *testing.T) {
		for n := range 9 {
			in := fmt.Sprintf(`{"state":%d}`, n)
			var ours a2a.TaskStatus
			var pb a2apb.TaskStatus
			if err := json.Unmarshal([]byte(in), &ours); err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			if err := lenient.Unmarshal([]byte(in), &pb); err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			if string(ours.State) != pb.GetState().String() {
				t.Errorf("%s: ours %q, protojson %q", in, ours.State, pb.GetState())
			}
		}
		for n := range 3 {
			in := fmt.Sprintf(`{"messageId":"m","role":%d,"parts":[]}`, n)
			var ours a2a.Message
			var pb a2apb.Message
			if err := json.Unmarshal([]byte(in), &ours); err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			if err := lenient.Unmarshal([]byte(in), &pb); err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			if string(ours.Role) != pb.GetRole().String() {
				t.Errorf("%s: ours %q, protojson %q", in, ours.Role, pb.GetRole())
			}
		}
	})
	t.Run("int32 as numeric string", func(t *testing.T) {
		for _, c := range []struct {
			in  string
			dst any
			pb  proto.Message
		}{
			{`{"id":"t","historyLength":"3"}`, &a2a.GetTaskRequest{}, &a2apb.GetTaskRequest{}},
			{`{"pageSize":"10","historyLength":"0"}`, &a2a.ListTasksRequest{}, &a2apb.ListTasksRequest{}},
		} {
			if err := protojson.Unmarshal([]byte(c.in), c.pb); err != nil {
				t.Fatalf("%s: protojson: %v", c.in, err)
			}
			if err := json.Unmarshal([]byte(c.in), c.dst); err != nil {
				t.Skipf("bug: ProtoJSON accepts an int32 as a numeric string, our decoder does not: %s: %v", c.in, err)
			}
			assertSameAsProto(t, c.dst, c.pb)
		}
	})
	t.Run("unknown fields ignored", func(t *testing.T) {
		in := `{"id":"t1","futureField":{"x":[1,2]},"status":{"state":"TASK_STATE_WORKING","mood":"good"},
			"history":[{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi","sparkle":true}],"kind":"message"}],"kind":"task"}`
		var ours a2a.Task
		if err := json.Unmarshal([]byte(in), &ours); err != nil {
			t.Fatalf("our decoder: %v", err)
		}
		var pb a2apb.Task
		if err := lenient.Unmarshal([]byte(in), &pb); err != nil {
			t.Fatalf("protojson: %v", err)
		}
		assertSameAsProto(t, ours, &pb)
	})
}

// assertSameAsProto encodes ours and checks protojson reads it (strictly)
// into a message equal to want.
func assertSameAsProto(t *testing.T, ours any, want proto.Message) {
	t.Helper()
	b, err := json.Marshal(ours)
	if err != nil {
		t.Fatalf("our encoder: %v", err)
	}
	got := want.ProtoReflect().New().Interface()
	if err := protojson.Unmarshal(b, got); err != nil {
		t.Fatalf("protojson rejects our output: %v\n%s", err, b)
	}
	if !proto.Equal(got, want) {
		t.Fatalf("our re-encoding differs from protojson's reading\nours: %s\nprotojson: %s", b, protojson.Format(want))
	}
}

// TestForwardCompat pins how a 1.0 reader treats what a later version may
// send: unknown part kinds are skipped, unknown states are kept but never
// terminal or successful, unknown event kinds leave every member nil.
func TestForwardCompat(t *testing.T) {
	t.Run("unknown part kind skipped", func(t *testing.T) {
		in := `{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"a"},{"hologram":{"frames":3},"mediaType":"x/holo"},{"data":{"k":1}}]}`
		var ours a2a.Message
		if err := json.Unmarshal([]byte(in), &ours); err != nil {
			t.Fatalf("our decoder: %v", err)
		}
		if len(ours.Parts) != 2 || ours.Parts[0].Kind != a2a.PartText || ours.Parts[1].Kind != a2a.PartData {
			t.Fatalf("parts = %+v, want text and data", ours.Parts)
		}
		var ours2 a2a.Artifact
		if err := json.Unmarshal([]byte(`{"artifactId":"a","parts":[{"hologram":{}}]}`), &ours2); err != nil {
			t.Fatalf("artifact: %v", err)
		}
		if len(ours2.Parts) != 0 {
			t.Fatalf("artifact parts = %+v, want none", ours2.Parts)
		}
	})
	t.Run("unknown task state kept, never terminal", func(t *testing.T) {
		for _, name := range []string{"TASK_STATE_PAUSED", "TASK_STATE_COMPLETED_WITH_WARNINGS", "task_state_completed", ""} {
			var s a2a.TaskStatus
			if err := json.Unmarshal(fmt.Appendf(nil, `{"state":%q}`, name), &s); err != nil {
				t.Fatalf("%q: %v", name, err)
			}
			if string(s.State) != name {
				t.Errorf("%q: state read as %q, want the wire name kept", name, s.State)
			}
			if s.State.Known() || s.State.Terminal() || s.State.Succeeded() || s.State.Interrupted() {
				t.Errorf("%q: known=%v terminal=%v succeeded=%v interrupted=%v, want all false",
					name, s.State.Known(), s.State.Terminal(), s.State.Succeeded(), s.State.Interrupted())
			}
		}
	})
	t.Run("unknown enum number", func(t *testing.T) {
		// ProtoJSON (open proto3 enums) reads an unknown number and keeps it.
		var pb a2apb.TaskStatus
		if err := protojson.Unmarshal([]byte(`{"state":42}`), &pb); err != nil {
			t.Fatalf("protojson: %v", err)
		}
		var s a2a.TaskStatus
		if err := json.Unmarshal([]byte(`{"state":42}`), &s); err != nil {
			t.Fatal("a task state given as an unknown number (42) fails the whole decode; " +
				"protojson keeps it, and D1 asks for unknown states to be kept as non-terminal: " + err.Error())
		}
		if s.State.Terminal() || s.State.Succeeded() {
			t.Errorf("state 42 read as %q, terminal or successful", s.State)
		}
	})
	t.Run("unknown stream event kind", func(t *testing.T) {
		for _, in := range []string{`{"hologramUpdate":{"taskId":"t"}}`, `{}`} {
			var ev a2a.StreamResponse
			if err := json.Unmarshal([]byte(in), &ev); err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			if k := ev.Kind(); k != "" {
				t.Errorf("%s: Kind() = %q, want \"\"", in, k)
			}
			var pb a2apb.StreamResponse
			if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal([]byte(in), &pb); err != nil {
				t.Fatal(err)
			}
			if pb.GetPayload() != nil {
				t.Errorf("%s: protojson payload %v, want none", in, pb.GetPayload())
			}
		}
	})
	t.Run("two oneof members rejected like protojson", func(t *testing.T) {
		cases := []struct {
			name string
			in   string
			dst  any
			pb   proto.Message
			bug  string
		}{
			{"part text+url", `{"text":"a","url":"https://x"}`, &a2a.Part{}, &a2apb.Part{}, ""},
			{"part text+data", `{"text":"a","data":{"k":1}}`, &a2a.Part{}, &a2apb.Part{}, ""},
			{"part text+null data", `{"text":"a","data":null}`, &a2a.Part{}, &a2apb.Part{}, ""},
			{"event task+message", `{"task":{"id":"t"},"message":{"messageId":"m"}}`, &a2a.StreamResponse{}, &a2apb.StreamResponse{}, ""},
			{"event status+artifact", `{"statusUpdate":{"taskId":"t"},"artifactUpdate":{"taskId":"t"}}`, &a2a.StreamResponse{}, &a2apb.StreamResponse{}, ""},
			{"response task+message", `{"task":{"id":"t"},"message":{"messageId":"m"}}`, &a2a.SendMessageResponse{}, &a2apb.SendMessageResponse{}, ""},
			{"security scheme mtls+apiKey", `{"mtlsSecurityScheme":{},"apiKeySecurityScheme":{"location":"header","name":"k"}}`, &a2a.SecurityScheme{}, &a2apb.SecurityScheme{}, ""},
			{"oauth flows implicit+password", `{"implicit":{},"password":{}}`, &a2a.OAuthFlows{}, &a2apb.OAuthFlows{}, ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if protojson.Unmarshal([]byte(c.in), c.pb) == nil {
					t.Fatalf("%s: protojson accepted it; the case is wrong", c.in)
				}
				if err := json.Unmarshal([]byte(c.in), c.dst); err == nil {
					if c.bug != "" {
						t.Skipf("%s: input %s", c.bug, c.in)
					}
					t.Errorf("%s: our decoder accepted two oneof members", c.in)
				}
			})
		}
	})
}

// TestDiff_RoleUnspecified: a message whose role is ROLE_UNSPECIFIED (0)
// has no "role" key in ProtoJSON; our encoder must still write JSON that
// protojson accepts.
func TestDiff_RoleUnspecified(t *testing.T) {
	m := &a2apb.Message{MessageId: "m", Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "x"}}}}
	pj, err := protojson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var ours a2a.Message
	if err := json.Unmarshal(pj, &ours); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(ours)
	if err != nil {
		t.Fatal(err)
	}
	back := &a2apb.Message{}
	if err := protojson.Unmarshal(b, back); err != nil {
		t.Fatalf("a Message with Role \"\" (role absent on input) is written as %s, which ProtoJSON rejects: %v", b, err)
	}
	if !proto.Equal(m, back) {
		t.Errorf("round trip changed the message: %s", b)
	}
}

// TestDiff_DataNullPart: {"data":null} is a data part holding JSON null.
func TestDiff_DataNullPart(t *testing.T) {
	var pb a2apb.Part
	if err := protojson.Unmarshal([]byte(`{"data":null}`), &pb); err != nil {
		t.Fatal(err)
	}
	if _, ok := pb.GetContent().(*a2apb.Part_Data); !ok {
		t.Fatalf("protojson: content %T, want data", pb.GetContent())
	}
	var p a2a.Part
	if err := json.Unmarshal([]byte(`{"data":null}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.Kind != a2a.PartData {
		t.Fatalf("{\"data\":null} read as kind %d, want a data part", p.Kind)
	}
	if string(p.Data) != "null" {
		t.Errorf("Data = %q, want null", p.Data)
	}
}

// TestDiff_TimestampOutput: timestamps are written the ProtoJSON way, in UTC
// with "Z" and 0, 3, 6 or 9 fraction digits (spec §5.6.1 wants "Z").
func TestDiff_TimestampOutput(t *testing.T) {
	plus2 := time.FixedZone("", 2*3600)
	var bad []string
	for _, ts := range []time.Time{
		time.Date(2026, 5, 28, 10, 0, 0, 0, time.UTC),
		time.Date(2026, 5, 28, 10, 0, 0, 123_000_000, time.UTC),
		time.Date(2026, 5, 28, 10, 0, 0, 120_000_000, time.UTC),
		time.Date(2026, 5, 28, 10, 0, 0, 123_400_000, time.UTC),
		time.Date(2026, 5, 28, 10, 0, 0, 100, time.UTC),
		time.Date(2026, 5, 28, 12, 0, 0, 0, plus2),
	} {
		b, err := json.Marshal(a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &ts})
		if err != nil {
			t.Fatal(err)
		}
		want, err := protojson.Marshal(&a2apb.TaskStatus{State: a2apb.TaskState_TASK_STATE_WORKING, Timestamp: timestamppb.New(ts)})
		if err != nil {
			t.Fatal(err)
		}
		var o, p struct {
			Timestamp string `json:"timestamp"`
		}
		mustUnmarshal(t, b, &o)
		mustUnmarshal(t, want, &p)
		if o.Timestamp != p.Timestamp {
			bad = append(bad, fmt.Sprintf("ours %q, protojson %q", o.Timestamp, p.Timestamp))
		}
	}
	if len(bad) > 0 {
		t.Fatal("timestamps not in ProtoJSON form: " + strings.Join(bad, "; "))
	}
}

// TestDiff_ZeroValuesAreValidProtoJSON: the zero value of every wire type
// encodes to JSON that protojson accepts strictly.
func TestDiff_ZeroValuesAreValidProtoJSON(t *testing.T) {
	cases := []struct {
		value any
		pb    proto.Message
		bug   string
	}{
		{a2a.Task{}, &a2apb.Task{}, ""},
		{a2a.TaskStatus{}, &a2apb.TaskStatus{}, ""},
		{a2a.Message{}, &a2apb.Message{}, ""},
		{a2a.Artifact{}, &a2apb.Artifact{}, ""},
		{a2a.Part{}, &a2apb.Part{}, ""},
		{a2a.TaskStatusUpdateEvent{}, &a2apb.TaskStatusUpdateEvent{}, ""},
		{a2a.TaskArtifactUpdateEvent{}, &a2apb.TaskArtifactUpdateEvent{}, ""},
		{a2a.StreamResponse{}, &a2apb.StreamResponse{}, ""},
		{a2a.SendMessageRequest{}, &a2apb.SendMessageRequest{}, ""},
		{a2a.SendMessageConfiguration{}, &a2apb.SendMessageConfiguration{}, ""},
		{a2a.SendMessageResponse{}, &a2apb.SendMessageResponse{}, ""},
		{a2a.GetTaskRequest{}, &a2apb.GetTaskRequest{}, ""},
		{a2a.ListTasksRequest{}, &a2apb.ListTasksRequest{}, ""},
		{a2a.ListTasksResponse{}, &a2apb.ListTasksResponse{}, ""},
		{a2a.CancelTaskRequest{}, &a2apb.CancelTaskRequest{}, ""},
		{a2a.SubscribeToTaskRequest{}, &a2apb.SubscribeToTaskRequest{}, ""},
		{a2a.TaskPushNotificationConfig{}, &a2apb.TaskPushNotificationConfig{}, ""},
		{a2a.ListTaskPushNotificationConfigsRequest{}, &a2apb.ListTaskPushNotificationConfigsRequest{}, ""},
		{a2a.ListTaskPushNotificationConfigsResponse{}, &a2apb.ListTaskPushNotificationConfigsResponse{}, ""},
		{a2a.AgentCard{}, &a2apb.AgentCard{}, ""},
		{a2a.AgentSkill{}, &a2apb.AgentSkill{}, ""},
		{a2a.SecurityScheme{}, &a2apb.SecurityScheme{}, ""},
		{a2a.OAuthFlows{AuthorizationCode: &a2a.AuthorizationCodeOAuthFlow{}}, &a2apb.OAuthFlows{}, ""},
		{a2a.OAuthFlows{DeviceCode: &a2a.DeviceCodeOAuthFlow{}}, &a2apb.OAuthFlows{}, ""},
		{a2a.SecurityRequirement{}, &a2apb.SecurityRequirement{}, ""},
	}
	for _, c := range cases {
		name := reflect.TypeOf(c.value).Name()
		t.Run(name, func(t *testing.T) {
			b, err := json.Marshal(c.value)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			if err := protojson.Unmarshal(b, c.pb); err != nil {
				if c.bug != "" {
					t.Skipf("%s: %s", c.bug, b)
				}
				t.Fatalf("protojson rejects %s: %v", b, err)
			}
		})
	}
}
