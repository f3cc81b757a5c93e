// Package push delivers A2A push notifications: it posts every event of a
// task to each webhook registered for the task, in order, at least once,
// from the durable outbox the store keeps.
//
// # The outbox
//
// A task's event log is the outbox. Each push config has a cursor in the
// store, the seq of the last event its webhook acknowledged with a 2xx
// (taskmanager.PushCursorStore). The [Dispatcher] asks the store which configs are
// behind their task's log ([Store].DuePushes), reads the events after the
// cursor and posts them one at a time, advancing the cursor after each 2xx.
// Nothing is kept only in memory, so a restart resumes at the cursor and
// loses nothing; an event may be delivered twice (at-least-once), never
// skipped unless it is dropped as described below.
//
// # The request
//
// One POST per event, whatever binding the client used:
//
//   - body: the event as a StreamResponse JSON object (json.Marshal of
//     a2a.StreamResponse: "task", "message", "statusUpdate" or
//     "artifactUpdate");
//   - Content-Type: application/a2a+json (A2A 1.0.1), or application/json
//     when [Config.ContentType] says so (A2A 1.0.0 and a2a-go receivers);
//   - Authorization: "<scheme> <credentials>" from the config's
//     authentication, when set;
//   - A2A-Notification-Token: the config's token, when set, and the same
//     value in X-A2A-Notification-Token, the header A2A 0.3-era receivers
//     (a2a-python, a2a-go v0) read;
//   - A2A-Notification-Id: "<taskId>:<seq>", the same on every attempt and
//     after a restart, so receivers can drop duplicates;
//   - User-Agent: [Config.UserAgent].
//
// Header values are checked before anything is sent: a scheme that is not an
// HTTP token, or credentials or a token holding CR, LF, NUL or another
// control character (header injection), make the event fail permanently
// without a request. [ValidateConfig] applies the same rules when a config
// is created, so the server can refuse it up front.
//
// # Security
//
// The webhook URL came from a client, so every delivery goes through the
// netguard guard: the URL is checked again ([Guard].CheckURL) before every
// request, so a name that resolved to a public address when the config was
// created and now resolves to a private one is refused, and the request is
// made with the guard's client, which checks the address actually connected
// to (DNS rebinding between check and connect cannot help), uses no proxy
// and refuses redirects. A refused destination is a permanent failure of
// that event. Logs and the store's last-error column carry the scheme and
// host of the URL only (netguard.RedactURL), never its path or query, and
// never the token or credentials.
//
// # Retries
//
// A 2xx acknowledges the event. 408, 425, 429, 5xx, a network error or a
// timeout is retried with exponential backoff and jitter
// ([Config.MinBackoff] doubling up to [Config.MaxBackoff]; a Retry-After
// header lengthens the wait, up to MaxBackoff); after [Config.MaxAttempts]
// failed attempts the event is dropped: the cursor moves past it. Any other
// status (other 4xx, 3xx) and a refused destination drop the event at once.
// Events of one config are delivered strictly in order: a failing event
// holds back the ones after it until it is delivered or dropped.
//
// # Fairness and replicas
//
// At most [Config.Workers] configs are served at once, and at most
// [Config.PerDestination] of them to one host:port, so a slow or hanging
// webhook ties up its own slots only. When the store also implements
// [Leaser] (every taskmanager.LeaseStore does), a config is claimed with the lease
// "push:<taskId>:<configId>" before delivery, so replicas sharing a store do
// not deliver the same config at once. The claim is kept (and renewed on the
// next claim) after a batch rather than released, so a replica that read a
// stale cursor cannot take the config over right after another finished
// with it; it passes to another replica when its holder stops
// ([Dispatcher.Run] releases its leases on return) or dies (the lease
// expires after [Config.LeaseTTL]).
//
// # Metrics
//
// bridge_push_deliveries_total{outcome} counts attempts by outcome:
// delivered, retried, dropped (given up: cap reached or a permanent status)
// and blocked (destination refused by netguard, or an invalid header value).
package push
