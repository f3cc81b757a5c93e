package a2a

import (
	"encoding/json"
	"strconv"
)

// encodeClientRPCRequest returns the body json.Marshal writes for
// clientRPCRequest{"2.0", id, method, params}. The SendMessage params a
// proxy sends on every call are appended by hand (no reflection, no
// intermediate buffers); any other params, and any value the appenders
// refuse, go through json.Marshal, which then gives its usual bytes or
// error.
func encodeClientRPCRequest(id int64, method string, params any) ([]byte, error) {
	if p, ok := params.(*SendMessageRequest); ok && p != nil {
		if b, ok := appendClientSendRequest(make([]byte, 0, 512), id, method, p); ok {
			return b, nil
		}
	}
	return json.Marshal(clientRPCRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params})
}

// appendClientSendRequest appends the request with SendMessageRequest
// params; ok is false when it cannot (a push config, which it leaves to
// json.Marshal, or a value the appenders refuse).
func appendClientSendRequest(dst []byte, id int64, method string, p *SendMessageRequest) (_ []byte, ok bool) {
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
