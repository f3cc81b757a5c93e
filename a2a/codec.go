package a2a

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-mcp-bridge/bridge/internal/strictjson"
)

// TaskState is the lifecycle state of a task, carried by its ProtoJSON name.
// A state this version does not know keeps its wire name and is neither
// terminal nor successful.
type TaskState string

// Task states.
const (
	TaskStateUnspecified   TaskState = "TASK_STATE_UNSPECIFIED"
	TaskStateSubmitted     TaskState = "TASK_STATE_SUBMITTED"
	TaskStateWorking       TaskState = "TASK_STATE_WORKING"
	TaskStateCompleted     TaskState = "TASK_STATE_COMPLETED"
	TaskStateFailed        TaskState = "TASK_STATE_FAILED"
	TaskStateCanceled      TaskState = "TASK_STATE_CANCELED"
	TaskStateInputRequired TaskState = "TASK_STATE_INPUT_REQUIRED"
	TaskStateRejected      TaskState = "TASK_STATE_REJECTED"
	TaskStateAuthRequired  TaskState = "TASK_STATE_AUTH_REQUIRED"
)

var taskStateByNumber = [...]TaskState{
	TaskStateUnspecified, TaskStateSubmitted, TaskStateWorking, TaskStateCompleted,
	TaskStateFailed, TaskStateCanceled, TaskStateInputRequired, TaskStateRejected,
	TaskStateAuthRequired,
}

// Known reports whether s is one of the states of A2A 1.0.
func (s TaskState) Known() bool {
	for _, k := range taskStateByNumber {
		if s == k {
			return true
		}
	}
	return false
}

// Terminal reports whether no further change can happen to a task in state s.
func (s TaskState) Terminal() bool {
	switch s {
	case TaskStateCompleted, TaskStateFailed, TaskStateCanceled, TaskStateRejected:
		return true
	}
	return false
}

// Interrupted reports whether the task waits for the client (input or auth).
func (s TaskState) Interrupted() bool {
	return s == TaskStateInputRequired || s == TaskStateAuthRequired
}

// Succeeded reports whether s is COMPLETED. Unknown states never succeed.
func (s TaskState) Succeeded() bool { return s == TaskStateCompleted }

// UnmarshalJSON accepts the enum name or its number, as ProtoJSON does.
func (s *TaskState) UnmarshalJSON(b []byte) error {
	v, err := enumFromJSON(b, func(n int) (string, bool) {
		if n >= 0 && n < len(taskStateByNumber) {
			return string(taskStateByNumber[n]), true
		}
		return "", false
	})
	if err != nil {
		return fmt.Errorf("a2a: task state: %w", err)
	}
	*s = TaskState(v)
	return nil
}

// MarshalJSON writes the enum name, or the number of an unknown value.
func (s TaskState) MarshalJSON() ([]byte, error) { return enumToJSON(string(s)) }

// knownEnums maps the names of the task states and roles to themselves, so
// decoding a known name returns the constant's string without allocating.
var knownEnums = func() map[string]string {
	m := make(map[string]string, len(taskStateByNumber)+3)
	for _, s := range taskStateByNumber {
		m[string(s)] = string(s)
	}
	for _, r := range []Role{RoleUnspecified, RoleUser, RoleAgent} {
		m[string(r)] = string(r)
	}
	return m
}()

// knownEnumJSON holds the JSON strings of the known enum names, written as
// they are. Each slice has len == cap, so an append by a caller copies.
var knownEnumJSON = func() map[string][]byte {
	m := make(map[string][]byte, len(knownEnums))
	for k := range knownEnums {
		b, _ := json.Marshal(k)
		m[k] = b[:len(b):len(b)]
	}
	return m
}()

func enumToJSON(v string) ([]byte, error) {
	if b, ok := knownEnumJSON[v]; ok {
		return b, nil
	}
	if v != "" && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		if _, err := strconv.Atoi(v); err == nil {
			return []byte(v), nil
		}
	}
	return json.Marshal(v)
}

// Role says who sent a message.
type Role string

// Roles.
const (
	RoleUnspecified Role = "ROLE_UNSPECIFIED"
	RoleUser        Role = "ROLE_USER"
	RoleAgent       Role = "ROLE_AGENT"
)

// MarshalJSON writes the enum name (ROLE_UNSPECIFIED when empty), or the
// number of an unknown value.
func (r Role) MarshalJSON() ([]byte, error) {
	if r == "" {
		r = RoleUnspecified
	}
	return enumToJSON(string(r))
}

// UnmarshalJSON accepts the enum name or its number.
func (r *Role) UnmarshalJSON(b []byte) error {
	v, err := enumFromJSON(b, func(n int) (string, bool) {
		switch n {
		case 0:
			return string(RoleUnspecified), true
		case 1:
			return string(RoleUser), true
		case 2:
			return string(RoleAgent), true
		}
		return "", false
	})
	if err != nil {
		return fmt.Errorf("a2a: role: %w", err)
	}
	*r = Role(v)
	return nil
}

