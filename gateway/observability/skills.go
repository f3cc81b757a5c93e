package observability

import (
	"context"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/observe"
)

// SkillCounting counts every message a fronted A2A agent runs as a
// call of the skill it names (bridge_skill_calls_total and
// bridge_skill_call_duration_seconds, as published agents' tools are).
// The skill label takes only the skills the agent's card lists ("other"
// for any other name, "unknown" when the message names none), so a caller
// cannot grow the label set.
type SkillCounting struct {
	taskmanager.Executor
	Agent    string
	HasSkill func(id string) bool // the card lists the skill, as it is now
	M        *Metrics
}

// Execute implements taskmanager.Executor.
func (e *SkillCounting) Execute(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	start := time.Now()
	err := e.Executor.Execute(ctx, req, u)
	e.M.Series().SkillCall(e.Agent, e.skillOf(req), executeOutcome(ctx, u, err), time.Since(start))
	return err
}

// skillOf is the skill label of a message: the skill it names when the card
// lists it.
func (e *SkillCounting) skillOf(req *taskmanager.Request) string {
	id, err := server.SkillID(req.Message, req.Metadata)
	if err != nil || id == "" {
		return ""
	}
	if e.HasSkill(id) {
		return id
	}
	return "other"
}

// executeOutcome is the outcome label of one execution: canceled when the
// task was cancelled, error when it failed or the executor returned an
// error, else ok (completed, or waiting for input).
func executeOutcome(ctx context.Context, u *taskmanager.Updater, err error) string {
	switch {
	case ctx.Err() != nil || u.State() == a2a.TaskStateCanceled:
		return observe.OutcomeCanceled
	case err != nil, u.State() == a2a.TaskStateFailed, u.State() == a2a.TaskStateRejected:
		return observe.OutcomeError
	}
	return observe.OutcomeOK
}
