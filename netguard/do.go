package netguard

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
)

// refuseRedirects is the CheckRedirect of a client that follows no
// redirect (MaxRedirects 0). It is a plain function, not a closure, so Do
// can recognise it.
func refuseRedirects(req *http.Request, _ []*http.Request) error {
	return &BlockedError{Reason: ReasonRedirect, Host: req.URL.Hostname(), Detail: "redirects are not followed"}
}

var refuseRedirectsPC = reflect.ValueOf(refuseRedirects).Pointer()

// Do sends req as hc.Do(req) does, with the same response and the same
// errors. For a client of this package that follows no redirects and has
// neither an overall Timeout nor a cookie jar, it calls the transport
// directly: http.Client copies every request and its header for the
// redirects such a client never follows, a few hundred bytes and a
// microsecond per call on a proxied hot path (a transport that wraps this
// package's, see Wrapper, is called the same way). Any other client, or a
// request that needs the client's help (credentials in the URL, no
// header), goes through hc.Do.
func Do(hc *http.Client, req *http.Request) (*http.Response, error) {
	rt, ok := direct(hc, req)
	if !ok {
		return hc.Do(req)
	}
	uerr := func(u string, err error) error {
		return &url.Error{Op: urlErrorOp(req.Method), URL: u, Err: err}
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		// As net/http: only an error that is itself the TLS record error,
		// not one that wraps it.
		if tlsErr, ok := err.(tls.RecordHeaderError); ok && string(tlsErr.RecordHeader[:]) == "HTTP/" {
			err = http.ErrSchemeMismatch
		}
		return nil, uerr(req.URL.String(), err)
	}
	if resp == nil {
		return nil, uerr(req.URL.String(), fmt.Errorf("http: RoundTripper implementation (%T) returned a nil *Response with a nil error", rt))
	}
	if resp.Body == nil {
		if resp.ContentLength > 0 && req.Method != http.MethodHead {
			return nil, uerr(req.URL.String(), fmt.Errorf("http: RoundTripper implementation (%T) returned a *Response with content length %d but a nil Body", rt, resp.ContentLength))
		}
		resp.Body = io.NopCloser(strings.NewReader(""))
	}
	includeBody, redirect := false, false
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther:
		redirect = true
	case http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		includeBody = true
		// Without GetBody the body cannot be sent again: net/http hands
		// the answer back instead of following it.
		redirect = req.GetBody != nil || outgoingLength(req) == 0
	}
	if !redirect {
		return resp, nil
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return resp, nil
	}
	next, err := req.URL.Parse(loc)
	if err != nil {
		resp.Body.Close()
		closeBody(req)
		return nil, uerr(req.URL.String(), fmt.Errorf("failed to parse Location header %q: %v", loc, err))
	}
	if includeBody && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			resp.Body.Close()
			closeBody(req)
			return nil, uerr(req.URL.String(), err)
		}
		body.Close()
	}
	refused := refuseRedirects(&http.Request{URL: next}, nil)
	// As net/http: read a little of a small body so the connection can be
	// reused, then close it and return the answer with the error.
	const maxBodySlurpSize = 2 << 10
	if resp.ContentLength == -1 || resp.ContentLength <= maxBodySlurpSize {
		_, _ = io.CopyN(io.Discard, resp.Body, maxBodySlurpSize)
	}
	resp.Body.Close()
	closeBody(req)
	return resp, uerr(loc, refused)
}

// Wrapper is a RoundTripper around others (observe.Transport around this
// package's, the gateway's router between two of them): Unwrap returns
// every transport its RoundTrip may call. Do calls a client's transport
// directly, as it calls this package's own, when it is this package's or a
// Wrapper whose transports all are, through at most maxWrapDepth Wrappers,
// so every call still passes a guard. A Wrapper must need nothing of
// http.Client: each call's RoundTrip is all it is given.
type Wrapper interface {
	http.RoundTripper
	Unwrap() []http.RoundTripper
}

// maxWrapDepth bounds how deep Do looks through Wrappers.
const maxWrapDepth = 4

// direct returns hc's transport when Do may call it without hc.
func direct(hc *http.Client, req *http.Request) (http.RoundTripper, bool) {
	if !guarded(hc.Transport, maxWrapDepth) || hc.Timeout != 0 || hc.Jar != nil || hc.CheckRedirect == nil ||
		reflect.ValueOf(hc.CheckRedirect).Pointer() != refuseRedirectsPC ||
		req.URL == nil || req.URL.User != nil || req.Header == nil || req.RequestURI != "" {
		return nil, false
	}
	return hc.Transport, true
}

// guarded reports whether rt is this package's transport or a Wrapper of
// such transports only, at most depth Wrappers deep.
func guarded(rt http.RoundTripper, depth int) bool {
	switch t := rt.(type) {
	case *roundTripper:
		return true
	case Wrapper:
		if depth == 0 {
			return false
		}
		in := t.Unwrap()
		for _, w := range in {
			if !guarded(w, depth-1) {
				return false
			}
		}
		return len(in) > 0
	}
	return false
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// outgoingLength is http.Request's: the body length, -1 when unknown.
func outgoingLength(r *http.Request) int64 {
	if r.Body == nil || r.Body == http.NoBody {
		return 0
	}
	if r.ContentLength != 0 {
		return r.ContentLength
	}
	return -1
}

// urlErrorOp is net/http's name of a method in a *url.Error ("Post").
func urlErrorOp(method string) string {
	if method == "" {
		return "Get"
	}
	if lowerMethod, ok := asciiLower(method); ok {
		return method[:1] + lowerMethod[1:]
	}
	return method
}

// asciiLower lowers s when it is printable ASCII (net/http's ascii.ToLower).
func asciiLower(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return "", false
		}
	}
	return strings.ToLower(s), true
}
