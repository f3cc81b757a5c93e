package push_test

import (
	"context"
	"log"

	"github.com/a2a-mcp-bridge/bridge/a2a/push"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// Example wires a dispatcher to a task manager: the manager's OnEvent hook
// wakes the dispatcher after every persisted event, and Run delivers in the
// background until the context ends.
func Example() {
	var store taskmanager.Store // the gateway's store: memory, SQLite or PostgreSQL

	guard, err := netguard.New(netguard.Config{}) // https, public addresses only
	if err != nil {
		log.Fatal(err)
	}
	if store == nil {
		return // the example has no store; the wiring below is the point
	}
	d, err := push.New(push.Config{}, store, guard)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go d.Run(ctx)
	_, _ = taskmanager.New(taskmanager.Config{Store: store, OnEvent: d.OnEvent /* , Executor: … */})
	// Output:
}
