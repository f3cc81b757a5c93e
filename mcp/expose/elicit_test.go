package expose_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// scripted answers elicitations with its contents in turn (the last one
// from then on), recording the questions and how many were open at once.
type scripted struct {
	answers []map[string]any

	mu       sync.Mutex
	messages []string
	open     atomic.Int64
	maxOpen  atomic.Int64
}

func (s *scripted) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	n := s.open.Add(1)
	defer s.open.Add(-1)
	for {
		m := s.maxOpen.Load()
		if n <= m || s.maxOpen.CompareAndSwap(m, n) {
			break
		}
	}
	s.mu.Lock()
	i := min(len(s.messages), len(s.answers)-1)
	s.messages = append(s.messages, req.Params.Message)
	a := s.answers[i]
	s.mu.Unlock()
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: a}}, nil
}

func (s *scripted) asked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.messages...)
}

// TestSchemaInvalidAnswerIsAskedAgain: {"name":"Ada"} to a request for
// {response} is not sent on as an empty reply ("Hello, stranger!"): the
// host is asked again, told what was wrong, and the fitting answer reaches
// the agent. Both eras: elicitation/create (legacy) and a multi round-trip
// input request (2026-07-28).
func TestSchemaInvalidAnswerIsAskedAgain(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			h := &scripted{answers: []map[string]any{{"name": "Ada"}, {}, {"response": "Ada"}}}
			var c *client.Client
			ctx := context.Background()
			if era == "legacy" {
				c, ctx = inProcess(t, h)
			} else {
				b, _ := echoBridge(t, nil)
				c = b.connect(t, b.token(t, "alice"), client.WithElicitationHandler(h))
			}
			res := call(t, c, ctx, "echo", map[string]any{"message": "/interview"}, nil)
			if res.IsError || !strings.Contains(texts(res), "Hello, Ada!") {
				t.Fatalf("result %q", texts(res))
			}
			asked := h.asked()
			if len(asked) != 3 {
				t.Fatalf("asked %d times, want 3: %q", len(asked), asked)
			}
			if !strings.Contains(asked[1], "response is required") || !strings.Contains(asked[1], "name is not asked for") || !strings.Contains(asked[1], "What is your name?") {
				t.Errorf("second question %q: want what was wrong and the question again", asked[1])
			}
		})
	}
}

// TestAnswersThatNeverFitLeaveTheQuestionStanding: after elicitation.MaxAsks answers
// that do not fit, the call returns the continuation (the task still waits
// for input), never an empty reply to the agent.
func TestAnswersThatNeverFitLeaveTheQuestionStanding(t *testing.T) {
	h := &scripted{answers: []map[string]any{{}}}
	c, ctx := inProcess(t, h)
	res := call(t, c, ctx, "echo", map[string]any{"message": "/interview"}, nil)
	sc := structured(t, res)
	if sc["state"] != "input_required" || strings.Contains(texts(res), "stranger") {
		t.Fatalf("result %v %q", sc, texts(res))
	}
	if n := len(h.asked()); n != 3 {
		t.Fatalf("asked %d times, want 3", n)
	}
	res = call(t, c, ctx, "echo", map[string]any{"message": "Grace", "taskId": sc["taskId"], "contextId": sc["contextId"]}, nil)
	if !strings.Contains(texts(res), "Hello, Grace!") {
		t.Fatalf("answer by taskId: %q", texts(res))
	}
}

// TestConcurrentQuestionsOnOneSessionAreAskedInTurn: two calls on one host
// session ask at once; the host gets one question at a time, each answer
// goes to the call that asked, and neither is declined.
func TestConcurrentQuestionsOnOneSessionAreAskedInTurn(t *testing.T) {
	h := &nameByQuestion{}
	c, ctx := inProcess(t, h)
	var wg sync.WaitGroup
	results := make([]string, 2)
	for i := range results {
		wg.Go(func() {
			res := call(t, c, ctx, "echo", map[string]any{"message": "/interview"}, nil)
			results[i] = texts(res)
		})
	}
	wg.Wait()
	got := results[0] + results[1]
	if !strings.Contains(got, "Hello, caller1!") || !strings.Contains(got, "Hello, caller2!") {
		t.Fatalf("results %q", results)
	}
	if m := h.maxOpen.Load(); m != 1 {
		t.Fatalf("%d questions open at once on one session, want 1", m)
	}
}

// nameByQuestion answers the n-th question with "callerN", holding each a
// moment so that an overlap would show.
type nameByQuestion struct {
	n, open, maxOpen atomic.Int64
}

func (h *nameByQuestion) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	o := h.open.Add(1)
	defer h.open.Add(-1)
	for {
		m := h.maxOpen.Load()
		if o <= m || h.maxOpen.CompareAndSwap(m, o) {
			break
		}
	}
	time.Sleep(50 * time.Millisecond)
	name := fmt.Sprintf("caller%d", h.n.Add(1))
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"response": name}}}, nil
}
