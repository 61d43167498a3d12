// Command grepbench runs Reins' Grep or Glob tool on a directory and prints how long each run
// took, for the scripts in bench/. It calls the tool the way the agent loop does (decode,
// validate, call), with the directory as the session's working directory.
//
//	grepbench [-tool Grep|Glob] [-engine go|rg] [-runs N] [-warmup] -input JSON DIR
//
// Each run prints one line with its wall time in milliseconds; -warmup makes one untimed run
// first (so the file system cache is warm); -print shows the last result on stderr.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/search"
)

func main() {
	name := flag.String("tool", "Grep", "Grep or Glob")
	engine := flag.String("engine", "go", "Grep engine: go or rg")
	runs := flag.Int("runs", 5, "number of runs")
	input := flag.String("input", "", "the tool input as JSON")
	print := flag.Bool("print", false, "print the last result")
	warmup := flag.Bool("warmup", false, "make one untimed run first")
	flag.Parse()
	if flag.NArg() != 1 || *input == "" {
		flag.Usage()
		os.Exit(2)
	}
	n := *runs
	if *warmup {
		n++
	}
	if err := run(*name, *engine, n, *warmup, *input, *print, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "grepbench:", err)
		os.Exit(1)
	}
}

func run(name, engine string, runs int, warmup bool, input string, print bool, dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	opts := search.Options{}
	if engine == "rg" {
		if opts.Ripgrep, err = exec.LookPath("rg"); err != nil {
			return err
		}
	}
	var t tool.Tool
	switch name {
	case "Grep":
		t = search.NewGrep(opts)
	case "Glob":
		t = search.NewGlob(opts)
	default:
		return fmt.Errorf("unknown tool %q", name)
	}
	pc, err := permission.New(permission.Config{Cwd: dir})
	if err != nil {
		return err
	}
	env := &tool.Env{Permissions: func() *permission.Context { return pc }}
	ctx := context.Background()
	var last tool.Result
	for i := range runs {
		start := time.Now()
		in, err := t.Decode(json.RawMessage(input))
		if err != nil {
			return err
		}
		if fail := t.ValidateInput(ctx, in, env); fail != nil {
			return errors.New(fail.Message)
		}
		if last, err = t.Call(ctx, in, env); err != nil {
			return err
		}
		if i > 0 || !warmup {
			fmt.Printf("%.1f\n", float64(time.Since(start).Microseconds())/1000)
		}
	}
	if print {
		fmt.Fprintln(os.Stderr, last.TextOf())
	}
	return nil
}
