package bashrules

import "slices"

// twin returns an earlier top-level command of this command line that is decided exactly as
// c is, so that the same simple command written twice (make && make) is decided once. The
// decision of a command reads its own fields and the working directories it runs in, so both
// must agree: every field sameDecision compares, the directories (cwds: a cd between the two
// makes them differ), no children (a child's decision reads its parent) and no cd verdict of
// its own. Under a trace or Explain every command is decided, so that each leaves its lines.
func (k *checker) twin(c *Command) (result, bool) {
	if k.rec.on || k.rec.effects != nil || !dedupable(k, c) {
		return result{}, false
	}
	for _, d := range k.decided {
		if d.Text == c.Text && sameDecision(d, c) && slices.Equal(k.paths.cwds(d.Where), k.paths.cwds(c.Where)) {
			if r, ok := k.memo.result(d); ok {
				return r, true
			}
		}
	}
	if len(k.decided) < maxTwins {
		k.decided = append(k.decided, c)
	}
	return result{}, false
}

// maxTwins bounds the commands a command is compared with, so that a long command line does
// not cost the square of its length.
const maxTwins = 32

// dedupable reports whether c's decision depends only on its own fields and directories: a
// top-level command without children and not itself a cd.
func dedupable(k *checker, c *Command) bool {
	if c.Parent != nil || len(k.memo.children[c]) > 0 {
		return false
	}
	if k.paths.cd != nil {
		if _, isCd := k.paths.cd.each[c]; isCd {
			return false
		}
	}
	return true
}

// sameDecision compares the fields of two commands that their decisions read. The fields it
// leaves out are listed in TestSameDecisionCoversCommand, which fails when a field is added
// to Command until it is placed in one list or the other.
func sameDecision(a, b *Command) bool {
	return a.Kind == b.Kind && a.Text == b.Text &&
		(a.Argv == nil) == (b.Argv == nil) && slices.Equal(a.Argv, b.Argv) && slices.Equal(a.Words, b.Words) &&
		slices.Equal(a.Assigns, b.Assigns) && slices.Equal(a.Roots, b.Roots) && slices.Equal(a.Issues, b.Issues) &&
		a.Parent == b.Parent && a.Via == b.Via && a.Transparent == b.Transparent && a.Speculative == b.Speculative &&
		a.ExtraArgs == b.ExtraArgs && a.OtherDir == b.OtherDir && a.Nested == b.Nested && a.ReadsStdin == b.ReadsStdin
}
