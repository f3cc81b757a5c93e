package front

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// MappingKey is the task metadata key holding the sealed upstream ids.
const MappingKey = "a2a-mcp-bridge/upstream"

// mappingPrefix versions the sealed form.
const mappingPrefix = "v1."

// upstreamRef names the upstream's task.
type upstreamRef struct {
	TaskID    string `json:"t"`
	ContextID string `json:"c,omitempty"`
}

// ErrNoMapping is returned when a task carries no readable upstream mapping
// (created elsewhere, or sealed under another StateKey).
var ErrNoMapping = errors.New("proxy: the task has no readable upstream mapping")

// sealer seals upstream refs with AES-256-GCM, bound to the bridge task's
// owner and id, so that the ids are opaque to callers and a sealed value
// cannot be moved to another task.
type sealer struct{ aead cipher.AEAD }

func newSealer(key []byte) (*sealer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("proxy: config: StateKey must be 32 bytes, got %d", len(key))
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("proxy: state key: %w", err)
	}
	g, err := cipher.NewGCM(b)
	if err != nil {
		return nil, fmt.Errorf("proxy: state key: %w", err)
	}
	return &sealer{aead: g}, nil
}

func aad(owner, taskID string) []byte {
	return []byte(MappingKey + "\x00" + owner + "\x00" + taskID)
}

// appendAAD appends aad(owner, taskID) to b.
func appendAAD(b []byte, owner, taskID string) []byte {
	b = append(b, MappingKey...)
	b = append(b, 0)
	b = append(b, owner...)
	b = append(b, 0)
	return append(b, taskID...)
}

// seal returns the metadata value for ref on the bridge task (owner, taskID).
func (s *sealer) seal(owner, taskID string, ref upstreamRef) (string, error) {
	ns, over := s.aead.NonceSize(), s.aead.Overhead()
	// One buffer holds the nonce, then the plaintext, sealed in place, and
	// after the room for the seal the additional data (an allocation of its
	// own per call before).
	sealed := ns + len(`{"t":"","c":""}`) + len(ref.TaskID) + len(ref.ContextID) + over
	buf := make([]byte, ns, sealed+len(MappingKey)+2+len(owner)+len(taskID))
	ad := appendAAD(buf[sealed:sealed], owner, taskID)
	buf = buf[:ns:sealed] // the seal must not reach the additional data
	buf, err := appendRef(buf, ref)
	if err != nil {
		return "", fmt.Errorf("proxy: seal mapping: %w", err)
	}
	if _, err := rand.Read(buf[:ns]); err != nil {
		return "", fmt.Errorf("proxy: seal mapping: %w", err)
	}
	out := s.aead.Seal(buf[:ns], buf[:ns], buf[ns:], ad)
	n := base64.RawURLEncoding.EncodedLen(len(out))
	var b strings.Builder
	b.Grow(len(mappingPrefix) + n)
	b.WriteString(mappingPrefix)
	var small [256]byte
	enc := small[:0]
	if n > len(small) {
		enc = make([]byte, 0, n)
	}
	b.Write(base64.RawURLEncoding.AppendEncode(enc, out))
	return b.String(), nil
}

// appendRef appends ref as json.Marshal writes it. Ids made of plain
// printable ASCII (what agents use: UUIDs and the like) are written
// directly; anything that needs escaping goes through json.Marshal.
func appendRef(dst []byte, ref upstreamRef) ([]byte, error) {
	if !plainJSON(ref.TaskID) || !plainJSON(ref.ContextID) {
		b, err := json.Marshal(ref)
		return append(dst, b...), err
	}
	dst = append(dst, `{"t":"`...)
	dst = append(dst, ref.TaskID...)
	if ref.ContextID != "" {
		dst = append(dst, `","c":"`...)
		dst = append(dst, ref.ContextID...)
	}
	return append(dst, `"}`...), nil
}

// plainJSON reports whether encoding/json writes s between quotes as is.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// open reads a sealed value; any failure is ErrNoMapping.
func (s *sealer) open(owner, taskID, v string) (upstreamRef, error) {
	var ref upstreamRef
	rest, ok := strings.CutPrefix(v, mappingPrefix)
	if !ok {
		return ref, ErrNoMapping
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil || len(raw) < s.aead.NonceSize()+s.aead.Overhead() {
		return ref, ErrNoMapping
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], aad(owner, taskID))
	if err != nil {
		return ref, ErrNoMapping
	}
	if json.Unmarshal(plain, &ref) != nil || ref.TaskID == "" {
		return upstreamRef{}, ErrNoMapping
	}
	return ref, nil
}

// fromTask reads the mapping of a stored bridge task.
func (s *sealer) fromTask(owner string, t *a2a.Task) (upstreamRef, error) {
	if t == nil {
		return upstreamRef{}, ErrNoMapping
	}
	v, _ := t.Metadata[MappingKey].(string)
	return s.open(owner, t.ID, v)
}
