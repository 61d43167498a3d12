package cmdutil

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/reinsdev/reins/sandbox"
)

func Truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// PrintViolations lists what the sandbox refused during the session.
func PrintViolations(w io.Writer, vs []sandbox.Violation) {
	if len(vs) == 0 {
		return
	}
	fmt.Fprintf(w, "reins: the sandbox refused %d operation(s) this session:\n", len(vs))
	for _, v := range vs {
		fmt.Fprintf(w, "  %s  (command: %s)\n", v.What, Truncate(v.Command, 80))
	}
}

// Yes asks a question on the terminal; anything but y or yes is no.
func Yes(r *bufio.Reader, w io.Writer, q string) bool {
	fmt.Fprint(w, q)
	line, _ := r.ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}
