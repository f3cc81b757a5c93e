package push

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// Content types a webhook can be sent.
const (
	// ContentTypeA2A is the A2A 1.0.1 push media type, the default.
	ContentTypeA2A = "application/a2a+json"
	// ContentTypeJSON is what A2A 1.0.0 and a2a-go send.
	ContentTypeJSON = "application/json"
)

// Defaults applied to zero-valued [Config] fields.
const (
	DefaultUserAgent      = "a2a-mcp-bridge-push/1"
	DefaultTimeout        = 10 * time.Second
	DefaultMaxAttempts    = 8
	DefaultMinBackoff     = time.Second
	DefaultMaxBackoff     = 10 * time.Minute
	DefaultPollInterval   = time.Second
	DefaultWorkers        = 16
	DefaultPerDestination = 2
	DefaultBatch          = 32
	DefaultScanLimit      = 256
	DefaultLeaseTTL       = time.Minute
)

// Store is what the dispatcher needs from storage: the push cursors and the
// task event log that serves as the outbox. taskmanager.PushCursorStore plus
// taskmanager.TaskStore's Events satisfy it.
type Store interface {
	// DuePushes lists up to limit configs, of any owner, whose cursor is
	// behind their task's log and whose next attempt time has come.
	DuePushes(ctx context.Context, now time.Time, limit int) ([]taskmanager.PushDue, error)
	// AdvancePush moves a config's cursor to seq (never backwards) and
	// clears its failure count.
	AdvancePush(ctx context.Context, owner, taskID, configID string, seq int64) error
	// FailPush records a failed attempt and when to try next.
	FailPush(ctx context.Context, owner, taskID, configID string, next time.Time, lastErr string) error
	// Events returns up to limit events of the task with seq > after, in order.
	Events(ctx context.Context, owner, taskID string, after int64, limit int) ([]taskmanager.StoredEvent, error)
}

// Leaser is implemented by stores that can hand out leases (every
// taskmanager.LeaseStore does). When the [Store] given to [New] implements it,
// configs are claimed before delivery so replicas do not deliver the same
// config at once. Keys are "push:<taskId>:<configId>".
type Leaser interface {
	// AcquireLease takes the lease key for holder if it is free, expired or
	// already held by holder (which renews it).
	AcquireLease(ctx context.Context, key, holder string, ttl time.Duration) (bool, error)
	// ReleaseLease gives the lease up.
	ReleaseLease(ctx context.Context, key, holder string) error
}

// Guard checks webhook URLs and provides the client that delivers to them.
// *netguard.Guard implements it; its client must refuse redirects (the
// netguard default).
type Guard interface {
	// CheckURL refuses a URL whose host is, or resolves to, a refused
	// address; refusals match netguard.ErrBlocked.
	CheckURL(ctx context.Context, raw string) error
	// Client returns the SSRF-safe client used for every delivery.
	Client() *http.Client
}

var (
	_ Guard  = (*netguard.Guard)(nil)
	_ Leaser = (taskmanager.LeaseStore)(nil)
)

// Config tunes a [Dispatcher]. The zero value takes every default.
type Config struct {
	// ContentType is the Content-Type of every delivery: [ContentTypeA2A]
	// (default) or [ContentTypeJSON] for receivers that want A2A 1.0.0's
	// application/json.
	ContentType string
	// UserAgent is sent with every delivery. Default [DefaultUserAgent].
	UserAgent string
	// Timeout bounds one delivery, from the URL check to the response
	// headers. Default [DefaultTimeout]; the A2A spec recommends 10-30s.
	Timeout time.Duration
	// MaxAttempts is how many times one event is tried before it is dropped.
	// Default [DefaultMaxAttempts]; 1 means no retry.
	MaxAttempts int
	// MinBackoff is the wait after the first failed attempt; each later one
	// doubles it. Default [DefaultMinBackoff].
	MinBackoff time.Duration
	// MaxBackoff caps the wait between attempts, including a wait asked for
	// by Retry-After. Default [DefaultMaxBackoff].
	MaxBackoff time.Duration
	// PollInterval is how often the store is asked for due configs when
	// [Dispatcher.Notify] is not called (retries, events written by other
	// replicas). Default [DefaultPollInterval].
	PollInterval time.Duration
	// Workers caps the configs served at once. Default [DefaultWorkers].
	Workers int
	// PerDestination caps the configs served at once whose webhooks share a
	// host:port, so a slow webhook cannot take every worker. Default
	// [DefaultPerDestination].
	PerDestination int
	// Batch is how many events of one config are read and delivered per
	// claim. Default [DefaultBatch].
	Batch int
	// ScanLimit is the limit passed to DuePushes. Default [DefaultScanLimit].
	ScanLimit int
	// Holder names this dispatcher in leases. Default: a random id.
	Holder string
	// LeaseTTL is how long a config's claim lasts; it must be at least three
	// times Timeout. Default [DefaultLeaseTTL] (or 3×Timeout if larger).
	LeaseTTL time.Duration
	// Logger receives delivery logs. Default slog.Default().
	Logger *slog.Logger
	// Registerer, when set, receives the bridge_push_deliveries_total counter.
	Registerer prometheus.Registerer
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Jitter returns a number in [0, 1) to spread retries. Default
	// math/rand/v2's Float64.
	Jitter func() float64
	// LegacyBody, if set, writes the body of a delivery to a config
	// registered in an older protocol version (its Version: A2A 0.3
	// receivers expect the task, in 0.3 shape, rather than the event);
	// task is the task as stored when the event is delivered (the Store
	// must then be a TaskReader). Nil: every delivery is the 1.0 event.
	LegacyBody func(version string, task *a2a.Task, ev *a2a.StreamResponse) ([]byte, error)
}

