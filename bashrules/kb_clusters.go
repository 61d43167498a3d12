package bashrules

import (
	"slices"
	"strings"

	"github.com/reinsdev/reins/bashrules/knowledge"
)

// The path and read-only code of the programs whose entries are in
// knowledge/programs/clusters.kb: what their entries cannot state as data (which subcommands
// only list, which side of docker cp is the host's).

func init() {
	registerReadOnly("docker", dockerRO)
	registerPaths("docker", dockerPaths)
}

// dockerPaths finds the host side of docker cp: CONTAINER:SRC DEST writes DEST (a tree),
// SRC CONTAINER:DEST reads SRC (a tree). A word is the container's when it has a colon and
// does not start with / or . (docker's own reading). Other subcommands' operands are not
// files (images, containers, commands); their typed options (-v, --env-file) are the entry's.
func dockerPaths(args []Word) pathsResult {
	e, ok := knowledge.Lookup("docker")
	if !ok {
		return pathsResult{}
	}
	var kbuf [8]knowledge.Arg
	p := parsedPool.Get().(*knowledge.Parsed)
	defer parsedPool.Put(p)
	e.ParseInto(kbArgs(args, kbuf[:]), p)
	if p.Sub == nil || !slices.Contains(p.Sub.Names, "cp") {
		return pathsResult{}
	}
	var r pathsResult
	var ops []Word
	for _, i := range p.Operands {
		ops = append(ops, args[i])
	}
	if len(ops) != 2 {
		r.issue("docker cp takes a source and a destination")
		return r
	}
	inContainer := func(w Word) bool {
		return w.Known && !strings.HasPrefix(w.Value, "/") && !strings.HasPrefix(w.Value, ".") && strings.Contains(w.Value, ":")
	}
	src, dst := ops[0], ops[1]
	switch {
	case !src.Known || !dst.Known:
		r.issue("docker cp's paths are only known when it runs")
	case inContainer(src) && !inContainer(dst) && !isStdin(dst):
		r.add(accWrite, dst)
	case inContainer(dst) && !inContainer(src) && !isStdin(src):
		r.add(accReadTree, src)
	}
	return r
}

func dockerRO(args []Word) string {
	if len(args) == 0 {
		return "docker needs a subcommand"
	}
	switch args[0].Value {
	case "ps", "images":
		return ""
	case "image", "container":
		if len(args) > 1 && (args[1].Value == "ls" || args[1].Value == "list") {
			return ""
		}
	}
	return "only docker ps and docker images are read-only"
}
