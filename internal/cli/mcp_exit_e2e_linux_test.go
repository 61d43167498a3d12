package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/llm/llmtest"
)

// groupMembers lists the processes of process group pgid that are still running (a zombie has
// ended).
func groupMembers(pgid int) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(data)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // state, ppid, pgrp, …
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			out = append(out, e.Name()+" "+f[0])
		}
	}
	return out
}

// TestExitEndsStdioServersThatIgnoreTheirInput: `reins -p` with stdio MCP servers that do not
// end at end of input — one that ignores SIGTERM as well and leaves a child behind, and the
// reference server-everything when npm has installed it — leaves nothing of their process
// groups running once it has exited. (bench/mcpexit.sh measures what the exit costs.)
func TestExitEndsStdioServersThatIgnoreTheirInput(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	bin := reinsBinary(t)
	dir := t.TempDir()
	// The server leads its group (Setpgid), so the shell's pid is the group's id. It serves
	// reins' own tools until its input ends, then stays, deaf to SIGTERM, with a child.
	stubborn := fmt.Sprintf(`echo $$ > %q; trap '' TERM; sleep 300 & %q mcp serve; exec sleep 300`, filepath.Join(dir, "stubborn"), bin)
	servers := map[string]any{"stubborn": map[string]any{"command": "sh", "args": []string{"-c", stubborn}}}
	everything, err := filepath.Abs(filepath.Join("..", "..", "test", "mcp", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(everything); err == nil {
		servers["everything"] = map[string]any{"command": "sh", "args": []string{"-c", fmt.Sprintf(`echo $$ > %q; exec node %q`, filepath.Join(dir, "everything"), everything)}}
	} else {
		t.Logf("server-everything is not installed (npm ci in test/mcp): only the shell server runs")
	}
	config, _ := json.Marshal(map[string]any{"mcpServers": servers})
	srv := llmtest.NewAnthropicServer(t, llmtest.Say("done"))
	e := newE2E(t, bin).anthropic(srv)
	e.run("-p", "--mcp-config", string(config), "--output-format", "stream-json", "--verbose", "--", "hi")
	e.wantCode(0)
	var init struct {
		MCPServers []struct{ Name, Status string } `json:"mcp_servers"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(e.stdout, "\n", 2)[0]), &init); err != nil {
		t.Fatal(err)
	}
	if len(init.MCPServers) != len(servers) {
		t.Fatalf("servers %+v, want %d\n%s", init.MCPServers, len(servers), e.stderr)
	}
	for _, s := range init.MCPServers {
		if s.Status != "connected" {
			t.Fatalf("server %s is %s\n%s", s.Name, s.Status, e.stderr)
		}
		data, err := os.ReadFile(filepath.Join(dir, s.Name))
		if err != nil {
			t.Fatal(err)
		}
		pgid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		// The SIGKILLs were sent before reins exited; the kernel may take a moment to end
		// what they reached. No time is measured.
		deadline := time.Now().Add(30 * time.Second)
		for len(groupMembers(pgid)) > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if left := groupMembers(pgid); len(left) > 0 {
			t.Errorf("server %s: its process group %d still runs %v after reins exited", s.Name, pgid, left)
		}
	}
}
