package push

import (
	"bytes"
	"context"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/netguard/netguardtest"
	"github.com/prometheus/client_golang/prometheus"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"zero value", Config{}, nil},
		{"json content type", Config{ContentType: ContentTypeJSON}, nil},
		{"everything wrong", Config{
			ContentType: "text/plain", UserAgent: "ua\r\nX: y", Timeout: -1, MinBackoff: -1,
			MaxAttempts: -1, Workers: -2, PerDestination: -3, Batch: -4, ScanLimit: -5,
		}, []string{
			`push: ContentType: want "application/a2a+json" or "application/json", got "text/plain"`,
			"push: UserAgent: contains a control character (CR, LF, NUL or other)",
			"push: Timeout: must not be negative, got -1ns",
			"push: MinBackoff: must not be negative, got -1ns",
			"push: MaxAttempts: must not be negative, got -1",
			"push: Workers: must not be negative, got -2",
			"push: PerDestination: must not be negative, got -3",
			"push: Batch: must not be negative, got -4",
			"push: ScanLimit: must not be negative, got -5",
		}},
		{"backoff bounds crossed", Config{MinBackoff: time.Minute, MaxBackoff: time.Second}, []string{
			"push: MinBackoff: 1m0s is above MaxBackoff 1s; lower it or raise MaxBackoff",
		}},
		{"lease shorter than three timeouts", Config{Timeout: 10 * time.Second, LeaseTTL: 20 * time.Second}, []string{
			"push: LeaseTTL: want at least 3×Timeout (30s), got 20s",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			var got []string
			if err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Validate() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestNewRequiresStoreAndGuard(t *testing.T) {
	if _, err := New(Config{}, nil, testGuard(t, nil)); err == nil {
		t.Error("New without a store: no error")
	}
	if _, err := New(Config{}, newFakeStore(), nil); err == nil {
		t.Error("New without a guard: no error")
	}
	if _, err := New(Config{Workers: -1}, newFakeStore(), testGuard(t, nil)); err == nil {
		t.Error("New with an invalid config: no error")
	}
}

func TestMetricsRegisterTwiceOnOneRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	for range 2 {
		if _, err := New(Config{Registerer: reg}, newFakeStore(), testGuard(t, nil)); err != nil {
			t.Fatalf("New: %v", err)
		}
	}
}

func TestValidateConfigAcceptsOrdinaryValues(t *testing.T) {
	for _, cfg := range []a2a.TaskPushNotificationConfig{
		{},
		{Token: "opaque-token_1.2~"},
		{Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: "eyJhbGciOi.x.y"}},
		{Authentication: &a2a.AuthenticationInfo{Scheme: "Basic", Credentials: "dXNlcjpwYXNz"}},
		{Authentication: &a2a.AuthenticationInfo{Scheme: "Custom-Scheme", Credentials: "k=v, tab\tok"}},
		{Authentication: &a2a.AuthenticationInfo{}},
	} {
		if err := ValidateConfig(&cfg); err != nil {
			t.Errorf("ValidateConfig(%+v) = %v", cfg, err)
		}
	}
	if err := ValidateConfig(nil); err == nil {
		t.Error("ValidateConfig(nil) = nil")
	}
	long := strings.Repeat("a", MaxHeaderValue+1)
	if err := ValidateConfig(&a2a.TaskPushNotificationConfig{Token: long}); err == nil {
		t.Error("an overlong token is accepted")
	}
}

