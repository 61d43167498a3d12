package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// startScreen is what the dialogs shown before the chat starts (project MCP servers, trust)
// share: the screen's size, styles that follow the terminal's background, and the boxed view
// on the alternate screen.
type startScreen struct {
	r             *renderer
	width, height int
}

func newStartScreen() startScreen {
	return startScreen{r: &renderer{st: newStyles(true), width: 80}, width: 80, height: 24}
}

func (s *startScreen) Init() tea.Cmd { return tea.RequestBackgroundColor }

// frame takes the messages every start screen handles alike and reports whether msg was one.
func (s *startScreen) frame(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		s.width, s.height = msg.Width, msg.Height
	case tea.BackgroundColorMsg:
		s.r.st = newStyles(msg.IsDark())
	default:
		return false
	}
	return true
}

// box draws lines in the border, each cut to the width, padded or cut to the screen's height.
func (s *startScreen) box(lines []string) string {
	inner := max(s.width-4, 10)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, inner, "…")
	}
	box := strings.Split(s.r.st.border.Width(s.width).Render(strings.Join(lines, "\n")), "\n")
	for len(box) < s.height {
		box = append(box, "")
	}
	return strings.Join(box[:min(len(box), max(s.height, 1))], "\n")
}

// view shows a rendered screen on the alternate screen.
func view(s string) tea.View {
	v := tea.NewView(s)
	v.AltScreen = true
	return v
}
