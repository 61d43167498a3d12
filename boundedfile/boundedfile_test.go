package boundedfile

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsdev/reins/boundedfile/boundedfiletest"
)

// within runs f and fails the test if it has not returned by a generous deadline: the point
// of these tests is that hostile files end in an error instead of a hang. The deadline guards
// against a hang only; nothing is asserted about time.
func within(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(60 * time.Second):
		t.Fatal("the read did not return")
		return nil
	}
}

func TestHostileFilesAreRefused(t *testing.T) {
	lim := Limits{MaxBytes: 1 << 20, Kind: "test file"}
	for _, h := range boundedfiletest.Hostile(lim.MaxBytes) {
		t.Run(h.Name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f")
			h.Make(t, p)
			readErr := within(t, func() error {
				_, err := Read(t.Context(), p, lim)
				return err
			})
			linesErr := within(t, func() error {
				return Lines(t.Context(), p, lim, func([]byte) error {
					return errors.New("a line was yielded")
				})
			})
			for name, err := range map[string]error{"Read": readErr, "Lines": linesErr} {
				if err == nil || !strings.Contains(err.Error(), h.Want) || !strings.HasPrefix(err.Error(), p) {
					t.Errorf("%s = %v, want an error about %s containing %q", name, err, p, h.Want)
				}
				var nr *NotRegularError
				var tl *TooLargeError
				if !errors.As(err, &nr) && !errors.As(err, &tl) {
					t.Errorf("%s = %T, want a typed error", name, err)
				}
			}
		})
	}
}

func TestErrorsStateWhatAndWhy(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&NotRegularError{Path: "/p", Mode: os.ModeNamedPipe, Kind: "session file"}, "/p is a FIFO, not a regular file: session files are read only from regular files"},
		{&TooLargeError{Path: "/p", Size: 5 << 20, Limit: 4 << 20, Kind: "settings file"}, "/p is too large (5242880 bytes; settings files may be at most 4194304 bytes, 4 MiB)"},
		{&TooLargeError{Path: "/p", Size: 4097, Limit: 4096, Kind: "x", Grew: true}, "/p is too large (4097 bytes, and growing while it was read; xs may be at most 4096 bytes, 4 KiB)"},
		{&LineTooLongError{Path: "/p", Line: 3, Limit: 100, Kind: "session file"}, "/p: line 3 is too long (session files may have lines of at most 100 bytes, 100 bytes)"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadWithinTheCap(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		max           int64
		wantErr       string
	}{
		{"empty", "", 1, ""},
		{"exactly at the cap", "abcd", 4, ""},
		{"one byte over", "abcde", 4, "is too large (5 bytes; files may be at most 4 bytes, 4 bytes)"},
		{"larger than a chunk", strings.Repeat("x", readChunk+7), readChunk + 7, ""},
		{"no limit", "a", 0, "no size limit given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			// Through a symlink too where the system makes one: the link is followed, the
			// type checked on what it reaches.
			for _, name := range append([]string{p}, symlinksTo(t, p)...) {
				got, err := Read(t.Context(), name, Limits{MaxBytes: tc.max})
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Errorf("Read(%s) = %v, want %q", name, err, tc.wantErr)
					}
					continue
				}
				if err != nil || string(got) != tc.content {
					t.Errorf("Read(%s) = %d bytes, %v", name, len(got), err)
				}
			}
		})
	}
}

func TestMissingFileIsNotExist(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gone")
	if _, err := Read(t.Context(), p, Limits{MaxBytes: 1}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read = %v, want not-exist", err)
	}
	if err := Lines(t.Context(), p, Limits{MaxBytes: 1}, nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Lines = %v, want not-exist", err)
	}
}

// growing returns what its Stat promised, then more: a file written while it is read.
type growing struct{ n int }

func (g *growing) Read(p []byte) (int, error) {
	g.n += len(p)
	return len(p), nil
}

func TestFileGrowingPastTheCapIsRefused(t *testing.T) {
	_, err := readAll(t.Context(), &growing{}, "/p", 10, Limits{MaxBytes: 100, Kind: "k"})
	var tl *TooLargeError
	if !errors.As(err, &tl) || !tl.Grew || tl.Size != 101 {
		t.Fatalf("readAll = %v, want a too-large error for a file that grew", err)
	}
	s := &lineSplitter{r: &growing{}, ctx: t.Context(), path: "/p", lim: Limits{MaxBytes: 100, Kind: "k"}, maxLine: 1000, statSize: 10, buf: make([]byte, 16)}
	err = s.each(func([]byte) error { return nil })
	if !errors.As(err, &tl) || !tl.Grew {
		t.Fatalf("Lines = %v, want a too-large error for a file that grew", err)
	}
}

// endless yields data for ever, as /dev/zero would through a regular file's name (a FUSE
// file system can do that); it cancels its context at the first read and counts the reads
// made after that.
type endless struct {
	cancel    context.CancelFunc
	reads     int
	afterStop int
}

