package settings

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
)

// PluginEntry is one enabledPlugins entry: "<plugin>@<marketplace>": true or false.
type PluginEntry struct {
	Key     string `json:"key"`
	Enabled bool   `json:"enabled"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
}

// readEnabledPlugins reads enabledPlugins: an object of plugin keys to true or false, each
// key a plugin name, optionally followed by "@" and a marketplace. A bad entry is a positioned
// warning and is dropped: enabledPlugins holds no rules, and a plugin not loaded is the safe
// side, so it does not stop the file as a broken deny would.
func (d *settingsDoc) readEnabledPlugins(root *posjson.Value, s *Settings) {
	v := root.Get("enabledPlugins")
	if v == nil || v.Kind == posjson.Null {
		return
	}
	if v.Kind != posjson.Object {
		d.warnAt(v.Off, "enabledPlugins must be an object of plugin names to true or false, not %s; no plugin was enabled from it", v.Kind)
		return
	}
	for _, m := range v.Members {
		if v.Get(m.Key) != m.Val {
			d.warnAt(m.Off, "duplicate key %s in enabledPlugins: only its last value is used", m.RawKey)
			continue
		}
		if err := ValidPluginKey(m.Key); err != nil {
			d.warnAt(m.Off, "enabledPlugins: %v; the entry was skipped", err)
			continue
		}
		if m.Val.Kind != posjson.Bool {
			d.warnAt(m.Val.Off, "enabledPlugins[%s] must be true or false, not %s; the entry was skipped", m.RawKey, m.Val.Describe())
			continue
		}
		line, col := d.idx.Pos(m.Off)
		s.EnabledPlugins = append(s.EnabledPlugins, PluginEntry{Key: m.Key, Enabled: m.Val.Bool, Line: line, Col: col})
	}
}

// ValidPluginKey checks an enabledPlugins key: "name" or "name@marketplace", the name in
// kebab-case, neither part able to name a folder other than its own.
func ValidPluginKey(key string) error {
	name, market, hasMarket := strings.Cut(key, "@")
	if !kebab(name) {
		return fmt.Errorf("%q: the plugin name must be kebab-case (lowercase letters, digits, single '-', starting with a letter)", key)
	}
	if hasMarket && (market == "" || strings.ContainsAny(market, "/\\@\x00") || market == "." || market == "..") {
		return fmt.Errorf("%q: the marketplace after '@' must be a plain name", key)
	}
	return nil
}

func kebab(s string) bool {
	if s == "" || len(s) > 64 || s[0] < 'a' || s[0] > 'z' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// EnabledPlugin is a plugin the settings turn on, with the file that decided it.
type EnabledPlugin struct {
	Key  string
	File string
}

// EnabledPlugins merges the enabledPlugins of every file: for each key the later source wins
// (user < project < local < flag < policy), so a person's local false turns off a plugin the
// project enables. The keys left true, in the order first seen.
func (l *Loaded) EnabledPlugins() []EnabledPlugin {
	var order []string
	last := map[string]EnabledPlugin{}
	on := map[string]bool{}
	for _, f := range l.Files {
		if f.DuplicateOf != "" {
			continue
		}
		for _, e := range f.Settings.EnabledPlugins {
			if _, ok := last[e.Key]; !ok {
				order = append(order, e.Key)
			}
			last[e.Key] = EnabledPlugin{Key: e.Key, File: fmt.Sprintf("%s:%d:%d", f.Path, e.Line, e.Col)}
			on[e.Key] = e.Enabled
		}
	}
	var out []EnabledPlugin
	for _, k := range order {
		if on[k] {
			out = append(out, last[k])
		}
	}
	return out
}

// SetPluginEnabled writes enabledPlugins[key] = enabled to Reins' own file of the user,
// project or local source, as Persist writes rules: under the file's lock, atomically, the rest
// of the file kept; a file that does not parse is never overwritten.
func SetPluginEnabled(opts Options, src permission.Source, key string, enabled bool) error {
	opts = opts.withDefaults()
	if err := ValidPluginKey(key); err != nil {
		return err
	}
	path, err := opts.persistPath(src)
	if err != nil {
		return err
	}
	dirPerm := fsPerm(src)
	return withFileLock(path, dirPerm, func() error {
		data, _, err := readDoc(opts.hooks, path)
		if err != nil {
			return err
		}
		_, root, _, err := parseSettings(path, data)
		if err != nil {
			return fmt.Errorf("not saving %s: %w", src, err)
		}
		before := root.Marshal()
		obj := root.Get("enabledPlugins")
		if obj == nil || obj.Kind != posjson.Object {
			obj = posjson.NewObject()
			root.Set("enabledPlugins", obj)
		}
		obj.Set(key, &posjson.Value{Kind: posjson.Bool, Off: -1, Bool: enabled, Raw: fmt.Sprint(enabled)})
		after := root.Marshal()
		if bytes.Equal(after, before) {
			return nil
		}
		return writeAtomic(opts.hooks, path, after, 0o644, dirPerm)
	})
}
