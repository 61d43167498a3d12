package posjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestTreePositions(t *testing.T) {
	data := []byte("{\n  \"a\": [1, -2.5e3 , \"x\\u00e9\"],\n\t\"b\" :{\"c\":true,\"d\":null}\n}")
	root, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	idx := NewLines(data)
	at := func(v *Value) [2]int {
		l, c := idx.Pos(v.Off)
		return [2]int{l, c}
	}
	a := root.Get("a")
	for i, want := range [][2]int{{2, 9}, {2, 12}, {2, 21}} {
		if got := at(a.Elems[i]); got != want {
			t.Errorf("a[%d] at %v, want %v", i, got, want)
		}
	}
	if got := a.Elems[1].Raw; got != "-2.5e3" {
		t.Errorf("number literal %q", got)
	}
	if got := a.Elems[2].Raw; got != `"x\u00e9"` {
		t.Errorf("string literal %q", got)
	}
	if got := a.Elems[2].Str; got != "xé" {
		t.Errorf("decoded string %q", got)
	}
	if got, want := at(root.Get("b")), [2]int{3, 7}; got != want {
		t.Errorf("b at %v, want %v", got, want)
	}
	if got, want := at(root.Get("b").Get("d")), [2]int{3, 21}; got != want {
		t.Errorf("d at %v, want %v", got, want)
	}
	if m := root.Get("b").Members[1]; m.Key != "d" || m.RawKey != `"d"` {
		t.Errorf("member %+v", m)
	}
}

func TestTreeMarshal(t *testing.T) {
	data := []byte(`{"z":1,"a":{"y":[],"x":{}},"m":[1,"two",[3],{"k":false}],"e":"\/"}`)
	root, err := Parse(data)
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
	if got := string(root.Marshal()); got != want {
		t.Errorf("Marshal\n%s\nwant\n%s", got, want)
	}
}

func TestTooDeep(t *testing.T) {
	data := bytes.Repeat([]byte("["), MaxDepth+10)
	data = append(data, bytes.Repeat([]byte("]"), MaxDepth+10)...)
	_, err := Parse(data)
	pe, ok := err.(*OffsetError)
	if !ok || pe.Msg != MsgTooDeep || pe.Off != MaxDepth+1 {
		t.Errorf("Parse = %#v, want the depth error at offset %d", err, MaxDepth+1)
	}
}

func TestQuoteKeepsHTML(t *testing.T) {
	if got := Quote(`a <b> & "c"`); got != `"a <b> & \"c\""` {
		t.Errorf("quote = %s", got)
	}
}

// checkRoundTrip asserts that a parsed document written back out means the same and is stable.
func checkRoundTrip(t *testing.T, data []byte) {
	t.Helper()
	root, err := Parse(data)
	if err != nil {
		if json.Valid(data) {
			if _, deep := err.(*OffsetError); !deep || err.(*OffsetError).Msg != MsgTooDeep {
				t.Fatalf("Parse rejected valid JSON: %v", err)
			}
		}
		return
	}
	if !json.Valid(data) {
		t.Fatalf("Parse accepted invalid JSON")
	}
	out := root.Marshal()
	a, err := decodeAny(data)
	if err != nil {
		t.Fatal(err)
	}
	b, err := decodeAny(out)
	if err != nil {
		t.Fatalf("Marshal produced invalid JSON: %v\n%s", err, out)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("Marshal changed the meaning:\n%s\n%s", data, out)
	}
	root2, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if out2 := root2.Marshal(); !bytes.Equal(out, out2) {
		t.Fatalf("Marshal is not stable:\n%s\n%s", out, out2)
	}
}

func decodeAny(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}
