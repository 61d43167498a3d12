//go:build unix

// Command proctime runs a command and reports its wall time and peak resident memory, for the
// side-by-side scripts in bench/.
//
//	proctime -o FILE -- CMD ARGS...
//
// The clock starts just before the command is started and stops when it has been waited for,
// so it covers the process and nothing of the script around it (a shell's forks, env, date):
// a fixed cost outside both programs would otherwise make the faster one look slower in a
// ratio. The peak memory is the kernel's (wait4's ru_maxrss), the figure /usr/bin/time -v
// prints. FILE receives "wall_ns maxrss_kib exit_code"; the command's output goes to
// proctime's.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	out := flag.String("o", "", "file to write the measurement to")
	flag.Parse()
	args := flag.Args()
	if *out == "" || len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: proctime -o FILE -- CMD ARGS...")
		os.Exit(2)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "proctime:", err)
		os.Exit(1)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	line := fmt.Sprintf("%d %d %d\n", wall.Nanoseconds(), ru.Maxrss, cmd.ProcessState.ExitCode())
	if err := os.WriteFile(*out, []byte(line), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "proctime:", err)
		os.Exit(1)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
