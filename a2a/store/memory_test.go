package store_test

import (
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/store/storetest"
)

func TestMemoryConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) a2a.Store { return store.NewMemory() })
}
