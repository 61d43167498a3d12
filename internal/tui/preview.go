package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/permission"
)

// inputFields decodes a call's input for display.
func inputFields(raw json.RawMessage) map[string]any {
	var m map[string]any
	json.Unmarshal(raw, &m)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// preview is what the dialog shows of a call: a title and the lines that say what will happen.
func (r *renderer) preview(toolName string, raw json.RawMessage, cwd string) (title string, body []string) {
	in := inputFields(raw)
	switch toolName {
	case "Bash":
		body = append(body, r.wrap(r.st.keyInput.Render(str(in, "command")), 2)...)
		if d := str(in, "description"); d != "" {
			body = append(body, r.wrap(r.st.dim.Render(d), 2)...)
		}
		return "Bash command", body
	case "Edit", "Write", "NotebookEdit", "MultiEdit":
		path := str(in, "file_path")
		if path == "" {
			path = str(in, "notebook_path")
		}
		title = map[string]string{"Edit": "Edit file", "MultiEdit": "Edit file", "Write": "Write file", "NotebookEdit": "Edit notebook"}[toolName]
		body = append(body, "  "+r.st.keyInput.Render(displayPath(path, cwd)))
		return title, append(body, r.diff(toolName, path, in)...)
	case "WebFetch":
		u := str(in, "url")
		host := u
		if p, err := url.Parse(u); err == nil && p.Host != "" {
			host = p.Hostname()
		}
		body = append(body, r.wrap(r.st.keyInput.Render(u), 2)...)
		body = append(body, "  domain: "+host)
		if p := str(in, "prompt"); p != "" {
			body = append(body, r.wrap(r.st.dim.Render(p), 2)...)
		}
		return "Fetch", body
	case permission.SandboxNetworkTool:
		host := str(in, "host")
		if port, ok := in["port"].(float64); ok {
			host = net.JoinHostPort(host, strconv.Itoa(int(port)))
		}
		return "Network request outside the sandbox", []string{"  host: " + r.st.keyInput.Render(host)}
	}
	if server, tl, ok := splitMCP(toolName); ok {
		body = append(body, fmt.Sprintf("  server: %s", server), fmt.Sprintf("  tool:   %s", tl), "  arguments:")
		body = append(body, indentJSON(raw, 4)...)
		return "MCP tool", body
	}
	return toolName, indentJSON(raw, 2)
}

func splitMCP(name string) (server, tool string, ok bool) {
	rest, found := strings.CutPrefix(name, "mcp__")
	if !found {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	return server, tool, ok
}

func indentJSON(raw json.RawMessage, n int) []string {
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") != nil {
		buf.Reset()
		buf.Write(raw)
	}
	pad := strings.Repeat(" ", n)
	var out []string
	for _, l := range strings.Split(buf.String(), "\n") {
		out = append(out, pad+l)
	}
	return out
}

func displayPath(p, cwd string) string {
	if cwd != "" {
		if rel, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return p
}

// previewLimits bound the file a preview diffs: the path is the model's, so it may be a FIFO
// (an unbounded read would freeze the dialog) or /dev/zero; a larger file is too long to
// review in a dialog anyway.
var previewLimits = boundedfile.Limits{MaxBytes: 4 << 20, Kind: "previewed file"}

// diff renders the change an edit would make, coloured. A file that cannot be read (or is not
// a regular file of at most 4 MiB) is shown as the replaced text against the new one.
func (r *renderer) diff(toolName, path string, in map[string]any) []string {
	var before, after string
	old, err := boundedfile.Read(context.Background(), path, previewLimits)
	switch toolName {
	case "Write":
		if err == nil {
			before = string(old)
		}
		after = str(in, "content")
	case "NotebookEdit":
		after = str(in, "new_source")
	default:
		oldS, newS := str(in, "old_string"), str(in, "new_string")
		if err == nil && strings.Contains(string(old), oldS) && oldS != "" {
			before = string(old)
			n := 1
			if all, _ := in["replace_all"].(bool); all {
				n = -1
			}
			after = strings.Replace(before, oldS, newS, n)
		} else {
			before, after = oldS, newS
		}
	}
	if !strings.HasSuffix(before, "\n") && before != "" {
		before += "\n"
	}
	if !strings.HasSuffix(after, "\n") && after != "" {
		after += "\n"
	}
	u := udiff.Unified("a", "b", before, after)
	var out []string
	for _, l := range strings.Split(strings.TrimRight(u, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "---"), strings.HasPrefix(l, "+++"), l == "":
			continue
		case strings.HasPrefix(l, "@@"):
			out = append(out, "  "+r.st.hunk.Render(l))
		case strings.HasPrefix(l, "+"):
			out = append(out, "  "+r.st.added.Render(truncLine(l, r.width-4)))
		case strings.HasPrefix(l, "-"):
			out = append(out, "  "+r.st.removed.Render(truncLine(l, r.width-4)))
		default:
			out = append(out, "  "+r.st.dim.Render(truncLine(l, r.width-4)))
		}
	}
	if len(out) == 0 {
		out = append(out, "  "+r.st.dim.Render("(no change)"))
	}
	return out
}

func truncLine(s string, w int) string {
	r := []rune(s)
	if w < 8 {
		w = 8
	}
	if len(r) > w {
		return string(r[:w-1]) + "…"
	}
	return s
}

// findings are what the analysis found about a call, read from its decision trace: the paths
// a command reads and writes, the commands that need approval, and why the engine asked.
func findings(steps []permission.Step) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, s := range steps {
		switch {
		case s.Name == "bash: path":
			add(fmt.Sprintf("%s %s", s.Outcome, s.Detail))
		case s.Name == "bash: command" && (s.Outcome == "needs approval" || s.Outcome == "unsure" || s.Outcome == "deny"):
			add(fmt.Sprintf("%s: %s", s.Outcome, s.Detail))
		}
	}
	return out
}

// formatTrace renders a decision trace as `reins permissions check` prints it.
func formatTrace(steps []permission.Step) []string {
	var buf bytes.Buffer
	permission.WriteTrace(&buf, steps)
	return strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
}
