package posjson

import (
	"slices"
	"testing"
)

func TestFields(t *testing.T) {
	data := []byte(" {\"a\" : [1, {\"b\": 2}],\n \"c\\u0064\": \"x}\" , \"a\": null}")
	fs, ok := Fields(data, 0)
	if !ok {
		t.Fatal("Fields: not an object")
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Key+"="+string(f.Raw(data)))
	}
	want := []string{`a=[1, {"b": 2}]`, `cd="x}"`, `a=null`}
	if !slices.Equal(got, want) {
		t.Fatalf("fields = %q, want %q", got, want)
	}
	if fs[1].KeyOff != 24 || fs[1].Off != 35 {
		t.Errorf("cd at key %d, value %d; want 24, 35", fs[1].KeyOff, fs[1].Off)
	}
	if last, ok := Last(fs, "a"); !ok || string(last.Raw(data)) != "null" {
		t.Errorf("Last(a) = %+v, %v", last, ok)
	}
	inner, ok := Fields(data, fs[0].Off+4)
	if !ok || len(inner) != 1 || inner[0].Key != "b" {
		t.Errorf("inner fields = %+v, %v", inner, ok)
	}
	if _, ok := Fields(data, fs[0].Off); ok {
		t.Error("Fields of an array said it was an object")
	}
}

func TestKindAt(t *testing.T) {
	for doc, want := range map[string]Kind{` {}`: Object, `[]`: Array, `"s"`: String, `true`: Bool, `false`: Bool, `null`: Null, `-1`: Number, ``: Null} {
		if got := KindAt([]byte(doc), 0); got != want {
			t.Errorf("KindAt(%q) = %v, want %v", doc, got, want)
		}
	}
}

// FuzzFields: on any document Check accepts, Fields of each object finds the members the tree
// holds, with the same keys and offsets, and each raw value is the value the tree built.
func FuzzFields(f *testing.F) {
	for _, s := range []string{`{}`, `{"a": 1, "a": [2, {"b": "}"}]}`, "{\"\\u0061\\\"\" :\n{\"x\":{}} }", ` [{"k": "v"}, 3]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if Check(data) != nil {
			return
		}
		root, err := Parse(data)
		if err != nil {
			return // nested too deeply for the tree
		}
		sameFields(t, data, root)
	})
}

func sameFields(t *testing.T, data []byte, v *Value) {
	t.Helper()
	fs, ok := Fields(data, v.Off)
	if ok != (v.Kind == Object) || KindAt(data, v.Off) != v.Kind {
		t.Fatalf("at %d: Fields says object %v, KindAt %v; the tree has %v", v.Off, ok, KindAt(data, v.Off), v.Kind)
	}
	if ok && len(fs) != len(v.Members) {
		t.Fatalf("at %d: %d fields, %d members", v.Off, len(fs), len(v.Members))
	}
	for i, m := range v.Members {
		f := fs[i]
		if f.Key != m.Key || f.KeyOff != m.Off || f.Off != m.Val.Off {
			t.Fatalf("field %+v, member %q at %d with value at %d", f, m.Key, m.Off, m.Val.Off)
		}
		sub, err := Parse(f.Raw(data))
		if err != nil || string(sub.Marshal()) != string(m.Val.Marshal()) {
			t.Fatalf("field %q raw %q is not the tree's value (%v)", f.Key, f.Raw(data), err)
		}
	}
	for _, el := range v.Elems {
		sameFields(t, data, el)
	}
	for _, m := range v.Members {
		sameFields(t, data, m.Val)
	}
}
