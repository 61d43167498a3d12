package files

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
)

// benchFile returns a file of about size bytes of numbered lines and its line count. The file
// named by REINS_READ_BENCH_FILE is used when set (bench/read.sh makes one); otherwise one is
// generated in the benchmark's temporary directory. Benchmarks only run with -bench, so normal
// test runs never write it.
func benchFile(b *testing.B, size int64) (string, int) {
	b.Helper()
	if p := os.Getenv("REINS_READ_BENCH_FILE"); p != "" {
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		n, err := countNewlines(f)
		if err != nil {
			b.Fatal(err)
		}
		return p, n
	}
	p := filepath.Join(b.TempDir(), "big.txt")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	n := 0
	for written < size {
		k, _ := fmt.Fprintf(w, "%09d lorem ipsum dolor sit amet, consectetur\n", n)
		written += int64(k)
		n++
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return p, n
}

func countNewlines(r io.Reader) (int, error) {
	buf := make([]byte, 1<<20)
	n := 0
	for {
		k, err := r.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// BenchmarkReadNearEnd reads 2,000 lines near the end of a 1 GB file through the Read tool.
func BenchmarkReadNearEnd(b *testing.B) {
	p, lines := benchFile(b, 1<<30)
	dir := filepath.Dir(p)
	pc, err := permission.New(permission.Config{Cwd: dir, Home: dir})
	if err != nil {
		b.Fatal(err)
	}
	env := &tool.Env{Permissions: func() *permission.Context { return pc }, Files: tool.NewFileState()}
	read := NewRead(Options{})
	raw, _ := json.Marshal(obj{"file_path": p, "offset": lines - 2100, "limit": 2000})
	in, err := read.Decode(raw)
	if err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(p)
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := read.Call(context.Background(), in, env)
		if err != nil {
			b.Fatal(err)
		}
		if res.Output.(ReadOutput).NumLines != 2000 {
			b.Fatalf("read %d lines", res.Output.(ReadOutput).NumLines)
		}
	}
}
