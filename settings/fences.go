package settings

import (
	"fmt"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
)

// fenceKeys are the permissions keys that turn asks into denials (permission.Fences), with
// where each is kept in Settings.
var fenceKeys = []struct {
	key string
	dst func(*Settings) **BoolEntry
}{
	{"blockReadsOutsideWorkingDirectories", func(s *Settings) **BoolEntry { return &s.BlockReadsOutside }},
	{"blockWritesOutsideWorkingDirectories", func(s *Settings) **BoolEntry { return &s.BlockWritesOutside }},
	{"denyInsteadOfPrompting", func(s *Settings) **BoolEntry { return &s.DenyInsteadOfPrompting }},
}

// readFences reads the fence keys of the permissions object: true or false, anything else
// an error at its position (null too: a fence that cannot be read must not read as off).
func (d *settingsDoc) readFences(perms *posjson.Value, s *Settings) error {
	for _, k := range fenceKeys {
		v := perms.Get(k.key)
		if v == nil {
			continue
		}
		if v.Kind != posjson.Bool {
			return d.errAt(v.Off, "permissions.%s must be true or false, not %s", k.key, v.Describe())
		}
		line, col := d.idx.Pos(v.Off)
		*k.dst(s) = &BoolEntry{Value: v.Bool, Line: line, Col: col}
	}
	if v := perms.Get("disableSkillShellExecution"); v != nil {
		return d.errAt(v.Off, "disableSkillShellExecution is a top-level setting, not a permissions key")
	}
	return nil
}

// readSkillShell reads disableSkillShellExecution.
func (d *settingsDoc) readSkillShell(root *posjson.Value, s *Settings) error {
	v := root.Get("disableSkillShellExecution")
	if v == nil {
		return nil
	}
	if v.Kind != posjson.Bool {
		return d.errAt(v.Off, "disableSkillShellExecution must be true or false, not %s", v.Describe())
	}
	line, col := d.idx.Pos(v.Off)
	s.DisableSkillShell = &BoolEntry{Value: v.Bool, Line: line, Col: col}
	return nil
}

// Fences are the fences the settings turn on, each naming where: every file may turn one on,
// an untrusted project's too (they only take away), and false in another file never turns it
// off. Of several files that set one, the one of highest precedence is named (a policy's before
// anyone's). --restricted turns denyInsteadOfPrompting on for nobody: it changes what runs,
// not how asks are answered.
func (l *Loaded) Fences() permission.Fences {
	var f permission.Fences
	dst := []*string{&f.BlockReadsOutside, &f.BlockWritesOutside, &f.DenyInsteadOfPrompting}
	order := l.scalarOrder()
	for i := len(order) - 1; i >= 0; i-- {
		file := order[i]
		for j, k := range fenceKeys {
			if e := *k.dst(&file.Settings); e != nil && e.Value && *dst[j] == "" {
				*dst[j] = fmt.Sprintf("%s:%d:%d", file.Path, e.Line, e.Col)
			}
		}
	}
	return f
}

// SkillShellDisabled says where disableSkillShellExecution is turned on ("" when it is not),
// by the same rules as [Loaded.Fences].
func (l *Loaded) SkillShellDisabled() string {
	order := l.scalarOrder()
	for i := len(order) - 1; i >= 0; i-- {
		if e := order[i].Settings.DisableSkillShell; e != nil && e.Value {
			return fmt.Sprintf("%s:%d:%d", order[i].Path, e.Line, e.Col)
		}
	}
	return ""
}

// RestrictedTools are the tools --restricted takes away: the ones that run code (the shell and
// its background tasks, the worktree tools, which run git) and the web tools.
var RestrictedTools = []string{"Bash", "TaskOutput", "TaskStop", "PowerShell", "WebFetch", "WebSearch", "EnterWorktree", "ExitWorktree"}

// RestrictedFlag is the origin of --restricted's rules.
const RestrictedFlag = "--restricted"

// restrictedRules are --restricted's deny rules: applied whatever allowManagedPermissionRulesOnly
// says, as they only take away.
func restrictedRules() []permission.Rule {
	var out []permission.Rule
	for _, t := range RestrictedTools {
		out = append(out, permission.Rule{Value: permission.RuleValue{Tool: t}, Behavior: permission.Deny,
			Source: permission.SourceCLIArg, Origin: permission.Origin{Flag: RestrictedFlag}})
	}
	return out
}

// RestrictedSources are the settings sources --restricted reads: none of the user, project
// and local files (managed policy and --settings still apply).
func RestrictedSources() []permission.Source { return []permission.Source{} }
