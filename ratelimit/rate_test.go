package ratelimit

import (
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	tests := []struct {
		in      string
		want    Rate
		wantErr string
	}{
		{in: "60/m", want: Rate{Limit: 60, Period: time.Minute}},
		{in: "10/s", want: Rate{Limit: 10, Period: time.Second}},
		{in: "1000/h", want: Rate{Limit: 1000, Period: time.Hour}},
		{in: "5/d", want: Rate{Limit: 5, Period: 24 * time.Hour}},
		{in: "1000000000/s", want: Rate{Limit: MaxRateLimit, Period: time.Second}},
		{in: "", wantErr: `ratelimit: invalid rate "": want N/U such as 60/m (U is s, m, h or d)`},
		{in: "60", wantErr: `ratelimit: invalid rate "60": want N/U such as 60/m (U is s, m, h or d)`},
		{in: "1000-H", wantErr: `ratelimit: invalid rate "1000-H": want N/U such as 60/m (U is s, m, h or d)`},
		{in: "/m", wantErr: `ratelimit: invalid rate "/m": missing request count before '/'`},
		{in: "0/m", wantErr: `ratelimit: invalid rate "0/m": request count must be at least 1, without leading zeros`},
		{in: "060/m", wantErr: `ratelimit: invalid rate "060/m": request count must be at least 1, without leading zeros`},
		{in: "-1/m", wantErr: `ratelimit: invalid rate "-1/m": request count must be a positive decimal integer`},
		{in: "+1/m", wantErr: `ratelimit: invalid rate "+1/m": request count must be a positive decimal integer`},
		{in: " 1/m", wantErr: `ratelimit: invalid rate " 1/m": request count must be a positive decimal integer`},
		{in: "1000000001/s", wantErr: `ratelimit: invalid rate "1000000001/s": request count must be at most 1000000000`},
		{in: "99999999999999999999/s", wantErr: `ratelimit: invalid rate "99999999999999999999/s": request count must be at most 1000000000`},
		{in: "60/M", wantErr: `ratelimit: invalid rate "60/M": unit "M" is not one of s, m, h, d`},
		{in: "60/min", wantErr: `ratelimit: invalid rate "60/min": unit "min" is not one of s, m, h, d`},
		{in: "60/", wantErr: `ratelimit: invalid rate "60/": unit "" is not one of s, m, h, d`},
		{in: "60/m/s", wantErr: `ratelimit: invalid rate "60/m/s": unit "m/s" is not one of s, m, h, d`},
		{in: "60/m ", wantErr: `ratelimit: invalid rate "60/m ": unit "m " is not one of s, m, h, d`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseRate(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("ParseRate(%q) error = %v, want %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseRate(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("ParseRate(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if s := got.String(); s != tt.in {
				t.Fatalf("String() = %q, want %q", s, tt.in)
			}
		})
	}
}

func TestParseRateErrorIsClipped(t *testing.T) {
	long := make([]byte, 10_000)
	for i := range long {
		long[i] = 'x'
	}
	_, err := ParseRate(string(long))
	if err == nil || len(err.Error()) > 200 {
		t.Fatalf("error for a 10 kB rate is %d bytes; want it clipped", len(err.Error()))
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"60/m", "10/s", "1000/h", "1/d", "0/m", "1000-H", "/", "", "1/", "9223372036854775808/s", "01/s", "1/sm", "\xff/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err != nil {
			return
		}
		if !r.valid() {
			t.Fatalf("ParseRate(%q) accepted an invalid rate %+v", s, r)
		}
		if r.String() != s {
			t.Fatalf("ParseRate(%q).String() = %q: accepted a non-canonical form", s, r.String())
		}
		back, err := ParseRate(r.String())
		if err != nil || back != r {
			t.Fatalf("round trip of %q: %+v, %v", s, back, err)
		}
	})
}
