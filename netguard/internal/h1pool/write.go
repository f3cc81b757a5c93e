package h1pool

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// writeRequest writes req to bw as (*http.Request).Write does, byte for
// byte, for the requests a relayed call sends: a body of known length, no
// trailers, no transfer encoding, no Close, no client trace, at most maxFastHeaders header fields and
// a plain ASCII host. Any other request goes to req.Write.
//
// Why: (*http.Request).Write made seven allocations per relayed call in
// the allocation profile of bridge serve under load (the transfer writer,
// fmt's boxed arguments, the Content-Length string, the body's LimitReader,
// the sorted header list); this writes into bw's buffer and makes none.
// TestWriteRequest_SameBytes and FuzzWriteRequest hold it to req.Write's
// output. The header fields were checked by checkRequest (names are
// tokens, values have no CR, LF or other control byte), as req.Write
// checks them.
func (pc *pconn) writeRequest(req *http.Request) error {
	if !fastWritable(req) {
		return req.Write(pc.bw)
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	ruri := req.URL.RequestURI()
	if !asciiNoZone(host) || !httpguts.ValidHostHeader(host) || strings.ContainsFunc(ruri, isCTL) {
		return req.Write(pc.bw) // its error, as net/http words it
	}
	var keys [maxFastHeaders]string
	n := 0
	for k := range req.Header {
		if reqWriteExclude(k) {
			continue
		}
		// insertion sort: the order req.Write writes them in
		i := n
		for i > 0 && keys[i-1] > k {
			keys[i] = keys[i-1]
			i--
		}
		keys[i] = k
		n++
	}
	bw := pc.bw
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	bw.WriteString(method)
	bw.WriteByte(' ')
	bw.WriteString(ruri)
	bw.WriteString(" HTTP/1.1\r\nHost: ")
	bw.WriteString(host)
	bw.WriteString("\r\n")
	ua := "Go-http-client/1.1" // net/http's default
	if vv, ok := req.Header["User-Agent"]; ok {
		ua = ""
		if len(vv) > 0 {
			ua = textproto.TrimString(vv[0])
		}
	}
	if ua != "" {
		bw.WriteString("User-Agent: ")
		bw.WriteString(ua)
		bw.WriteString("\r\n")
	}
	bw.WriteString("Content-Length: ")
	bw.Write(strconv.AppendInt(bw.AvailableBuffer(), req.ContentLength, 10))
	bw.WriteString("\r\n")
	for _, k := range keys[:n] {
		for _, v := range req.Header[k] {
			bw.WriteString(k)
			bw.WriteString(": ")
			bw.WriteString(textproto.TrimString(v))
			bw.WriteString("\r\n")
		}
	}
	bw.WriteString("\r\n")
	err := pc.copyBody(req.Body, req.ContentLength)
	if cerr := req.Body.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return err
}

// maxFastHeaders bounds the header fields writeRequest sorts on the stack.
const maxFastHeaders = 16

// fastWritable reports whether writeRequest may write req itself.
func fastWritable(req *http.Request) bool {
	if req.ContentLength <= 0 || req.Body == nil || req.Body == http.NoBody ||
		len(req.TransferEncoding) > 0 || len(req.Trailer) > 0 || len(req.Header) > maxFastHeaders ||
		req.URL.Opaque != "" || req.Close {
		return false
	}
	// A client trace wants req.Write's callbacks.
	return httptrace.ContextClientTrace(req.Context()) == nil
}

// reqWriteExclude: the fields req.Write writes itself, not from the header.
func reqWriteExclude(k string) bool {
	switch k {
	case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer":
		return true
	}
	return false
}

// asciiNoZone reports a host that net/http writes unchanged: ASCII (no
// punycode conversion) and without an IPv6 zone (which it removes).
func asciiNoZone(host string) bool {
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 || host[i] == '%' {
			return false
		}
	}
	return host != ""
}

func isCTL(r rune) bool { return r < ' ' || r == 0x7f }

// copyBody writes exactly n bytes of body into pc.bw, as req.Write does
// for a body of known length: a shorter body is an error, and so is a
// longer one (nothing past n is written).
func (pc *pconn) copyBody(body io.Reader, n int64) error {
	bw := pc.bw
	want := n
	for n > 0 {
		if bw.Available() == 0 {
			if err := bw.Flush(); err != nil {
				return err
			}
		}
		buf := bw.AvailableBuffer()
		buf = buf[:min(int64(cap(buf)), n)]
		k, err := body.Read(buf)
		if k > 0 {
			bw.Write(buf[:k])
			n -= int64(k)
		}
		if err == io.EOF {
			if n > 0 {
				return fmt.Errorf("http: ContentLength=%d with Body length %d", want, want-n)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
	// As req.Write: a body longer than its ContentLength is an error.
	for range 100 {
		k, err := body.Read(pc.one[:])
		if k > 0 {
			return fmt.Errorf("http: ContentLength=%d with Body length %d", want, want+int64(k))
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return io.ErrNoProgress
}
