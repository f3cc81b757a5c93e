package netguard

import (
	"errors"
	"net/url"
)

// RedactURL returns err with the URL that net/http puts into its *url.Error
// cut down to scheme and host. Push webhook URLs often carry a secret in the
// path or query, and http.Client errors quote the whole URL (only a password
// is masked), so log RedactURL(err), not err. Errors without a *url.Error are
// returned unchanged; errors.Is and errors.As still see the cause.
func RedactURL(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	short := "(unparsable url)"
	if u, perr := url.Parse(ue.URL); perr == nil {
		short = (&url.URL{Scheme: u.Scheme, Host: u.Host}).String() + "/…"
	}
	return &url.Error{Op: ue.Op, URL: short, Err: ue.Err}
}
