package settings

import "github.com/reinsdev/reins/permission"

// PersistPath is the file that updates aimed at an editable settings source (user, project,
// local) are written to, so a front end can name it before it writes.
func (o Options) PersistPath(s permission.Source) (string, error) { return o.persistPath(s) }
