package netguard_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// doOutcome is what a caller of Do can observe.
type doOutcome struct {
	status  int
	body    string
	err     string
	blocked netguard.Reason
	urlErr  bool
}

func observe(resp *http.Response, err error) doOutcome {
	var o doOutcome
	if err != nil {
		o.err = err.Error()
		var ue *url.Error
		o.urlErr = errors.As(err, &ue)
		var be *netguard.BlockedError
		if errors.As(err, &be) {
			o.blocked = be.Reason
		}
	}
	if resp != nil {
		o.status = resp.StatusCode
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		o.body = string(b)
	}
	return o
}

// Do must answer exactly as hc.Do does: same response, same error text and
// types, and above all no followed redirect (a redirect would leave the
// operator's list of destinations unchecked).
func TestDoAnswersAsClientDoAndFollowsNoRedirect(t *testing.T) {
	var followed int
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		io.WriteString(w, "ok:"+string(b))
	})
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) {
		followed++
		io.WriteString(w, "followed")
	})
	for _, code := range []int{301, 302, 303, 307, 308} {
		mux.HandleFunc("/redirect/"+strconv.Itoa(code), func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", code)
		})
	}
	mux.HandleFunc("/redirect-absolute", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "http://metadata.internal.example/latest")
		w.WriteHeader(http.StatusFound)
	})
	mux.HandleFunc("/no-location", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusFound)
		io.WriteString(w, "no location")
	})
	mux.HandleFunc("/bad-location", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "http://[::1")
		w.WriteHeader(http.StatusMovedPermanently)
	})
	mux.HandleFunc("/not-modified", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotModified)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + closed.Addr().String() + "/"
	closed.Close()

	type reqSpec struct {
		name, method, url string
		body              string
		noGetBody         bool
	}
	var reqs []reqSpec
	for _, code := range []int{301, 302, 303, 307, 308} {
		u := srv.URL + "/redirect/" + strconv.Itoa(code)
		reqs = append(reqs,
			reqSpec{name: "post " + http.StatusText(code), method: "POST", url: u, body: `{"a":1}`},
			reqSpec{name: "post without GetBody " + http.StatusText(code), method: "POST", url: u, body: `{"a":1}`, noGetBody: true},
			reqSpec{name: "get " + http.StatusText(code), method: "GET", url: u},
		)
	}
	reqs = append(reqs,
		reqSpec{name: "ok", method: "POST", url: srv.URL + "/ok", body: "hello"},
		reqSpec{name: "redirect to another host", method: "POST", url: srv.URL + "/redirect-absolute", body: "x"},
		reqSpec{name: "no location", method: "GET", url: srv.URL + "/no-location"},
		reqSpec{name: "bad location", method: "POST", url: srv.URL + "/bad-location", body: "x"},
		reqSpec{name: "not modified", method: "GET", url: srv.URL + "/not-modified"},
		reqSpec{name: "connection refused", method: "POST", url: deadURL, body: "x"},
		reqSpec{name: "lower-case method", method: "post", url: srv.URL + "/ok", body: "y"},
		reqSpec{name: "https to a plain HTTP server", method: "POST", url: strings.Replace(srv.URL, "http://", "https://", 1) + "/ok", body: "z"},
	)
	build := func(t *testing.T, s reqSpec) *http.Request {
		t.Helper()
		var body io.Reader
		if s.body != "" {
			body = strings.NewReader(s.body)
		}
		req, err := http.NewRequest(s.method, s.url, body)
		if err != nil {
			t.Fatal(err)
		}
		if s.noGetBody {
			req.Body = io.NopCloser(bytes.NewReader([]byte(s.body)))
			req.GetBody = nil
		}
		return req
	}
	var clients []*http.Client
	for _, h1 := range []bool{false, true} {
		hc := netguard.Trusted(netguard.Config{HTTP1Direct: h1, Timeout: -1, DialTimeout: time.Second})
		wrapped := *hc
		wrapped.Transport = wrapper{router{hc.Transport, wrapper{hc.Transport}}} // as observe.Transport wraps the gateway's router
		clients = append(clients, hc, &wrapped)
	}
	for i, hc := range clients {
		for _, s := range reqs {
			t.Run(fmt.Sprintf("%s/%d", s.name, i), func(t *testing.T) {
				req := build(t, s)
				if !netguard.DoesDirect(hc, req) {
					t.Fatal("Do would not take its direct path for this client")
				}
				followed = 0
				want := observe(hc.Do(build(t, s)))
				if followed != 0 {
					t.Fatalf("hc.Do followed a redirect")
				}
				got := observe(netguard.Do(hc, req))
				if followed != 0 {
					t.Fatalf("Do followed a redirect")
				}
				if got != want {
					t.Fatalf("Do = %+v\nhc.Do = %+v", got, want)
				}
				if strings.Contains(s.url, "/redirect") && !s.noGetBody && got.blocked != netguard.ReasonRedirect {
					t.Fatalf("redirect answered %+v, want refused with %q", got, netguard.ReasonRedirect)
				}
			})
		}
	}
}

