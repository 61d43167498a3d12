package settings

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/permission"
)

// corruptTool is a file tool as the engine sees it: its own check is the shared read or write
// check.
type corruptTool struct {
	name  string
	write bool
}

func (c corruptTool) Name() string { return c.name }
func (c corruptTool) CheckPermissions(ctx context.Context, pc *permission.Context, input any) permission.Decision {
	if c.write {
		return pc.CheckWrite(ctx, input.(string))
	}
	return pc.CheckRead(ctx, input.(string))
}

var (
	corruptRules = []string{"Read", "Edit", "Write", "Read(.env)", "Read(src/**)", "Edit(src/**)", "Edit(**)",
		"Read(**)", "Read(/a.txt)", "Edit(new.txt)", "Read(*.go)", "Bash(rm:*)", "WebFetch(domain:x.com)"}
	corruptTools = []corruptTool{{"Read", false}, {"Edit", true}, {"Write", true}}
	corruptPaths = []string{"a.txt", "src/main.go", ".env", "new.txt", "src/new.go", "outside/../a.txt"}
	// Keys an insertion uses: misspellings and unknown names.
	corruptKeys = []string{"permisions", "Deny", "denny", "Ask", "Permissions", "zzz", "Allow", "alow"}
	// What a rename makes of a key: a typo of it. Renaming to another known key ("deny" to
	// "allow") is an edit of meaning, and renaming to an unrelated name ("permissions" to
	// "theme") cannot be told from a key of another program.
	misspellings = map[string][]string{
		"permissions": {"permisions", "Permissions", "permissons", "PERMISSIONS"},
		"deny":        {"Deny", "denny", "dney", "DENY"},
		"ask":         {"Ask", "aks", "ASK", "asks"},
		"allow":       {"Allow", "alow", "allwo"},
	}
)

// drawSettingsDoc draws a settings document as JSON text, indented or not, with its lists.
func drawSettingsDoc(t *rapid.T) (string, map[string][]string) {
	lists := map[string][]string{}
	for _, key := range []string{"allow", "deny", "ask"} {
		lists[key] = rapid.SliceOfN(rapid.SampledFrom(corruptRules), 0, 4).Draw(t, key)
	}
	doc := map[string]any{"permissions": lists}
	if rapid.Bool().Draw(t, "model") {
		doc["model"] = "m"
	}
	var data []byte
	if rapid.Bool().Draw(t, "indent") {
		data, _ = json.MarshalIndent(doc, "", "  ")
	} else {
		data, _ = json.Marshal(doc)
	}
	return string(data), lists
}

// corrupt applies one to three random corruptions: truncation, a duplicated key, a wrong
// type, an unknown or misspelt key, a flipped byte.
func corrupt(t *rapid.T, doc string, lists map[string][]string) string {
	n := rapid.IntRange(1, 3).Draw(t, "ncorruptions")
	for i := range n {
		label := string(rune('a' + i))
		switch rapid.IntRange(0, 5).Draw(t, "kind"+label) {
		case 0: // truncation, never to nothing: an empty file is the written form of "no
			// settings" (as in Claude Code) and cannot be told from a file cut to zero bytes;
			// docs/security.md says so.
			if len(doc) > 1 {
				doc = doc[:rapid.IntRange(1, len(doc)).Draw(t, "cut"+label)]
			}
		case 1: // duplicate key: a list written twice, the first time with some of its rules
			// (as a merge leaves an older version behind)
			key := rapid.SampledFrom([]string{"allow", "deny", "ask"}).Draw(t, "dupkey"+label)
			var rules []string
			for j, r := range lists[key] {
				if rapid.Bool().Draw(t, fmt.Sprintf("dup%s%d", label, j)) {
					rules = append(rules, r)
				}
			}
			val, _ := json.Marshal(rules)
			doc = strings.Replace(doc, `"permissions":{`, `"permissions":{"`+key+`":`+string(val)+`,`, 1)
			doc = strings.Replace(doc, `"permissions": {`, `"permissions": {"`+key+`": `+string(val)+`, `, 1)
		case 2: // wrong type for a list or for one element
			key := rapid.SampledFrom([]string{"allow", "deny", "ask", "permissions"}).Draw(t, "typekey"+label)
			// Another type than the key's (an empty object for permissions would be an edit
			// that removes rules, not a corruption), or an element of the wrong type.
			vals := []string{`"Bash"`, `7`, `true`, `null`, `{}`, `[7]`}
			if key == "permissions" {
				vals = []string{`"Bash"`, `7`, `true`, `null`, `[]`, `["Read"]`}
			}
			repl := rapid.SampledFrom(vals).Draw(t, "typeval"+label)
			doc = replaceValue(doc, key, repl)
		case 3: // a key renamed to an unknown or misspelt one
			from := rapid.SampledFrom([]string{"allow", "deny", "ask", "permissions"}).Draw(t, "renfrom"+label)
			to := rapid.SampledFrom(misspellings[from]).Draw(t, "rento"+label)
			doc = strings.Replace(doc, `"`+from+`"`, `"`+to+`"`, 1)
		case 4: // an extra unknown key
			key := rapid.SampledFrom(corruptKeys).Draw(t, "extrakey"+label)
			if i := strings.Index(doc, "{"); i >= 0 {
				doc = doc[:i+1] + `"` + key + `x": [], ` + doc[i+1:]
			}
		case 5: // a flipped byte in the structure. A flip inside a string changes what the
			// rule says ("Edit" to "Edix"), which no reader can tell from what was meant.
			if len(doc) > 0 {
				at := rapid.IntRange(0, len(doc)-1).Draw(t, "flipat"+label)
				if inString(doc, at) {
					continue
				}
				b := rapid.ByteRange(0x20, 0x7e).Draw(t, "flipto"+label)
				doc = doc[:at] + string(b) + doc[at+1:]
			}
		}
	}
	return doc
}

