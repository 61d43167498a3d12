//go:build unix

// Command grepbench runs Reins' Grep or Glob tool on a directory and prints how long each run
// took, for the scripts in bench/. It calls the tool the way the agent loop does (decode,
// validate, call), with the directory as the session's working directory.
//
//	grepbench [-tool Grep|Glob] [-engine go|rg|go,rg] [-runs N] [-warmup] [-cpuprofile FILE] [-heapprofile FILE] -input JSON DIR [-- CMD ARGS...]
//
// Each run prints one line with the wall time in milliseconds of each engine named by
// -engine, in that order, then their CPU times (user and system, rg's included), all
// separated by tabs. With a command after "--", each run first runs
// the command (its output read from a pipe and dropped) and prints its time in the first
// column: the tool and the command it is compared with run in turn, so a change of load
// during the benchmark affects both alike.
//
// The tool gets an Env.CreateResultFile, as from the agent: a large result goes to a temporary
// file, removed after each run.
//
// -warmup makes one untimed round first (so the file system cache is warm); -print shows the
// last result on stderr; -cpuprofile profiles the timed runs; -heapprofile writes the heap
// profile as it was when the heap in use peaked during the timed runs (sampled every 2 ms,
// which stops the world each time: the times of such a run mean little). The profile is the
// state at the last collection before the peak, which is what the next collection's goal, and
// so the peak, is made of; view it with go tool pprof -ignore 'runtime/pprof|compress/flate'.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/search"
)

func main() {
	name := flag.String("tool", "Grep", "Grep or Glob")
	engines := flag.String("engine", "go", "Grep engines, comma-separated: go, rg")
	runs := flag.Int("runs", 5, "number of runs")
	input := flag.String("input", "", "the tool input as JSON")
	print := flag.Bool("print", false, "print the last result")
	warmup := flag.Bool("warmup", false, "make one untimed round first")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the timed runs to this file")
	heapprofile := flag.String("heapprofile", "", "write the heap profile at the timed runs' peak to this file")
	flag.Parse()
	if *heapprofile != "" {
		runtime.MemProfileRate = 4096
	}
	args := flag.Args()
	if len(args) < 1 || *input == "" || len(args) > 1 && (args[1] != "--" || len(args) < 3) {
		flag.Usage()
		os.Exit(2)
	}
	var cmd []string
	if len(args) > 1 {
		cmd = args[2:]
	}
	b := bench{tool: *name, engines: strings.Split(*engines, ","), input: *input, cmd: cmd, print: *print}
	if err := b.run(args[0], *runs, *warmup, *cpuprofile, *heapprofile); err != nil {
		fmt.Fprintln(os.Stderr, "grepbench:", err)
		os.Exit(1)
	}
}

type bench struct {
	tool    string
	engines []string
	input   string
	cmd     []string
	print   bool
}

// runner is one timed thing: a command or a tool with one engine.
type runner func() error

func (b bench) run(dir string, runs int, warmup bool, cpuprofile, heapprofile string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	pc, err := permission.New(permission.Config{Cwd: dir})
	if err != nil {
		return err
	}
	// As in the agent, a large result may go to a file rather than be held in memory; the
	// runner removes it (it owns the result).
	env := &tool.Env{Permissions: func() *permission.Context { return pc },
		CreateResultFile: func() (*os.File, error) { return os.CreateTemp("", "grepbench-result-*") }}
	var runners []runner
	if len(b.cmd) > 0 {
		runners = append(runners, b.command(dir))
	}
	for _, e := range b.engines {
		r, err := b.toolRunner(e, env)
		if err != nil {
			return err
		}
		runners = append(runners, r)
	}
	if warmup {
		for _, r := range runners {
			if err := r(); err != nil {
				return err
			}
		}
	}
	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if heapprofile != "" {
		stop := watchHeap(heapprofile)
		defer func() {
			if err := stop(); err != nil {
				fmt.Fprintln(os.Stderr, "grepbench:", err)
			}
		}()
	}
	for range runs {
		walls := make([]string, len(runners))
		cpus := make([]string, len(runners))
		for i, r := range runners {
			start, cpu0 := time.Now(), cpuTime()
			if err := r(); err != nil {
				return err
			}
			walls[i] = ms(time.Since(start))
			cpus[i] = ms(cpuTime() - cpu0)
		}
		fmt.Println(strings.Join(walls, "\t") + "\t" + strings.Join(cpus, "\t"))
	}
	return nil
}

// watchHeap samples the heap in use until stop is called, then writes the heap profile taken
// at its highest to path.
func watchHeap(path string) (stop func() error) {
	done, finished := make(chan struct{}), make(chan struct{})
	var peak bytes.Buffer
	go func() {
		defer close(finished)
		var most uint64
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			// A profile is taken only when the peak grew by a twentieth: each one allocates
			// (and shows in the next, under runtime/pprof and compress/flate).
			if ms.HeapAlloc > most+most/20 {
				most = ms.HeapAlloc
				peak.Reset()
				pprof.Lookup("heap").WriteTo(&peak, 0)
			}
		}
	}()
	return func() error {
		close(done)
		<-finished
		return os.WriteFile(path, peak.Bytes(), 0o644)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

// cpuTime is the CPU time (user and system) used so far by this process and the children it
// has waited for: a run's CPU time is the difference, whether the work was done in-process
// or by rg. Unlike wall time, it hardly changes with the load of the machine.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}

// command runs b.cmd and reads its output from a pipe, as a caller of rg reads it (a file
// would add the file system's cost to the command's; /dev/null would let rg stop at the
// first match). Its exit status is ignored: grep and rg exit 1 when nothing matches.
func (b bench) command(dir string) runner {
	return func() error {
		c := exec.Command(b.cmd[0], b.cmd[1:]...)
		c.Dir, c.Stdout = dir, io.Discard
		var ee *exec.ExitError
		if err := c.Run(); err != nil && !errors.As(err, &ee) {
			return err
		}
		return nil
	}
}

func (b bench) toolRunner(engine string, env *tool.Env) (runner, error) {
	opts := search.Options{}
	switch engine {
	case "go":
	case "rg":
		var err error
		if opts.Ripgrep, err = exec.LookPath("rg"); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown engine %q", engine)
	}
	var t tool.Tool
	switch b.tool {
	case "Grep":
		t = search.NewGrep(opts)
	case "Glob":
		t = search.NewGlob(opts)
	default:
		return nil, fmt.Errorf("unknown tool %q", b.tool)
	}
	ctx := context.Background()
	return func() error {
		in, err := t.Decode(json.RawMessage(b.input))
		if err != nil {
			return err
		}
		if fail := t.ValidateInput(ctx, in, env); fail != nil {
			return errors.New(fail.Message)
		}
		res, err := t.Call(ctx, in, env)
		if err != nil {
			return err
		}
		if !b.print {
			res.Release()
			return nil
		}
		if res, err = res.Inline(); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, res.TextOf())
		return nil
	}, nil
}
