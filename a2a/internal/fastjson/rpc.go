//go:build !bridge_nofastjson

package fastjson

import (
	"strconv"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// appendClientSendRequest appends the request with SendMessageRequest
// params; ok is false when it cannot (a push config, which it leaves to
// json.Marshal, or a value the appenders refuse).
func appendClientSendRequest(dst []byte, id int64, method string, p *a2a.SendMessageRequest) (_ []byte, ok bool) {
	cfg := p.Configuration
	if cfg != nil && cfg.TaskPushNotificationConfig != nil {
		return dst, false
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendInt(dst, id, 10)
	dst = append(dst, `,"method":`...)
	dst = appendString(dst, method)
	dst = append(dst, `,"params":{`...)
	if p.Tenant != "" {
		dst = append(dst, `"tenant":`...)
		dst = appendString(dst, p.Tenant)
		dst = append(dst, ',')
	}
	dst = append(dst, `"message":`...)
	if p.Message == nil {
		dst = append(dst, "null"...)
	} else {
		var err error
		if dst, err = appendMessage(dst, p.Message); err != nil {
			return dst, false
		}
	}
	if cfg != nil {
		dst = append(dst, `,"configuration":{`...)
		n := len(dst)
		dst = appendStrings(dst, `"acceptedOutputModes":`, cfg.AcceptedOutputModes)
		if cfg.HistoryLength != nil {
			if len(dst) > n {
				dst = append(dst, ',')
			}
			dst = append(dst, `"historyLength":`...)
			dst = strconv.AppendInt(dst, int64(*cfg.HistoryLength), 10)
		}
		if cfg.ReturnImmediately {
			if len(dst) > n {
				dst = append(dst, ',')
			}
			dst = append(dst, `"returnImmediately":true`...)
		}
		dst = append(dst, '}')
	}
	var err error
	if dst, err = appendMetadata(dst, `,"metadata":`, p.Metadata); err != nil {
		return dst, false
	}
	return append(dst, "}}"...), true
}
