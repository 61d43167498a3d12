package posjson

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// countedKeys are the lists settings counts in an untrusted project, which the fuzz targets count.
var countedKeys = []string{"allow", "additionalDirectories"}

// FuzzParse: any document Parse accepts is valid JSON (and any valid JSON it refuses is too
// deep), and writing its tree back out keeps its meaning and is stable.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `"x"`, `1e400`, `{"a":{"a":{"a":[[],{}]}},"a":2}`, "{\"\\ud800\": \"\\u2028\"}", `[0.10, -0, 1E+2]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkRoundTrip)
}

// FuzzParseCounting: counting the gated lists changes nothing but those lists. For any
// input, ParseCounting fails exactly when Parse does, with the same error; otherwise
// its tree is Parse's, positions included, except that each counted list is empty and
// holds the number of elements Parse built.
func FuzzParseCounting(f *testing.F) {
	for _, s := range []string{
		`{"permissions": {"allow": ["Read", 1, {"a": [2]}], "deny": ["Edit"]}}`,
		"{\"permissions\": {\n\"additionalDirectories\": [\"a\\\"]\"],\n\"allow\": []}, \"x\": {\"permissions\": {\"allow\": [1]}}}",
		`{"perm\u0069ssions": {"\u0061llow": ["A"]}, "permissions": {"allow": [" ] , [ "], "ask": ["B"]}}`,
		`{"permissions": {"allow": "Read", "additionalDirectories": null}}`,
		`{"permissions": {"allow": ["Read",]}}`,
		`{"permissions": {"allow": [[[[[]]]]]}}`,
		`[{"permissions": {"allow": ["x"]}}]`,
		"\t{ \"permissions\" : { \"allow\" : [ \"a\" , \"b\" ] , \"deny\" : [ ] } }\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		full, fullErr := Parse(data)
		counted, err := ParseCounting(data, "permissions", countedKeys)
		if fmt.Sprint(fullErr) != fmt.Sprint(err) {
			t.Fatalf("errors differ: %v and, counting, %v", fullErr, err)
		}
		var fullPos, pos *OffsetError
		if errors.As(fullErr, &fullPos) && errors.As(err, &pos) && fullPos.Off != pos.Off {
			t.Fatalf("error at %d, counting at %d", fullPos.Off, pos.Off)
		}
		if err == nil {
			sameTreeCounting(t, "$", full, counted, placeRoot, false)
		}
	})
}

// place is where a value stands in the document, as far as counting goes.
type place uint8

const (
	placeOther place = iota
	placeRoot
	placePerms // a permissions member of the document
)

// sameTreeCounting compares a tree built whole with one built counting, at path. gated says
// the value is a list counting may leave out.
func sameTreeCounting(t *testing.T, path string, full, counted *Value, at place, gated bool) {
	t.Helper()
	if full.Kind != counted.Kind || full.Off != counted.Off || full.Raw != counted.Raw || full.Str != counted.Str || full.Bool != counted.Bool {
		t.Fatalf("%s: %+v built whole, %+v counting", path, *full, *counted)
	}
	switch {
	case gated && full.Kind == Array && len(counted.Elems) == 0:
		if counted.Counted != len(full.Elems) {
			t.Fatalf("%s: counted %d of %d elements", path, counted.Counted, len(full.Elems))
		}
		return
	case counted.Counted != 0:
		t.Fatalf("%s: counted %d elements of a list that is not gated", path, counted.Counted)
	}
	if len(full.Elems) != len(counted.Elems) || len(full.Members) != len(counted.Members) {
		t.Fatalf("%s: %d elements and %d members whole, %d and %d counting", path, len(full.Elems), len(full.Members), len(counted.Elems), len(counted.Members))
	}
	for i := range full.Elems {
		sameTreeCounting(t, fmt.Sprintf("%s[%d]", path, i), full.Elems[i], counted.Elems[i], placeOther, false)
	}
	for i, m := range full.Members {
		c := counted.Members[i]
		if m.Key != c.Key || m.RawKey != c.RawKey || m.Off != c.Off {
			t.Fatalf("%s: member %q at %d whole, %q at %d counting", path, m.RawKey, m.Off, c.RawKey, c.Off)
		}
		next := placeOther
		if at == placeRoot && m.Key == "permissions" {
			next = placePerms
		}
		sameTreeCounting(t, path+"."+m.Key, m.Val, c.Val, next, at == placePerms && slices.Contains(countedKeys, m.Key))
	}
}
