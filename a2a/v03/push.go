package v03

import (
	"encoding/json"
	"fmt"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// PushBody is the push.Config.LegacyBody of the bridge: a delivery to a
// webhook a 0.3 caller registered is the task, in its 0.3 shape ("kind":
// "task", lowercase states), as the 0.3 SDKs post it on each change; the
// token travels in X-A2A-Notification-Token (beside A2A-Notification-Token).
func PushBody(version string, task *a2a.Task, _ *a2a.StreamResponse) ([]byte, error) {
	if version != Version {
		return nil, fmt.Errorf("a2a/v03: no push body for protocol version %q", clip(version))
	}
	return json.Marshal(translator{}.taskTo03(task))
}
