package settings

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// statusLine is read with positioned errors; a project's waits for trust, disableAllHooks
// turns it off, and the file of highest precedence wins.
func TestStatusLineSetting(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		trusted bool
		want    string // command@file, or ""
		skipped string
		wantErr string
	}{
		{name: "user", files: map[string]string{"user": `{"statusLine": {"type": "command", "command": "~/sl.sh", "padding": 2}}`}, want: "~/sl.sh/2@user"},
		{name: "local wins over user", files: map[string]string{"user": `{"statusLine": {"type": "command", "command": "u"}}`, "local": `{"statusLine": {"type": "command", "command": "l"}}`},
			trusted: true, want: "l/0@local"},
		{name: "untrusted project", files: map[string]string{"project": `{"statusLine": {"type": "command", "command": "p"}}`}, skipped: "this project is not trusted"},
		{name: "disableAllHooks", files: map[string]string{"user": `{"disableAllHooks": true, "statusLine": {"type": "command", "command": "u"}}`}, skipped: "disableAllHooks"},
		{name: "not an object", files: map[string]string{"user": `{"statusLine": "sl.sh"}`}, wantErr: "1:16: statusLine must be an object"},
		{name: "wrong type", files: map[string]string{"user": `{"statusLine": {"type": "static", "command": "x"}}`}, wantErr: `1:25: statusLine.type must be "command"`},
		{name: "no command", files: map[string]string{"user": `{"statusLine": {"type": "command"}}`}, wantErr: "1:16: statusLine.command must be a non-empty string"},
		{name: "bad padding", files: map[string]string{"user": `{"statusLine": {"type": "command", "command": "x", "padding": -1}}`}, wantErr: "1:63: statusLine.padding must be a whole number"},
		{name: "fractional padding", files: map[string]string{"user": `{"statusLine": {"type": "command", "command": "x", "padding": 1.5}}`}, wantErr: "statusLine.padding must be a whole number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for n, doc := range tt.files {
				e.write(t, n, doc)
			}
			l, err := Load(e.opts)
			if tt.wantErr != "" {
				var pe *ParseError
				if !errors.As(err, &pe) || !strings.Contains(fmt.Sprintf("%d:%d: %s", pe.Line, pe.Col, pe.Msg), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sl, why := l.StatusLine(tt.trusted)
			got := ""
			if sl != nil {
				got = fmt.Sprintf("%s/%d@%s", sl.Command, sl.Padding, sl.File)
			}
			want := tt.want
			if i := strings.LastIndex(want, "@"); i >= 0 {
				want = want[:i+1] + e.path(want[i+1:])
			}
			if got != want || !strings.Contains(why, tt.skipped) || (tt.skipped == "") != (why == "") {
				t.Errorf("statusLine %q (%q), want %q (%q)", got, why, want, tt.skipped)
			}
		})
	}
}
