package knowledge

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse: any input either loads or fails with a positioned error; what loads parses any
// arguments without panicking, and every option it reports is one of the entry's.
func FuzzParse(f *testing.F) {
	f.Add("program rm\nflags abbrev\nopt -r -R --recursive\nopt -f --force\n", "-rf --rec x")
	f.Add("program git\nopt -c= exec\nsub push\nflags abbrev\nsigil + force\nopt -f --force --force-with-lease?\n", "-c a=b push --forc +main")
	f.Add("program find\nflags posix\nopt -exec exec\nopt -name=\n", ". -name x -exec rm")
	f.Add("program x\nopt -i? --in-place? write\n", "-i.bak --in-place=y --in -- -z")
	f.Add("program py\nflags nooptions\nrole interpreter eval\nopt -c= code\nopt -m=\n", "-mx -c print eval x")
	f.Add("program h\nrole runner each\nrole launcher run\nrole local st\nopt -p= script\nopt -N norun\n", "-Np x run y")
	f.Add("program g\nflags readonly\nrole printsnames ls\nrole seescode\nsub ls\nsub diff\nopt -l --name-only printsnames\n", "diff -l --name x")
	f.Fuzz(func(t *testing.T, entry, argLine string) {
		progs, err := Parse("f.kb", []byte(entry))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Col < 1 {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		var args []Arg
		for _, w := range strings.Fields(argLine) {
			args = append(args, Arg{Value: w, Known: !strings.HasPrefix(w, "$")})
		}
		for _, p := range progs {
			got := p.Parse(args)
			for _, u := range got.Uses {
				if u.Word < 0 || u.Word >= len(args) {
					t.Fatalf("use at word %d of %d", u.Word, len(args))
				}
			}
			// A cluster gives a use per letter (-NpNp is four), so the bound is the letters,
			// not the words.
			if len(got.Operands)+len(got.Uses) > 2*len(argLine)+1 {
				t.Fatalf("more results than words: %+v", got)
			}
		}
	})
}
