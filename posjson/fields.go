package posjson

// Field is one member of an object as [Fields] finds it, without building its value.
type Field struct {
	Key string
	// KeyOff is the offset of the key's opening quote, Off of the value's first byte and End
	// of the byte just past the value.
	KeyOff, Off, End int
}

// Raw is the field's value as written in data, for encoding/json to decode.
func (f Field) Raw(data []byte) []byte { return data[f.Off:f.End] }

// KindAt is the kind of the value that starts at off in data (blanks before it skipped), which
// [Check] must have accepted.
func KindAt(data []byte, off int) Kind {
	w := jsonWalk(data)
	off = w.space(off)
	if off >= len(data) {
		return Null
	}
	switch data[off] {
	case '{':
		return Object
	case '[':
		return Array
	case '"':
		return String
	case 't', 'f':
		return Bool
	case 'n':
		return Null
	}
	return Number
}

// Fields returns the members of the object that starts at off in data (blanks before it
// skipped), in written order with duplicates kept; data must be a document [Check] accepted.
// ok is false when the value there is not an object. Nothing of the members' values is
// decoded: reading a few keys of a large file costs a walk over its bytes.
func Fields(data []byte, off int) (fields []Field, ok bool) {
	w := jsonWalk(data)
	off = w.space(off)
	if off >= len(data) || data[off] != '{' {
		return nil, false
	}
	w.members(off, func(key string, keyOff, v, end int) {
		fields = append(fields, Field{Key: key, KeyOff: keyOff, Off: v, End: end})
	})
	return fields, true
}

// Last returns the last field named key, as JSON.parse keeps the last of duplicates.
func Last(fields []Field, key string) (Field, bool) {
	for i := len(fields) - 1; i >= 0; i-- {
		if fields[i].Key == key {
			return fields[i], true
		}
	}
	return Field{}, false
}