// TaskReader reads a task, for deliveries of an older protocol version
// (Config.LegacyBody); the bridge's stores are one.
type TaskReader interface {
	GetTask(ctx context.Context, owner, id string) (*taskmanager.TaskRecord, error)
}

// Validate reports every problem that would make [New] fail, one per line,
// each naming the field and the fix. Zero values are valid.
func (c Config) Validate() error {
	var errs []error
	switch c.ContentType {
	case "", ContentTypeA2A, ContentTypeJSON:
	default:
		errs = append(errs, fmt.Errorf("push: ContentType: want %q or %q, got %q", ContentTypeA2A, ContentTypeJSON, c.ContentType))
	}
	if err := checkHeaderValue(c.UserAgent); err != nil {
		errs = append(errs, fmt.Errorf("push: UserAgent: %w", err))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"Timeout", c.Timeout}, {"MinBackoff", c.MinBackoff}, {"MaxBackoff", c.MaxBackoff},
		{"PollInterval", c.PollInterval}, {"LeaseTTL", c.LeaseTTL},
	} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("push: %s: must not be negative, got %s", d.name, d.v))
		}
	}
	for _, n := range []struct {
		name string
		v    int
	}{
		{"MaxAttempts", c.MaxAttempts}, {"Workers", c.Workers}, {"PerDestination", c.PerDestination},
		{"Batch", c.Batch}, {"ScanLimit", c.ScanLimit},
	} {
		if n.v < 0 {
			errs = append(errs, fmt.Errorf("push: %s: must not be negative, got %d", n.name, n.v))
		}
	}
	d := c.withDefaults()
	if d.MinBackoff > d.MaxBackoff {
		errs = append(errs, fmt.Errorf("push: MinBackoff: %s is above MaxBackoff %s; lower it or raise MaxBackoff", d.MinBackoff, d.MaxBackoff))
	}
	if c.LeaseTTL > 0 && c.LeaseTTL < 3*d.Timeout {
		errs = append(errs, fmt.Errorf("push: LeaseTTL: want at least 3×Timeout (%s), got %s", 3*d.Timeout, c.LeaseTTL))
	}
	return errors.Join(errs...)
}

// withDefaults returns c with zero fields replaced by their defaults.
func (c Config) withDefaults() Config {
	if c.ContentType == "" {
		c.ContentType = ContentTypeA2A
	}
	if c.UserAgent == "" {
		c.UserAgent = DefaultUserAgent
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.MinBackoff <= 0 {
		c.MinBackoff = DefaultMinBackoff
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = max(DefaultMaxBackoff, c.MinBackoff)
	}
	if c.PollInterval <= 0 {
		c.PollInterval = DefaultPollInterval
	}
	if c.Workers <= 0 {
		c.Workers = DefaultWorkers
	}
	if c.PerDestination <= 0 {
		c.PerDestination = DefaultPerDestination
	}
	if c.Batch <= 0 {
		c.Batch = DefaultBatch
	}
	if c.ScanLimit <= 0 {
		c.ScanLimit = DefaultScanLimit
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = max(DefaultLeaseTTL, 3*c.Timeout)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}
