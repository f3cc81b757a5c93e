package a2a_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/a2apb"
)

// The -update flag may already be registered by another test file of this
// test binary; share it rather than registering it twice.
var updateFlag = func() flag.Value {
	if f := flag.Lookup("update"); f != nil {
		return f.Value
	}
	flag.Bool("update", false, "rewrite golden files under testdata/golden")
	return flag.Lookup("update").Value
}()

func updating() bool {
	g, ok := updateFlag.(flag.Getter)
	if !ok {
		return false
	}
	b, _ := g.Get().(bool)
	return b
}

var (
	ts1 = time.Date(2026, 5, 28, 10, 0, 0, 0, time.UTC)
	ts2 = time.Date(2026, 5, 28, 10, 0, 1, 250_000_000, time.UTC)
	ts3 = time.Date(2026, 5, 28, 10, 0, 2, 123_456_000, time.UTC)
)

func sampleUserMessage() a2a.Message {
	return a2a.Message{
		MessageID:        "msg-user-1",
		ContextID:        "ctx-1",
		TaskID:           "task-1",
		Role:             a2a.RoleUser,
		Parts:            []a2a.Part{a2a.TextPart("Book a flight to Lisbon on 2026-06-01.")},
		Metadata:         a2a.Metadata{"https://example.com/ext/trace/v1": map[string]any{"traceId": "abc123"}},
		Extensions:       []string{"https://example.com/ext/trace/v1"},
		ReferenceTaskIDs: []string{"task-0"},
	}
}

func sampleAgentMessage() a2a.Message {
	return a2a.Message{
		MessageID: "msg-agent-1",
		ContextID: "ctx-1",
		TaskID:    "task-1",
		Role:      a2a.RoleAgent,
		Parts: []a2a.Part{
			a2a.TextPart("Which airport do you leave from?"),
			{Kind: a2a.PartData, Data: json.RawMessage(`{"choices":["LHR","LGW"],"required":true}`), MediaType: "application/json"},
		},
	}
}

func sampleArtifacts() []a2a.Artifact {
	return []a2a.Artifact{
		{
			ArtifactID:  "art-1",
			Name:        "itinerary",
			Description: "The booked itinerary",
			Parts: []a2a.Part{
				a2a.TextPart("LHR → LIS, TP1351, 2026-06-01 07:05"),
				{Kind: a2a.PartData, Data: json.RawMessage(`{"flight":"TP1351","price":{"amount":129.5,"currency":"EUR"},"seats":["12A"]}`)},
			},
			Metadata:   a2a.Metadata{"source": "gds"},
			Extensions: []string{"https://example.com/ext/booking/v1"},
		},
		{
			ArtifactID: "art-2",
			Name:       "ticket.pdf",
			Parts:      []a2a.Part{a2a.RawPart([]byte("%PDF-1.7\n\x00\xff\xfe"), "application/pdf", "ticket.pdf")},
		},
	}
}

