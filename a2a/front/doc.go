// Package proxy fronts an upstream A2A agent: it is an taskmanager.Executor whose
// backend is another agent, called with the a2a client.
//
// The bridge owns every task id it hands out (the task manager generates
// them) and keeps the upstream's task and context ids in the task's metadata
// under [MappingKey], sealed with AES-GCM and bound to the task's owner and
// id, so that callers never see upstream ids and a restarted bridge can still
// continue or cancel the task. Tasks are scoped to the bridge's principals by
// the manager's store even when the upstream has no notion of owners: the
// upstream sees one client, the bridge.
//
// Events are relayed one by one as they arrive when the upstream card
// declares streaming (SendStreamingMessage), otherwise the upstream is called
// with a blocking SendMessage and its final task is relayed. Status and
// artifact events are rewritten to the bridge's ids before they are emitted;
// a direct message reply from the upstream becomes the bridge's direct reply.
// A continuation (a message to a task in INPUT_REQUIRED) is sent to the
// upstream task named by the mapping; Cancel cancels the upstream task.
//
// Outbound requests carry only the credential of [Config.Credentials]; the
// caller's headers and token are never forwarded. Push notifications and
// subscriptions are served by the bridge itself from its own event log: the
// upstream is never given a caller's webhook.
package front
