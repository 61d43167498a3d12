package bashrules

import (
	"context"
	"fmt"
	"testing"

	"github.com/reinsdev/reins/permission"
)

// benchContext has 1,000 Bash rules of every form and behaviour; the ones that allow the
// benchmark command come last.
func benchContext(b *testing.B) *permission.Context {
	fx := newFixture(b)
	// The rules name the same tools as the command, so that they cannot be skipped by their
	// first letter alone.
	tools := []string{"git", "npm", "go", "ls", "make", "wc", "docker", "cargo", "python3", "kubectl"}
	var rules []string
	for i := range 1000 - 4 {
		tool := tools[i%len(tools)]
		switch i % 7 {
		case 0, 1:
			rules = append(rules, fmt.Sprintf("deny:Bash(%s sub%d:*)", tool, i))
		case 2:
			rules = append(rules, fmt.Sprintf("ask:Bash(%s * --flag%d)", tool, i))
		case 3, 4:
			rules = append(rules, fmt.Sprintf("allow:Bash(%s run --x%d)", tool, i))
		case 5:
			rules = append(rules, fmt.Sprintf("allow:Bash(%s sub%d *)", tool, i))
		default:
			rules = append(rules, fmt.Sprintf("allow:Bash(*%d*)", i))
		}
	}
	rules = append(rules, "allow:Bash(npm run build:*)", "allow:Bash(go vet *)", "allow:Bash(make test)", "deny:Bash(*--force*)")
	return fx.context(b, permission.ModeDefault, rules...)
}

const benchCommand = "git status && npm run build -- --prod && ls -la src | wc -l; go vet ./... || make test"

// BenchmarkCheckCompound is one decision for a five-part compound command against 1,000 rules.
func BenchmarkCheckCompound(b *testing.B) {
	pc := benchContext(b)
	ctx := context.Background()
	if d := Check(ctx, pc, benchCommand); d.Behavior != permission.Allow {
		b.Fatalf("benchmark command = %s (%s), want allow", d.Behavior, reasonText(d))
	}
	b.ReportAllocs()
	for b.Loop() {
		Check(ctx, pc, benchCommand)
	}
}

// BenchmarkAnalyze is the parse and walk alone.
func BenchmarkAnalyze(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(benchCommand); err != nil {
			b.Fatal(err)
		}
	}
}
