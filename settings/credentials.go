package settings

import (
	"fmt"
	"strings"

	"github.com/reinsdev/reins/permission"
)

// KeyHelper is an apiKeyHelper a settings file names: a shell command whose standard output is
// the model API's key.
type KeyHelper struct {
	Command   string
	File      string
	Line, Col int
	Source    permission.Source
}

// Origin is where the helper was set, as file:line:col.
func (h KeyHelper) Origin() string { return fmt.Sprintf("%s:%d:%d", h.File, h.Line, h.Col) }

// APIKeyHelper returns the apiKeyHelper in effect, by the precedence of defaultMode (nil if no
// file sets one), and the helpers that were passed over because the file may not run one: the
// project's files (shared and local) name a helper only in a trusted project. A helper is a
// command, and a cloned repository must not run one by being opened — nor point the key
// request at a program of its own — so, like its hooks, an untrusted project's helper is
// skipped and the user's (if any) applies.
func (l *Loaded) APIKeyHelper(trusted bool) (use *KeyHelper, skipped []KeyHelper) {
	for _, f := range l.scalarOrder() {
		e := f.Settings.APIKeyHelper
		if e == nil || strings.TrimSpace(e.Value) == "" {
			continue
		}
		h := KeyHelper{Command: e.Value, File: f.Path, Line: e.Line, Col: e.Col, Source: f.Source}
		if !trusted && WaitsForTrust(f.Source) {
			skipped = append(skipped, h)
			continue
		}
		use = &h
	}
	return use, skipped
}
