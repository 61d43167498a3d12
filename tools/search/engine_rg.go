package search

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// rgEngine runs ripgrep. It asks for output it can parse without ambiguity (NUL after every
// path, a NUL-marked separator after line numbers) and regroups it per file, because a
// parallel rg prints files in whatever order they finish.
type rgEngine struct {
	path string
	env  []string // nil: the process environment
}

// rgEnv is the environment rg runs with when the tool reads its environment through a
// function: the process environment with HOME and XDG_CONFIG_HOME taken from getenv, so that
// rg finds the same global gitignore as the Go engine.
func rgEnv(getenv func(string) string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			env = append(env, kv)
		}
	}
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME"} {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func (rgEngine) name() string { return "rg" }

// rgArgs builds the command line. Flags that change ripgrep's defaults are spelled out
// (--no-config ignores a user's RIPGREP_CONFIG_PATH, which would change the output), and a
// file type's globs are pinned so the type means the same as in the Go engine.
func rgArgs(q *query) ([]string, error) {
	args := []string{"--no-config", "--no-heading", "--color", "never", "--no-messages", "--hidden"}
	for _, g := range vcsExclusions() {
		args = append(args, "--glob", g)
	}
	args = append(args, "--max-columns", strconv.Itoa(maxColumns))
	if q.multiline {
		args = append(args, "-U", "--multiline-dotall")
	}
	if q.ignoreCase {
		args = append(args, "-i")
	}
	switch q.mode {
	case modeFiles:
		args = append(args, "--files-with-matches", "--null")
	case modeCount:
		args = append(args, "--count", "--null", "--with-filename")
	default:
		args = append(args, "--with-filename", `--field-match-separator=\x00:`, `--field-context-separator=\x00-`)
		if q.lineNumbers {
			args = append(args, "-n")
		} else {
			args = append(args, "-N")
		}
		if q.before > 0 {
			args = append(args, "-B", strconv.Itoa(q.before))
		}
		if q.after > 0 {
			args = append(args, "-A", strconv.Itoa(q.after))
		}
	}
	if q.fileType != "" {
		globs, err := typeGlobs(q.fileType)
		if err != nil {
			return nil, err
		}
		args = append(args, "--type-clear", q.fileType)
		for _, g := range globs {
			args = append(args, "--type-add", q.fileType+":"+g)
		}
		args = append(args, "--type", q.fileType)
	}
	for _, g := range q.globs {
		args = append(args, "--glob", g)
	}
	target := "."
	if q.file != "" {
		target = q.file
	}
	return append(args, "-e", q.pattern, "--", target), nil
}

func (e rgEngine) search(ctx context.Context, q *query) ([]*fileResult, error) {
	args, err := rgArgs(q)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, e.path, args...)
	cmd.Dir = q.root
	cmd.Env = e.env
	var stderr bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &stderr, n: 8 << 10}
	results, werr, perr := runRg(cmd, q)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if perr != nil {
		return nil, fmt.Errorf("reading rg output: %w", perr)
	}
	var ee *exec.ExitError
	switch {
	case werr == nil:
	case errors.As(werr, &ee) && ee.ExitCode() == 1:
		// No match.
	case errors.As(werr, &ee) && ee.ExitCode() == 2 && stderr.Len() == 0:
		// Unreadable files or folders (their messages are off); the rest was searched.
	default:
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = werr.Error()
		}
		return nil, fmt.Errorf("rg: %s", msg)
	}
	return results, nil
}

