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
//
// With -tail, the command's standard output passes through a pipe and FILE gets a fourth
// field: the nanoseconds from the last byte the command wrote there to its exit — what the
// command's shutdown costs after its answer (bench/mcpexit.sh), free of its start-up's noise.
//
// With -cpu, FILE gets one more field last: the command's user and system CPU time in
// nanoseconds (wait4's), which a loaded machine inflates far less than the wall clock.
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
	tail := flag.Bool("tail", false, "also measure the time from the last output to the exit")
	cpu := flag.Bool("cpu", false, "also write the command's user+system CPU time")
	flag.Parse()
	args := flag.Args()
	if *out == "" || len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: proctime -o FILE -- CMD ARGS...")
		os.Exit(2)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	var last lastWrite
	if *tail {
		last.w = os.Stdout
		cmd.Stdout = &last
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	exited := start.Add(wall)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "proctime:", err)
		os.Exit(1)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	line := fmt.Sprintf("%d %d %d", wall.Nanoseconds(), ru.Maxrss, cmd.ProcessState.ExitCode())
	if *tail {
		line += fmt.Sprintf(" %d", exited.Sub(last.at).Nanoseconds())
	}
	if *cpu {
		line += fmt.Sprintf(" %d", ru.Utime.Nano()+ru.Stime.Nano())
	}
	line += "\n"
	if err := os.WriteFile(*out, []byte(line), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "proctime:", err)
		os.Exit(1)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}

// lastWrite passes writes on and remembers when the last one came. exec.Cmd copies the
// command's output into it from one goroutine; Run returns after the copy ends.
type lastWrite struct {
	w  *os.File
	at time.Time
}

func (l *lastWrite) Write(p []byte) (int, error) {
	l.at = time.Now()
	return l.w.Write(p)
}
