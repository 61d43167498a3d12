package files

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"strings"
	"testing"
	"time"
)

func TestReadFormat(t *testing.T) {
	tests := []struct {
		name, content string
		in            obj
		want          string
	}{
		{"numbers lines cat -n style", "alpha\nbeta\n\tgamma\n", obj{}, "1\talpha\n2\tbeta\n3\t\tgamma"},
		{"last line without newline", "a\nb", obj{}, "1\ta\n2\tb"},
		{"blank lines kept", "a\n\n\nb\n", obj{}, "1\ta\n2\t\n3\t\n4\tb"},
		{"offset and limit", "1\n2\n3\n4\n5\n", obj{"offset": 2, "limit": 2}, "2\t2\n3\t3"},
		{"offset zero is the first line", "x\ny\n", obj{"offset": 0, "limit": 1}, "1\tx"},
		{"offset without limit reads to the end", "1\n2\n3\n", obj{"offset": 2}, "2\t2\n3\t3"},
		{"limit past the end", "1\n2\n", obj{"limit": 10}, "1\t1\n2\t2"},
		{"CRLF becomes LF", "a\r\nb\r\n", obj{}, "1\ta\n2\tb"},
		{"BOM stripped", "\uFEFFhello\n", obj{}, "1\thello"},
		{"lone CR kept inside a line", "a\rb\n", obj{}, "1\ta\rb"},
		{"empty file", "", obj{}, "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"},
		{"past the end", "1\n2\n3\n", obj{"offset": 10}, "<system-reminder>Warning: the file exists but is shorter than the provided offset (10). The file has 3 lines.</system-reminder>"},
		{"just past the end", "1\n2\n3", obj{"offset": 4, "limit": 5}, "<system-reminder>Warning: the file exists but is shorter than the provided offset (4). The file has 3 lines.</system-reminder>"},
		{"past the end of an empty file", "", obj{"offset": 5}, "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			p := f.write("f.txt", tc.content)
			in := obj{"file_path": p}
			for k, v := range tc.in {
				in[k] = v
			}
			res := f.mustOK(NewRead(Options{}), in)
			if got := res.TextOf(); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestReadRecordsFileState(t *testing.T) {
	f := newFixture(t)
	content := "one\ntwo\nthree\n"
	p := f.write("f.txt", content)
	fi, _ := os.Stat(p)
	read := NewRead(Options{})

	f.mustOK(read, obj{"file_path": p})
	r, ok := f.env.Files.Lookup(p)
	if !ok || r.Partial || r.Hash != hashBytes([]byte(content)) || !r.ModTime.Equal(fi.ModTime()) {
		t.Fatalf("whole read recorded as %+v (ok=%v)", r, ok)
	}

	f.mustOK(read, obj{"file_path": p, "offset": 2, "limit": 1})
	r, _ = f.env.Files.Lookup(p)
	if !r.Partial || r.Hash != "" || r.Offset != 2 || r.Limit != 1 {
		t.Fatalf("partial read recorded as %+v", r)
	}

	// A limit that covers the whole file is a whole read.
	f.mustOK(read, obj{"file_path": p, "limit": 3})
	if r, _ = f.env.Files.Lookup(p); r.Partial || r.Hash == "" {
		t.Fatalf("read of every line recorded as %+v", r)
	}
	f.mustOK(read, obj{"file_path": p, "limit": 2})
	if r, _ = f.env.Files.Lookup(p); !r.Partial {
		t.Fatalf("read of the first two lines recorded as %+v", r)
	}
}

func TestReadRelativePath(t *testing.T) {
	f := newFixture(t)
	f.write("sub/f.txt", "hi\n")
	res := f.mustOK(NewRead(Options{}), obj{"file_path": "sub/f.txt"})
	if res.TextOf() != "1\thi" {
		t.Fatalf("got %q", res.TextOf())
	}
	if _, ok := f.env.Files.Lookup(f.path("sub/f.txt")); !ok {
		t.Fatal("relative read not recorded under the absolute path")
	}
}

func TestReadLimits(t *testing.T) {
	f := newFixture(t)
	read := NewRead(Options{})
	big := strings.Repeat(strings.Repeat("x", 99)+"\n", 3000) // 300,000 bytes
	p := f.write("big.txt", big)
	f.mustFail(read, obj{"file_path": p}, "call",
		"File content (293KB) exceeds maximum allowed size (256KB). Please use offset and limit parameters to read specific portions of the file, or use the Grep tool to search for specific content.")
	// With a limit the size limit does not apply, the token limit does.
	res := f.mustOK(read, obj{"file_path": p, "offset": 2990, "limit": 100})
	if !strings.HasPrefix(res.TextOf(), "2990\t") || strings.Count(res.TextOf(), "\n") != 10 {
		t.Fatalf("read of the last lines: %q", res.TextOf()[:40])
	}
	f.mustFail(read, obj{"file_path": p, "limit": 2000}, "call",
		"File content (50000 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit parameters to read specific portions of the file, or use the Grep tool to search for specific content.")
	// Under the size limit but over the token limit.
	p2 := f.write("tokens.txt", strings.Repeat(strings.Repeat("y", 199)+"\n", 1000)) // 200,000 bytes
	f.mustFail(read, obj{"file_path": p2}, "call",
		"File content (50000 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit parameters to read specific portions of the file, or use the Grep tool to search for specific content.")
	// Options lower the limits.
	small := NewRead(Options{MaxReadBytes: 1000, MaxReadTokens: 10})
	p3 := f.write("small.txt", strings.Repeat("z", 1001))
	f.mustFail(small, obj{"file_path": p3}, "call",
		"File content (1001 bytes) exceeds maximum allowed size (1000 bytes). Please use offset and limit parameters to read specific portions of the file, or use the Grep tool to search for specific content.")
	p4 := f.write("small2.txt", strings.Repeat("z", 100))
	f.mustFail(small, obj{"file_path": p4}, "call",
		"File content (25 tokens) exceeds maximum allowed tokens (10). Please use offset and limit parameters to read specific portions of the file, or use the Grep tool to search for specific content.")
	if _, ok := f.env.Files.Lookup(p4); ok {
		t.Error("a refused read was recorded")
	}
}

func TestReadRefusals(t *testing.T) {
	f := newFixture(t, denyRule("Read", "secret/**"))
	read := NewRead(Options{})
	f.write("secret/key.txt", "k")
	f.mustFail(read, obj{"file_path": f.path("secret/key.txt")}, "validate", msgDenied)

	f.mustFail(read, obj{"file_path": f.path("nope.txt")}, "validate",
		fmt.Sprintf("File does not exist. Note: your current working directory is %s.", f.dir))
	f.write("main.go", "package main\n")
	f.mustFail(read, obj{"file_path": f.path("main.ts")}, "validate",
		fmt.Sprintf("File does not exist. Note: your current working directory is %s. Did you mean %s?", f.dir, f.path("main.go")))

	f.write("a.zip", "PK")
	f.mustFail(read, obj{"file_path": f.path("a.zip")}, "validate",
		"This tool cannot read binary files. The file appears to be a binary .zip file. Please use appropriate tools for binary file analysis.")
	f.write("data.weird", "abc\x00def")
	f.mustFail(read, obj{"file_path": f.path("data.weird")}, "call",
		"This tool cannot read binary files. The file appears to be a binary .weird file. Please use appropriate tools for binary file analysis.")
	f.write("noext", "\x00\x01")
	f.mustFail(read, obj{"file_path": f.path("noext")}, "call",
		"This tool cannot read binary files. The file appears to be a binary file. Please use appropriate tools for binary file analysis.")

	f.mustFail(read, obj{"file_path": "/dev/zero"}, "validate", "Cannot read '/dev/zero': this device file would block or produce infinite output.")
	f.mustFail(read, obj{"file_path": f.dir}, "validate", f.dir+" is a directory, not a file. Use ls via the Bash tool to list a directory.")
	f.write("doc.pdf", "%PDF-1.4")
	o := f.run(read, obj{"file_path": f.path("doc.pdf")})
	if o.stage != "validate" || !strings.Contains(o.err, "PDF") {
		t.Errorf("PDF: %s %q", o.stage, o.err)
	}
	f.mustFail(read, obj{"file_path": f.path("doc.pdf"), "pages": "5-1"}, "validate",
		`Invalid pages parameter: "5-1". Use formats like "1-5", "3", or "10-20". Pages are 1-indexed and at most 20 pages can be read at once.`)
	f.mustFail(read, obj{"file_path": f.path("x"), "limit": 0}, "decode",
		"InputValidationError: Read failed due to the following issue:\nThe parameter `limit` must be greater than 0")
}

func TestReadUTF16(t *testing.T) {
	f := newFixture(t)
	// "héllo\r\nwörld 😀\r\n" in UTF-16LE with a BOM.
	raw := textFormat{enc: encUTF16LE}.encode("héllo\r\nwörld 😀\r\n")
	p := f.path("u16.txt")
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	res := f.mustOK(NewRead(Options{}), obj{"file_path": p})
	if got, want := res.TextOf(), "1\théllo\n2\twörld 😀"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if r, _ := f.env.Files.Lookup(p); r.Hash != hashBytes(raw) {
		t.Fatal("hash is not of the raw bytes")
	}
}

func TestReadImage(t *testing.T) {
	f := newFixture(t)
	read := NewRead(Options{})
	encode := func(w, h int) []byte {
		img := image.NewNRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				img.SetNRGBA(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
			}
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	small := encode(10, 5)
	p := f.path("small.png")
	os.WriteFile(p, small, 0o644)
	res := f.mustOK(read, obj{"file_path": p})
	if len(res.Content) != 1 || res.Content[0].Type != "image" || res.Content[0].MediaType != "image/png" ||
		res.Content[0].Data != base64.StdEncoding.EncodeToString(small) {
		t.Fatalf("small image: %+v", res.Content)
	}
	// The media type comes from the content, not the extension.
	p = f.path("really-png.jpg")
	os.WriteFile(p, small, 0o644)
	if res := f.mustOK(read, obj{"file_path": p}); res.Content[0].MediaType != "image/png" {
		t.Fatalf("media type %q", res.Content[0].MediaType)
	}
	// Too large: scaled to fit 2000 px.
	p = f.path("big.png")
	os.WriteFile(p, encode(2100, 300), 0o644)
	res = f.mustOK(read, obj{"file_path": p})
	data, _ := base64.StdEncoding.DecodeString(res.Content[0].Data)
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width != 2000 || cfg.Height != 285 {
		t.Fatalf("scaled image: %+v %v", cfg, err)
	}
	p = f.path("broken.png")
	os.WriteFile(p, []byte("not an image"), 0o644)
	if o := f.run(read, obj{"file_path": p}); o.stage != "call" || !strings.Contains(o.err, "does not contain a PNG, JPEG, GIF or WEBP image") {
		t.Fatalf("broken image: %s %q", o.stage, o.err)
	}
}

func TestReadNotebook(t *testing.T) {
	f := newFixture(t)
	png1 := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\nfake"))
	nb := `{
 "cells": [
  {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Title\n", "Some text"]},
  {"cell_type": "code", "execution_count": 1, "id": "calc", "metadata": {}, "source": "print(1+1)",
   "outputs": [{"output_type": "stream", "name": "stdout", "text": ["2\n"]},
               {"output_type": "display_data", "data": {"text/plain": ["<Figure>"], "image/png": "` + png1 + `"}, "metadata": {}}]},
  {"cell_type": "code", "execution_count": 2, "metadata": {}, "source": "1/0",
   "outputs": [{"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero", "traceback": ["\u001b[0;31mTraceback\u001b[0m", "ZeroDivisionError: division by zero"]}]}
 ],
 "metadata": {"language_info": {"name": "python"}},
 "nbformat": 4, "nbformat_minor": 4
}`
	p := f.write("n.ipynb", nb)
	res := f.mustOK(NewRead(Options{}), obj{"file_path": p})
	if len(res.Content) != 3 || res.Content[1].Type != "image" || res.Content[1].Data != png1 {
		t.Fatalf("blocks: %+v", res.Content)
	}
	want0 := "<cell id=\"intro\"><cell_type>markdown</cell_type># Title\nSome text</cell id=\"intro\">\n" +
		"<cell id=\"calc\">print(1+1)</cell id=\"calc\">\n2\n<Figure>"
	want2 := "<cell id=\"cell-2\">1/0</cell id=\"cell-2\">\nZeroDivisionError: division by zero\nTraceback\nZeroDivisionError: division by zero"
	if res.Content[0].Text != want0 || res.Content[2].Text != want2 {
		t.Fatalf("got\n%q\n%q", res.Content[0].Text, res.Content[2].Text)
	}
	if r, ok := f.env.Files.Lookup(p); !ok || r.Partial {
		t.Fatal("notebook read not recorded as a whole read")
	}
	p = f.write("bad.ipynb", "{nope")
	if o := f.run(NewRead(Options{}), obj{"file_path": p}); o.stage != "call" || !strings.Contains(o.err, "is not valid JSON") {
		t.Fatalf("bad notebook: %s %q", o.stage, o.err)
	}
}

func TestReadLongLinesAcrossBuffers(t *testing.T) {
	f := newFixture(t)
	long := strings.Repeat("ab", scanBufSize) // one line twice the buffer
	p := f.write("long.txt", "first\n"+long+"\nlast\n")
	res := f.mustOK(NewRead(Options{MaxReadBytes: 1 << 30, MaxReadTokens: 1 << 30}), obj{"file_path": p})
	if want := "1\tfirst\n2\t" + long + "\n3\tlast"; res.TextOf() != want {
		t.Fatalf("long line mangled (len %d, want %d)", len(res.TextOf()), len(want))
	}
	res = f.mustOK(NewRead(Options{}), obj{"file_path": p, "offset": 3, "limit": 5})
	if res.TextOf() != "3\tlast" {
		t.Fatalf("got %q", res.TextOf())
	}
}

func TestReadSeesModTime(t *testing.T) {
	f := newFixture(t)
	p := f.write("f.txt", "x\n")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(p, old, old)
	f.mustOK(NewRead(Options{}), obj{"file_path": p})
	if r, _ := f.env.Files.Lookup(p); !r.ModTime.Equal(old) {
		t.Fatalf("recorded mtime %v, want %v", r.ModTime, old)
	}
}
