package push

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/internal/fastjson"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// drainLimit is how much of a webhook's response body is read (and thrown
// away) so the connection can be reused.
const drainLimit = 4 << 10

// result is the outcome of one delivery attempt.
type result struct {
	outcome    outcome
	status     int           // HTTP status, 0 when there was no response
	retryAfter time.Duration // from Retry-After, for retried outcomes
	err        error         // safe to log: no URL path or query, no secret
}

// summary is the result as stored in the config's last-error column.
func (r result) summary() string {
	switch {
	case r.err != nil && r.status != 0:
		return fmt.Sprintf("status %d: %v", r.status, r.err)
	case r.err != nil:
		return r.err.Error()
	default:
		return "status " + strconv.Itoa(r.status)
	}
}

// deliver makes one attempt to post event ev to cfg's webhook.
func (d *Dispatcher) deliver(ctx context.Context, owner string, cfg *a2a.TaskPushNotificationConfig, ev taskmanager.StoredEvent) result {
	if err := ValidateConfig(cfg); err != nil {
		return result{outcome: outcomeBlocked, err: err}
	}
	body, failed, err := d.body(ctx, owner, cfg, &ev)
	if err != nil {
		return result{outcome: failed, err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	if err := d.guard.CheckURL(ctx, cfg.URL); err != nil {
		if errors.Is(err, netguard.ErrBlocked) {
			return result{outcome: outcomeBlocked, err: fmt.Errorf("push: webhook refused: %w", err)}
		}
		return result{outcome: outcomeRetried, err: fmt.Errorf("push: checking webhook: %w", err)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.URL, bytes.NewReader(body))
	if err != nil {
		// The URL passed CheckURL, so this is not expected; never quote it.
		return result{outcome: outcomeBlocked, err: errors.New("push: webhook url does not make a request")}
	}
	setHeaders(req.Header, &d.cfg, cfg, ev.Seq)
	resp, err := d.guard.Client().Do(req)
	if err != nil {
		err = netguard.RedactURL(err)
		if errors.Is(err, netguard.ErrBlocked) {
			return result{outcome: outcomeBlocked, err: fmt.Errorf("push: webhook refused: %w", err)}
		}
		return result{outcome: outcomeRetried, err: fmt.Errorf("push: posting event: %w", err)}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit))
	resp.Body.Close()
	return classify(resp, d.cfg.Now())
}

// body is what a delivery of ev to cfg posts: the 1.0 event, or for a
// config of an older version what Config.LegacyBody writes.
// A body that cannot be encoded drops the event; a task that cannot be
// read (the store away) is retried.
func (d *Dispatcher) body(ctx context.Context, owner string, cfg *a2a.TaskPushNotificationConfig, ev *taskmanager.StoredEvent) ([]byte, outcome, error) {
	tr, ok := d.st.(TaskReader)
	if cfg.Version == "" || d.cfg.LegacyBody == nil || !ok {
		b, err := fastjson.Marshal(&ev.Event)
		if err != nil {
			return nil, outcomeDropped, fmt.Errorf("push: encoding event: %w", err)
		}
		return b, 0, nil
	}
	rec, err := tr.GetTask(ctx, owner, cfg.TaskID)
	if err != nil {
		return nil, outcomeRetried, fmt.Errorf("push: reading the task for a %s delivery: %w", cfg.Version, err)
	}
	b, err := d.cfg.LegacyBody(cfg.Version, &rec.Task, &ev.Event)
	if err != nil {
		return nil, outcomeDropped, fmt.Errorf("push: encoding a %s delivery: %w", cfg.Version, err)
	}
	return b, 0, nil
}

// classify maps a webhook's response to an outcome.
func classify(resp *http.Response, now time.Time) result {
	code := resp.StatusCode
	switch {
	case code >= 200 && code <= 299:
		return result{outcome: outcomeDelivered, status: code}
	case retryable(code):
		return result{outcome: outcomeRetried, status: code, retryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), now)}
	default:
		return result{outcome: outcomeDropped, status: code, err: errors.New("push: webhook refused the event permanently")}
	}
}

// retryable reports whether a status is worth another attempt.
func retryable(code int) bool {
	switch code {
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests:
		return true
	}
	return code >= 500 && code <= 599
}
