package elicitation

import (
	"errors"
	"strings"
	"testing"
)

// TestAskAgainTellsWhatWasWrongThenGivesUp: an answer that does not fit is
// never returned; the question is asked again with the problem, and after
// MaxAsks such answers AskAgain fails; an answer that fits ends it.
func TestAskAgainTellsWhatWasWrongThenGivesUp(t *testing.T) {
	for _, tt := range []struct {
		name    string
		answers []string // "" does not fit
		want    string
		asked   int
	}{
		{"fits at once", []string{"Ada"}, "Ada", 1},
		{"fits the second time", []string{"", "Ada"}, "Ada", 2},
		{"never fits", []string{"", "", "", "Ada"}, "", MaxAsks},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			got, err := AskAgain("What is your name?", func(text string) (string, error) {
				asked = append(asked, text)
				return tt.answers[len(asked)-1], nil
			}, func(a string) error {
				if a == "" {
					return errors.New("name is required")
				}
				return nil
			})
			if len(asked) != tt.asked {
				t.Fatalf("asked %d times %q, want %d", len(asked), asked, tt.asked)
			}
			if asked[0] != "What is your name?" || len(asked) > 1 && asked[1] != "name is required\nWhat is your name?" {
				t.Errorf("questions %q: want the question, then what was wrong and the question", asked)
			}
			if tt.want == "" {
				if err == nil || !strings.Contains(err.Error(), "3 answers did not match the requested schema: name is required") || got != "" {
					t.Errorf("never fitting: %q, %v", got, err)
				}
			} else if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	// An error from ask ends it at once.
	n := 0
	if _, err := AskAgain("q", func(string) (int, error) { n++; return 0, errors.New("host gone") }, func(int) error { return errors.New("never") }); err == nil || n != 1 {
		t.Errorf("ask error: %v after %d asks", err, n)
	}
}
