package markdown

import (
	"image/color"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Theme picks the colours: Dark and Light for the terminal's background, Plain for none.
type Theme int

const (
	Plain Theme = iota
	Dark
	Light
)

// flags is the styling of a run of text; the styleSet turns each combination into a style.
type flags uint16

const (
	fBold flags = 1 << iota
	fItalic
	fStrike
	fCode
	fLink
	fURL
	fHeading
	fCheck
	fMarker
	fQuote
	fRule
	fCodeBlock
	fHTML
	fTableRule
	nFlags = iota
)

// styleSet turns flags into SGR sequences. The colours are the UI's (lipgloss, light or dark);
// each combination's sequence is built once, and a run is printed as sequence, text, reset,
// so every line carries its own styling and no style leaks into the next line's indent.
type styleSet struct {
	theme Theme
	fg    map[flags]color.Color
	sgr   map[flags]string
}

func newStyleSet(theme Theme) *styleSet {
	s := &styleSet{theme: theme, sgr: map[flags]string{}}
	if theme == Plain {
		return s
	}
	ld := lipgloss.LightDark(theme == Dark)
	c := func(light, dark string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(dark)) }
	dim := c("#6c6c6c", "#8a8a8a")
	accent := c("#005faf", "#5fafff")
	s.fg = map[flags]color.Color{
		fCode:      c("#af005f", "#ff87af"),
		fLink:      accent,
		fURL:       dim,
		fHeading:   accent,
		fCheck:     c("#008700", "#5fd75f"),
		fMarker:    dim,
		fQuote:     dim,
		fRule:      dim,
		fCodeBlock: c("#5f5f87", "#d7d7af"),
		fHTML:      dim,
		fTableRule: dim,
	}
	return s
}

func (s *styleSet) render(f flags, text string) string {
	if s.theme == Plain || f == 0 || text == "" {
		return text
	}
	sgr, ok := s.sgr[f]
	if !ok {
		var st ansi.Style
		if f&fBold != 0 {
			st = st.Bold()
		}
		if f&fItalic != 0 {
			st = st.Italic(true)
		}
		if f&fStrike != 0 {
			st = st.Strikethrough(true)
		}
		if f&fLink != 0 {
			st = st.Underline(true)
		}
		// The most specific colour wins: the flags are ordered from general to specific.
		var fg color.Color
		for i := range nFlags {
			if c, ok := s.fg[1<<i]; ok && f&(1<<i) != 0 {
				fg = c
			}
		}
		if fg != nil {
			st = st.ForegroundColor(fg)
		}
		sgr = st.String()
		s.sgr[f] = sgr
	}
	return sgr + text + ansi.ResetStyle
}
