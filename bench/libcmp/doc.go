// Package libcmp measures two hand-written parts of reins beside the libraries that could
// replace them (issue 43; docs/architecture.md, "Hand-written beside a library"): the
// gitignore matcher of tools/search beside go-git's plumbing/format/gitignore, and the Read
// tool's image scaling beside golang.org/x/image/draw. It is a module of its own so that
// neither library becomes a dependency of reins; the parts are copied (ignorecopy.go,
// imagecopy.go).
//
//	cd bench/libcmp && go test -v -run . -bench . -benchtime 3x
package libcmp
