package files

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/tool"
)

const notFoundFmt = "String to replace not found in file.\nString: %s"

func TestEditValidationOrder(t *testing.T) {
	f := newFixture(t, denyRule("Edit", "locked/**"))
	edit := NewEdit(Options{})
	read := NewRead(Options{})
	f.write("locked/a.txt", "x")
	f.write("nb.ipynb", `{"cells": []}`)
	f.write("dup.txt", "a a a\n")
	f.write("text.txt", "hello world\n")
	for _, n := range []string{"nb.ipynb", "dup.txt", "text.txt"} {
		f.mustOK(read, obj{"file_path": f.path(n)})
	}
	f.write("unread.txt", "content\n")
	missing := fmt.Sprintf("File does not exist. Note: your current working directory is %s.", f.dir)

	tests := []struct {
		name string
		in   obj
		want string
	}{
		// 1 comes before everything, even a denied or missing file.
		{"same strings", obj{"file_path": f.path("locked/a.txt"), "old_string": "x", "new_string": "x"}, "No changes to make: old_string and new_string are exactly the same."},
		{"same strings, missing file", obj{"file_path": f.path("none"), "old_string": "", "new_string": ""}, "No changes to make: old_string and new_string are exactly the same."},
		// 2 before the existence check.
		{"denied", obj{"file_path": f.path("locked/a.txt"), "old_string": "x", "new_string": "y"}, msgDenied},
		{"denied and missing", obj{"file_path": f.path("locked/none.txt"), "old_string": "x", "new_string": "y"}, msgDenied},
		{"missing", obj{"file_path": f.path("none.txt"), "old_string": "x", "new_string": "y"}, missing},
		{"exists, create", obj{"file_path": f.path("text.txt"), "old_string": "", "new_string": "y"}, "Cannot create new file - file already exists."},
		{"notebook", obj{"file_path": f.path("nb.ipynb"), "old_string": "cells", "new_string": "x"}, "File is a Jupyter Notebook. Use the NotebookEdit to edit this file."},
		{"unread", obj{"file_path": f.path("unread.txt"), "old_string": "content", "new_string": "x"}, msgNotRead},
		{"not found", obj{"file_path": f.path("text.txt"), "old_string": "bye", "new_string": "x"}, fmt.Sprintf(notFoundFmt, "bye")},
		{"several matches", obj{"file_path": f.path("dup.txt"), "old_string": "a", "new_string": "b"},
			"Found 3 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f.mustFail(edit, tc.in, "validate", tc.want)
		})
	}
	// Nothing was changed by the refused edits.
	if f.read("dup.txt") != "a a a\n" || f.read("text.txt") != "hello world\n" {
		t.Fatal("a refused edit changed a file")
	}
}

func TestEditTooLarge(t *testing.T) {
	f := newFixture(t)
	p := f.path("huge.txt")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, maxEditBytes+1); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	f.mustFail(NewEdit(Options{}), obj{"file_path": p, "old_string": "a", "new_string": "b"}, "validate",
		"File is too large to edit (1GB). Maximum editable file size is 1GB.")
}

func TestEditReplaces(t *testing.T) {
	f := newFixture(t)
	edit, read := NewEdit(Options{}), NewRead(Options{})
	lines := make([]string, 20)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i+1)
	}
	p := f.write("f.txt", strings.Join(lines, "\n")+"\n")
	f.mustOK(read, obj{"file_path": p})
	res := f.mustOK(edit, obj{"file_path": p, "old_string": "line 10\n", "new_string": "line ten\nline ten and a half\n"})
	want := fmt.Sprintf("The file %s has been updated successfully.\n\nHere's the result of running `cat -n` on a snippet of the edited file:\n"+
		"6\tline 6\n7\tline 7\n8\tline 8\n9\tline 9\n10\tline ten\n11\tline ten and a half\n12\tline 11\n13\tline 12\n14\tline 13\n15\tline 14\n16\tline 15", p)
	if res.TextOf() != want {
		t.Fatalf("got\n%s\nwant\n%s", res.TextOf(), want)
	}
	if got := f.read("f.txt"); !strings.Contains(got, "line 9\nline ten\nline ten and a half\nline 11\n") {
		t.Fatalf("file: %q", got)
	}
	// The edit counts as a read of the new content: a second edit needs no Read.
	f.mustOK(edit, obj{"file_path": p, "old_string": "line 1\n", "new_string": "first\n"})
	if !strings.HasPrefix(f.read("f.txt"), "first\nline 2\n") {
		t.Fatalf("second edit: %q", f.read("f.txt"))
	}
	out := f.mustOK(edit, obj{"file_path": p, "old_string": "line", "new_string": "LINE", "replace_all": true})
	if !strings.HasPrefix(out.TextOf(), fmt.Sprintf("The file %s has been updated. All occurrences were successfully replaced.", p)) ||
		strings.Contains(f.read("f.txt"), "line") || out.Output.(EditOutput).Replacements != 20 {
		t.Fatalf("replace_all: %q / %q", out.TextOf(), f.read("f.txt"))
	}
}