func sampleTask() a2a.Task {
	return a2a.Task{
		ID:        "task-1",
		ContextID: "ctx-1",
		Status: a2a.TaskStatus{
			State:     a2a.TaskStateCompleted,
			Message:   &a2a.Message{MessageID: "msg-agent-3", ContextID: "ctx-1", TaskID: "task-1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("Booked.")}},
			Timestamp: &ts3,
		},
		Artifacts: sampleArtifacts(),
		History: []a2a.Message{
			sampleUserMessage(),
			sampleAgentMessage(),
			{MessageID: "msg-user-2", ContextID: "ctx-1", TaskID: "task-1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("LHR")}},
		},
		Metadata: a2a.Metadata{"priority": 2.0, "tags": []any{"travel", "booking"}, "nested": map[string]any{"ok": true, "none": nil}},
	}
}

func sampleCard() a2a.AgentCard {
	f := false
	t := true
	return a2a.AgentCard{
		Name:        "Travel Agent",
		Description: "Books flights and hotels.",
		SupportedInterfaces: []a2a.AgentInterface{
			{URL: "https://agent.example.com/a2a/v1", ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: "1.0"},
			{URL: "https://agent.example.com/rest", ProtocolBinding: a2a.BindingHTTPJSON, Tenant: "acme", ProtocolVersion: "1.0"},
			{URL: "agent.example.com:443", ProtocolBinding: a2a.BindingGRPC, ProtocolVersion: "1.0"},
		},
		Provider:         &a2a.AgentProvider{URL: "https://example.com", Organization: "Example Corp"},
		Version:          "2.3.0",
		DocumentationURL: a2a.Ptr("https://agent.example.com/docs"),
		Capabilities: a2a.AgentCapabilities{
			Streaming:         &t,
			PushNotifications: &f,
			ExtendedAgentCard: &f,
			Extensions: []a2a.AgentExtension{
				{URI: "https://example.com/ext/trace/v1", Description: "Trace propagation", Required: true, Params: a2a.Metadata{"header": "traceparent"}},
				{URI: "https://example.com/ext/booking/v1"},
			},
		},
		SecuritySchemes: map[string]a2a.SecurityScheme{
			"apiKey": {APIKey: &a2a.APIKeySecurityScheme{Description: "Key in a header", Location: "header", Name: "X-API-Key"}},
			"bearer": {HTTPAuth: &a2a.HTTPAuthSecurityScheme{Description: "JWT bearer", Scheme: "Bearer", BearerFormat: "JWT"}},
			"oauthCode": {OAuth2: &a2a.OAuth2SecurityScheme{
				Description:       "Authorization code with PKCE",
				OAuth2MetadataURL: "https://idp.example.com/.well-known/oauth-authorization-server",
				Flows: a2a.OAuthFlows{AuthorizationCode: &a2a.AuthorizationCodeOAuthFlow{
					AuthorizationURL: "https://idp.example.com/authorize",
					TokenURL:         "https://idp.example.com/token",
					RefreshURL:       "https://idp.example.com/refresh",
					Scopes:           map[string]string{"flights:book": "Book flights", "flights:read": "Read bookings"},
					PKCERequired:     true,
				}},
			}},
			"oauthClient": {OAuth2: &a2a.OAuth2SecurityScheme{Flows: a2a.OAuthFlows{ClientCredentials: &a2a.ClientCredentialsOAuthFlow{
				TokenURL: "https://idp.example.com/token", RefreshURL: "https://idp.example.com/refresh", Scopes: map[string]string{"agents": "Call agents"},
			}}}},
			"oauthImplicit": {OAuth2: &a2a.OAuth2SecurityScheme{Flows: a2a.OAuthFlows{Implicit: &a2a.ImplicitOAuthFlow{
				AuthorizationURL: "https://idp.example.com/authorize", RefreshURL: "https://idp.example.com/refresh", Scopes: map[string]string{"read": "Read"},
			}}}},
			"oauthPassword": {OAuth2: &a2a.OAuth2SecurityScheme{Flows: a2a.OAuthFlows{Password: &a2a.PasswordOAuthFlow{
				TokenURL: "https://idp.example.com/token", RefreshURL: "https://idp.example.com/refresh", Scopes: map[string]string{"read": "Read"},
			}}}},
			"oauthDevice": {OAuth2: &a2a.OAuth2SecurityScheme{Flows: a2a.OAuthFlows{DeviceCode: &a2a.DeviceCodeOAuthFlow{
				DeviceAuthorizationURL: "https://idp.example.com/device", TokenURL: "https://idp.example.com/token",
				RefreshURL: "https://idp.example.com/refresh", Scopes: map[string]string{"agents": "Call agents"},
			}}}},
			"oidc": {OpenIDConnect: &a2a.OpenIDConnectSecurityScheme{Description: "Company SSO", OpenIDConnectURL: "https://idp.example.com/.well-known/openid-configuration"}},
			"mtls": {MTLS: &a2a.MutualTLSSecurityScheme{Description: "Client certificate"}},
		},
		SecurityRequirements: []a2a.SecurityRequirement{
			{Schemes: map[string]a2a.StringList{"oauthCode": {List: []string{"flights:book"}}}},
			{Schemes: map[string]a2a.StringList{"apiKey": {}, "mtls": {}}},
		},
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain", "application/pdf"},
		Skills: []a2a.AgentSkill{
			{
				ID: "book-flight", Name: "Book a flight", Description: "Books a one-way or return flight.",
				Tags: []string{"travel", "flights"}, Examples: []string{"Fly me to Lisbon tomorrow"},
				InputModes: []string{"text/plain"}, OutputModes: []string{"application/pdf"},
				SecurityRequirements: []a2a.SecurityRequirement{{Schemes: map[string]a2a.StringList{"bearer": {}}}},
			},
			{ID: "status", Name: "Booking status", Description: "Reports the status of a booking.", Tags: []string{"travel"}},
		},
		Signatures: []a2a.AgentCardSignature{{
			Protected: "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIiwidHlwIjoiSk9TRSJ9",
			Signature: "MEUCIQDexample_signature-value",
			Header:    a2a.Metadata{"kid": "k1"},
		}},
		IconURL: a2a.Ptr("https://agent.example.com/icon.png"),
	}
}

func samplePushConfig() a2a.TaskPushNotificationConfig {
	return a2a.TaskPushNotificationConfig{
		Tenant: "acme", ID: "cfg-1", TaskID: "task-1", URL: "https://client.example.com/hook", Token: "opaque-receiver-token",
		Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: "hook-credential"},
	}
}

// goldenCase is one golden file: a value of our types, the a2apb message the
// same JSON must parse into, and the REQUIRED keys that protojson leaves out
// because their value is the default (our codec writes them; the spec wants
// them present).
type goldenCase struct {
	file    string
	value   any
	newPB   func() proto.Message
	omitted []string // keys protojson omits at their default value
	// encodeBug / decodeBug, when set, name a known defect of our codec: the
	// golden file holds the correct ProtoJSON and only the affected check
	// skips. Delete the marker when the defect is fixed.
	encodeBug, decodeBug string
}

func goldenCases() []goldenCase {
	task := sampleTask()
	user := sampleUserMessage()
	status := a2a.TaskStatusUpdateEvent{
		TaskID: "task-1", ContextID: "ctx-1",
		Status:   a2a.TaskStatus{State: a2a.TaskStateInputRequired, Message: func() *a2a.Message { m := sampleAgentMessage(); return &m }(), Timestamp: &ts2},
		Metadata: a2a.Metadata{"seq": 4.0},
	}
	artifact := a2a.TaskArtifactUpdateEvent{
		TaskID: "task-1", ContextID: "ctx-1", Artifact: sampleArtifacts()[0], Append: true, LastChunk: true,
		Metadata: a2a.Metadata{"chunk": 3.0},
	}
	push := samplePushConfig()
	card := sampleCard()
	pb := func(m proto.Message) func() proto.Message {
		return func() proto.Message { return m.ProtoReflect().New().Interface() }
	}
	return []goldenCase{
		{file: "task.json", value: task, newPB: pb(&a2apb.Task{})},
		{file: "task_minimal.json", value: a2a.Task{ID: "task-2", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: &ts1}}, newPB: pb(&a2apb.Task{})},
		{file: "message.json", value: user, newPB: pb(&a2apb.Message{})},
		{file: "message_empty_parts.json", value: a2a.Message{MessageID: "msg-0", Role: a2a.RoleAgent}, newPB: pb(&a2apb.Message{}), omitted: []string{"parts"}},
		{file: "part_text.json", value: a2a.Part{Kind: a2a.PartText, Text: "hello", Metadata: a2a.Metadata{"lang": "en"}}, newPB: pb(&a2apb.Part{})},
		{file: "part_text_empty.json", value: a2a.TextPart(""), newPB: pb(&a2apb.Part{})},
		{file: "part_raw.json", value: a2a.RawPart([]byte{0, 1, 2, 0xfb, 0xff, 0xfe, 'h', 'i'}, "application/octet-stream", "blob.bin"), newPB: pb(&a2apb.Part{})},
		{file: "part_url.json", value: a2a.Part{Kind: a2a.PartURL, URL: "https://files.example.com/report.pdf?sig=abc&x=1", MediaType: "application/pdf", Filename: "report.pdf", Metadata: a2a.Metadata{"size": 12345.0}}, newPB: pb(&a2apb.Part{})},
		{file: "part_data_null.json", value: a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`null`)}, newPB: pb(&a2apb.Part{})},
		{file: "part_data_array.json", value: a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`[1,"two",{"three":3},[],null,false]`)}, newPB: pb(&a2apb.Part{})},
		{file: "part_data_object.json", value: a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`{"a":{"b":[1.5,-2]},"c":"<&>"}`), MediaType: "application/vnd.example+json", Filename: "data.json"}, newPB: pb(&a2apb.Part{})},
		{file: "part_data_number.json", value: a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`42.25`)}, newPB: pb(&a2apb.Part{})},
		{file: "part_data_string.json", value: a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`"just a string"`)}, newPB: pb(&a2apb.Part{})},
		{file: "part_data_bool.json", value: a2a.Part{Kind: a2a.PartData, Data: json.RawMessage(`true`)}, newPB: pb(&a2apb.Part{})},
		{file: "task_status_update_event.json", value: status, newPB: pb(&a2apb.TaskStatusUpdateEvent{})},
		{file: "task_artifact_update_event.json", value: artifact, newPB: pb(&a2apb.TaskArtifactUpdateEvent{})},
		{file: "stream_response_task.json", value: a2a.StreamResponse{Task: &task}, newPB: pb(&a2apb.StreamResponse{})},
		{file: "stream_response_message.json", value: a2a.StreamResponse{Message: &user}, newPB: pb(&a2apb.StreamResponse{})},
		{file: "stream_response_status_update.json", value: a2a.StreamResponse{StatusUpdate: &status}, newPB: pb(&a2apb.StreamResponse{})},
		{file: "stream_response_artifact_update.json", value: a2a.StreamResponse{ArtifactUpdate: &artifact}, newPB: pb(&a2apb.StreamResponse{})},
		{file: "send_message_request.json", value: a2a.SendMessageRequest{
			Tenant:  "acme",
			Message: &user,
			Configuration: &a2a.SendMessageConfiguration{
				AcceptedOutputModes:        []string{"text/plain", "application/json"},
				TaskPushNotificationConfig: &a2a.TaskPushNotificationConfig{URL: "https://client.example.com/hook", Token: "t0k", Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer"}},
				HistoryLength:              a2a.Ptr[int32](0),
				ReturnImmediately:          true,
			},
			Metadata: a2a.Metadata{"client": "cli/1.0"},
		}, newPB: pb(&a2apb.SendMessageRequest{})},
		{file: "send_message_request_minimal.json", value: a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "m", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}}, newPB: pb(&a2apb.SendMessageRequest{})},
		{file: "send_message_response_task.json", value: a2a.SendMessageResponse{Task: &task}, newPB: pb(&a2apb.SendMessageResponse{})},
		{file: "send_message_response_message.json", value: a2a.SendMessageResponse{Message: &user}, newPB: pb(&a2apb.SendMessageResponse{})},
		{file: "get_task_request.json", value: a2a.GetTaskRequest{Tenant: "acme", ID: "task-1", HistoryLength: a2a.Ptr[int32](10)}, newPB: pb(&a2apb.GetTaskRequest{})},
		{file: "list_tasks_request.json", value: a2a.ListTasksRequest{
			Tenant: "acme", ContextID: "ctx-1", Status: a2a.TaskStateWorking, PageSize: a2a.Ptr[int32](25), PageToken: "cursor-2",
			HistoryLength: a2a.Ptr[int32](0), StatusTimestampAfter: &ts2, IncludeArtifacts: a2a.Ptr(false),
		}, newPB: pb(&a2apb.ListTasksRequest{})},
		{file: "list_tasks_response.json", value: a2a.ListTasksResponse{Tasks: []a2a.Task{task}, NextPageToken: "", PageSize: 50, TotalSize: 1}, newPB: pb(&a2apb.ListTasksResponse{}), omitted: []string{"nextPageToken"}},
		{file: "list_tasks_response_empty.json", value: a2a.ListTasksResponse{}, newPB: pb(&a2apb.ListTasksResponse{}), omitted: []string{"tasks", "nextPageToken", "pageSize", "totalSize"}},
		{file: "cancel_task_request.json", value: a2a.CancelTaskRequest{Tenant: "acme", ID: "task-1", Metadata: a2a.Metadata{"reason": "user asked"}}, newPB: pb(&a2apb.CancelTaskRequest{})},
		{file: "subscribe_to_task_request.json", value: a2a.SubscribeToTaskRequest{Tenant: "acme", ID: "task-1"}, newPB: pb(&a2apb.SubscribeToTaskRequest{})},
		{file: "task_push_notification_config.json", value: push, newPB: pb(&a2apb.TaskPushNotificationConfig{})},
		{file: "get_task_push_notification_config_request.json", value: a2a.GetTaskPushNotificationConfigRequest{Tenant: "acme", TaskID: "task-1", ID: "cfg-1"}, newPB: pb(&a2apb.GetTaskPushNotificationConfigRequest{})},
		{file: "delete_task_push_notification_config_request.json", value: a2a.DeleteTaskPushNotificationConfigRequest{Tenant: "acme", TaskID: "task-1", ID: "cfg-1"}, newPB: pb(&a2apb.DeleteTaskPushNotificationConfigRequest{})},
		{file: "list_task_push_notification_configs_request.json", value: a2a.ListTaskPushNotificationConfigsRequest{Tenant: "acme", TaskID: "task-1", PageSize: 10, PageToken: "p2"}, newPB: pb(&a2apb.ListTaskPushNotificationConfigsRequest{})},
		{file: "list_task_push_notification_configs_response.json", value: a2a.ListTaskPushNotificationConfigsResponse{Configs: []a2a.TaskPushNotificationConfig{push}, NextPageToken: "p3"}, newPB: pb(&a2apb.ListTaskPushNotificationConfigsResponse{})},
		{file: "get_extended_agent_card_request.json", value: a2a.GetExtendedAgentCardRequest{Tenant: "acme"}, newPB: pb(&a2apb.GetExtendedAgentCardRequest{})},
		{file: "empty.json", value: a2a.Empty{}, newPB: pb(&emptypb.Empty{})},
		{file: "agent_card.json", value: card, newPB: pb(&a2apb.AgentCard{})},
	}
}

