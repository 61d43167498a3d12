package tool

import (
	"encoding/json"
	"strconv"
	"strings"
)

// SampleInput decodes the smallest input the tool's schema accepts, so that input-dependent
// flags can be shown. It returns nil when none is found (the flags then read false).
func SampleInput(t Tool) any {
	var schema map[string]any
	if err := json.Unmarshal(t.Spec().InputSchema, &schema); err != nil {
		return nil
	}
	raw, err := json.Marshal(sampleValue(schema))
	if err != nil {
		return nil
	}
	in, err := t.Decode(raw)
	if err != nil {
		return nil
	}
	return in
}

func sampleValue(s map[string]any) any {
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	num := func(k string) int {
		f, _ := s[k].(float64)
		return int(f)
	}
	switch s["type"] {
	case "string":
		return strings.Repeat("x", num("minLength"))
	case "integer", "number":
		return num("minimum")
	case "boolean":
		return false
	case "array":
		items, _ := s["items"].(map[string]any)
		out := []any{}
		for i := range num("minItems") {
			v := sampleValue(items)
			if m, ok := v.(map[string]any); ok {
				// Items often must differ (unique labels): vary every string field.
				for k, x := range m {
					if str, ok := x.(string); ok {
						m[k] = str + strconv.Itoa(i)
					}
				}
			}
			out = append(out, v)
		}
		return out
	}
	obj := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	req, _ := s["required"].([]any)
	for _, r := range req {
		name, _ := r.(string)
		if p, ok := props[name].(map[string]any); ok {
			obj[name] = sampleValue(p)
		}
	}
	return obj
}