// wrapper is a transport around another, as observe.Transport is.
type wrapper struct{ base http.RoundTripper }

// router is a transport that picks one of two, as the gateway's exposed
// agents' client does.
type router struct{ a, b http.RoundTripper }

func (r router) RoundTrip(req *http.Request) (*http.Response, error) { return r.a.RoundTrip(req) }
func (r router) Unwrap() []http.RoundTripper                         { return []http.RoundTripper{r.a, r.b} }

func (w wrapper) RoundTrip(req *http.Request) (*http.Response, error) { return w.base.RoundTrip(req) }
func (w wrapper) Unwrap() []http.RoundTripper                         { return []http.RoundTripper{w.base} }

// emptyWrapper says it wraps nothing.
type emptyWrapper struct{}

func (emptyWrapper) RoundTrip(*http.Request) (*http.Response, error) { return nil, errors.New("none") }
func (emptyWrapper) Unwrap() []http.RoundTripper                     { return nil }

var (
	_ netguard.Wrapper = wrapper{}
	_ netguard.Wrapper = router{}
	_ netguard.Wrapper = emptyWrapper{}
)

// Clients Do cannot stand in for go through hc.Do unchanged.
func TestDoLeavesOtherClientsToNetHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/target", http.StatusFound)
	}))
	defer srv.Close()
	req := func() *http.Request { r, _ := http.NewRequest("GET", srv.URL+"/start", nil); return r }

	following := netguard.Trusted(netguard.Config{MaxRedirects: 1})
	withTimeout := netguard.Trusted(netguard.Config{Timeout: time.Minute})
	replaced := netguard.Trusted(netguard.Config{Timeout: -1})
	replaced.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	plain := &http.Client{}
	wrapsOther := netguard.Trusted(netguard.Config{Timeout: -1})
	wrapsOther.Transport = wrapper{http.DefaultTransport}
	tooDeep := netguard.Trusted(netguard.Config{Timeout: -1})
	for range 5 {
		tooDeep.Transport = wrapper{tooDeep.Transport}
	}
	routesToOther := netguard.Trusted(netguard.Config{Timeout: -1})
	routesToOther.Transport = router{routesToOther.Transport, http.DefaultTransport}
	wrapsNothing := netguard.Trusted(netguard.Config{Timeout: -1})
	wrapsNothing.Transport = emptyWrapper{}
	for name, hc := range map[string]*http.Client{
		"follows redirects": following, "overall timeout": withTimeout,
		"own CheckRedirect": replaced, "not ours": plain,
		"wraps a transport not ours": wrapsOther, "wrapped five times": tooDeep,
		"routes to a transport not ours": routesToOther, "wraps nothing": wrapsNothing,
	} {
		if netguard.DoesDirect(hc, req()) {
			t.Errorf("%s: Do would bypass http.Client", name)
		}
	}
	credentials := req()
	credentials.URL.User = url.UserPassword("u", "p")
	if netguard.DoesDirect(netguard.Trusted(netguard.Config{Timeout: -1}), credentials) {
		t.Error("credentials in the URL: Do would bypass http.Client's basic auth")
	}
	resp, err := netguard.Do(replaced, req())
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("own CheckRedirect: %v %v, want the 302 itself", resp, err)
	}
	resp.Body.Close()
}
