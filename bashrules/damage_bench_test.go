package bashrules

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// BenchmarkDamageRmTree is one decision of rm -rf over a tree of 20,000 files in 200 folders
// (git's view out of it: a fake that answers at once), the count's whole cost: the walk, one
// Lstat per file, the classification.
func BenchmarkDamageRmTree(b *testing.B) {
	proj := damageTree(b, []string{"README.md"}, nil)
	for d := range 200 {
		dir := filepath.Join(proj, "victim", fmt.Sprintf("d%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", f)), []byte("x"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	pc := damageContext(b, proj, permission.ModeBypass, &permission.DamageBudget{Files: 1 << 40, Bytes: 1 << 40})
	ctx := WithGit(b.Context(), fakeGit{root: proj})
	old := maxDamageEntries
	maxDamageEntries = 50000 // the whole tree, not the default bound
	defer func() { maxDamageEntries = old }()
	b.ReportAllocs()
	for b.Loop() {
		d := Check(ctx, pc, "rm -rf victim").Damage
		// Under load the time bound may stop the walk first: then the count is a floor.
		if d == nil || (d.Files != 20000 && !d.AtLeast) {
			b.Fatalf("counted %+v", d)
		}
	}
}
