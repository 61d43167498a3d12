package tui

import (
	"context"
	"errors"
	"fmt"
	"io"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// MCPServer is a project server of .mcp.json that waits for the person's approval.
type MCPServer struct {
	Name string
	// Launch says what starting it does: the command line of a stdio server, the URL of a
	// remote one.
	Launch string
}

// MCPAnswer is the person's answer for one project server.
type MCPAnswer int

const (
	// MCPUnanswered leaves the server off for this session and records nothing (Ctrl+C).
	MCPUnanswered MCPAnswer = iota
	MCPApprove
	MCPReject
)

// Terminal is where a program of the interactive mode draws.
type Terminal struct {
	In      io.Reader
	Out     io.Writer
	NoColor bool
	// Width and Height fix the size when the output is not a terminal (tests).
	Width, Height int
}

func (t Terminal) options(ctx context.Context) []tea.ProgramOption {
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(t.In), tea.WithOutput(t.Out), tea.WithoutSignalHandler()}
	if t.NoColor {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	if t.Width > 0 && t.Height > 0 {
		opts = append(opts, tea.WithWindowSize(t.Width, t.Height))
	}
	return opts
}

// ApproveMCPServers asks, before the chat starts, whether to use each project server: yes,
// yes for all of this project's servers (this one and the ones still to be asked about), or
// no. It returns the answer per server name; a server left unanswered (Ctrl+C) is
// MCPUnanswered. The caller records the answers and starts the approved servers.
func ApproveMCPServers(ctx context.Context, term Terminal, servers []MCPServer) (map[string]MCPAnswer, error) {
	m := newApproveModel(servers)
	if len(servers) == 0 {
		return m.answers, nil
	}
	p := tea.NewProgram(m, term.options(ctx)...)
	if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return nil, fmt.Errorf("asking about MCP servers: %w", err)
	}
	return m.answers, ctx.Err()
}

// approveModel is the program of the project servers' approval: one dialog per server.
type approveModel struct {
	startScreen
	servers []MCPServer
	i, sel  int
	answers map[string]MCPAnswer
}

var approveOptions = []string{"Yes, use this server", "Yes, use all of this project's servers", "No"}

// approveNo is the option each server's dialog starts on: the safe one, as in Claude Code.
const approveNo = 2

func newApproveModel(servers []MCPServer) *approveModel {
	m := &approveModel{startScreen: newStartScreen(), servers: servers, answers: map[string]MCPAnswer{}, sel: approveNo}
	for _, s := range servers {
		m.answers[s.Name] = MCPUnanswered
	}
	return m
}

func (m *approveModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if m.frame(msg) {
		return m, nil
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch k := msg.String(); k {
		case "ctrl+c":
			return m, tea.Quit
		case "up", "k":
			m.sel = (m.sel + len(approveOptions) - 1) % len(approveOptions)
		case "down", "j", "tab":
			m.sel = (m.sel + 1) % len(approveOptions)
		case "esc":
			return m, m.choose(2)
		case "enter":
			return m, m.choose(m.sel)
		case "1", "2", "3":
			return m, m.choose(int(k[0] - '1'))
		}
	}
	return m, nil
}

// choose applies option i to the current server (and, for "all", to the rest) and moves on.
func (m *approveModel) choose(i int) tea.Cmd {
	switch i {
	case 0:
		m.answers[m.servers[m.i].Name] = MCPApprove
	case 1:
		for _, s := range m.servers[m.i:] {
			m.answers[s.Name] = MCPApprove
		}
		m.i = len(m.servers)
		return tea.Quit
	default:
		m.answers[m.servers[m.i].Name] = MCPReject
	}
	m.i++
	m.sel = approveNo
	if m.i >= len(m.servers) {
		return tea.Quit
	}
	return nil
}

func (m *approveModel) View() tea.View { return view(m.render()) }

func (m *approveModel) render() string {
	if m.i >= len(m.servers) {
		return ""
	}
	st := m.r.st
	s := m.servers[m.i]
	r := &renderer{st: st, width: max(m.width-4, 10)}
	var lines []string
	head := "New MCP server found in .mcp.json: " + s.Name
	if len(m.servers) > 1 {
		head += fmt.Sprintf(" (%d/%d)", m.i+1, len(m.servers))
	}
	lines = append(lines, st.accent.Render(head), "")
	if s.Launch != "" {
		lines = append(lines, r.wrap(st.keyInput.Render(s.Launch), 2)...)
		lines = append(lines, "")
	}
	lines = append(lines, r.wrap("MCP servers run programs and reach data on your behalf. This server comes with the project's files: use it only if you trust what it starts.", 0)...)
	lines = append(lines, "", "Use this MCP server?")
	for i, o := range approveOptions {
		if i == m.sel {
			lines = append(lines, st.selected.Render(fmt.Sprintf("❯ %d. %s", i+1, o)))
		} else {
			lines = append(lines, fmt.Sprintf("  %d. %s", i+1, o))
		}
	}
	lines = append(lines, st.dim.Render("↑↓ select · enter confirm · esc no · ctrl+c decide later"),
		st.dim.Render("The answer is kept in ~/.reins.json (as reins mcp approve does)."))
	return m.box(lines)
}