// replaceValue replaces the first value of key (up to its matching bracket, or the next comma
// or brace for a scalar) with repl.
func replaceValue(doc, key, repl string) string {
	k := strings.Index(doc, `"`+key+`"`)
	if k < 0 {
		return doc
	}
	colon := strings.Index(doc[k:], ":")
	if colon < 0 {
		return doc
	}
	start := k + colon + 1
	for start < len(doc) && doc[start] == ' ' {
		start++
	}
	end := start
	depth := 0
	for ; end < len(doc); end++ {
		c := doc[end]
		if c == '[' || c == '{' {
			depth++
		} else if c == ']' || c == '}' {
			if depth == 0 {
				break
			}
			depth--
			if depth == 0 {
				end++
				break
			}
		} else if c == ',' && depth == 0 {
			break
		}
	}
	return doc[:start] + repl + doc[end:]
}

// loadDoc loads doc as a settings file of the given source and builds the context; ok is false
// when loading fails (an error, or a broken deny or ask rule that stops a run).
func loadDoc(t *rapid.T, e *testEnv, name, doc string) (*permission.Context, bool) {
	p := e.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(p)
	l, err := Load(e.opts)
	if err != nil {
		return nil, false
	}
	pc, r, err := l.Build(Flags{Trusted: true})
	if err != nil || r.FailClosed() != nil {
		return nil, false
	}
	return pc, true
}

// TestCorruptedSettingsNeverMorePermissive: for random settings documents with random
// corruption, the corrupted document either fails to load, or allows no call that the
// document as written denies or asks for. Loading is what the run does: Load, Build and
// FailClosed.
func TestCorruptedSettingsNeverMorePermissive(t *testing.T) {
	e := newEnv(t)
	for _, p := range []string{"a.txt", "src/main.go", ".env"} {
		writeFile(t, filepath.Join(e.opts.Cwd, p), "x")
	}
	rapid.Check(t, func(t *rapid.T) {
		source := rapid.SampledFrom([]string{"user", "local", "policy", "projectClaude"}).Draw(t, "source")
		doc, lists := drawSettingsDoc(t)
		bad := corrupt(t, doc, lists)
		want, ok := loadDoc(t, e, source, doc)
		if !ok {
			t.Fatalf("the uncorrupted document does not load:\n%s", doc)
		}
		if strings.TrimSpace(bad) == "" {
			// Nothing left: the written form of "no settings" (see the truncation case).
			return
		}
		got, ok := loadDoc(t, e, source, bad)
		if !ok {
			return // loading fails: the run never starts
		}
		var eng permission.Engine
		for _, tool := range corruptTools {
			for _, rel := range corruptPaths {
				path := filepath.Join(e.opts.Cwd, rel)
				dw, err := eng.Decide(context.Background(), want, tool, path)
				if err != nil {
					t.Fatal(err)
				}
				if dw.Behavior == permission.Allow {
					continue
				}
				dg, err := eng.Decide(context.Background(), got, tool, path)
				if err != nil {
					t.Fatal(err)
				}
				if dg.Behavior == permission.Allow {
					t.Fatalf("%s %s: %s as written, allow once corrupted\nwritten:   %s\ncorrupted: %s\nrules: %v",
						tool.name, rel, dw.Behavior, doc, bad, ruleStrings(got))
				}
			}
		}
	})
}

// inString reports whether doc[at] is inside a JSON string literal, quotes included.
func inString(doc string, at int) bool {
	in := false
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		if in && c == '\\' {
			if i+1 == at {
				return true
			}
			i++
			continue
		}
		if c == '"' {
			if i == at {
				return true
			}
			in = !in
			continue
		}
		if i == at {
			return in
		}
	}
	return false
}
