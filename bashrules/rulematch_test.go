package bashrules

import "testing"

func TestMatchRule(t *testing.T) {
	tests := []struct {
		rule, cmd string
		want      bool
	}{
		{"npm test", "npm test", true},
		{"npm test", "  npm test  ", true},
		{"npm test", "npm test --watch", false},
		{" npm test ", "npm test", true},
		{"npm run test:*", "npm run test", true},
		{"npm run test:*", "npm run test --watch", true},
		{"npm run test:*", "npm run test:unit", false},
		{"npm run test:*", "npm run testx", false},
		{"grep:*", "xargs grep foo", true},
		{"grep:*", "xargs grep", true},
		{"grep:*", "xargs -0 grep foo", false},
		{"git *", "git", true},
		{"git *", "git status", true},
		{"git *", "gitx", false},
		{"git * main", "git push origin main", true},
		{"git * main", "git push origin main2", false},
		{"git * main", "git main", false},
		{"* --force*", "git push --force", true},
		{"*--force*", "git push --force-with-lease", true},
		{"echo *", "echo a\nb", true},
		{`echo \*`, "echo *", false},
		{`echo \* *`, "echo * x", true},
		{`echo \* *`, "echo x x", false},
		{`a\\b*`, `a\bc`, true},
		{"ls *", "ls", true},
		{"ls * *", "ls", false},
		{"*", "anything at all", true},
		{"a*b*c", "abc", true},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "aXbYcZ", false},
		{"a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
		{":*", ":*", true}, // not a prefix rule: the prefix is empty, so it is a wildcard
	}
	for _, tt := range tests {
		if got := MatchRule(tt.rule, tt.cmd); got != tt.want {
			t.Errorf("MatchRule(%q, %q) = %v, want %v", tt.rule, tt.cmd, got, tt.want)
		}
	}
}

func TestForm(t *testing.T) {
	for content, want := range map[string]RuleForm{"ls": FormExact, "ls:*": FormPrefix, "ls *": FormWildcard, `ls \*`: FormExact, ":*": FormWildcard} {
		if got := Form(content); got != want {
			t.Errorf("Form(%q) = %d, want %d", content, got, want)
		}
	}
}
