// Command gentree writes a large, deterministic source tree for the Grep benchmarks, so that
// anyone can rebuild the same input: by default 19,388 files and about 547 MB of Go-like code
// in nested packages, with identifiers, error types, errors.New calls and comments at rates
// like real code's.
//
//	go run ./bench/gentree -out /tmp/bigtree
//	bash bench/grep.sh /tmp/bigtree
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

var words = []string{"client", "server", "request", "response", "handler", "config", "buffer", "reader",
	"writer", "token", "parser", "scanner", "value", "index", "cache", "entry", "node", "tree", "list",
	"queue", "stream", "session", "context", "timeout", "retry", "limit", "count", "name", "path", "file"}

var types = []string{"Parse", "Syntax", "Timeout", "Permission", "NotFound", "Closed", "Invalid", "Range"}

func ident(r *rand.Rand) string {
	w := words[r.IntN(len(words))]
	if r.IntN(3) == 0 {
		w += string(rune('A'+r.IntN(26))) + words[r.IntN(len(words))]
	}
	return w
}

// line writes one line of code chosen with fixed odds.
func line(w *bufio.Writer, r *rand.Rand, depth int) {
	ind := "\t\t"[:min(depth, 2)]
	switch n := r.IntN(100); {
	case n < 12:
		fmt.Fprintf(w, "%s// %s the %s of the %s before %s.\n", ind, ident(r), ident(r), ident(r), ident(r))
	case n < 16:
		fmt.Fprintf(w, "%sif err != nil {\n%s\treturn fmt.Errorf(\"%s %s: %%w\", err)\n%s}\n", ind, ind, ident(r), ident(r), ind)
	case n < 18:
		fmt.Fprintf(w, "%sreturn errors.New(\"%s: %s\")\n", ind, ident(r), ident(r))
	case n < 19:
		fmt.Fprintf(w, "%sreturn &%sError{%s: %s}\n", ind, types[r.IntN(len(types))], ident(r), ident(r))
	case n < 20:
		fmt.Fprintf(w, "%svar Err%s = errors.New(\"%s\")\n", ind, types[r.IntN(len(types))], ident(r))
	case n < 45:
		fmt.Fprintf(w, "%s%s := %s.%s(%s, %d)\n", ind, ident(r), ident(r), ident(r), ident(r), r.IntN(1000))
	case n < 65:
		fmt.Fprintf(w, "%s%s.%s = append(%s.%s, %s)\n", ind, ident(r), ident(r), ident(r), ident(r), ident(r))
	case n < 80:
		fmt.Fprintf(w, "%sfor i := 0; i < len(%s); i++ {\n%s\t%s[i] = %s(%s[i])\n%s}\n", ind, ident(r), ind, ident(r), ident(r), ident(r), ind)
	default:
		fmt.Fprintf(w, "%s%s, ok := %s[%q]\n", ind, ident(r), ident(r), ident(r))
	}
}

func main() {
	out := flag.String("out", "", "folder to write the tree into (must not exist)")
	files := flag.Int("files", 19388, "number of files")
	size := flag.Int("size", 28200, "approximate bytes per file")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: gentree -out DIR [-files N] [-size BYTES] [-seed S]")
		os.Exit(2)
	}
	if _, err := os.Stat(*out); err == nil {
		fmt.Fprintf(os.Stderr, "gentree: %s exists; remove it first\n", *out)
		os.Exit(1)
	}
	r := rand.New(rand.NewPCG(*seed, 2))
	for i := range *files {
		dir := filepath.Join(*out, fmt.Sprintf("pkg%03d", i%331), fmt.Sprintf("sub%02d", (i/331)%17))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("file%05d.go", i)))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		w := bufio.NewWriterSize(f, 64<<10)
		fmt.Fprintf(w, "package sub%02d\n\nimport (\n\t\"errors\"\n\t\"fmt\"\n)\n\n", (i/331)%17)
		// The writer's buffer (64 KiB) holds the whole file, so Buffered is its size so far.
		for w.Buffered() < *size {
			fmt.Fprintf(w, "func %s%d(%s string) error {\n", ident(r), r.IntN(1000), ident(r))
			for range 5 + r.IntN(20) {
				line(w, r, 1)
			}
			fmt.Fprintln(w, "\treturn nil\n}")
			fmt.Fprintln(w)
		}
		if err := w.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		f.Close()
	}
}