// runRg runs cmd and parses its output. It returns the results, the error of the run and the
// error of the parse.
//
// Content output is read from a pipe while rg runs, so the parsing of a large output
// overlaps the search. Files and count output, one short line per file, goes to an unlinked
// temporary file read once rg has exited: through a pipe, each of a parallel rg's thousands
// of small writes (one per file) woke this process for a read, which on a tree of 20,000
// files cost more CPU than parsing the lines. Where no temporary file can be made, a pipe
// serves for those too.
func runRg(cmd *exec.Cmd, q *query) ([]*fileResult, error, error) {
	var out *os.File
	if q.mode != modeContent {
		out, _ = os.CreateTemp("", "reins-rg-*")
	}
	if out == nil {
		pr, pw, large, err := rgPipe()
		if err != nil {
			return nil, nil, err
		}
		defer pr.Close()
		var r io.Reader = pr
		if large {
			r = &napReader{r: pr}
		}
		cmd.Stdout = pw
		err = cmd.Start()
		pw.Close()
		if err != nil {
			return nil, err, nil
		}
		results, perr := parseRg(bufio.NewReaderSize(r, 64<<10), q)
		if perr != nil {
			io.Copy(io.Discard, pr)
		}
		return results, cmd.Wait(), perr
	}
	defer out.Close()
	// Unlinked at once: the open file stays readable, and nothing is left behind even if
	// reins is killed while rg runs.
	os.Remove(out.Name())
	cmd.Stdout = out
	werr := cmd.Run()
	if _, err := out.Seek(0, io.SeekStart); err != nil {
		return nil, werr, err
	}
	results, perr := parseRg(bufio.NewReaderSize(out, 64<<10), q)
	return results, werr, perr
}

// napReader reads a pipe that a parallel rg fills one file's output (a kilobyte or so) at a
// time. Read as soon as it has something, the pipe woke this process for every file: on a
// tree of 20,000 matching files the wake-ups, each a read that found nothing more and a wait
// for the poller, cost more CPU than parsing the output, and on a machine with few cores
// that CPU is taken from rg. After a read that found little in the pipe but did not have to
// wait for it, napReader sleeps a moment before the next, so each read takes what rg wrote
// meanwhile: hundreds of reads instead of tens of thousands, for a delay of at most one nap
// at the end. A read that waited found rg writing seldom; naps would then cost more than
// they save. The pipe must hold what rg writes during a nap (see rgPipeSize), or rg would
// wait for the reader.
type napReader struct {
	r   io.Reader
	nap bool
}

const (
	// rgPipeNap is napReader's nap. rg writes the output of a large search at some
	// 100 MB/s, 100 KB a millisecond, well within rgPipeSize.
	rgPipeNap = time.Millisecond
	// rgPipeWaited is how long a read may take and still count as finding rg's output
	// waiting: one that takes longer waited for rg to write.
	rgPipeWaited = 100 * time.Microsecond
)

func (n *napReader) Read(p []byte) (int, error) {
	if n.nap {
		time.Sleep(rgPipeNap)
	}
	start := time.Now()
	k, err := n.r.Read(p)
	n.nap = k < len(p)/2 && time.Since(start) < rgPipeWaited
	return k, err
}

