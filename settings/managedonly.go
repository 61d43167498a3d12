package settings

import "github.com/reinsdev/reins/permission"

// ManagedRulesOnly reports whether managed policy sets allowManagedPermissionRulesOnly: then no
// rule but the policy's applies, including rules that come from outside the settings files
// (a slash command's allowed-tools).
func (l *Loaded) ManagedRulesOnly() bool {
	on := false
	for _, file := range l.scalarOrder() {
		if m := file.Settings.ManagedOnly; m != nil && file.Source == permission.SourcePolicy {
			on = m.Value
		}
	}
	return on
}
