package settings

import (
	"github.com/reinsdev/reins/permission"
)

// PersistPath is the file that updates aimed at an editable settings source (user, project,
// local) are written to, so a front end can name it before it writes.
func (o Options) PersistPath(s permission.Source) (string, error) { return o.persistPath(s) }

// PersistFiles are the files Persist writes for the source s: the settings file and the
// lock file beside it.
func (o Options) PersistFiles(s permission.Source) ([]string, error) {
	p, err := o.persistPath(s)
	if err != nil {
		return nil, err
	}
	real, err := resolvePath(p)
	if err != nil {
		return nil, err
	}
	return []string{p, lockFileOf(real)}, nil
}
