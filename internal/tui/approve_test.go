package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

func approveGolden(t *testing.T, m *approveModel, name string) {
	t.Helper()
	startScreenGolden(t, &m.startScreen, m.render(), name)
}

// startScreenGolden compares a start-up dialog's screen with its golden file: every line
// within the width, as many lines as the screen has.
func startScreenGolden(t *testing.T, s *startScreen, rendered, name string) {
	t.Helper()
	lines := strings.Split(ansi.Strip(rendered), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
		if w := ansi.StringWidth(l); w > s.width {
			t.Errorf("%s: line %d is %d columns wide, more than %d", name, i+1, w, s.width)
		}
	}
	if len(lines) != s.height {
		t.Errorf("%s: %d lines, want the screen's %d", name, len(lines), s.height)
	}
	goldenText(t, name, strings.Join(lines, "\n")+"\n")
}

func TestApproveMCPServers(t *testing.T) {
	servers := []MCPServer{{Name: "github", Launch: "stdio: npx -y @modelcontextprotocol/server-github"}, {Name: "docs", Launch: "http: https://docs.example.com/mcp"}, {Name: "db", Launch: "stdio: ./db-server"}}
	tests := []struct {
		name string
		keys []string
		want map[string]MCPAnswer
	}{
		{"each answered", []string{"1", "3", "1"}, map[string]MCPAnswer{"github": MCPApprove, "docs": MCPReject, "db": MCPApprove}},
		{"all of the project's", []string{"3", "2"}, map[string]MCPAnswer{"github": MCPReject, "docs": MCPApprove, "db": MCPApprove}},
		{"enter alone is no: each dialog starts on it", []string{"enter", "enter", "enter"}, map[string]MCPAnswer{"github": MCPReject, "docs": MCPReject, "db": MCPReject}},
		{"arrows and esc", []string{"up", "up", "enter", "esc", "down", "enter"}, map[string]MCPAnswer{"github": MCPApprove, "docs": MCPReject, "db": MCPApprove}},
		{"ctrl+c leaves the rest unanswered", []string{"1", "ctrl+c"}, map[string]MCPAnswer{"github": MCPApprove, "docs": MCPUnanswered, "db": MCPUnanswered}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newApproveModel(servers)
			m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
			var quit bool
			for _, k := range tt.keys {
				if quit {
					t.Fatalf("key %q after the program quit", k)
				}
				_, cmd := m.Update(keyMsg(k))
				if cmd != nil {
					_, quit = cmd().(tea.QuitMsg)
				}
			}
			if !quit {
				t.Error("the program did not quit after the last answer")
			}
			if diff := cmp.Diff(tt.want, m.answers); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
		})
	}
	m := newApproveModel(servers)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	approveGolden(t, m, "mcp-approve")
	m.Update(keyMsg("1"))
	m.Update(keyMsg("down"))
	approveGolden(t, m, "mcp-approve-second")
}
