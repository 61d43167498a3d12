package settings

import (
	"bytes"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
)

// Persist writes updates aimed at the user, project and local settings to Reins' own file of
// that source (ConfigDir/settings.json, Cwd/.reins/settings.json,
// Cwd/.reins/settings.local.json), creating the folder and file as needed. Updates for the
// session and cliArg sources live in memory only and are skipped. Updates for policy, flag or
// command settings are refused with an error wrapping [permission.ErrReadOnlySource], before
// anything is written.
//
// Each file is read once, all its updates are applied in order, and it is written once,
// atomically, keeping unknown keys and key order, under an exclusive lock on a hidden lock
// file beside it, so concurrent Persist calls from any number of processes lose no update. A file that is not valid JSON, or whose
// permission keys have the wrong type, is never overwritten: the error names file:line:col.
func Persist(opts Options, updates ...permission.Update) error {
	opts = opts.withDefaults()
	for _, u := range updates {
		if !u.Destination.Editable() {
			return fmt.Errorf("cannot save %s to %s: %w", u.Type, u.Destination, permission.ErrReadOnlySource)
		}
	}
	// Check every update on a scratch document first, so that a bad one stops Persist before
	// any file is written.
	for _, u := range updates {
		if u.Destination.Persisted() {
			if err := applyUpdate(posjson.NewObject(), u); err != nil {
				return fmt.Errorf("saving to %s: %w", u.Destination, err)
			}
		}
	}
	// Group the updates by file, keeping their order, so each file is locked, read, changed
	// and written once.
	var order []permission.Source
	bySource := map[permission.Source][]permission.Update{}
	for _, u := range updates {
		if !u.Destination.Persisted() {
			continue
		}
		if _, ok := bySource[u.Destination]; !ok {
			if u.Destination != permission.SourceUser && !filepath.IsAbs(opts.Cwd) {
				return fmt.Errorf("saving %s: working directory %q is not absolute", u.Destination, opts.Cwd)
			}
			order = append(order, u.Destination)
		}
		bySource[u.Destination] = append(bySource[u.Destination], u)
	}
	for _, src := range order {
		path, err := opts.persistPath(src)
		if err != nil {
			return err
		}
		dirPerm := fsPerm(src)
		err = withFileLock(path, dirPerm, func() error {
			return persistFile(opts.hooks, src, path, dirPerm, bySource[src])
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// fsPerm is the permission of a settings folder made for src: the user folder also holds the
// trust file, so it is kept private.
func fsPerm(src permission.Source) fs.FileMode {
	if src == permission.SourceUser {
		return 0o700
	}
	return 0o755
}

// persistFile is one locked read-modify-write of a settings file.
func persistFile(h hooks, src permission.Source, path string, dirPerm fs.FileMode, updates []permission.Update) error {
	data, _, err := readDoc(h, path)
	if err != nil {
		return err
	}
	_, root, _, err := parseSettings(path, data)
	if err != nil {
		return fmt.Errorf("not saving %s: %w", src, err)
	}
	before := root.Marshal()
	for _, u := range updates {
		if err := applyUpdate(root, u); err != nil {
			return fmt.Errorf("saving to %s: %w", path, err)
		}
	}
	after := root.Marshal()
	if bytes.Equal(after, before) {
		return nil
	}
	return writeAtomic(h, path, after, 0o644, dirPerm)
}

// ruleKey is the permissions key that holds rules of behaviour b.
func ruleKey(b permission.Behavior) (string, bool) {
	switch b {
	case permission.Allow:
		return "allow", true
	case permission.Ask:
		return "ask", true
	case permission.Deny:
		return "deny", true
	}
	return "", false
}

// applyUpdate changes a settings document that parseSettings accepted, so every known key
// present has the right type.
func applyUpdate(root *posjson.Value, u permission.Update) error {
	perms := root.Get("permissions")
	// child returns permissions.key, creating the containers when create is set.
	child := func(key string, create bool) *posjson.Value {
		if perms == nil || perms.Kind == posjson.Null {
			if !create {
				return nil
			}
			perms = posjson.NewObject()
			root.Set("permissions", perms)
		}
		v := perms.Get(key)
		if (v == nil || v.Kind == posjson.Null) && create {
			v = posjson.NewArray()
			perms.Set(key, v)
		}
		if v != nil && v.Kind == posjson.Null {
			return nil
		}
		return v
	}
	switch u.Type {
	case permission.AddRules, permission.ReplaceRules, permission.RemoveRules:
		key, ok := ruleKey(u.Behavior)
		if !ok {
			return fmt.Errorf("%s: behavior must be allow, ask or deny, not %s", u.Type, u.Behavior)
		}
		if u.Type == permission.RemoveRules {
			arr := child(key, false)
			if arr == nil {
				return nil
			}
			drop := map[string]bool{}
			for _, v := range u.Rules {
				drop[v.String()] = true
			}
			arr.Elems = slices.DeleteFunc(arr.Elems, func(el *posjson.Value) bool {
				return el.Kind == posjson.String && drop[normalizeRule(el.Str)]
			})
			return nil
		}
		for _, v := range u.Rules {
			if err := permission.ValidateRule(v.String()); err != nil {
				return fmt.Errorf("%s: rule %q is invalid: %w", u.Type, v.String(), err)
			}
		}
		arr := child(key, true)
		if u.Type == permission.ReplaceRules {
			arr.Elems = nil
		}
		for _, v := range u.Rules {
			arr.Elems = append(arr.Elems, posjson.NewString(v.String()))
		}
		dedupRules(arr)
	case permission.SetMode:
		m, err := permission.ParseMode(string(u.Mode))
		if err != nil {
			return fmt.Errorf("setMode: %w", err)
		}
		if perms == nil || perms.Kind == posjson.Null {
			perms = posjson.NewObject()
			root.Set("permissions", perms)
		}
		perms.Set("defaultMode", posjson.NewString(string(m)))
	case permission.AddDirectories:
		arr := child("additionalDirectories", true)
		for _, d := range u.Directories {
			if d == "" {
				return fmt.Errorf("addDirectories: empty path")
			}
			if !slices.ContainsFunc(arr.Elems, func(el *posjson.Value) bool { return el.Kind == posjson.String && samePath(el.Str, d) }) {
				arr.Elems = append(arr.Elems, posjson.NewString(d))
			}
		}
	case permission.RemoveDirectories:
		arr := child("additionalDirectories", false)
		if arr == nil {
			return nil
		}
		arr.Elems = slices.DeleteFunc(arr.Elems, func(el *posjson.Value) bool {
			return el.Kind == posjson.String && slices.ContainsFunc(u.Directories, func(d string) bool { return samePath(el.Str, d) })
		})
	default:
		return fmt.Errorf("unknown permission update type %q", u.Type)
	}
	return nil
}

// normalizeRule is the form rules are compared in: "Bash(*)", "Bash()" and "Bash" are one rule,
// and so are "Task" and "Agent".
func normalizeRule(s string) string { return permission.ParseRule(s).String() }

// dedupRules keeps the first of the rules that normalise alike. Entries that are not strings
// are left alone.
func dedupRules(arr *posjson.Value) {
	seen := map[string]bool{}
	arr.Elems = slices.DeleteFunc(arr.Elems, func(el *posjson.Value) bool {
		if el.Kind != posjson.String {
			return false
		}
		n := normalizeRule(el.Str)
		if seen[n] {
			return true
		}
		seen[n] = true
		return false
	})
}

func samePath(a, b string) bool { return a == b || filepath.Clean(a) == filepath.Clean(b) }
