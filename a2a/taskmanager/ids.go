package taskmanager

import "github.com/google/uuid"

// NewID returns the id of a new task or context: a version 7 UUID, whose
// leading 48 bits are the Unix time in milliseconds and whose other 74 bits
// are random (google/uuid keeps ids made in the same millisecond in order).
//
// Ids made one after another sort one after another, so a store's index on
// them grows at its right edge: an insert dirties the same few pages as the
// one before it instead of a random page of the whole index (SQLite writes
// each dirtied page to its WAL and back at checkpoint; PostgreSQL's B-trees
// likewise). The time an id reveals is its task's creation time, which the
// task's owner, the only caller who can read the task, is shown anyway; a
// task is found by its owner and id, never by the id alone, so the 74
// random bits are uniqueness, not access control.
func NewID() string {
	id, err := uuid.NewV7()
	if err != nil { // the random source failed: a random id still works
		return uuid.NewString()
	}
	return id.String()
}