func (e *endless) Read(p []byte) (int, error) {
	e.reads++
	if e.reads == 1 {
		e.cancel()
	} else {
		e.afterStop++
		if e.afterStop > 100 {
			return 0, errors.New("still reading 100 chunks after the context was cancelled")
		}
	}
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

func TestCancelEndsAnEndlessRead(t *testing.T) {
	huge := Limits{MaxBytes: 1 << 50}
	ctx, cancel := context.WithCancel(t.Context())
	src := &endless{cancel: cancel}
	_, err := readAll(ctx, src, "/endless", 0, huge)
	if !errors.Is(err, context.Canceled) || src.afterStop != 0 {
		t.Errorf("readAll = %v after %d reads past the cancel, want context.Canceled at once", err, src.afterStop)
	}

	ctx, cancel = context.WithCancel(t.Context())
	src = &endless{cancel: cancel}
	s := &lineSplitter{r: src, ctx: ctx, path: "/endless", lim: huge, maxLine: 1 << 40, buf: make([]byte, 16)}
	err = s.each(func([]byte) error { return nil })
	if !errors.Is(err, context.Canceled) || src.afterStop != 0 {
		t.Errorf("Lines = %v after %d reads past the cancel, want context.Canceled at once", err, src.afterStop)
	}
}

// TestCancelEndsLinesOfARealFile: a real 1 GiB (sparse) file, cancelled at its first line,
// is not read on.
func TestCancelEndsLinesOfARealFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	boundedfiletest.Sparse(t, p, 1<<30)
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("first\n")
	f.Close()
	ctx, cancel := context.WithCancel(t.Context())
	lines := 0
	err = within(t, func() error {
		return Lines(ctx, p, Limits{MaxBytes: 2 << 30, MaxLine: 2 << 30}, func([]byte) error {
			lines++
			cancel()
			return nil
		})
	})
	if !errors.Is(err, context.Canceled) || lines != 1 || !strings.Contains(err.Error(), p) {
		t.Errorf("Lines = %v after %d lines, want context.Canceled naming the file after 1", err, lines)
	}
	if _, err := Read(ctx, p, Limits{MaxBytes: 2 << 30}); !errors.Is(err, context.Canceled) {
		t.Errorf("Read with a cancelled context = %v", err)
	}
}

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		lim           Limits
		want          []string
		wantErr       string
	}{
		{"empty", "", Limits{MaxBytes: 10}, nil, ""},
		{"lines", "a\nbb\n\nc", Limits{MaxBytes: 10}, []string{"a\n", "bb\n", "\n", "c"}, ""},
		{"line at the cap", "abc\nde\n", Limits{MaxBytes: 10, MaxLine: 3}, []string{"abc\n", "de\n"}, ""},
		{"last line at the cap without newline", "ab\nabc", Limits{MaxBytes: 10, MaxLine: 3}, []string{"ab\n", "abc"}, ""},
		{"line over the cap", "ab\nabcd\nx\n", Limits{MaxBytes: 20, MaxLine: 3, Kind: "k"}, []string{"ab\n"}, "line 2 is too long (ks may have lines of at most 3 bytes"},
		{"last line over the cap", "ab\nabcd", Limits{MaxBytes: 20, MaxLine: 3}, []string{"ab\n"}, "line 2 is too long"},
		{"line longer than the first buffer", strings.Repeat("y", 3*firstBuffer+5) + "\nz\n", Limits{MaxBytes: 1 << 20}, []string{strings.Repeat("y", 3*firstBuffer+5) + "\n", "z\n"}, ""},
		{"file over the cap", "a\nb\nc\n", Limits{MaxBytes: 5}, nil, "is too large (6 bytes;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, tc.content)
			var got []string
			err := Lines(t.Context(), p, tc.lim, func(l []byte) error {
				got = append(got, string(l))
				return nil
			})
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("Lines = %v, want error %q", err, tc.wantErr)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("lines %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLinesReturnsTheCallersError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := Lines(t.Context(), writeFile(t, "a\nb\nc\n"), Limits{MaxBytes: 10}, func([]byte) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("Lines = %v after %d lines, want the callback's error after 1", err, n)
	}
}

// FuzzLines: whatever the content and the caps, Lines yields the file's lines exactly (their
// concatenation is a prefix of the file, each ends at its first newline) and fails exactly when
// a bound is passed.
func FuzzLines(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), uint16(3), uint16(20))
	f.Add([]byte("abcd\n"), uint16(3), uint16(20))
	f.Add([]byte("\n\n\n"), uint16(0), uint16(2))
	f.Fuzz(func(t *testing.T, data []byte, maxLine, maxBytes uint16) {
		if maxBytes == 0 {
			return
		}
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		lim := Limits{MaxBytes: int64(maxBytes), MaxLine: int(maxLine)}
		var got bytes.Buffer
		err := Lines(t.Context(), p, lim, func(l []byte) error {
			if i := bytes.IndexByte(l, '\n'); i >= 0 && i != len(l)-1 {
				t.Fatalf("line %q has a newline before its end", l)
			}
			got.Write(l)
			return nil
		})
		if !bytes.HasPrefix(data, got.Bytes()) {
			t.Fatalf("lines %q are not the file's start %q", got.Bytes(), data)
		}
		longest := 0
		for l := range bytes.Lines(data) {
			longest = max(longest, len(bytes.TrimSuffix(l, []byte("\n"))))
		}
		over := len(data) > int(maxBytes) || longest > lim.maxLine()
		if over != (err != nil) {
			t.Fatalf("Lines = %v; file %d bytes (cap %d), longest line %d (cap %d)", err, len(data), maxBytes, longest, lim.maxLine())
		}
		if err == nil && !bytes.Equal(got.Bytes(), data) {
			t.Fatalf("lines %q, file %q", got.Bytes(), data)
		}
		if _, err := Read(t.Context(), p, lim); (err != nil) != (len(data) > int(maxBytes)) {
			t.Fatalf("Read = %v for %d bytes under a cap of %d", err, len(data), maxBytes)
		}
	})
}
