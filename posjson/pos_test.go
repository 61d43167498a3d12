package posjson

import (
	"errors"
	"testing"
)

func TestErrorText(t *testing.T) {
	tests := []struct {
		err  Error
		want string
	}{
		{Error{File: "a.json", Line: 3, Col: 7, Msg: "bad"}, "a.json:3:7: bad"},
		{Error{File: "a.json", Msg: "file is larger than 10 bytes"}, "a.json: file is larger than 10 bytes"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestLinesErrorf(t *testing.T) {
	data := []byte("{\n  \"a\": 1,\r\n\t\"é\": x}")
	idx := NewLines(data)
	tests := []struct {
		off             int
		wantLine, wantC int
	}{
		{0, 1, 1}, {1, 1, 2}, {2, 2, 1}, {4, 2, 3}, {13, 3, 1},
		{len(data) - 2, 3, 8}, // columns count bytes: x is the seventh character, é two bytes
		{-1, 0, 0},
	}
	for _, tc := range tests {
		if l, c := idx.Pos(tc.off); l != tc.wantLine || c != tc.wantC {
			t.Errorf("Pos(%d) = %d:%d, want %d:%d", tc.off, l, c, tc.wantLine, tc.wantC)
		}
	}
	err := error(idx.Errorf("f.json", 4, "unknown key %q", "a"))
	var pe *Error
	if !errors.As(err, &pe) || err.Error() != `f.json:2:3: unknown key "a"` {
		t.Errorf("Errorf = %v", err)
	}
}

func TestBlankBOMKeepsColumns(t *testing.T) {
	in := []byte("\xef\xbb\xbf{\"a\": 1}")
	out := BlankBOM(in)
	if string(out) != "   {\"a\": 1}" || string(in[:3]) != "\xef\xbb\xbf" {
		t.Fatalf("BlankBOM = %q (input now %q)", out, in)
	}
	if v, err := Parse(out); err != nil || v.Members[0].Off != 4 {
		t.Fatalf("Parse = %+v, %v", v, err)
	}
	if got := BlankBOM([]byte(`{}`)); string(got) != `{}` {
		t.Errorf("BlankBOM without a mark = %q", got)
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"allow", "ask", "deny", "permissions", "commands"}
	tests := []struct{ key, want string }{
		{"Deny", ` (did you mean "deny"?)`},
		{"permisions", ` (did you mean "permissions"?)`},
		{"comands", ` (did you mean "commands"?)`},
		{"dney", ` (did you mean "deny"?)`},
		{"zz", ""},                        // too short to guess from
		{"unrelated", ""},                 // more than two edits from every key
		{"ASK", ` (did you mean "ask"?)`}, // case alone, however short
	}
	for _, tc := range tests {
		if got := Suggest(tc.key, known); got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}
