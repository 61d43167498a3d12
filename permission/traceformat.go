package permission

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteSteps prints a decision trace's steps for a person, one line each with its outcome.
// `reins permissions check` and the interactive permission dialog both print it.
func WriteSteps(w io.Writer, steps []Step) {
	if len(steps) == 0 {
		return
	}
	fmt.Fprintln(w, "trace:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range steps {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Name, s.Outcome, s.Detail)
	}
	tw.Flush()
}

// WriteTrace prints the steps (WriteSteps), then every rule that matched with its source and
// the file it was written in.
func WriteTrace(w io.Writer, steps []Step) {
	WriteSteps(w, steps)
	first := true
	for _, s := range steps {
		if s.Rule == nil {
			continue
		}
		if first {
			fmt.Fprintln(w, "matched rules:")
			first = false
		}
		fmt.Fprintf(w, "  %s %s from %s %s\n", s.Rule.Behavior, s.Rule.Value, s.Rule.Source, s.Rule.Origin)
	}
}
