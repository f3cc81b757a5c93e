package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/a2a-mcp-bridge/bridge/admin"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// defaultAdminURL is where `bridge status` looks without --admin.
const defaultAdminURL = "http://127.0.0.1:9090"

// adminTokenEnv holds the admin API key or token for `bridge status`
// (an environment variable, so that it is not on the command line).
const adminTokenEnv = "BRIDGE_ADMIN_TOKEN"

// runStatus is `bridge status [--admin URL]`: it reads the admin API of a
// running bridge and prints it as tables.
func runStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("admin", envOr("BRIDGE_ADMIN_URL", defaultAdminURL), "the admin listener's URL (admin.listen; env BRIDGE_ADMIN_URL)")
	tokenFile := fs.String("token-file", "", "file holding the admin API key or token (default: env "+adminTokenEnv+")")
	asJSON := fs.Bool("json", false, "print the admin API's JSON as it is")
	timeout := fs.Duration("timeout", 10*time.Second, "how long to wait for the answer")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: status [--admin URL] [--token-file FILE] [--json]", errUsage)
	}
	token := os.Getenv(adminTokenEnv)
	if *tokenFile != "" {
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			return fmt.Errorf("--token-file: %w", err)
		}
		token = strings.TrimSpace(string(b))
	}
	u, err := url.Parse(strings.TrimRight(*base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--admin %q is not an http(s) URL such as %s", *base, defaultAdminURL)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String()+admin.APIPath, nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	// The operator names the address: the trusted client (no environment
	// proxy, no redirects).
	resp, err := netguard.Trusted(netguard.Config{Timeout: *timeout}).Do(req)
	if err != nil {
		return fmt.Errorf("reading %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("reading %s: %w", u.Redacted(), err)
	}
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusUnauthorized:
		return fmt.Errorf("%s refused: admin credentials required (set %s or --token-file)", u.Redacted(), adminTokenEnv)
	case http.StatusForbidden:
		return fmt.Errorf("%s refused: %s", u.Redacted(), errorText(body, "forbidden"))
	default:
		return fmt.Errorf("%s answered %s", u.Redacted(), resp.Status)
	}
	if *asJSON {
		_, err := stdout.Write(body)
		return err
	}
	var st admin.Status
	if err := json.Unmarshal(body, &st); err != nil {
		return fmt.Errorf("%s: not the admin API's answer: %w", u.Redacted(), err)
	}
	return printStatus(stdout, &st)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// errorText is the "error" of a JSON error body, else def.
func errorText(body []byte, def string) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return e.Error
	}
	return def
}

// printStatus prints the status as tables.
func printStatus(w io.Writer, st *admin.Status) error {
	ready := "ready"
	if !st.Ready {
		ready = "NOT READY"
	}
	fmt.Fprintf(w, "bridge %s, started %s (up %s), %s\n", st.Version, st.Started.UTC().Format(time.RFC3339), st.Now.Sub(st.Started).Round(time.Second), ready)
	for _, l := range st.NotReady {
		fmt.Fprintf(w, "  %s\n", l)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nUPSTREAM\tKIND\tSTATE\tSINCE\tLAST CHECK\tOFFERS\tSIGNATURE\tLAST ERROR")
	for _, u := range st.Upstreams {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", u.Name, u.Kind, u.State, ago(st.Now, u.Since), ago(st.Now, u.LastCheck), u.Tools, admin.SignatureText(u), dash(u.LastError))
	}
	if len(st.Upstreams) == 0 {
		fmt.Fprintln(tw, "(none)")
	}
	fmt.Fprintln(tw, "\nFACE\tKIND\tNAME\tPATH")
	for _, r := range st.Routes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Face, dash(string(r.Kind)), dash(r.Name), r.Path)
	}
	fmt.Fprintln(tw, "\nTASK STATE\tCOUNT")
	if st.TasksError != "" {
		fmt.Fprintf(tw, "(%s)\t\n", st.TasksError)
	}
	for _, t := range st.Tasks {
		fmt.Fprintf(tw, "%s\t%d\n", strings.ToLower(strings.TrimPrefix(string(t.State), "TASK_STATE_")), t.Count)
	}
	fmt.Fprintf(tw, "\nREFUSED\tLABELS\tLAST %s\tSINCE START\n", strings.ToUpper(shortDuration(st.RecentWindow)))
	for _, r := range st.Refusals {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", r.Kind, r.LabelText(), r.Recent, r.Total)
	}
	if len(st.Refusals) == 0 {
		fmt.Fprintln(tw, "(none)")
	}
	return tw.Flush()
}

func ago(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return now.Sub(t).Round(time.Second).String() + " ago"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// shortDuration drops a duration's zero minutes and seconds: "1h0m0s" is
// "1h", "30m0s" "30m"; "10s" stays as it is.
func shortDuration(s string) string {
	d, err := time.ParseDuration(s)
	if err != nil {
		return s
	}
	out := d.String()
	if strings.HasSuffix(out, "m0s") {
		out = strings.TrimSuffix(out, "0s")
	}
	if strings.HasSuffix(out, "h0m") {
		out = strings.TrimSuffix(out, "0m")
	}
	return out
}
