package archtest

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/architecture.md's layers and the depends-on column of its packages table from go list")

const archPage = "../../docs/architecture.md"

// Markers around the generated layers in docs/architecture.md.
const (
	layersBegin = "<!-- archtest: layers; go test ./internal/archtest -run TestArchitecturePage -update rewrites them -->"
	layersEnd   = "<!-- archtest: end of layers -->"
)

// unlisted are the packages of ours that need no row in the packages table: programs and
// fakes for the benchmarks and the tests, and this test. A package whose last element ends in
// "test" (bedrocktest, boundedfiletest) is a test fake and needs none either.
var unlisted = []string{"bench/...", "internal/archtest"}

var backticked = regexp.MustCompile("`([^`]+)`")

// pageRow is one row of the packages table: its line (0-based), the packages it describes
// and its depends-on cell.
type pageRow struct {
	line      int
	pkgs      []string
	dependsOn string
}

// TestArchitecturePage checks docs/architecture.md against go list: each row of the packages
// table names packages that exist, and its depends-on column is what they import; every
// package has a row; the layers drawn at the top are the import graph's. With -update it
// rewrites the column and the layers instead of failing on them.
func TestArchitecturePage(t *testing.T) {
	pkgs := listPackages(t)
	src, err := os.ReadFile(archPage)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	rows := pageRows(t, lines, pkgs)
	if len(rows) < 20 {
		t.Fatalf("found only %d rows in the packages table of %s", len(rows), archPage)
	}
	described := map[string]bool{}
	changed := false
	for _, r := range rows {
		for _, p := range r.pkgs {
			described[p] = true
		}
		want := dependsOn(pkgs, r.pkgs)
		if r.dependsOn == want {
			continue
		}
		if *update {
			cells := strings.Split(lines[r.line], " | ")
			cells[len(cells)-1] = want + " |"
			lines[r.line] = strings.Join(cells, " | ")
			changed = true
			continue
		}
		t.Errorf("docs/architecture.md:%d: %s depends on %s; the table says %s (-update rewrites it)",
			r.line+1, strings.Join(r.pkgs, ", "), want, r.dependsOn)
	}
	for path := range pkgs {
		rel, ok := ours(path)
		if !ok || described[rel] || matchesAny(unlisted, rel) || strings.HasSuffix(rel, "test") {
			continue
		}
		t.Errorf("docs/architecture.md: package %s has no row in the packages table", rel)
	}
	lines, moved := replaceLayers(t, lines, layers(pkgs, slices.Sorted(maps.Keys(described))))
	if moved && !*update {
		t.Errorf("docs/architecture.md: the layers are not go list's (-update rewrites them)")
	}
	if *update && (changed || moved) {
		if err := os.WriteFile(archPage, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// pageRows reads the packages table: the rows between "## Packages" and the next heading.
// Every backticked name in a row's first cell must be a package of ours.
func pageRows(t *testing.T, lines []string, pkgs map[string]goPackage) []pageRow {
	var rows []pageRow
	in := false
	for i, l := range lines {
		if strings.HasPrefix(l, "## ") {
			in = l == "## Packages"
			continue
		}
		if !in || !strings.HasPrefix(l, "| `") {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(l, "| "), " |"), " | ")
		if len(cells) != 3 {
			t.Errorf("docs/architecture.md:%d: a row of the packages table has %d cells, want 3", i+1, len(cells))
			continue
		}
		r := pageRow{line: i, dependsOn: cells[2]}
		for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
			if _, ok := pkgs[module+"/"+m[1]]; !ok {
				t.Errorf("docs/architecture.md:%d: %s is no package of the module", i+1, m[1])
				continue
			}
			r.pkgs = append(r.pkgs, m[1])
		}
		rows = append(rows, r)
	}
	return rows
}

// dependsOn is the depends-on cell of the row of rowPkgs: "stdlib" when they import the
// standard library, then the packages of ours they import (other than each other) and the
// other modules, each sorted.
func dependsOn(pkgs map[string]goPackage, rowPkgs []string) string {
	std := false
	mine, others := map[string]bool{}, map[string]bool{}
	for _, p := range rowPkgs {
		for _, imp := range pkgs[module+"/"+p].Imports {
			ip := pkgs[imp]
			rel, ok := ours(imp)
			switch {
			case ip.Standard:
				std = true
			case ok:
				if !slices.Contains(rowPkgs, rel) {
					mine[rel] = true
				}
			case ip.Module != nil:
				others[ip.Module.Path] = true
			default:
				others[imp] = true
			}
		}
	}
	var parts []string
	if std {
		parts = append(parts, "stdlib")
	}
	for _, set := range []map[string]bool{mine, others} {
		for _, k := range slices.Sorted(maps.Keys(set)) {
			parts = append(parts, "`"+k+"`")
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// layers draws the packages shown by depth in the module's import graph: a package with no
// import of ours is on the last line, any other one line above the deepest it imports, so
// each line's packages import only packages on the lines below it.
func layers(pkgs map[string]goPackage, shown []string) []string {
	depth := map[string]int{}
	var visit func(rel string) int
	visit = func(rel string) int {
		if d, ok := depth[rel]; ok {
			return d
		}
		depth[rel] = 0 // Go forbids cycles; this only ends the recursion on a broken list
		d := 0
		for _, imp := range pkgs[module+"/"+rel].Imports {
			if irel, ok := ours(imp); ok {
				d = max(d, visit(irel)+1)
			}
		}
		depth[rel] = d
		return d
	}
	byDepth := map[int][]string{}
	top := 0
	for _, p := range shown {
		d := visit(p)
		byDepth[d] = append(byDepth[d], p)
		top = max(top, d)
	}
	out := []string{"```"}
	for d := top; d >= 0; d-- {
		if len(byDepth[d]) == 0 {
			continue
		}
		line := fmt.Sprintf("%2d ", d)
		for i, p := range byDepth[d] {
			sep := "  "
			if i == 0 {
				sep = ""
			}
			if len(line)+len(sep)+len(p) > 100 {
				out = append(out, line)
				line, sep = "   ", ""
			}
			line += sep + p
		}
		out = append(out, line)
	}
	return append(out, "```")
}

// replaceLayers puts block between the layers markers and reports whether that changed them.
func replaceLayers(t *testing.T, lines, block []string) ([]string, bool) {
	begin, end := slices.Index(lines, layersBegin), slices.Index(lines, layersEnd)
	if begin < 0 || end < begin {
		t.Fatalf("docs/architecture.md has no %q … %q section", layersBegin, layersEnd)
	}
	if slices.Equal(lines[begin+1:end], block) {
		return lines, false
	}
	return slices.Concat(lines[:begin+1], block, lines[end:]), true
}
