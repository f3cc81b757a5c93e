package elicitation

import "fmt"

// MaxAsks bounds how often one question is asked: after that many answers
// that do not fit its schema, the asker gives up.
const MaxAsks = 3

// AskAgain asks question with ask until an answer fits: check returns what
// is wrong with an answer, or nil for one that fits or needs no checking (a
// decline, a cancel). An answer that does not fit is never returned: the
// question is asked again, told what was wrong, up to MaxAsks times in all,
// and then AskAgain fails with the last problem. An error from ask ends it
// at once.
func AskAgain[R any](question string, ask func(text string) (R, error), check func(R) error) (R, error) {
	text := question
	for i := 1; ; i++ {
		r, err := ask(text)
		if err != nil {
			return r, err
		}
		bad := check(r)
		if bad == nil {
			return r, nil
		}
		if i == MaxAsks {
			var zero R
			return zero, fmt.Errorf("elicitation: %d answers did not match the requested schema: %w", i, bad)
		}
		text = bad.Error() + "\n" + question
	}
}
