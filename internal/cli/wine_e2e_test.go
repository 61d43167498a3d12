//go:build linux && amd64

package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm/llmtest"
)

// The Windows binary, run for real under Wine: reins permissions check, tools list, mcp serve
// (initialize and tools/list over standard input) and -p against the fake Anthropic API. It
// runs where wine and mingw's ld are installed (.ci/wine/setup.sh prepares the prefix), and
// fails instead when REINS_WINE_REQUIRED is set, as CI sets it. Wine 8 has no Git for Windows,
// so the Bash tool is off in every run, which the runs check too.
func TestWindowsBinaryUnderWine(t *testing.T) {
	w := wineReins(t)
	proj, home := w.root("project"), w.root("home")
	if err := os.Mkdir(filepath.Join(home, "managed"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(proj, ".reins", "settings.json"), `{"permissions": {"deny": ["Read(./.env)"]}}`)
	writeTestFile(t, filepath.Join(proj, ".env"), "KEY=1\n")
	writeTestFile(t, filepath.Join(proj, "README"), "hello\n")
	if _, errOut, code := w.run(t, proj, home, "", nil, "trust"); code != exitOK {
		t.Fatalf("trust: exit %d\n%s", code, errOut)
	}

	t.Run("permissions check", func(t *testing.T) {
		for _, tc := range []struct {
			input string
			code  int
			want  string
		}{
			{`{"file_path":"README"}`, exitOK, "decision: allow"},
			{`{"file_path":".env"}`, exitDenied, "Read(./.env)"},
			{`{"file_path":".ENV"}`, exitDenied, "Read(./.env)"},
			{`{"file_path":"/c/Windows/win.ini"}`, exitAsk, `C:\Windows\win.ini`},
		} {
			out, errOut, code := w.run(t, proj, home, "", nil, "permissions", "check", "--tool", "Read", "--input", tc.input)
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Errorf("Read %s: exit %d, want %d with %q\n%s%s", tc.input, code, tc.code, tc.want, out, errOut)
			}
		}
		for _, tc := range []struct {
			input string
			code  int
			want  string
		}{
			{`{"file_path":"README:stream","content":"x"}`, exitAsk, "alternate data stream"},
			{`{"file_path":".git\\hooks\\pre-commit","content":"x"}`, exitAsk, "protected folder"},
		} {
			out, errOut, code := w.run(t, proj, home, "", nil, "permissions", "check", "--permission-mode", "acceptEdits", "--tool", "Write", "--input", tc.input)
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Errorf("Read %s: exit %d, want %d with %q\n%s%s", tc.input, code, tc.code, tc.want, out, errOut)
			}
		}
	})

	t.Run("tools list", func(t *testing.T) {
		out, errOut, code := w.run(t, proj, home, "", nil, "tools", "list")
		if code != exitOK {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		for _, want := range []string{"Read", "Edit", "Glob", "not in the pool: Bash (disabled: Reins on Windows runs the Bash tool's commands in Git Bash", "CLAUDE_CODE_GIT_BASH_PATH"} {
			if !strings.Contains(out, want) {
				t.Errorf("tools list lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("mcp serve", func(t *testing.T) {
		names, errOut := w.mcpToolsList(t, proj, home)
		if !slices.Contains(names, "Read") || !slices.Contains(names, "Edit") || slices.Contains(names, "Bash") {
			t.Errorf("tools/list = %v, want Read and Edit, no Bash\n%s", names, errOut)
		}
	})

	t.Run("print mode", func(t *testing.T) {
		srv := llmtest.NewAnthropicServer(t, llmtest.Say("hello from the fake API"))
		env := []string{"ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL=" + srv.URL}
		out, errOut, code := w.run(t, proj, home, "", env, "-p", "say hello")
		if code != exitOK || !strings.Contains(out, "hello from the fake API") {
			t.Fatalf("exit %d, stdout %q\n%s", code, out, errOut)
		}
		if !strings.Contains(errOut, "the Bash tool is off") || !strings.Contains(errOut, "CLAUDE_CODE_GIT_BASH_PATH") {
			t.Errorf("no notice that the Bash tool is off:\n%s", errOut)
		}
		var tools []string
		for _, r := range srv.Requests() {
			var body struct{ Tools []struct{ Name string } }
			if err := r.Decode(&body); err == nil {
				for _, tl := range body.Tools {
					tools = append(tools, tl.Name)
				}
			}
		}
		if !slices.Contains(tools, "Read") || slices.Contains(tools, "Bash") {
			t.Errorf("the model was offered %v, want Read and no Bash", tools)
		}
	})
}

// wine is a Wine prefix ready for Go programs and the Windows reins.exe built for it.
type wine struct {
	prefix, exe, base string
}

var (
	wineOnce sync.Once
	wineEnv  wine
	wineErr  error
)

// wineReins prepares a Wine prefix with .ci/wine/setup.sh and builds reins.exe, once.
func wineReins(t *testing.T) wine {
	t.Helper()
	if testing.Short() {
		t.Skip("an end-to-end test (it runs reins.exe under Wine): -short leaves it out; the whole suite runs it")
	}
	for _, p := range []string{"wine", "x86_64-w64-mingw32-ld"} {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("REINS_WINE_REQUIRED") != "" {
				t.Fatalf("REINS_WINE_REQUIRED is set but %s is not installed", p)
			}
			t.Skipf("%s is not installed: the Windows binary cannot run here", p)
		}
	}
	wineOnce.Do(func() {
		base, err := os.MkdirTemp("", "reins-wine-")
		if err != nil {
			wineErr = err
			return
		}
		keepTempDir(base)
		wineEnv = wine{prefix: filepath.Join(base, "wine"), exe: filepath.Join(base, "reins.exe"), base: base}
		setup := exec.Command("../../.ci/wine/setup.sh")
		setup.Env = append(os.Environ(), "WINEPREFIX="+wineEnv.prefix)
		var errb bytes.Buffer
		setup.Stderr = &errb
		overlay, err := setup.Output()
		if err != nil {
			wineErr = errors.New("setup.sh: " + err.Error() + "\n" + errb.String())
			return
		}
		build := exec.Command("go", "build", "-overlay", strings.TrimSpace(string(overlay)), "-o", wineEnv.exe, "github.com/reinsdev/reins/cmd/reins")
		build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			wineErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if wineErr != nil {
		t.Fatal(wineErr)
	}
	return wineEnv
}

// root makes a folder for the test under the prefix's folder (Wine sees it as Z:\...).
func (w wine) root(name string) string {
	d, err := os.MkdirTemp(w.base, name+"-")
	if err != nil {
		panic(err)
	}
	return d
}

// winPath is a Linux path as Wine's Windows programs name it (Z: is the Linux root).
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// run runs reins.exe under Wine in dir, with its config folders in home, stdin and the extra
// environment, within two minutes.
func (w wine) run(t *testing.T, dir, home, stdin string, extra []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "wine", append([]string{w.exe}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(w.environ(home), extra...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("reins.exe %v did not exit under Wine:\n%s", args, errb.String())
	}
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), wineNoise(errb.String()), code
}

// wineNoise drops the lines Wine itself writes to standard error (it is not the program's).
func wineNoise(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, ":err:") || strings.Contains(l, ":fixme:") || strings.HasPrefix(l, "it looks like wine32") ||
			strings.HasPrefix(l, "multiarch needs") || strings.HasPrefix(l, `execute "dpkg`) || strings.HasPrefix(l, "apt-get install wine32") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// mcpToolsList runs reins.exe mcp serve under Wine and returns the names tools/list gives,
// after initialize, with standard input kept open until the answer came (a client's stdin).
func (w wine) mcpToolsList(t *testing.T, dir, home string) (names []string, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "wine", w.exe, "mcp", "serve")
	cmd.Dir, cmd.Env = dir, w.environ(home)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wine","version":"0"}}}`+"\n")
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Tools []struct{ Name string }
			} `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Fatalf("standard output has a line that is not JSON-RPC: %q", sc.Text())
		}
		if msg.ID == 2 {
			for _, tl := range msg.Result.Tools {
				names = append(names, tl.Name)
			}
			break
		}
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("mcp serve: %v\n%s", err, errb.String())
	}
	return names, wineNoise(errb.String())
}

// environ is the environment of reins.exe with its config folders in home.
func (w wine) environ(home string) []string {
	return append(os.Environ(), "WINEPREFIX="+w.prefix, "WINEDEBUG=-all",
		// Wine sets USERPROFILE to its prefix's user folder whatever it is given: the config
		// folders are named instead.
		"REINS_CONFIG_DIR="+winPath(filepath.Join(home, ".reins")), "CLAUDE_CONFIG_DIR="+winPath(filepath.Join(home, ".claude")),
		"REINS_MANAGED_DIR="+winPath(filepath.Join(home, "managed")), "CLAUDE_CODE_GIT_BASH_PATH=",
		"OLLAMA_HOST=127.0.0.1:1")
}
