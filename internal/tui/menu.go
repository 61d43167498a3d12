package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// menu is a list of choices shown where the input is, answered as the permission dialog is:
// ↑↓ and enter, or an item's number; esc closes it. A searchable menu narrows its items to
// those holding what is typed (numbers are then text). /resume, /mcp and the trust offer are
// menus.
type menu struct {
	title string
	// lines are said above the items, wrapped at words.
	lines []string
	items []menuItem
	// searchable menus filter by what is typed.
	searchable bool
	filter     string
	sel        int
	// empty is shown when no item is left (or there is none).
	empty string
	// choose is called with the item picked. It returns the menu to show next (nil closes
	// the menu) and a command.
	choose func(m *Model, it menuItem) (*menu, tea.Cmd)
	// cancel, if set, is called when esc closes the menu.
	cancel func(m *Model)
}

// menuItem is one choice: a label (never wrapped: it is cut to the width), a dim detail after
// it, and what the choice stands for.
type menuItem struct {
	label, detail string
	value         any
}

// menuRows is how many items a menu shows at once; it scrolls for more.
const menuRows = 10

// shown are the items the filter keeps.
func (u *menu) shown() []menuItem {
	if u.filter == "" {
		return u.items
	}
	words := strings.Fields(strings.ToLower(u.filter))
	var out []menuItem
	for _, it := range u.items {
		text := strings.ToLower(it.label + " " + it.detail)
		keep := true
		for _, w := range words {
			keep = keep && strings.Contains(text, w)
		}
		if keep {
			out = append(out, it)
		}
	}
	return out
}

// Update moves, filters or answers the menu.
func (u *menu) Update(m *Model, msg tea.Msg) (bool, tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return false, nil
	}
	items := u.shown()
	k := km.String()
	switch {
	case k == "esc":
		if u.cancel != nil {
			u.cancel(m)
		}
		return true, nil
	case k == "up" && len(items) > 0:
		u.sel = (u.sel + len(items) - 1) % len(items)
	case k == "down" && len(items) > 0:
		u.sel = (u.sel + 1) % len(items)
	case k == "home":
		u.sel = 0
	case k == "end":
		u.sel = max(len(items)-1, 0)
	case k == "enter" && len(items) > 0:
		return u.pick(m, items[min(u.sel, len(items)-1)])
	case u.searchable && k == "backspace":
		if r := []rune(u.filter); len(r) > 0 {
			u.filter, u.sel = string(r[:len(r)-1]), 0
		}
	case u.searchable && km.Text != "":
		u.filter, u.sel = u.filter+km.Text, 0
	case !u.searchable && len(k) == 1 && k[0] >= '1' && k[0] <= '9':
		if i := int(k[0] - '1'); i < len(items) {
			return u.pick(m, items[i])
		}
	}
	return false, nil
}

// pick answers the menu with it. The menu is done unless its choice opens the next menu in
// its place (a choice that opens another picker has put it in place already).
func (u *menu) pick(m *Model, it menuItem) (bool, tea.Cmd) {
	next, cmd := u.choose(m, it)
	if next != nil && m.picker == u {
		m.picker = next
		return false, cmd
	}
	return true, cmd
}

func (u *menu) View(m *Model, width, _ int) []string { return u.view(m.r, width) }

// view draws the menu in a box of the given width.
func (u *menu) view(r *renderer, width int) []string {
	st := r.st
	inner := max(width-4, 10)
	lines := []string{st.accent.Render(u.title)}
	for _, l := range u.lines {
		lines = append(lines, wrapWords(l, inner)...)
	}
	if u.searchable {
		lines = append(lines, "", "Search: "+u.filter+st.dim.Render("▏"))
	}
	lines = append(lines, "")
	items := u.shown()
	if len(items) == 0 {
		lines = append(lines, st.dim.Render("  "+u.empty))
	}
	u.sel = min(u.sel, max(len(items)-1, 0))
	first := min(max(u.sel-menuRows/2, 0), max(len(items)-menuRows, 0))
	last := min(first+menuRows, len(items))
	if first > 0 {
		lines = append(lines, st.dim.Render(fmt.Sprintf("    ↑ %d more", first)))
	}
	for i := first; i < last; i++ {
		it := items[i]
		mark := "  "
		if i == u.sel {
			mark = "❯ "
		}
		num := ""
		if !u.searchable {
			num = fmt.Sprintf("%d. ", i+1)
		}
		line := mark + truncRunes(num+it.label, inner-2)
		if room := inner - len([]rune(line)) - 2; it.detail != "" && room > 8 {
			line += "  " + st.dim.Render(truncRunes(it.detail, room))
		}
		if i == u.sel {
			line = st.accent.Render(line)
		}
		lines = append(lines, line)
	}
	if last < len(items) {
		lines = append(lines, st.dim.Render(fmt.Sprintf("    ↓ %d more", len(items)-last)))
	}
	hint := "↑↓ select · enter choose · esc close"
	if u.searchable {
		hint = "type to search · " + hint
	}
	lines = append(lines, "", st.dim.Render(hint))
	box := st.border.Width(width).Render(strings.Join(lines, "\n"))
	return strings.Split(box, "\n")
}

// wrapWords wraps s at spaces to width, breaking no word: a word longer than the line is cut
// with an ellipsis instead.
func wrapWords(s string, width int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			if len([]rune(w)) > width {
				w = truncRunes(w, width-1)
			}
			switch {
			case line == "":
				line = w
			case len([]rune(line))+1+len([]rune(w)) <= width:
				line += " " + w
			default:
				out = append(out, line)
				line = w
			}
		}
		out = append(out, line)
	}
	return out
}
