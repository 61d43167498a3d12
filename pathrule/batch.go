package pathrule

import "fmt"

// A Batch compiles many patterns with a few allocations instead of several per pattern:
// patterns compiled through one Batch share backing arrays, allocated in chunks. A set of
// thousands of rules is compiled once per permission context, so this is most of the cost
// of building one. The patterns stay valid and immutable after the Batch is gone (they
// keep their chunks alive). A Batch is not safe for concurrent use; its zero value is ready.
type Batch struct {
	toks  []token // parseGeneral's scratch space
	pats  []Pattern
	segs  []segment
	runes []rune
}

// Compile is [Compile], allocating from the batch.
func (b *Batch) Compile(pattern string) (*Pattern, error) {
	p, err := compileIn(pattern, b)
	if err != nil {
		return nil, fmt.Errorf("invalid path pattern %q: %w", pattern, err)
	}
	return p, nil
}

// Chunks start small and double up to these sizes: a context of ten rules allocates little,
// one of thousands takes a handful of allocations. Each chunk stays under the runtime's
// large-object size (32 KB), whose allocations cost more.
const (
	batchPatterns = 64
	batchSegments = 256
	batchRunes    = 2048
)

// chunk is the capacity of the next chunk after one of capacity prev, holding at least n.
func chunk(prev, first, most, n int) int {
	return max(min(most, max(first, 2*prev)), n)
}

func (b *Batch) newPattern() *Pattern {
	if b == nil {
		return &Pattern{}
	}
	if len(b.pats) == cap(b.pats) {
		b.pats = make([]Pattern, 0, chunk(cap(b.pats), 4, batchPatterns, 1))
	}
	b.pats = b.pats[:len(b.pats)+1]
	return &b.pats[len(b.pats)-1]
}

// segments returns an empty slice with room for n segments; appending more than n to it
// must not happen (it would allocate, which is still correct, but wasteful).
func (b *Batch) segments(n int) []segment {
	if b == nil || n > batchSegments {
		return make([]segment, 0, n)
	}
	if cap(b.segs)-len(b.segs) < n {
		b.segs = make([]segment, 0, chunk(cap(b.segs), 16, batchSegments, n))
	}
	l := len(b.segs)
	b.segs = b.segs[:l+n]
	return b.segs[l : l : l+n]
}

// runesOf returns a slice of n runes (zeroed), full length, capacity n.
func (b *Batch) runesOf(n int) []rune {
	if b == nil || n > batchRunes {
		return make([]rune, n)
	}
	if cap(b.runes)-len(b.runes) < n {
		b.runes = make([]rune, 0, chunk(cap(b.runes), 128, batchRunes, n))
	}
	l := len(b.runes)
	b.runes = b.runes[:l+n]
	return b.runes[l : l+n : l+n]
}

func (b *Batch) scratch() []token {
	if b == nil || b.toks == nil {
		return make([]token, 0, 16)
	}
	return b.toks[:0]
}

func (b *Batch) keepScratch(toks []token) {
	if b != nil {
		b.toks = toks
	}
}
