package bashrules

import (
	"slices"

	"github.com/reinsdev/reins/bashrules/cmdline"
)

// The command line's parts come from package cmdline, which reads a line into the commands it
// runs; the checker names them as before.
type (
	Word       = cmdline.Word
	TildeKind  = cmdline.TildeKind
	Command    = cmdline.Command
	Kind       = cmdline.Kind
	Assignment = cmdline.Assignment
	RedirKind  = cmdline.RedirKind
	Redirect   = cmdline.Redirect
	Analysis   = cmdline.Analysis
	where      = cmdline.Where
)

const (
	KindCall     = cmdline.KindCall
	KindAssign   = cmdline.KindAssign
	KindDecl     = cmdline.KindDecl
	KindArith    = cmdline.KindArith
	KindTest     = cmdline.KindTest
	KindFuncCall = cmdline.KindFuncCall

	RedirOut        = cmdline.RedirOut
	RedirIn         = cmdline.RedirIn
	RedirInOut      = cmdline.RedirInOut
	RedirDup        = cmdline.RedirDup
	RedirHeredoc    = cmdline.RedirHeredoc
	RedirHereString = cmdline.RedirHereString

	NoTilde    = cmdline.NoTilde
	TildeHome  = cmdline.TildeHome
	TildeOther = cmdline.TildeOther

	maxParseLength = cmdline.MaxParseLength
)

// ErrTooLong is returned by Analyze for command lines it does not parse.
var ErrTooLong = cmdline.ErrTooLong

// walkHooks add to the walk what only the checker's knowledge finds: the command lines of
// runners and database clients (opaque.go).
var walkHooks = &cmdline.Hooks{Runs: runnerLines}

// Analyze parses a command line (bash syntax) and lists every command in it, with the
// checker's hooks. It runs nothing and reads no files.
func Analyze(command string) (*Analysis, error) { return cmdline.Analyze(command, walkHooks) }

func analyzeWith(a *Analysis, command string, ch *cmdline.Chunks) error {
	return cmdline.AnalyzeInto(a, command, ch, walkHooks)
}

var (
	commandName     = cmdline.CommandName
	wrapperOf       = cmdline.Wrapper
	findRoots       = cmdline.FindRoots
	xargsReplace    = cmdline.XargsReplace
	gitCommandKeys  = cmdline.GitCommandKeys
	needsQuoting    = cmdline.NeedsQuoting
	quoteWord       = cmdline.QuoteWord
	tildeKind       = cmdline.TildeKindOf
	envAssignRE     = cmdline.EnvAssignRE
	isInterpreter   = cmdline.IsInterpreter
	isShell         = cmdline.IsShell
	versionedPython = cmdline.VersionedPython
	parse           = cmdline.Parse
)

// isWrapper reports a program that runs another command given as its arguments.
func isWrapper(name string) bool { _, ok := wrapperOf(name); return ok }

var (
	numericRE = lazyRE(`^([0-9]+|0[xX][0-9a-fA-F]+|[0-9]+#[0-9a-zA-Z@_]+)$`)
	nameRE    = lazyRE(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

func contains(list []string, s string) bool { return slices.Contains(list, s) }
