package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// styles are the colours of one background. Terminals without colour (NO_COLOR, a dumb
// terminal) get the same styles; Bubble Tea downsamples them to plain text on output.
type styles struct {
	dark bool

	user, assistant, dim, err, ok, warn, accent lipgloss.Style
	toolName, keyInput                          lipgloss.Style
	added, removed, hunk                        lipgloss.Style
	selected, option, title, border             lipgloss.Style
	modeColor                                   map[string]color.Color
}

func newStyles(dark bool) styles {
	ld := lipgloss.LightDark(dark)
	c := func(light, darkc string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(darkc)) }
	s := styles{dark: dark}
	s.user = lipgloss.NewStyle().Foreground(c("#5f5f87", "#afafd7")).Bold(true)
	s.assistant = lipgloss.NewStyle()
	s.dim = lipgloss.NewStyle().Foreground(c("#6c6c6c", "#8a8a8a"))
	s.err = lipgloss.NewStyle().Foreground(c("#af0000", "#ff5f5f"))
	s.ok = lipgloss.NewStyle().Foreground(c("#008700", "#5fd75f"))
	s.warn = lipgloss.NewStyle().Foreground(c("#af5f00", "#ffaf5f"))
	s.accent = lipgloss.NewStyle().Foreground(c("#005faf", "#5fafff")).Bold(true)
	s.toolName = lipgloss.NewStyle().Bold(true)
	s.keyInput = lipgloss.NewStyle().Foreground(c("#3a3a3a", "#d0d0d0"))
	s.added = lipgloss.NewStyle().Foreground(c("#005f00", "#87d787"))
	s.removed = lipgloss.NewStyle().Foreground(c("#870000", "#ff8787"))
	s.hunk = lipgloss.NewStyle().Foreground(c("#5f5faf", "#8787d7"))
	s.selected = lipgloss.NewStyle().Foreground(c("#005faf", "#5fafff")).Bold(true)
	s.option = lipgloss.NewStyle()
	s.title = lipgloss.NewStyle().Bold(true)
	s.border = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(c("#005faf", "#5fafff")).Padding(0, 1)
	s.modeColor = map[string]color.Color{
		"acceptEdits":       c("#5f00af", "#af87ff"),
		"plan":              c("#005f5f", "#5fd7d7"),
		"bypassPermissions": c("#af0000", "#ff5f5f"),
		"auto":              c("#af5f00", "#ffaf5f"),
	}
	return s
}
