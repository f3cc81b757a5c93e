package a2agrpc

import (
	"encoding/base64"
	"strings"
)

// encodeGrpcMessage percent-encodes a grpc-message value as the gRPC
// HTTP/2 protocol asks: bytes outside printable ASCII and '%' itself.
func encodeGrpcMessage(msg string) string {
	var b strings.Builder
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c >= ' ' && c <= '~' && c != '%' {
			b.WriteByte(c)
			continue
		}
		const hex = "0123456789ABCDEF"
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// base64Raw is the form of a binary ("-bin") header value.
func base64Raw(b []byte) string { return base64.RawStdEncoding.EncodeToString(b) }