func enumFromJSON(b []byte, byNumber func(int) (string, bool)) (string, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "", errors.New("empty value")
	}
	switch b[0] {
	case '"':
		if n := len(b); n >= 2 && b[n-1] == '"' {
			if v, ok := knownEnums[string(b[1:n-1])]; ok {
				return v, nil
			}
		}
		var s string
		if err := UnmarshalStrict(b, &s); err != nil {
			return "", err
		}
		if numeric(s) {
			// ProtoJSON reads an enum from its name or from a number, never
			// from a number in a string: "5" would be written back as 5 and
			// read as another value than the sender meant.
			return "", fmt.Errorf("%s is a number in a string: send the enum name or the number", Truncate(b, 32))
		}
		return s, nil
	case 'n':
		if string(b) == "null" {
			return "", nil
		}
	default:
		n, err := strconv.Atoi(string(b))
		if err != nil {
			return "", fmt.Errorf("not an enum name or number: %s", Truncate(b, 32))
		}
		if v, ok := byNumber(n); ok {
			return v, nil
		}
		// An enum number this version does not know is kept as its digits
		// and written back as a number; it is never a known state.
		return strconv.Itoa(n), nil
	}
	return "", fmt.Errorf("not an enum name or number: %s", Truncate(b, 32))
}

// numeric reports whether s spells an integer as strconv.Atoi reads one
// (an optional sign, then digits).
func numeric(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func Truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// TextPart returns a text part.
func TextPart(s string) Part { return Part{Kind: PartText, Text: s} }

// RawPart returns a part carrying bytes with their media type.
func RawPart(b []byte, mediaType, filename string) Part {
	return Part{Kind: PartRaw, Raw: b, MediaType: mediaType, Filename: filename}
}

// URLPart returns a part referring to a file by URL.
func URLPart(u, mediaType, filename string) Part {
	return Part{Kind: PartURL, URL: u, MediaType: mediaType, Filename: filename}
}

// DataPart returns a part carrying v as structured data.
func DataPart(v any) (Part, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Part{}, fmt.Errorf("a2a: encode data part: %w", err)
	}
	return Part{Kind: PartData, Data: b}, nil
}

// DecodeBase64 accepts standard or URL-safe base64, padded or not.
func DecodeBase64(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	if strings.ContainsAny(s, "-_") {
		return base64.RawURLEncoding.DecodeString(s)
	}
	return base64.RawStdEncoding.DecodeString(s)
}

// knownParts drops parts of unknown kind, logging each.
func knownParts(parts []Part, where string) []Part {
	for i := range parts {
		if parts[i].Kind == PartUnknown {
			kept := make([]Part, 0, len(parts)-1)
			for _, p := range parts {
				if p.Kind != PartUnknown {
					kept = append(kept, p)
				} else {
					slog.Warn("a2a: skipped a part of unknown kind", "in", where)
				}
			}
			return kept
		}
	}
	return parts
}

// MarshalJSON writes statusTimestampAfter in ProtoJSON form.
func (r ListTasksRequest) MarshalJSON() ([]byte, error) {
	type wire struct {
		Tenant               string     `json:"tenant,omitempty"`
		ContextID            string     `json:"contextId,omitempty"`
		Status               TaskState  `json:"status,omitempty"`
		PageSize             *int32     `json:"pageSize,omitempty"`
		PageToken            string     `json:"pageToken,omitempty"`
		HistoryLength        *int32     `json:"historyLength,omitempty"`
		StatusTimestampAfter *protoTime `json:"statusTimestampAfter,omitempty"`
		IncludeArtifacts     *bool      `json:"includeArtifacts,omitempty"`
	}
	return json.Marshal(wire{r.Tenant, r.ContextID, r.Status, r.PageSize, r.PageToken, r.HistoryLength, (*protoTime)(r.StatusTimestampAfter), r.IncludeArtifacts})
}

// protoTime is a google.protobuf.Timestamp on the wire: RFC 3339 in UTC
// with 0, 3, 6 or 9 fractional digits.
type protoTime time.Time

func (t protoTime) MarshalJSON() ([]byte, error) {
	u := time.Time(t).UTC()
	layout := "2006-01-02T15:04:05"
	switch ns := u.Nanosecond(); {
	case ns == 0:
	case ns%1_000_000 == 0:
		layout += ".000"
	case ns%1_000 == 0:
		layout += ".000000"
	default:
		layout += ".000000000"
	}
	b := make([]byte, 0, 40)
	b = append(b, '"')
	b = u.AppendFormat(b, layout)
	b = append(b, 'Z', '"')
	return b, nil
}

// MarshalJSON writes tasks as a list even when empty.
func (r ListTasksResponse) MarshalJSON() ([]byte, error) {
	type alias ListTasksResponse
	a := alias(r)
	if a.Tasks == nil {
		a.Tasks = []Task{}
	}
	return json.Marshal(a)
}

// MarshalJSON writes REQUIRED lists even when empty.
func (c AgentCard) MarshalJSON() ([]byte, error) {
	type alias AgentCard
	a := alias(c)
	if a.SupportedInterfaces == nil {
		a.SupportedInterfaces = []AgentInterface{}
	}
	if a.DefaultInputModes == nil {
		a.DefaultInputModes = []string{}
	}
	if a.DefaultOutputModes == nil {
		a.DefaultOutputModes = []string{}
	}
	if a.Skills == nil {
		a.Skills = []AgentSkill{}
	}
	return json.Marshal(a)
}

