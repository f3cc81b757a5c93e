// Package taskmanager enforces the A2A task lifecycle over a store: the
// Manager validates each message, takes the task's run lease, runs the
// agent's Executor and persists every event it emits through the Updater
// before anyone sees it; followers stream a task's event log (follow.go);
// leases are renewed and cancel flags honoured on every replica; the
// Maintainer prunes finished tasks and recovers those whose replica
// stopped (recovery.go); Stop fails the running tasks on shutdown.
//
// It owns the Store interfaces the stores implement (a2a/store) and the
// task listing order and page tokens they share (query.go). It imports a2a
// for the wire types and must not import the server (a2a/server) or the
// client (a2a/client): the server calls the manager, and an executor that
// calls an upstream agent (a2a/front) brings its own client.
package taskmanager
