package bashrules

import "testing"

// TestUsePath covers the path a word names relative to a directory option (git -C, tar -C),
// which the package's command tests reach only in part.
func TestUsePath(t *testing.T) {
	known := func(v string) Word { return Word{Src: v, Value: v, Known: true} }
	home := func(v string) Word { return Word{Src: v, Value: v, Known: true, Tilde: TildeHome} }
	dir := func(w Word) *Word { return &w }
	tests := []struct {
		name string
		u    pathUse
		want string
		ok   bool
	}{
		{"relative", pathUse{w: known("a.txt")}, "a.txt", true},
		{"quoted tilde is a directory name", pathUse{w: known("~/x")}, "./~/x", true},
		{"home", pathUse{w: home("~/x")}, "~/x", true},
		{"under dir", pathUse{w: known("a.txt"), dir: dir(known("sub"))}, "sub/a.txt", true},
		{"absolute ignores dir", pathUse{w: known("/etc/x"), dir: dir(known("sub"))}, "/etc/x", true},
		{"home ignores dir", pathUse{w: home("~/x"), dir: dir(known("sub"))}, "~/x", true},
		{"under home dir", pathUse{w: known("a"), dir: dir(home("~/d"))}, "~/d/a", true},
		{"under quoted tilde dir", pathUse{w: known("a"), dir: dir(known("~d"))}, "./~d/a", true},
		{"unknown dir", pathUse{w: known("a"), dir: dir(Word{Src: "$D"})}, "", false},
		{"pattern dir", pathUse{w: known("a"), dir: dir(Word{Src: "d*", Value: "d*", Known: true, Glob: true})}, "", false},
		{"another user's dir", pathUse{w: known("a"), dir: dir(Word{Src: "~bob", Value: "~bob", Known: true, Tilde: TildeOther})}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := usePath(tt.u)
			if got != tt.want || ok != tt.ok {
				t.Errorf("usePath = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