func TestEditDeleteTakesLineBreak(t *testing.T) {
	f := newFixture(t)
	p := f.write("f.txt", "keep\ndrop me\nkeep too\n")
	f.mustOK(NewRead(Options{}), obj{"file_path": p})
	f.mustOK(NewEdit(Options{}), obj{"file_path": p, "old_string": "drop me", "new_string": ""})
	if got := f.read("f.txt"); got != "keep\nkeep too\n" {
		t.Fatalf("got %q", got)
	}
}

func TestEditCreates(t *testing.T) {
	f := newFixture(t)
	p := f.path("new/dir/f.txt")
	res := f.mustOK(NewEdit(Options{}), obj{"file_path": p, "old_string": "", "new_string": "hello\n"})
	if f.read("new/dir/f.txt") != "hello\n" || !res.Output.(EditOutput).Created {
		t.Fatalf("created %q, %+v", f.read("new/dir/f.txt"), res.Output)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != newFileMode {
		t.Errorf("mode %v", fi.Mode())
	}
	// An existing empty file may be filled with old_string "", after a read.
	e := f.write("empty.txt", "")
	f.mustFail(NewEdit(Options{}), obj{"file_path": e, "old_string": "", "new_string": "x"}, "validate", msgNotRead)
	f.mustOK(NewRead(Options{}), obj{"file_path": e})
	f.mustOK(NewEdit(Options{}), obj{"file_path": e, "old_string": "", "new_string": "x"})
	if f.read("empty.txt") != "x" {
		t.Fatal("empty file not filled")
	}
}

func TestEditStaleness(t *testing.T) {
	f := newFixture(t)
	edit, read := NewEdit(Options{}), NewRead(Options{})
	p := f.write("f.txt", "one\ntwo\n")
	past := time.Now().Add(-time.Hour)
	os.Chtimes(p, past, past)
	f.mustOK(read, obj{"file_path": p})

	// Only the time changed: the content is what was read, so the edit goes ahead.
	os.Chtimes(p, time.Now(), time.Now())
	f.mustOK(edit, obj{"file_path": p, "old_string": "one", "new_string": "uno"})

	// Changed behind the model's back.
	os.WriteFile(p, []byte("uno\ntwo\nthree\n"), 0o644)
	future := time.Now().Add(time.Hour)
	os.Chtimes(p, future, future)
	f.mustFail(edit, obj{"file_path": p, "old_string": "two", "new_string": "dos"}, "validate", msgModified)

	// After a partial read (which Edit accepts), any newer time is a change.
	f.mustOK(read, obj{"file_path": p, "offset": 2, "limit": 1})
	f.mustOK(edit, obj{"file_path": p, "old_string": "two", "new_string": "dos"})
	f.mustOK(read, obj{"file_path": p, "offset": 2, "limit": 1})
	later := future.Add(time.Hour)
	os.Chtimes(p, later, later)
	f.mustFail(edit, obj{"file_path": p, "old_string": "dos", "new_string": "two"}, "validate", msgModified)
}

func TestEditChangedBetweenValidateAndCall(t *testing.T) {
	f := newFixture(t)
	edit := NewEdit(Options{})
	p := f.write("f.txt", "a\n")
	past := time.Now().Add(-time.Hour)
	os.Chtimes(p, past, past)
	f.mustOK(NewRead(Options{}), obj{"file_path": p})
	in, err := edit.Decode([]byte(fmt.Sprintf(`{"file_path":%q,"old_string":"a","new_string":"b"}`, p)))
	if err != nil {
		t.Fatal(err)
	}
	if err := edit.ValidateInput(t.Context(), in, f.env); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, []byte("a\nlinter was here\n"), 0o644)
	res, err := edit.Call(t.Context(), in, f.env)
	if err != nil || !res.IsError || res.TextOf() != msgModifiedAtCall {
		t.Fatalf("got %v, %+v, want the error result %q", err, res, msgModifiedAtCall)
	}
	if f.read("f.txt") != "a\nlinter was here\n" {
		t.Fatal("the linter's change was overwritten")
	}
}