func goldenPath(file string) string { return filepath.Join("testdata", "golden", file) }

// indent is the on-disk form of a golden file: json.Indent keeps every byte
// of the compact encoding except insignificant whitespace.
func indent(t testing.TB, compact []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, compact, "", "  "); err != nil {
		t.Fatalf("indent: %v", err)
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// TestGolden_OurEncoding pins the exact bytes our codec writes.
func TestGolden_OurEncoding(t *testing.T) {
	for _, c := range goldenCases() {
		t.Run(c.file, func(t *testing.T) {
			if c.encodeBug != "" {
				t.Skip(c.encodeBug)
			}
			got, err := json.Marshal(c.value)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			got = indent(t, got)
			path := goldenPath(c.file)
			if updating() {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("encoding differs from %s (run with -update if intended)\ngot:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}

// TestGolden_DecodesBack checks that our decoder reads each golden file back
// into the value it was written from.
func TestGolden_DecodesBack(t *testing.T) {
	for _, c := range goldenCases() {
		t.Run(c.file, func(t *testing.T) {
			if c.decodeBug != "" {
				t.Skip(c.decodeBug)
			}
			b, err := os.ReadFile(goldenPath(c.file))
			if err != nil {
				t.Fatal(err)
			}
			ptr := reflect.New(reflect.TypeOf(c.value))
			if err := json.Unmarshal(b, ptr.Interface()); err != nil {
				t.Fatalf("unmarshal: %v", err)
			}
			got, err := json.Marshal(ptr.Elem().Interface())
			if err != nil {
				t.Fatalf("re-marshal: %v", err)
			}
			if !bytes.Equal(indent(t, got), b) {
				t.Errorf("decode+encode of %s is not the identity:\n%s", c.file, indent(t, got))
			}
		})
	}
}

// TestGolden_ValidProtoJSON parses every golden file with protojson (unknown
// fields are errors) and compares protojson's re-encoding with the file. The
// only allowed difference is a REQUIRED key at its default value that
// protojson leaves out and our codec writes, listed per case.
func TestGolden_ValidProtoJSON(t *testing.T) {
	for _, c := range goldenCases() {
		t.Run(c.file, func(t *testing.T) {
			b, err := os.ReadFile(goldenPath(c.file))
			if err != nil {
				t.Fatal(err)
			}
			m := c.newPB()
			if err := (protojson.UnmarshalOptions{DiscardUnknown: false}).Unmarshal(b, m); err != nil {
				t.Fatalf("golden file is not valid ProtoJSON for %s: %v", m.ProtoReflect().Descriptor().FullName(), err)
			}
			pj, err := protojson.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			var ours, theirs any
			mustUnmarshal(t, b, &ours)
			mustUnmarshal(t, pj, &theirs)
			removed := dropDefaults(ours, c.omitted)
			if !reflect.DeepEqual(ours, theirs) {
				t.Errorf("protojson re-encoding differs beyond the allowed deltas %v\nours:\n%s\nprotojson:\n%s", c.omitted, b, pj)
			}
			for _, k := range c.omitted {
				if removed[k] == 0 {
					t.Errorf("allowed delta %q never applied; remove it from the case", k)
				}
			}
		})
	}
}

func mustUnmarshal(t testing.TB, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
}

// dropDefaults removes, anywhere in v, the object keys named in keys whose
// value is a JSON default ("" / 0 / false / [] / {}), and counts removals.
func dropDefaults(v any, keys []string) map[string]int {
	removed := map[string]int{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range keys {
				if val, ok := x[k]; ok && isJSONDefault(val) {
					delete(x, k)
					removed[k]++
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return removed
}

func isJSONDefault(v any) bool {
	switch x := v.(type) {
	case string:
		return x == ""
	case float64:
		return x == 0
	case bool:
		return !x
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}
