package v03

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
)

// Client speaks A2A 0.3 JSON-RPC to an agent behind the 1.0 API of
// client.Client: it is the client.Legacy of a client built from a 0.3
// card (see ReadCard). "blocking" is always sent, since the 0.3 SDKs'
// servers default it differently (Go and JS block, Python does not).
type Client struct {
	// Logger receives what is skipped (default slog.Default()).
	Logger *slog.Logger
}

var _ client.Legacy = (*Client)(nil)

func (c *Client) tr() translator { return translator{log: c.Logger} }

// RPCRequest is the 0.3 method and params of a 1.0 call.
func (c *Client) RPCRequest(method string, params any) (string, any, error) {
	t := c.tr()
	switch p := params.(type) {
	case *a2a.SendMessageRequest:
		m := MethodMessageSend
		if method == a2a.MethodSendStreamingMessage {
			m = MethodMessageStream
		}
		return m, t.sendTo03(p), nil
	case *a2a.GetTaskRequest:
		return MethodTasksGet, &TaskQueryParams{ID: p.ID, HistoryLength: p.HistoryLength}, nil
	case *a2a.CancelTaskRequest:
		return MethodTasksCancel, &TaskIDParams{ID: p.ID, Metadata: p.Metadata}, nil
	case *a2a.SubscribeToTaskRequest:
		return MethodTasksResubscribe, &TaskIDParams{ID: p.ID}, nil
	case *a2a.TaskPushNotificationConfig:
		return MethodPushConfigSet, &TaskPushConfig{TaskID: p.TaskID, PushNotificationConfig: *pushConfigTo03(p)}, nil
	case *a2a.GetTaskPushNotificationConfigRequest:
		return MethodPushConfigGet, &PushConfigParams{ID: p.TaskID, PushNotificationConfigID: p.ID}, nil
	case *a2a.ListTaskPushNotificationConfigsRequest:
		return MethodPushConfigList, &TaskIDParams{ID: p.TaskID}, nil
	case *a2a.DeleteTaskPushNotificationConfigRequest:
		return MethodPushConfigDelete, &PushConfigParams{ID: p.TaskID, PushNotificationConfigID: p.ID}, nil
	case *a2a.GetExtendedAgentCardRequest:
		return MethodAuthenticatedCard, struct{}{}, nil
	}
	return "", nil, a2a.ErrUnsupportedOperation.Withf("A2A 0.3 agents have no %s", method)
}

// RPCResult reads a 0.3 result into the 1.0 result out points to.
func (c *Client) RPCResult(method string, raw json.RawMessage, out any) error {
	t := c.tr()
	switch o := out.(type) {
	case *a2a.SendMessageResponse, *a2a.Task:
		var e Event
		if err := decode(raw, &e); err != nil {
			return fmt.Errorf("the 0.3 result is not a task or message: %s", clip(err.Error()))
		}
		if e.Kind == "" { // some 0.3 agents leave the kind out of results
			e.Kind = KindTask
			if e.MessageID != "" && e.Role != "" && e.Status == nil {
				e.Kind = KindMessage
			}
		}
		ev, err := t.eventTo10(&e)
		if err != nil {
			return fmt.Errorf("the 0.3 result: %s", err.Error())
		}
		switch o := o.(type) {
		case *a2a.SendMessageResponse:
			if ev == nil || ev.Task == nil && ev.Message == nil {
				return fmt.Errorf("the 0.3 result is a %q, not a task or message", clip(e.Kind))
			}
			o.Task, o.Message = ev.Task, ev.Message
		case *a2a.Task:
			if ev == nil || ev.Task == nil {
				return fmt.Errorf("the 0.3 result is a %q, not a task", clip(e.Kind))
			}
			*o = *ev.Task
		}
		return nil
	case *a2a.TaskPushNotificationConfig:
		var p TaskPushConfig
		if err := decode(raw, &p); err != nil {
			return fmt.Errorf("the 0.3 push notification config: %s", clip(err.Error()))
		}
		*o = *pushTo10(p.TaskID, &p.PushNotificationConfig)
		return nil
	case *a2a.ListTaskPushNotificationConfigsResponse:
		var list []TaskPushConfig
		if err := decode(raw, &list); err != nil {
			return fmt.Errorf("the 0.3 push notification config list: %s", clip(err.Error()))
		}
		for i := range list {
			o.Configs = append(o.Configs, *pushTo10(list[i].TaskID, &list[i].PushNotificationConfig))
		}
		return nil
	case *json.RawMessage:
		*o = append((*o)[:0], raw...)
		return nil
	case *a2a.AgentCard:
		card, _, err := ReadCard(raw)
		if err != nil {
			return err
		}
		*o = *card
		return nil
	}
	return fmt.Errorf("a2a/v03: no 1.0 result for %s (%T)", method, out)
}

