package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/reinsdev/reins/llm/llmtest"
)

// The end-to-end scenarios in testdata/script are testscript files: each runs the real reins
// (the test binary itself, which testscript.Main in TestMain dispatches to [Main] when it is
// started under the name reins) in a work folder of its own, against the fakes its commands
// start. See testdata/script/README.md for the commands and the layout of the work folder.

// tbKey holds the script's testing.TB in its Env.Values: the fake servers end with it.
type tbKey struct{}

// scriptCmds are the commands the scripts have beside testscript's own.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"fake-model": cmdFakeModel,
	"status":     cmdStatus,
	"expand":     cmdExpand,
	"json":       cmdJSON,
	"stream":     cmdStream,
}

func TestScripts(t *testing.T) {
	e2eTest(t)
	if runtime.GOOS == "windows" {
		t.Skip("the scripts use a POSIX shell")
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		Setup:               scriptSetup,
		Cmds:                scriptCmds,
		Condition:           scriptCondition,
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
	})
}

// scriptSetup lays out the work folder as the Go end-to-end tests' newE2E does: the project
// (the working directory) and the home beside each other, a managed-settings folder, and no
// local model to find by accident. $PROJECT and $HOME name the two folders.
func scriptSetup(env *testscript.Env) error {
	work, err := filepath.EvalSymlinks(env.WorkDir)
	if err != nil {
		return err
	}
	tb, ok := env.T().(testing.TB)
	if !ok {
		return errors.New("the scripts need a testing.TB: run them with testscript.Run")
	}
	env.Values[tbKey{}] = tb
	env.Values[modelKey{}] = map[string]*llmtest.Server{}
	project, home, managed := filepath.Join(work, "project"), filepath.Join(work, "home"), filepath.Join(work, "managed")
	for _, d := range []string{project, home, managed} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	env.Setenv("PROJECT", project)
	env.Setenv("HOME", home)
	env.Setenv("REINS_MANAGED_DIR", managed)
	env.Setenv("OLLAMA_HOST", "127.0.0.1:1") // nothing listens there
	env.Cd = project
	return nil
}

// scriptCondition knows [root]: the process runs as root, where reins refuses some modes.
func scriptCondition(cond string) (bool, error) {
	if cond == "root" {
		return os.Geteuid() == 0, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// cmdStatus runs a program and checks its exit code: `status 3 reins -p x`. Its output is the
// script's stdout and stderr, as after exec.
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: status code program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	code := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		ee, ok := errors.AsType[*exec.ExitError](err)
		if !ok {
			ts.Fatalf("%s: %v", args[1], err)
		}
		code = ee.ExitCode()
	}
	if (code == want) == neg {
		ts.Fatalf("%s exited with %d; want %s%d", args[1], code, map[bool]string{true: "not "}[neg], want)
	}
}

// cmdExpand replaces $NAME and ${NAME} in files with the script's variables, in place: a
// settings file of the archive can then name $PROJECT or a fake server's URL. $$ is a dollar
// sign; an unset variable is an error, so a shell variable meant literally is never lost.
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: expand file...")
	}
	for _, name := range args {
		out, err := expandVars(ts, ts.ReadFile(name))
		if err != nil {
			ts.Fatalf("%s: %v", name, err)
		}
		ts.Check(os.WriteFile(ts.MkAbs(name), []byte(out), 0o644))
	}
}

func expandVars(ts *testscript.TestScript, s string) (string, error) {
	var missing []string
	out := os.Expand(s, func(name string) string {
		if name == "$" {
			return "$"
		}
		v := ts.Getenv(name)
		if v == "" {
			missing = append(missing, name)
		}
		return v
	})
	if missing != nil {
		return "", fmt.Errorf("unset variable(s) %s (write $$ for a dollar sign)", strings.Join(missing, ", "))
	}
	return out, nil
}

// cmdJSON checks a value in a JSON document: `json stdout result.subtype success` (a string is
// compared as it is (or, given as a JSON string literal, as what it decodes to), anything else
// as its compact JSON: `json stdout num_turns 4`,
// `json stdout permission_denials.0.tool_input '{"command":"ls"}'`, `json stdout deny.(len) 1`). With `!`, the value
// differs or is absent. `json -lines file type=result path want` looks in the first line of
// a JSON-lines file whose member type is result.
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	var where string
	if len(args) > 0 && args[0] == "-lines" {
		if len(args) < 2 {
			ts.Fatalf("usage: json -lines file member=value path want")
		}
		where, args = args[2], append([]string{args[1]}, args[3:]...)
	}
	if len(args) != 3 {
		ts.Fatalf("usage: json [-lines file member=value] file path want")
	}
	doc, err := findJSON(ts.ReadFile(args[0]), where)
	if err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	got, found := jsonPath(doc, args[1])
	want := args[2]
	if v, ok := decodeNonString(want); ok {
		want = compact(v) // members in the order got has them
	} else if s, ok := v.(string); ok && strings.HasPrefix(want, `"`) {
		want = s // a JSON string, for a newline in it
	}
	switch {
	case neg && found && got == want:
		ts.Fatalf("%s: %s is %s", args[0], args[1], got)
	case !neg && !found:
		ts.Fatalf("%s: no %s in\n%s", args[0], args[1], compact(doc))
	case !neg && got != want:
		ts.Fatalf("%s: %s is %s, want %s", args[0], args[1], got, want)
	}
}

// decodeNonString decodes s; ok says it is JSON and not a string.
func decodeNonString(s string) (v any, ok bool) {
	if json.Unmarshal([]byte(s), &v) != nil {
		return nil, false
	}
	_, isString := v.(string)
	return v, !isString
}

// findJSON decodes the document, or with where (member=value) the first line of a JSON-lines
// document that has it.
func findJSON(text, where string) (any, error) {
	if where == "" {
		var doc any
		if err := json.Unmarshal([]byte(text), &doc); err != nil {
			return nil, fmt.Errorf("not JSON: %v\n%s", err, text)
		}
		return doc, nil
	}
	member, value, ok := strings.Cut(where, "=")
	if !ok {
		return nil, fmt.Errorf("%q is not member=value", where)
	}
	for line := range strings.SplitSeq(text, "\n") {
		var doc any
		if json.Unmarshal([]byte(line), &doc) != nil {
			continue
		}
		if got, ok := jsonPath(doc, member); ok && got == value {
			return doc, nil
		}
	}
	return nil, fmt.Errorf("no line with %s:\n%s", where, text)
}

// jsonPath follows a dotted path of member names and array indexes; (len) is the length of an
// array or object.
func jsonPath(doc any, path string) (string, bool) {
	v := doc
	for name := range strings.SplitSeq(path, ".") {
		if name == "(len)" {
			switch x := v.(type) {
			case map[string]any:
				v = float64(len(x))
			case []any:
				v = float64(len(x))
			default:
				return "", false
			}
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[name]; !ok {
				return "", false
			}
		case []any:
			i, err := strconv.Atoi(name)
			if err != nil || i < 0 || i >= len(x) {
				return "", false
			}
			v = x[i]
		default:
			return "", false
		}
	}
	if s, ok := v.(string); ok {
		return s, true
	}
	return compact(v), true
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// cmdStream writes a stream-json transcript in the comparable form of normalizeStream (ids,
// timings and the work folders replaced, progress dropped, each line indented): `stream
// stdout got.json`, then `cmp got.json want.json` against the archive (-update rewrites it).
func cmdStream(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: stream file out")
	}
	out, err := normalizedStream(ts.ReadFile(args[0]), ts.Getenv("PROJECT"), ts.Getenv("HOME"))
	if err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out), 0o644))
}