func TestEditKeepsFormat(t *testing.T) {
	tests := []struct {
		name      string
		raw       []byte
		old, new  string
		want      []byte
		wantShown string // the file as Read shows it afterwards
	}{
		{"CRLF", []byte("a\r\nb\r\nc\r\n"), "b\nc", "B\nC\nD", []byte("a\r\nB\r\nC\r\nD\r\n"), "1\ta\n2\tB\n3\tC\n4\tD"},
		{"LF", []byte("a\nb\n"), "a\nb", "x\ny", []byte("x\ny\n"), "1\tx\n2\ty"},
		{"UTF-8 BOM", append([]byte("\uFEFF"), "héllo\n"...), "héllo", "hallo", append([]byte("\uFEFF"), "hallo\n"...), "1\thallo"},
		{"UTF-16LE CRLF", textFormat{enc: encUTF16LE}.encode("x = 1\r\ny = 2\r\n"), "y = 2", "y = 😀",
			textFormat{enc: encUTF16LE}.encode("x = 1\r\ny = 😀\r\n"), "1\tx = 1\n2\ty = 😀"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			p := f.path("f.txt")
			os.WriteFile(p, tc.raw, 0o640)
			f.mustOK(NewRead(Options{}), obj{"file_path": p})
			f.mustOK(NewEdit(Options{}), obj{"file_path": p, "old_string": tc.old, "new_string": tc.new})
			got, _ := os.ReadFile(p)
			if string(got) != string(tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
				t.Errorf("mode became %v", fi.Mode())
			}
			if s := f.mustOK(NewRead(Options{}), obj{"file_path": p}).TextOf(); s != tc.wantShown {
				t.Errorf("read back %q, want %q", s, tc.wantShown)
			}
		})
	}
}

