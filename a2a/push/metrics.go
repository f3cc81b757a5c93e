package push

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// outcome is what became of one delivery attempt.
type outcome uint8

const (
	// outcomeDelivered: the webhook answered 2xx; the cursor moved past the event.
	outcomeDelivered outcome = iota
	// outcomeRetried: the attempt failed and will be tried again later.
	outcomeRetried
	// outcomeDropped: given up (attempt cap reached or a permanent status).
	outcomeDropped
	// outcomeBlocked: destination refused by netguard, or unsafe header values.
	outcomeBlocked
)

var outcomes = [...]outcome{outcomeDelivered, outcomeRetried, outcomeDropped, outcomeBlocked}

// String is the outcome's metric label and log value.
func (o outcome) String() string {
	switch o {
	case outcomeDelivered:
		return "delivered"
	case outcomeRetried:
		return "retried"
	case outcomeDropped:
		return "dropped"
	case outcomeBlocked:
		return "blocked"
	}
	return "unknown"
}

// deliveriesCounter builds bridge_push_deliveries_total and registers it
// with reg, reusing an identical counter already registered there.
func deliveriesCounter(reg prometheus.Registerer) (*prometheus.CounterVec, error) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bridge_push_deliveries_total",
		Help: "Push notification delivery attempts, by outcome (delivered, retried, dropped, blocked).",
	}, []string{"outcome"})
	if reg == nil {
		return c, nil
	}
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(*prometheus.CounterVec); ok {
				return existing, nil
			}
		}
		return nil, fmt.Errorf("push: register bridge_push_deliveries_total: %w", err)
	}
	return c, nil
}
