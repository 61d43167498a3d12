package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"
)

// TestAnyChangeIsDetected: an untouched log verifies, and any single byte change, removed
// line, swap of two lines or truncation, in any of the log's files or its anchor, does not.
func TestAnyChangeIsDetected(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		dir, err := os.MkdirTemp("", "auditprop")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "audit.jsonl")
		l, err := Open(Options{Path: path, MaxBytes: rapid.Int64Range(200, 2000).Draw(rt, "maxBytes"), MaxFiles: rapid.IntRange(1, 4).Draw(rt, "maxFiles")})
		if err != nil {
			rt.Fatal(err)
		}
		n := rapid.IntRange(1, 30).Draw(rt, "entries")
		for i := range n {
			e := Entry{Kind: KindDecision, Tool: rapid.SampledFrom([]string{"Bash", "Read", "Edit"}).Draw(rt, "tool"), Decision: "deny", Reason: rapid.String().Draw(rt, "reason")}
			if err := l.Append(e, []byte(`{"i":`+string(rune('0'+i%10))+`}`)); err != nil {
				rt.Fatal(err)
			}
		}
		if _, err := Verify(path); err != nil {
			rt.Fatalf("an untouched log: %v", err)
		}
		files, _ := Files(path)
		files = append(files, AnchorPath(path))
		var nonEmpty []string
		for _, f := range files {
			if b, _ := os.ReadFile(f); len(b) > 0 {
				nonEmpty = append(nonEmpty, f)
			}
		}
		target := rapid.SampledFrom(nonEmpty).Draw(rt, "file")
		data, _ := os.ReadFile(target)
		changed := mutate(rt, data)
		if bytes.Equal(changed, data) {
			rt.Skip("no change")
		}
		os.WriteFile(target, changed, 0o600)
		if _, err := Verify(path); err == nil {
			rt.Fatalf("changed %s from\n%s\nto\n%s\nand verify passed", filepath.Base(target), data, changed)
		}
	})
}

func mutate(rt *rapid.T, data []byte) []byte {
	out := bytes.Clone(data)
	switch rapid.IntRange(0, 3).Draw(rt, "mutation") {
	case 0:
		i := rapid.IntRange(0, len(out)-1).Draw(rt, "at")
		out[i] ^= byte(rapid.IntRange(1, 255).Draw(rt, "xor"))
	case 1:
		lines := bytes.SplitAfter(out, []byte("\n"))
		lines = lines[:len(lines)-1] // the empty piece after the last newline
		i := rapid.IntRange(0, len(lines)-1).Draw(rt, "line")
		out = bytes.Join(append(lines[:i:i], lines[i+1:]...), nil)
	case 2:
		lines := bytes.SplitAfter(out, []byte("\n"))
		lines = lines[:len(lines)-1]
		if len(lines) < 2 {
			return out
		}
		i := rapid.IntRange(0, len(lines)-2).Draw(rt, "line")
		j := rapid.IntRange(i+1, len(lines)-1).Draw(rt, "with")
		lines[i], lines[j] = lines[j], lines[i]
		out = bytes.Join(lines, nil)
	case 3:
		out = out[:rapid.IntRange(0, len(out)-1).Draw(rt, "cut")]
	}
	return out
}
