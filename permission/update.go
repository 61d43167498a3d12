package permission

import (
	"fmt"
	"path/filepath"
	"slices"
)

// UpdateType names a permission update operation.
type UpdateType string

const (
	AddRules          UpdateType = "addRules"
	ReplaceRules      UpdateType = "replaceRules"
	RemoveRules       UpdateType = "removeRules"
	SetMode           UpdateType = "setMode"
	AddDirectories    UpdateType = "addDirectories"
	RemoveDirectories UpdateType = "removeDirectories"
)

// Update is one change to the permission state, aimed at a destination source. Updates to the
// settings-file sources are also persisted by the settings package; this package applies them
// to a Context in memory.
type Update struct {
	Type        UpdateType  `json:"type"`
	Destination Source      `json:"destination"`
	Behavior    Behavior    `json:"behavior,omitzero"`
	Rules       []RuleValue `json:"rules,omitempty"`
	Mode        Mode        `json:"mode,omitempty"`
	Directories []string    `json:"directories,omitempty"`
}

// ErrReadOnlySource is wrapped by errors for updates aimed at policy, flag or command settings.
var ErrReadOnlySource = fmt.Errorf("read-only settings source")

// Apply returns a new context with the updates applied in order. The receiver is unchanged,
// also when an update fails.
func (c *Context) Apply(updates ...Update) (*Context, error) {
	n := c.clone()
	for _, u := range updates {
		if !u.Destination.Editable() {
			return nil, fmt.Errorf("cannot apply %s to %s: %w", u.Type, u.Destination, ErrReadOnlySource)
		}
		switch u.Type {
		case AddRules, ReplaceRules, RemoveRules:
			if u.Behavior != Allow && u.Behavior != Ask && u.Behavior != Deny {
				return nil, fmt.Errorf("%s: behavior must be allow, ask or deny, not %s", u.Type, u.Behavior)
			}
			if u.Type != AddRules {
				n.rules = slices.DeleteFunc(n.rules, func(r *Rule) bool {
					if r.Source != u.Destination || r.Behavior != u.Behavior {
						return false
					}
					return u.Type == ReplaceRules || slices.Contains(u.Rules, r.Value)
				})
			}
			if u.Type == RemoveRules {
				continue
			}
			for _, v := range u.Rules {
				r := &Rule{Value: v, Behavior: u.Behavior, Source: u.Destination}
				if err := r.compile(nil); err != nil {
					return nil, fmt.Errorf("%s %s: %w", u.Type, v, err)
				}
				n.rules = append(n.rules, r)
			}
			n.rules = dedupRules(n.rules)
		case SetMode:
			m, err := n.Transition(u.Mode)
			if err != nil {
				return nil, err
			}
			n = m
		case AddDirectories:
			for _, d := range u.Directories {
				d = filepath.Clean(d)
				if !filepath.IsAbs(d) {
					return nil, fmt.Errorf("addDirectories: %q is not an absolute path", d)
				}
				if !slices.ContainsFunc(n.dirs, func(w WorkingDir) bool { return w.Path == d }) {
					n.dirs = append(n.dirs, WorkingDir{Path: d, Source: u.Destination})
				}
			}
		case RemoveDirectories:
			for _, d := range u.Directories {
				d = filepath.Clean(d)
				n.dirs = slices.DeleteFunc(n.dirs, func(w WorkingDir) bool { return w.Path == d })
			}
		default:
			return nil, fmt.Errorf("unknown permission update type %q", u.Type)
		}
	}
	n.reindex()
	return n, nil
}
