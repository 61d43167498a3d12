package cmdutil

import (
	"encoding/json"
	"fmt"
	"io"
)

// JSON output: every command writes JSON through these two functions, so every output has
// the same form: no HTML escaping (a command like `a < b && c` stays readable, never
// `\u003c`), documents indented, stream lines compact.

// WriteJSON writes v as one indented JSON document.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing JSON output: %w", err)
	}
	return nil
}

// NewJSONLines is an encoder for one compact JSON value per line (stream-json, -p --output-format json).
func NewJSONLines(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}