// parseRg reads rg's output for q's mode. Content lines keep rg's bytes: the line after its
// path is already in the form fileResult.text stores, but for the NUL that marks the end of
// the line number, so each line costs one copy and no allocation.
func parseRg(r *bufio.Reader, q *query) ([]*fileResult, error) {
	var (
		results []*fileResult
		last    *fileResult // rg prints a file's lines together: most lookups are for the last
		prefix  string      // last's line prefix
	)
	// A file that rg names again after another (no rg seen so far does so, but a parallel
	// rg could flush a file's lines in parts) gets a result for each part, rather than all
	// files being looked up in a map by path: on a tree of 20,000 matching files the map
	// was a fifth of the memory the search held. render keeps the parts in order.
	get := func(p []byte) (*fileResult, string) {
		p = bytes.TrimPrefix(p, []byte("./"))
		if last != nil && string(p) == last.rel {
			return last, prefix
		}
		f := &fileResult{rel: string(p)}
		prefix = q.linePrefix(f.rel)
		results = append(results, f)
		last = f
		return f, prefix
	}
	if q.mode == modeFiles {
		for {
			p, err := r.ReadSlice(0)
			if err == bufio.ErrBufferFull {
				var long []byte
				long, err = readLong(r, p, 0)
				p = long
			}
			if p = bytes.TrimSuffix(p, []byte{0}); len(p) > 0 {
				// rg names files, never the root itself: "./" alone would be a result
				// without a path, as parseRgLine refuses in the other modes.
				if len(bytes.TrimPrefix(p, []byte("./"))) == 0 {
					return nil, fmt.Errorf("unexpected path %q", p)
				}
				get(p)
			}
			if err == io.EOF {
				return results, nil
			}
			if err != nil {
				return nil, err
			}
		}
	}
	var (
		cur        *fileResult
		pendingSep bool
		arena      lineArena
	)
	if q.spill != nil {
		arena.maxChunk = spillArenaChunk
	}
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			line, err = readLong(r, line, '\n')
		}
		if len(line) > 0 {
			line = bytes.TrimSuffix(line, []byte{'\n'})
			if string(line) == "--" {
				pendingSep = true
			} else if err := parseRgLine(line, q, get, &arena, &cur, &pendingSep); err != nil {
				return nil, err
			}
		}
		if err == io.EOF {
			return results, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readLong finishes reading a line longer than r's buffer, whose start is first.
func readLong(r *bufio.Reader, first []byte, delim byte) ([]byte, error) {
	line := append([]byte(nil), first...)
	for {
		more, err := r.ReadSlice(delim)
		line = append(line, more...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// parseRgLine parses one line of count or content output. A "--" printed between two lines
// of the same file belongs to that file; one printed between files is dropped (the caller
// re-creates those after sorting).
func parseRgLine(line []byte, q *query, get func([]byte) (*fileResult, string), arena *lineArena, cur **fileResult, pendingSep *bool) error {
	path, rest, ok := bytes.Cut(line, []byte{0})
	if !ok || len(bytes.TrimPrefix(path, []byte("./"))) == 0 {
		return fmt.Errorf("unexpected line %q", line)
	}
	f, prefix := get(path)
	if q.mode == modeCount {
		n, err := strconv.Atoi(string(rest))
		if err != nil {
			return fmt.Errorf("unexpected count line %q", line)
		}
		f.lines += n
		return nil
	}
	if *pendingSep && *cur == f {
		copy(arena.extend(f, 3), "--\n")
		f.lines++
	}
	*pendingSep = false
	if *cur != f && *cur != nil {
		// rg prints a file's lines together, in one part or a few: the file before is
		// likely done.
		q.spill.done(*cur)
	}
	*cur = f
	if len(rest) == 0 || rest[0] != byte(kindMatch) && rest[0] != byte(kindContext) {
		return fmt.Errorf("unexpected line %q", line)
	}
	// rest is the kind, then with line numbers the number, a NUL and the kind again, then
	// the line: printed as is behind the path, but for the NUL.
	num, text := []byte(nil), rest[1:]
	if q.lineNumbers {
		var ok bool
		num, text, ok = bytes.Cut(rest[1:], []byte{0})
		if !ok || len(num) == 0 || len(text) == 0 || text[0] != rest[0] {
			return fmt.Errorf("unexpected line %q", line)
		}
		for _, c := range num {
			if c < '0' || c > '9' {
				return fmt.Errorf("unexpected line %q", line)
			}
		}
	}
	n := len(num) + len(text) + 1 // text starts with the second kind byte when numbered
	if prefix != "" {
		n += len(prefix) + 1
	}
	dst := arena.extend(f, n)
	k := 0
	if prefix != "" {
		k = copy(dst, prefix)
		dst[k] = rest[0]
		k++
	}
	k += copy(dst[k:], num)
	k += copy(dst[k:], text)
	dst[k] = '\n'
	f.lines++
	return nil
}

// limitedWriter keeps the first n bytes written to it and drops the rest.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
