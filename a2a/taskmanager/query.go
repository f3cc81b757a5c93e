package taskmanager

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

func statusTime(t *a2a.Task) time.Time {
	if t.Status.Timestamp == nil {
		return time.Time{}
	}
	return *t.Status.Timestamp
}

// MatchesQuery reports whether t passes the filters of q (paging aside).
// Stores that cannot filter in their query language use it.
func MatchesQuery(t *a2a.Task, q TaskQuery) bool {
	if q.ContextID != "" && t.ContextID != q.ContextID {
		return false
	}
	if q.Status != "" && q.Status != a2a.TaskStateUnspecified && t.Status.State != q.Status {
		return false
	}
	if q.UpdatedFrom != nil && statusTime(t).Before(*q.UpdatedFrom) {
		return false
	}
	return true
}

// ListOrderLess orders tasks as ListTasks returns them: status timestamp
// descending, then id descending.
func ListOrderLess(a, b *a2a.Task) bool {
	ta, tb := statusTime(a), statusTime(b)
	if !ta.Equal(tb) {
		return ta.After(tb)
	}
	return a.ID > b.ID
}

// AfterCursor reports whether t comes after c in the ListTasks order.
func AfterCursor(t *a2a.Task, c Cursor) bool {
	ts := statusTime(t)
	if !ts.Equal(c.Updated) {
		return ts.Before(c.Updated)
	}
	return t.ID < c.ID
}

// Page tokens are opaque to clients: base64url of
// version(1) | filter hash(8) | unix nanos(8) | id.
// The filter hash binds a token to the filters it was issued for.

const pageTokenVersion = 1

func filterHash(owner string, q TaskQuery) []byte {
	h := sha256.New()
	h.Write([]byte(owner))
	h.Write([]byte{0})
	h.Write([]byte(q.ContextID))
	h.Write([]byte{0})
	h.Write([]byte(q.Status))
	h.Write([]byte{0})
	if q.UpdatedFrom != nil {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(q.UpdatedFrom.UnixNano()))
		h.Write(b[:])
	}
	return h.Sum(nil)[:8]
}

func encodePageToken(owner string, q TaskQuery, c Cursor) string {
	b := make([]byte, 0, 17+len(c.ID))
	b = append(b, pageTokenVersion)
	b = append(b, filterHash(owner, q)...)
	b = binary.BigEndian.AppendUint64(b, uint64(c.Updated.UnixNano()))
	b = append(b, c.ID...)
	return base64.RawURLEncoding.EncodeToString(b)
}

var errBadPageToken = errors.New("page token is malformed or was issued for other filters")

func decodePageToken(owner string, q TaskQuery, tok string) (*Cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) < 17 || b[0] != pageTokenVersion {
		return nil, errBadPageToken
	}
	want := filterHash(owner, q)
	for i := range want {
		if b[1+i] != want[i] {
			return nil, errBadPageToken
		}
	}
	ns := int64(binary.BigEndian.Uint64(b[9:17]))
	return &Cursor{Updated: time.Unix(0, ns).UTC(), ID: string(b[17:])}, nil
}