func TestEditKeepsModeBits(t *testing.T) {
	f := newFixture(t)
	p := f.write("run.sh", "#!/bin/sh\necho a\n")
	os.Chmod(p, 0o755)
	f.mustOK(NewRead(Options{}), obj{"file_path": p})
	f.mustOK(NewEdit(Options{}), obj{"file_path": p, "old_string": "echo a", "new_string": "echo b"})
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v", fi.Mode())
	}
	entries, _ := os.ReadDir(f.dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".reins-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestEditThroughSymlink(t *testing.T) {
	f := newFixture(t)
	target := f.write("real/f.txt", "old\n")
	link := f.path("link.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	f.mustOK(NewRead(Options{}), obj{"file_path": link})
	f.mustOK(NewEdit(Options{}), obj{"file_path": link, "old_string": "old", "new_string": "new"})
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if f.read("real/f.txt") != "new\n" {
		t.Fatalf("target: %q", f.read("real/f.txt"))
	}
}

func TestEditCurlyQuotes(t *testing.T) {
	tests := []struct {
		name, content, old, new, want string
	}{
		{"double", "say “hello” now\n", `say "hello" now`, `say "bye" now`, "say “bye” now\n"},
		{"single with apostrophe", "it’s ‘quoted’\n", `it's 'quoted'`, `it's 'changed' isn't`, "it’s ‘changed’ isn’t\n"},
		{"exact match wins", "a \"b\" “b”\n", `"b"`, `"c"`, "a \"c\" “b”\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			p := f.write("f.txt", tc.content)
			f.mustOK(NewRead(Options{}), obj{"file_path": p})
			f.mustOK(NewEdit(Options{}), obj{"file_path": p, "old_string": tc.old, "new_string": tc.new})
			if got := f.read("f.txt"); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEditDryRun(t *testing.T) {
	f := newFixture(t)
	f.env.DryRun = true
	edit := NewEdit(Options{})
	p := f.write("f.txt", "abc\n")
	// Not read, yet valid in a dry run.
	in, _ := edit.Decode([]byte(fmt.Sprintf(`{"file_path":%q,"old_string":"abc","new_string":"x"}`, p)))
	if err := edit.ValidateInput(t.Context(), in, f.env); err != nil {
		t.Fatalf("dry run: %v", err)
	}
	// Everything else still runs.
	f.mustFail(edit, obj{"file_path": p, "old_string": "zzz", "new_string": "x"}, "validate", fmt.Sprintf(notFoundFmt, "zzz"))
	f.mustFail(edit, obj{"file_path": f.path("none"), "old_string": "a", "new_string": "x"}, "validate",
		fmt.Sprintf("File does not exist. Note: your current working directory is %s.", f.dir))
}

func TestEditWithoutFileState(t *testing.T) {
	f := newFixture(t)
	f.env = &tool.Env{Permissions: f.env.Permissions}
	p := f.write("f.txt", "abc\n")
	f.mustFail(NewEdit(Options{}), obj{"file_path": p, "old_string": "abc", "new_string": "x"}, "validate", msgNotRead)
}

func TestSnippet(t *testing.T) {
	text := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10"
	if got := snippet(text, 2, 2, 1); got != "1\t1\n2\t2\n3\t3" {
		t.Errorf("got %q", got)
	}
	if got := snippet(text, 9, 10, 4); got != "5\t5\n6\t6\n7\t7\n8\t8\n9\t9\n10\t10" {
		t.Errorf("got %q", got)
	}
}

func TestWrite(t *testing.T) {
	f := newFixture(t, denyRule("Edit", "locked/**"))
	write, read := NewWrite(Options{}), NewRead(Options{})
	p := f.path("a/b/new.txt")
	res := f.mustOK(write, obj{"file_path": p, "content": "hi\n"})
	if res.TextOf() != "File created successfully at: "+p || f.read("a/b/new.txt") != "hi\n" {
		t.Fatalf("create: %q", res.TextOf())
	}
	// The write counts as a read.
	res = f.mustOK(write, obj{"file_path": p, "content": "again\n"})
	if res.TextOf() != fmt.Sprintf("The file %s has been updated successfully.", p) {
		t.Fatalf("update: %q", res.TextOf())
	}

	old := f.write("old.txt", "1\n2\n3\n")
	os.Chmod(old, 0o600)
	f.mustFail(write, obj{"file_path": old, "content": "x"}, "validate", msgNotRead)
	f.mustOK(read, obj{"file_path": old, "limit": 1})
	f.mustFail(write, obj{"file_path": old, "content": "x"}, "validate", msgNotRead)
	f.mustOK(read, obj{"file_path": old})
	future := time.Now().Add(time.Hour)
	os.WriteFile(old, []byte("changed\n"), 0o600)
	os.Chtimes(old, future, future)
	f.mustFail(write, obj{"file_path": old, "content": "x"}, "validate", msgModified)
	f.mustOK(read, obj{"file_path": old})
	f.mustOK(write, obj{"file_path": old, "content": "x\r\ny\n"})
	if f.read("old.txt") != "x\r\ny\n" {
		t.Fatalf("content not written as given: %q", f.read("old.txt"))
	}
	if fi, _ := os.Stat(old); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}

	f.mustFail(write, obj{"file_path": f.path("locked/x.txt"), "content": "x"}, "validate", msgDenied)
	f.mustFail(write, obj{"file_path": f.dir, "content": "x"}, "validate", f.dir+" is a directory, not a file.")
}

func TestWriteKeepsEncoding(t *testing.T) {
	f := newFixture(t)
	p := f.path("u16.txt")
	os.WriteFile(p, textFormat{enc: encUTF16LE}.encode("old\r\n"), 0o644)
	f.mustOK(NewRead(Options{}), obj{"file_path": p})
	f.mustOK(NewWrite(Options{}), obj{"file_path": p, "content": "néw\n"})
	got, _ := os.ReadFile(p)
	want := textFormat{enc: encUTF16LE}.encode("néw\n")
	if string(got) != string(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestWriteDryRun(t *testing.T) {
	f := newFixture(t)
	f.env.DryRun = true
	p := f.write("f.txt", "x")
	in, _ := NewWrite(Options{}).Decode([]byte(fmt.Sprintf(`{"file_path":%q,"content":"y"}`, p)))
	if err := NewWrite(Options{}).ValidateInput(t.Context(), in, f.env); err != nil {
		t.Fatal(err)
	}
}

func TestToolFlags(t *testing.T) {
	names := map[string]bool{}
	for _, tl := range Tools(Options{}) {
		names[tl.Name()] = true
		in, err := tl.Decode([]byte(`{"file_path":"x","notebook_path":"x.ipynb","old_string":"a","new_string":"b","content":"c","new_source":"s"}`))
		if err == nil {
			t.Errorf("%s accepted unknown fields", tl.Name())
		}
		_ = in
		p, err := tl.Prompt(t.Context())
		if err != nil || len(p) < 100 {
			t.Errorf("%s: prompt %q", tl.Name(), p)
		}
		if !strings.HasPrefix(string(tl.Spec().InputSchema), `{"type":"object"`) {
			t.Errorf("%s schema %s", tl.Name(), tl.Spec().InputSchema)
		}
	}
	if len(names) != 4 || !names["Read"] || !names["Edit"] || !names["Write"] || !names["NotebookEdit"] {
		t.Fatalf("tools %v", names)
	}
	read, _ := NewRead(Options{}).Decode([]byte(`{"file_path":"x"}`))
	if !NewRead(Options{}).Is(tool.ReadOnly, read) || !NewRead(Options{}).Is(tool.ConcurrencySafe, read) {
		t.Error("Read is read-only and concurrency-safe")
	}
	edit := NewEdit(Options{})
	ein, _ := edit.Decode([]byte(`{"file_path":"x","old_string":"a","new_string":"b"}`))
	if edit.Is(tool.ReadOnly, ein) || edit.Is(tool.ConcurrencySafe, ein) {
		t.Error("Edit writes")
	}
	if !NewNotebookEdit(Options{}).Spec().Defer {
		t.Error("NotebookEdit is deferred")
	}
	if got := edit.Paths(ein); len(got) != 1 || got[0] != "x" {
		t.Errorf("paths %v", got)
	}
	_ = filepath.Join
}