// RPCEvent reads a 0.3 stream event.
func (c *Client) RPCEvent(raw json.RawMessage) (*a2a.StreamResponse, error) {
	var e Event
	if err := decode(raw, &e); err != nil {
		return nil, fmt.Errorf("the 0.3 event: %s", clip(err.Error()))
	}
	return c.tr().eventTo10(&e)
}

// card03 is what the bridge reads of a 0.3 card.
type card03 struct {
	Name                 string           `json:"name"`
	Description          string           `json:"description"`
	Version              string           `json:"version"`
	URL                  string           `json:"url"`
	PreferredTransport   string           `json:"preferredTransport"`
	AdditionalInterfaces []AgentInterface `json:"additionalInterfaces"`
	ProtocolVersion      string           `json:"protocolVersion"`
	Provider             *struct {
		URL          string `json:"url"`
		Organization string `json:"organization"`
	} `json:"provider"`
	DocumentationURL *string `json:"documentationUrl"`
	IconURL          *string `json:"iconUrl"`
	Capabilities     struct {
		Streaming         *bool `json:"streaming"`
		PushNotifications *bool `json:"pushNotifications"`
	} `json:"capabilities"`
	SupportsAuthenticatedExtendedCard *bool      `json:"supportsAuthenticatedExtendedCard"`
	DefaultInputModes                 []string   `json:"defaultInputModes"`
	DefaultOutputModes                []string   `json:"defaultOutputModes"`
	Skills                            []skill03  `json:"skills"`
	SupportedInterfaces               []struct{} `json:"supportedInterfaces"`
}

type skill03 struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Examples    []string `json:"examples"`
	InputModes  []string `json:"inputModes"`
	OutputModes []string `json:"outputModes"`
}

// IsCard reports whether a card document is an A2A 0.3 card: it lists no
// 1.0 supportedInterfaces, and has a top-level url or a protocolVersion of
// major version 0.
func IsCard(raw []byte) bool {
	var c card03
	if json.Unmarshal(raw, &c) != nil {
		return false
	}
	return isCard03(&c)
}

func isCard03(c *card03) bool {
	if len(c.SupportedInterfaces) > 0 {
		return false
	}
	return c.URL != "" || strings.HasPrefix(strings.TrimSpace(c.ProtocolVersion), "0.")
}

// ReadCard reads an agent card of either version. A 1.0 card is returned
// as it is, with a nil legacy; a 0.3 card becomes the 1.0 AgentCard with
// its url and additionalInterfaces as supportedInterfaces of protocol
// version 0.3, and legacy is the client.Legacy to call it with (pass it
// to client.WithLegacy). The 0.3 card's security schemes are not read: the
// bridge's credentials for an upstream come from its own configuration.
func ReadCard(raw []byte) (*a2a.AgentCard, client.Legacy, error) {
	var c03 card03
	if err := json.Unmarshal(raw, &c03); err == nil && !isCard03(&c03) {
		var c a2a.AgentCard
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, nil, fmt.Errorf("a2a/v03: card: %w", err)
		}
		return &c, nil, nil
	} else if err != nil {
		return nil, nil, fmt.Errorf("a2a/v03: card: %w", err)
	}
	out := &a2a.AgentCard{
		Name: c03.Name, Description: c03.Description, Version: c03.Version,
		DocumentationURL: c03.DocumentationURL, IconURL: c03.IconURL,
		Capabilities: a2a.AgentCapabilities{Streaming: c03.Capabilities.Streaming, PushNotifications: c03.Capabilities.PushNotifications,
			ExtendedAgentCard: c03.SupportsAuthenticatedExtendedCard},
		DefaultInputModes: c03.DefaultInputModes, DefaultOutputModes: c03.DefaultOutputModes,
	}
	if c03.Provider != nil {
		out.Provider = &a2a.AgentProvider{URL: c03.Provider.URL, Organization: c03.Provider.Organization}
	}
	version := strings.TrimSpace(c03.ProtocolVersion)
	if !strings.HasPrefix(version, "0.") {
		version = "0.3"
	}
	seen := map[string]bool{}
	add := func(u, transport string) {
		if transport == "" {
			transport = a2a.BindingJSONRPC
		}
		key := strings.ToUpper(transport) + " " + u
		if u == "" || seen[key] {
			return
		}
		seen[key] = true
		out.SupportedInterfaces = append(out.SupportedInterfaces, a2a.AgentInterface{URL: u, ProtocolBinding: strings.ToUpper(transport), ProtocolVersion: version})
	}
	add(c03.URL, c03.PreferredTransport)
	for _, in := range c03.AdditionalInterfaces {
		add(in.URL, in.Transport)
	}
	for _, s := range c03.Skills {
		out.Skills = append(out.Skills, a2a.AgentSkill{ID: s.ID, Name: s.Name, Description: s.Description, Tags: s.Tags, Examples: s.Examples, InputModes: s.InputModes, OutputModes: s.OutputModes})
	}
	return out, &Client{}, nil
}