// UnmarshalJSON reads a card that has one reading only (UnmarshalStrict):
// a card whose members could be read two ways is refused, so that what a
// signature covers, what the bridge reads and what a peer reads agree.
func (c *AgentCard) UnmarshalJSON(b []byte) error {
	type alias AgentCard
	var a alias
	if err := UnmarshalStrict(b, &a); err != nil {
		return err
	}
	*c = AgentCard(a)
	return nil
}

// MarshalJSON writes tags even when empty (the field is REQUIRED).
func (s AgentSkill) MarshalJSON() ([]byte, error) {
	type alias AgentSkill
	a := alias(s)
	if a.Tags == nil {
		a.Tags = []string{}
	}
	return json.Marshal(a)
}

// Kind names the member set in a stream event: "task", "message",
// "statusUpdate", "artifactUpdate", or "" for an unknown kind.
func (r *StreamResponse) Kind() string {
	switch {
	case r.Task != nil:
		return "task"
	case r.Message != nil:
		return "message"
	case r.StatusUpdate != nil:
		return "statusUpdate"
	case r.ArtifactUpdate != nil:
		return "artifactUpdate"
	}
	return ""
}

// Ptr returns a pointer to v, for optional fields.
func Ptr[T any](v T) *T { return &v }

// structFields are the fields of google.protobuf.Struct or Value type in the
// A2A proto: their keys are data, never field names, and are kept as sent.
var structFields = map[string]bool{"metadata": true, "data": true, "params": true, "header": true}

// normalizeFieldNames rewrites proto field names (snake_case), which
// ProtoJSON parsers must accept beside the camelCase JSON names, to their
// JSON names, leaving the contents of Struct and Value fields untouched.
// Input without a key to rename is returned as is, without allocating:
// that is nearly every request, and decoding it into maps first cost about
// a tenth of the allocations of a request.
func normalizeFieldNames(raw []byte) ([]byte, error) {
	if bytes.IndexByte(raw, '_') < 0 || !ProtoNamesIn(raw) {
		return raw, nil
	}
	return renameFieldNames(raw)
}

// renameFieldNames is normalizeFieldNames without its fast path. Decoding
// into maps would let the last of two equal names win and replace invalid
// UTF-8, so raw must have one reading first (strictjson); a field given
// under both its names is refused too, as ProtoJSON refuses it.
func renameFieldNames(raw []byte) ([]byte, error) {
	if err := strictjson.Check(raw); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	changed := false
	var err error
	v = renameKeys(v, &changed, &err)
	if err != nil {
		return nil, err
	}
	if !changed {
		return raw, nil
	}
	return json.Marshal(v)
}

func renameKeys(v any, changed *bool, err *error) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			name := k
			if strings.IndexByte(k, '_') > 0 {
				name = lowerCamel(k)
				*changed = true
			}
			if _, dup := x[name]; dup && name != k {
				// Both spellings present: which one is meant?
				*err = fmt.Errorf("%s and %s name the same field: send it once", Truncate([]byte(k), 64), Truncate([]byte(name), 64))
				return v
			}
			if structFields[name] {
				out[name] = val
			} else {
				out[name] = renameKeys(val, changed, err)
			}
		}
		return out
	case []any:
		for i := range x {
			x[i] = renameKeys(x[i], changed, err)
		}
		return x
	}
	return v
}

func lowerCamel(s string) string {
	var b strings.Builder
	up := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_':
			up = true
		case up && c >= 'a' && c <= 'z':
			b.WriteByte(c - 'a' + 'A')
			up = false
		default:
			b.WriteByte(c)
			up = false
		}
	}
	return b.String()
}

// UnmarshalJSON reads a security scheme; two members at once is an error.
func (s *SecurityScheme) UnmarshalJSON(b []byte) error {
	type alias SecurityScheme
	var a alias
	if err := UnmarshalStrict(b, &a); err != nil {
		return err
	}
	if countSet(a.APIKey != nil, a.HTTPAuth != nil, a.OAuth2 != nil, a.OpenIDConnect != nil, a.MTLS != nil) > 1 {
		return errors.New("a2a: security scheme sets more than one kind")
	}
	*s = SecurityScheme(a)
	return nil
}

// UnmarshalJSON reads OAuth flows; two flows at once is an error.
func (f *OAuthFlows) UnmarshalJSON(b []byte) error {
	type alias OAuthFlows
	var a alias
	if err := UnmarshalStrict(b, &a); err != nil {
		return err
	}
	if countSet(a.AuthorizationCode != nil, a.ClientCredentials != nil, a.Implicit != nil, a.Password != nil, a.DeviceCode != nil) > 1 {
		return errors.New("a2a: oauth flows set more than one flow")
	}
	*f = OAuthFlows(a)
	return nil
}

func countSet(set ...bool) int {
	n := 0
	for _, s := range set {
		if s {
			n++
		}
	}
	return n
}
