package settings

import (
	"fmt"
	"strings"
	"testing"
)

// benchEnv writes 1,000 rules spread over the user, project, local, --settings and policy files.
func benchEnv(b *testing.B) *testEnv {
	e := newEnv(b)
	for i, name := range []string{"user", "project", "local", "flag", "policy"} {
		var allow, deny, ask []string
		for j := range 200 {
			n := i*200 + j
			switch j % 5 {
			case 0:
				allow = append(allow, fmt.Sprintf("%q", fmt.Sprintf("Bash(tool%d --flag:*)", n)))
			case 1:
				allow = append(allow, fmt.Sprintf("%q", fmt.Sprintf("Read(/src/pkg%d/**)", n)))
			case 2:
				deny = append(deny, fmt.Sprintf("%q", fmt.Sprintf("Edit(~/secret%d/*.key)", n)))
			case 3:
				ask = append(ask, fmt.Sprintf("%q", fmt.Sprintf("WebFetch(domain:host%d.example.com)", n)))
			case 4:
				deny = append(deny, fmt.Sprintf("%q", fmt.Sprintf("mcp__server%d__tool", n)))
			}
		}
		doc := fmt.Sprintf("{\n  \"permissions\": {\n    \"allow\": [\n      %s\n    ],\n    \"deny\": [\n      %s\n    ],\n    \"ask\": [\n      %s\n    ]\n  }\n}\n",
			strings.Join(allow, ",\n      "), strings.Join(deny, ",\n      "), strings.Join(ask, ",\n      "))
		e.write(b, name, doc)
	}
	return e
}

func BenchmarkLoad1000Rules(b *testing.B) {
	e := benchEnv(b)
	for b.Loop() {
		if _, err := Load(e.opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadAndContext1000Rules(b *testing.B) {
	e := benchEnv(b)
	for b.Loop() {
		l, err := Load(e.opts)
		if err != nil {
			b.Fatal(err)
		}
		pc, warns, err := l.Context(Flags{Trusted: true})
		if err != nil || len(warns) != 0 {
			b.Fatal(err, warns)
		}
		if n := len(pc.Rules()); n != 1000 {
			b.Fatalf("%d rules, want 1000", n)
		}
	}
}
