package settings

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestTreePositions(t *testing.T) {
	data := []byte("{\n  \"a\": [1, -2.5e3 , \"x\\u00e9\"],\n\t\"b\" :{\"c\":true,\"d\":null}\n}")
	root, err := parseJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	idx := newLineIndex(data)
	at := func(v *value) [2]int {
		l, c := idx.pos(v.off)
		return [2]int{l, c}
	}
	a := root.get("a")
	for i, want := range [][2]int{{2, 9}, {2, 12}, {2, 21}} {
		if got := at(a.elems[i]); got != want {
			t.Errorf("a[%d] at %v, want %v", i, got, want)
		}
	}
	if got := a.elems[1].raw; got != "-2.5e3" {
		t.Errorf("number literal %q", got)
	}
	if got := a.elems[2].raw; got != `"x\u00e9"` {
		t.Errorf("string literal %q", got)
	}
	if got := a.elems[2].str; got != "xé" {
		t.Errorf("decoded string %q", got)
	}
	if got, want := at(root.get("b")), [2]int{3, 7}; got != want {
		t.Errorf("b at %v, want %v", got, want)
	}
	if got, want := at(root.get("b").get("d")), [2]int{3, 21}; got != want {
		t.Errorf("d at %v, want %v", got, want)
	}
	if m := root.get("b").members[1]; m.key != "d" || m.rawKey != `"d"` {
		t.Errorf("member %+v", m)
	}
}

func TestTreeMarshal(t *testing.T) {
	data := []byte(`{"z":1,"a":{"y":[],"x":{}},"m":[1,"two",[3],{"k":false}],"e":"\/"}`)
	root, err := parseJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "z": 1,
  "a": {
    "y": [],
    "x": {}
  },
  "m": [
    1,
    "two",
    [
      3
    ],
    {
      "k": false
    }
  ],
  "e": "\/"
}
`
	if got := string(root.marshal()); got != want {
		t.Errorf("marshal\n%s\nwant\n%s", got, want)
	}
}

func TestTooDeep(t *testing.T) {
	data := bytes.Repeat([]byte("["), maxDepth+10)
	data = append(data, bytes.Repeat([]byte("]"), maxDepth+10)...)
	_, err := parseJSON(data)
	pe, ok := err.(*posError)
	if !ok || pe.msg != msgTooDeep || pe.off != maxDepth+1 {
		t.Errorf("parseJSON = %#v, want the depth error at offset %d", err, maxDepth+1)
	}
}

func TestQuoteKeepsHTML(t *testing.T) {
	if got := quote(`a <b> & "c"`); got != `"a <b> & \"c\""` {
		t.Errorf("quote = %s", got)
	}
}

// checkRoundTrip asserts that a parsed document written back out means the same and is stable.
func checkRoundTrip(t *testing.T, data []byte) {
	t.Helper()
	root, err := parseJSON(data)
	if err != nil {
		if json.Valid(data) {
			if _, deep := err.(*posError); !deep || err.(*posError).msg != msgTooDeep {
				t.Fatalf("parseJSON rejected valid JSON: %v", err)
			}
		}
		return
	}
	if !json.Valid(data) {
		t.Fatalf("parseJSON accepted invalid JSON")
	}
	out := root.marshal()
	a, err := decodeAny(data)
	if err != nil {
		t.Fatal(err)
	}
	b, err := decodeAny(out)
	if err != nil {
		t.Fatalf("marshal produced invalid JSON: %v\n%s", err, out)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("marshal changed the meaning:\n%s\n%s", data, out)
	}
	root2, err := parseJSON(out)
	if err != nil {
		t.Fatal(err)
	}
	if out2 := root2.marshal(); !bytes.Equal(out, out2) {
		t.Fatalf("marshal is not stable:\n%s\n%s", out, out2)
	}
}

func TestTreeRoundTrip(t *testing.T) {
	for _, s := range []string{`{}`, `[]`, `"x"`, `1e400`, `{"a":{"a":{"a":[[],{}]}},"a":2}`, "{\"\\ud800\": \"\\u2028\"}", `[0.10, -0, 1E+2]`} {
		checkRoundTrip(t, []byte(s))
	}
}

func decodeAny(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}
