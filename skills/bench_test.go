package skills

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkLoad200 is the start-up cost of a skills folder at its bound: 200 skills, each a
// SKILL.md with a description and allowed-tools.
func BenchmarkLoad200(b *testing.B) {
	root := b.TempDir()
	for i := range MaxSkills {
		writeSkill(b, root, fmt.Sprintf("skill-%d", i), "description: does thing number "+fmt.Sprint(i)+"\nallowed-tools: Read, Bash(make test:*)")
	}
	for b.Loop() {
		if s := Load(context.Background(), []Root{{Path: root, Source: SourceProject}}, true); len(s.All()) != MaxSkills {
			b.Fatal(len(s.All()))
		}
	}
}