func TestBackoff(t *testing.T) {
	tests := []struct {
		attempt    int
		retryAfter time.Duration
		jitter     float64
		want       time.Duration
	}{
		{1, 0, 0, 500 * time.Millisecond},
		{1, 0, 0.5, 750 * time.Millisecond},
		{2, 0, 0, time.Second},
		{3, 0, 0, 2 * time.Second},
		{4, 0, 0.5, 6 * time.Second},
		{20, 0, 0, 30 * time.Second},
		{1000, 0, 0, 30 * time.Second},
		{1, 10 * time.Second, 0, 10 * time.Second},
		{1, time.Hour, 0, time.Minute},
	}
	for _, tt := range tests {
		got := backoff(time.Second, time.Minute, tt.attempt, tt.retryAfter, tt.jitter)
		if got != tt.want {
			t.Errorf("backoff(attempt %d, retry-after %s, jitter %v) = %s, want %s", tt.attempt, tt.retryAfter, tt.jitter, got, tt.want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"7", 7 * time.Second},
		{" 42 ", 42 * time.Second},
		{"-5", 0},
		{"1.5", 0},
		{"99999999999999999999", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"tomorrow", 0},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestNetworkErrorIsRetried(t *testing.T) {
	wh := newWebhook(t, nil)
	url := wh.URL + "/hook"
	wh.Close() // nothing listens any more
	st := newFakeStore()
	st.addConfig("alice", a2a.TaskPushNotificationConfig{ID: "c1", TaskID: "t1", URL: url})
	st.appendEvents("t1", statusEvent("t1", a2a.TaskStateWorking))
	reg := prometheus.NewRegistry()
	d := newTestDispatcher(t, Config{Registerer: reg}, st, testGuard(t, nil), newClock(), nil)
	round(context.Background(), d)
	if c := counts(t, reg)["retried"]; c != 1 {
		t.Errorf("retried = %v, want 1", c)
	}
	if cur, attempts := st.cursor("t1", "c1"); cur != 0 || attempts != 1 {
		t.Errorf("cursor %d, attempts %d; want 0, 1", cur, attempts)
	}
}

// TestLogsNeverCarryPushSecrets drives every outcome with a token,
// credentials and a URL query that are secrets, and checks neither the logs
// nor the store's last-error column ever quote them.
func TestLogsNeverCarryPushSecrets(t *testing.T) {
	const (
		token = "tok-SECRET-1"
		creds = "cred-SECRET-2"
		query = "key=url-SECRET-3"
	)
	secrets := []string{"SECRET"}
	statuses := []int{http.StatusInternalServerError, http.StatusBadRequest, http.StatusTooManyRequests, http.StatusOK}
	wh := newWebhook(t, func(_ http.ResponseWriter, r *http.Request, n int) int {
		return statuses[n%len(statuses)]
	})
	closed := newWebhook(t, nil)
	closedURL := closed.URL
	closed.Close()
	r := netguardtest.NewResolver()
	r.Fallback = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	r.Set("private.example", []netip.Addr{netip.MustParseAddr("192.168.1.1")})
	auth := &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: creds}

	st := newFakeStore()
	for i, url := range []string{
		wh.URL + "/hook/SECRET-path?" + query,
		closedURL + "/SECRET-path?" + query,
		"http://private.example/SECRET-path?" + query,
		"http://user:SECRET-pass@hook.example/?" + query,
	} {
		task := "t" + string(rune('0'+i))
		st.addConfig("alice", a2a.TaskPushNotificationConfig{ID: "c", TaskID: task, URL: url, Token: token, Authentication: auth})
		st.appendEvents(task, statusEvent(task, a2a.TaskStateWorking), statusEvent(task, a2a.TaskStateCompleted))
	}
	st.addConfig("alice", a2a.TaskPushNotificationConfig{ID: "c", TaskID: "inj", URL: wh.URL, Token: token,
		Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: creds + "\r\nX: SECRET"}})
	st.appendEvents("inj", statusEvent("inj", a2a.TaskStateWorking))

	var logs bytes.Buffer
	clk := newClock()
	d := newTestDispatcher(t, Config{MaxAttempts: 2}, st, testGuard(t, r), clk, &logs)
	for range 6 {
		round(context.Background(), d)
		clk.Add(time.Hour)
	}
	if logs.Len() == 0 {
		t.Fatal("no logs written; the test proves nothing")
	}
	_, fails := st.history()
	if len(fails) == 0 {
		t.Fatal("no failure recorded; the test proves nothing")
	}
	for _, s := range secrets {
		if strings.Contains(logs.String(), s) {
			t.Errorf("logs carry a secret:\n%s", logs.String())
		}
		for _, f := range fails {
			if strings.Contains(f.LastErr, s) {
				t.Errorf("stored last error carries a secret: %q", f.LastErr)
			}
		}
	}
}
