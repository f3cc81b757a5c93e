package publish

// WorkingGrace is workingGrace, for the tests that time it.
const WorkingGrace = workingGrace
