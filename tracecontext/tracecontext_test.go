package tracecontext

import (
	"context"
	"slices"
	"testing"
)

const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func TestEnv(t *testing.T) {
	tests := []struct {
		name          string
		parent, state string
		env           []string
		want          []string
	}{
		{"none carried keeps env", "", "", []string{"A=1", "TRACEPARENT=x"}, []string{"A=1", "TRACEPARENT=x"}},
		{"replaces inherited", parent, "k=v", []string{"A=1", "TRACEPARENT=stale", "TRACESTATE=old"},
			[]string{"A=1", "TRACEPARENT=" + parent, "TRACESTATE=k=v"}},
		{"no state", parent, "", []string{"TRACEPARENTX=1"}, []string{"TRACEPARENTX=1", "TRACEPARENT=" + parent}},
		{"malformed parent is not carried", "00-zz", "k=v", []string{"A=1"}, []string{"A=1"}},
		{"all-zero trace id is not carried", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "", nil, nil},
		{"upper-case hex is not carried", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "", nil, nil},
		{"newline in state drops the state", parent, "k=v\nX=1", nil, []string{"TRACEPARENT=" + parent}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := With(context.Background(), tt.parent, tt.state)
			got := Env(ctx, tt.env)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Env = %q, want %q", got, tt.want)
			}
		})
	}
}

func FuzzValidParent(f *testing.F) {
	f.Add(parent)
	f.Add("00-00000000000000000000000000000000-0000000000000000-00")
	f.Fuzz(func(t *testing.T, s string) {
		if !ValidParent(s) {
			if p, _ := From(With(context.Background(), s, "")); p != "" {
				t.Fatalf("an invalid traceparent %q was carried", s)
			}
			return
		}
		if len(s) != 55 {
			t.Fatalf("valid traceparent %q has length %d", s, len(s))
		}
	})
}
