package endpoint

import (
	"encoding/json"
	"net/http"
)

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// writeJSONError writes an OAuth-style JSON error body. desc must be safe to
// show (auth.Error messages are).
func writeJSONError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	b, _ := json.Marshal(struct {
		Error       string `json:"error"`
		Description string `json:"error_description,omitempty"`
	}{code, desc})
	_, _ = w.Write(b)
}
