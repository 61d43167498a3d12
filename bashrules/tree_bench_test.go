package bashrules

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// BenchmarkRecursiveRead is grep -r over 2,000 files with a Read deny rule, which checks every
// file below the directory.
func BenchmarkRecursiveRead(b *testing.B) {
	fx := newFixture(b)
	for i := range 2000 {
		p := filepath.Join(fx.proj, "tree", fmt.Sprintf("d%d", i%40), fmt.Sprintf("f%d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	pc := fx.context(b, permission.ModeDefault, denyEnv)
	if d := Check(context.Background(), pc, "grep -r KEY tree"); d.Behavior != permission.Allow {
		b.Fatalf("grep -r over a tree without .env = %s", d.Behavior)
	}
	b.ReportAllocs()
	for b.Loop() {
		Check(context.Background(), pc, "grep -r KEY tree")
	}
}
