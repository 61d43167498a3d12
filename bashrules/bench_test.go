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
	benchCheck(b, benchContext(b))
}

// benchCheck times the decision on benchCommand, which must be allowed.
func benchCheck(b *testing.B, pc *permission.Context) {
	ctx := context.Background()
	if d := Check(ctx, pc, benchCommand); d.Behavior != permission.Allow {
		b.Fatalf("benchmark command = %s (%s), want allow", d.Behavior, reasonText(d))
	}
	b.ReportAllocs()
	for b.Loop() {
		Check(ctx, pc, benchCommand)
	}
}

// scaleRules spreads n rules over every source: Bash rules naming the benchmark command's own
// first words (so that the first word alone cannot rule them out), Read and Edit rules of
// several anchors, WebFetch rules; the four rules that allow the command come last.
func scaleRules(fx fixture, n int) []permission.Rule {
	tools := []string{"git", "npm", "go", "ls", "make", "wc", "docker", "cargo", "python3", "kubectl"}
	var out []permission.Rule
	add := func(b permission.Behavior, v string, src permission.Source) {
		out = append(out, permission.Rule{Value: permission.ParseRule(v), Behavior: b, Source: src, Root: fx.proj})
	}
	for i := range max(n-4, 0) {
		tool, src := tools[i%len(tools)], permission.Sources[i%len(permission.Sources)]
		switch i % 8 {
		case 0:
			add(permission.Deny, fmt.Sprintf("Bash(%s sub%d:*)", tool, i), src)
		case 1:
			add(permission.Ask, fmt.Sprintf("Bash(%s sub%d *)", tool, i), src)
		case 2:
			add(permission.Allow, fmt.Sprintf("Bash(%s run --x%d)", tool, i), src)
		case 3:
			add(permission.Allow, fmt.Sprintf("Bash(%s sub%d *)", tool, i), src)
		case 4:
			add(permission.Deny, fmt.Sprintf("Read(src/pkg%d/**)", i), src)
		case 5:
			add(permission.Ask, fmt.Sprintf("Read(~/secrets%d/**)", i), src)
		case 6:
			add(permission.Deny, fmt.Sprintf("Edit(//var/data%d/**)", i), src)
		default:
			add(permission.Allow, fmt.Sprintf("WebFetch(domain:host%d.example.com)", i), src)
		}
	}
	for _, v := range []string{"Bash(npm run build:*)", "Bash(go vet *)", "Bash(make test)"} {
		add(permission.Allow, v, permission.SourceLocal)
	}
	add(permission.Deny, "Bash(*--force*)", permission.SourcePolicy)
	return out
}

// BenchmarkScaleCompound is one decision for the five-part compound command as the number of
// rules grows; it should cost about the same whatever the count.
func BenchmarkScaleCompound(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			fx := newFixture(b)
			pc, err := permission.New(permission.Config{Cwd: fx.proj, Home: fx.home, Rules: scaleRules(fx, n)})
			if err != nil {
				b.Fatal(err)
			}
			benchCheck(b, pc)
		})
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
