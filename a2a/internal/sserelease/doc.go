// Package sserelease takes idle HTTP/1.1 event streams away from
// net/http, and hands their connections back when the streams end.
//
// It owns the contract between the server that releases a stream and the
// producer that goes on writing to it (Handoff). It imports nothing of the
// bridge: the server (a2a/server) and the task manager (a2a/taskmanager)
// import it, never the other way round.
package sserelease
