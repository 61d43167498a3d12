package bashrules

import (
	"strings"
	"sync"
)

// optTable lists every option of a read-only command the way the program parses them. An
// option not in the table makes the command not read-only: an unknown option may be one
// that writes or runs something (sed --in-pl is --in-place, sort --outp is --output).
type optTable struct {
	boolShort string // short options without a value; they cluster (-ni)
	valShort  string // short options with a value, attached (-n5) or next (-n 5)
	optShort  string // short options whose value is optional and attached only (sed -i.bak, date -Iseconds)
	digits    bool   // -NUM is an option (head -5, grep -3)
	// long maps a long option to how it takes a value: 'n' none, 'v' required (--x=v or
	// --x v), 'o' optional (only --x=v).
	long map[string]byte
}

// tbl builds a table; long options ending in "=" take a value, in "?" an optional one.
func tbl(boolShort, valShort string, longs ...string) optTable {
	t := optTable{boolShort: boolShort, valShort: valShort, long: map[string]byte{"help": 'n', "version": 'n'}}
	for _, l := range longs {
		switch {
		case strings.HasSuffix(l, "="):
			t.long[strings.TrimSuffix(l, "=")] = 'v'
		case strings.HasSuffix(l, "?"):
			t.long[strings.TrimSuffix(l, "?")] = 'o'
		default:
			t.long[l] = 'n'
		}
	}
	return t
}

func (t optTable) withDigits() optTable { t.digits = true; return t }

func (t optTable) withOptional(s string) optTable { t.optShort = s; return t }

// resolve finds a long option by exact name or unambiguous prefix, as getopt_long does.
func (t optTable) resolve(name string) (string, string) {
	if _, ok := t.long[name]; ok {
		return name, ""
	}
	found := ""
	for l := range t.long {
		if strings.HasPrefix(l, name) {
			if found != "" {
				return "", "option --" + name + " is ambiguous"
			}
			found = l
		}
	}
	if found == "" {
		return "", "option --" + name + " is not known to be read-only"
	}
	return found, ""
}

// check reports the first option that is not in the table, or "" when every one is.
func (t optTable) check(args []Word) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Known {
			continue
		}
		v := a.Value
		if v == "--" {
			return ""
		}
		if len(v) < 2 || v[0] != '-' {
			continue
		}
		if strings.HasPrefix(v, "--") {
			name, _, hasVal := strings.Cut(v[2:], "=")
			full, why := t.resolve(name)
			if why != "" {
				return why
			}
			switch t.long[full] {
			case 'n':
				if hasVal {
					return "option --" + full + " does not take a value"
				}
			case 'v':
				if !hasVal {
					i++
				}
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			switch {
			case t.digits && c >= '0' && c <= '9':
			case strings.IndexByte(t.boolShort, c) >= 0:
			case strings.IndexByte(t.valShort, c) >= 0:
				if j+1 == len(v) {
					i++
				}
				j = len(v)
			case strings.IndexByte(t.optShort, c) >= 0:
				j = len(v)
			default:
				return "option -" + string(c) + " is not known to be read-only"
			}
		}
	}
	return ""
}

// optionTables are the option tables of the read-only set (GNU coreutils, grep, sed, util-linux
// and vim's xxd, as installed on a current Debian). TestOptionTablesMatchHelp checks them
// against each program's --help where it is installed.
func buildOptionTables() map[string]optTable {
	return map[string]optTable{
		"cat": tbl("AbeEnstTuv", "", "show-all", "number-nonblank", "show-ends", "number", "squeeze-blank", "show-tabs", "show-nonprinting"),
		"tac": tbl("br", "s", "before", "regex", "separator="),
		"nl": tbl("p", "bdfhilnsvw", "body-numbering=", "section-delimiter=", "footer-numbering=", "header-numbering=", "line-increment=",
			"join-blank-lines=", "number-format=", "no-renumber", "number-separator=", "starting-line-number=", "number-width="),
		"head": tbl("qvz", "nc", "bytes=", "lines=", "quiet", "silent", "verbose", "zero-terminated").withDigits(),
		"tail": tbl("fFqvz", "ncs", "bytes=", "follow?", "lines=", "max-unchanged-stats=", "pid=", "quiet", "retry", "silent",
			"sleep-interval=", "verbose", "zero-terminated").withDigits(),
		"wc": tbl("clmwL", "", "bytes", "chars", "lines", "files0-from=", "max-line-length", "words"),
		"strings": tbl("adfwhvV", "ntesTU", "all", "data", "print-file-name", "bytes=", "radix=", "encoding=", "target=",
			"output-separator=", "include-all-whitespace", "unicode="),
		"od": tbl("bcdfilosxv", "AjNSstw", "address-radix=", "endian=", "skip-bytes=", "read-bytes=", "format=", "output-duplicates",
			"strings?", "traditional", "width?"),
		"hexdump": tbl("bcCdoxvLh", "efns", "one-byte-octal", "one-byte-char", "canonical", "two-bytes-decimal", "two-bytes-octal",
			"two-bytes-hex", "format=", "format-file=", "color?", "length=", "skip=", "no-squeezing"),
		"cut":      tbl("nsz", "bcdf", "bytes=", "characters=", "delimiter=", "fields=", "complement", "only-delimited", "output-delimiter=", "zero-terminated"),
		"paste":    tbl("sz", "d", "delimiters=", "serial", "zero-terminated"),
		"rev":      tbl("0", ""),
		"fold":     tbl("bs", "w", "bytes", "spaces", "width="),
		"expand":   tbl("i", "t", "initial", "tabs=").withDigits(),
		"unexpand": tbl("a", "t", "all", "first-only", "tabs=").withDigits(),
		"fmt":      tbl("cstu", "wpg", "crown-margin", "tagged-paragraph", "split-only", "uniform-spacing", "width=", "prefix=", "goal=").withDigits(),
		"comm":     tbl("123z", "", "check-order", "nocheck-order", "output-delimiter=", "total", "zero-terminated"),
		"cmp":      tbl("blsv", "in", "print-bytes", "ignore-initial=", "verbose", "bytes=", "quiet", "silent"),
		"diff": tbl("qsceunyptlrNiEZbwBaTdvw", "CUWFxXSIDL", "normal", "brief", "report-identical-files", "context?", "unified?", "ed", "rcs",
			"side-by-side", "width=", "left-column", "suppress-common-lines", "show-c-function", "show-function-line=", "label=",
			"expand-tabs", "initial-tab", "tabsize=", "suppress-blank-empty", "paginate", "recursive", "no-dereference", "new-file",
			"unidirectional-new-file", "ignore-file-name-case", "no-ignore-file-name-case", "exclude=", "exclude-from=", "starting-file=",
			"from-file=", "to-file=", "ignore-case", "ignore-tab-expansion", "ignore-trailing-space", "ignore-space-change",
			"ignore-all-space", "ignore-blank-lines", "ignore-matching-lines=", "text", "strip-trailing-cr", "ifdef=", "old-group-format=",
			"new-group-format=", "unchanged-group-format=", "changed-group-format=", "line-format=", "old-line-format=", "new-line-format=",
			"unchanged-line-format=", "minimal", "horizon-lines=", "speed-large-files", "color?", "palette="),
		"sort": tbl("bdfgiMhnRrVcCmsuz", "kSTto", "ignore-leading-blanks", "dictionary-order", "ignore-case", "general-numeric-sort",
			"ignore-nonprinting", "month-sort", "human-numeric-sort", "numeric-sort", "random-sort", "random-source=", "reverse", "sort=",
			"version-sort", "batch-size=", "check?", "compress-program=", "debug", "files0-from=", "key=", "merge", "output=", "stable",
			"buffer-size=", "field-separator=", "temporary-directory=", "parallel=", "unique", "zero-terminated"),
		"uniq": tbl("cdDiuz", "fsw", "count", "repeated", "all-repeated?", "skip-fields=", "group?", "ignore-case", "skip-chars=", "unique",
			"zero-terminated", "check-chars="),
		"base64": tbl("di", "w", "decode", "ignore-garbage", "wrap="),
		"base32": tbl("di", "w", "decode", "ignore-garbage", "wrap="),
		"stat":   tbl("Lft", "c", "dereference", "file-system", "cached=", "format=", "printf=", "terse"),
		"readlink": tbl("femnqsvz", "", "canonicalize", "canonicalize-existing", "canonicalize-missing", "no-newline", "quiet", "silent",
			"verbose", "zero"),
		"realpath": tbl("eLmPqsz", "", "canonicalize-existing", "canonicalize-missing", "logical", "physical", "quiet", "relative-to=",
			"relative-base=", "strip", "no-symlinks", "zero"),
		"du": tbl("0abcDhHklLmsSxPv", "BdtX", "null", "all", "apparent-size", "block-size=", "bytes", "total", "dereference-args",
			"dereference", "count-links", "human-readable", "inodes", "si", "summarize", "separate-dirs", "one-file-system",
			"exclude-from=", "exclude=", "max-depth=", "threshold=", "time?", "time-style=", "files0-from=", "no-dereference"),
		"df": tbl("ahHiklPTv", "Btx", "all", "block-size=", "human-readable", "si", "inodes", "local", "no-sync", "output?", "portability",
			"sync", "total", "type=", "print-type", "exclude-type="),
		"ls": tbl("aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1", "ITw", "all", "almost-all", "author", "escape", "block-size=", "ignore-backups",
			"color?", "directory", "dired", "classify?", "file-type", "format=", "full-time", "group-directories-first", "no-group",
			"human-readable", "si", "dereference-command-line", "dereference-command-line-symlink-to-dir", "hide=", "hyperlink?",
			"indicator-style=", "inode", "ignore=", "kibibytes", "dereference", "literal", "numeric-uid-gid", "hide-control-chars",
			"show-control-chars", "quote-name", "quoting-style=", "reverse", "recursive", "size", "sort=", "time=", "time-style=",
			"tabsize=", "width=", "context", "zero"),
		"grep": tbl("EFGPiyvwxcLlmoqsbHhnTZzaIrRUVU", "efmABCdD", "extended-regexp", "fixed-strings", "basic-regexp", "perl-regexp",
			"regexp=", "file=", "ignore-case", "no-ignore-case", "word-regexp", "line-regexp", "null-data", "no-messages", "invert-match",
			"max-count=", "byte-offset", "line-number", "line-buffered", "with-filename", "no-filename", "label=",
			"only-matching", "quiet", "silent", "binary-files=", "text", "directories=", "devices=", "recursive", "dereference-recursive",
			"include=", "exclude=", "exclude-from=", "exclude-dir=", "files-without-match", "files-with-matches", "count", "initial-tab",
			"null", "before-context=", "after-context=", "context=", "color?", "colour?", "binary").withDigits(),
		"sed": tbl("nrsuzE", "efl", "quiet", "silent", "debug", "expression=", "file=", "follow-symlinks", "in-place?", "line-length=",
			"null-data", "posix", "regexp-extended", "separate", "sandbox", "unbuffered").withOptional("i"),
		"date": tbl("uR", "dfrs", "date=", "debug", "file=", "iso-8601?", "resolution", "rfc-email", "rfc-3339=", "reference=", "set=",
			"utc", "universal").withOptional("I"),
		"tr":       tbl("cCdst", "", "complement", "delete", "squeeze-repeats", "truncate-set1"),
		"basename": tbl("az", "s", "multiple", "suffix=", "zero"),
		"dirname":  tbl("z", "", "zero"),
		"seq":      tbl("w", "fs", "format=", "separator=", "equal-width"),
		"awk":      tbl("", "Fv"),
	}
}

// tableRO is the read-only check of a command with option table t, followed by the
// command's own check.
func tableRO(name string, t optTable, next roFunc) roFunc {
	return func(args []Word) string {
		if why := t.check(args); why != "" {
			return name + " " + why
		}
		return next(args)
	}
}

var (
	readOnlyOnce sync.Once
	readOnlyLazy map[string]roFunc
)

// buildReadOnly builds the option tables and the read-only commands, each with its table's
// check in front.
func buildReadOnly() {
	tables, ro := buildOptionTables(), buildReadOnlyCommands()
	for name, t := range tables {
		next, ok := ro[name]
		if !ok {
			next = anyArgs
		}
		ro[name] = tableRO(name, t, next)
	}
	// awk is read-only only without system(), pipes, getline and print > file (execOption),
	// and xxd only when its second operand, the output file, is absent (the path check).
	ro["awk"] = tableRO("awk", tables["awk"], awkRO)
	ro["xxd"] = xxdRO
	readOnlyLazy = ro
}

// readOnlyCommands are the read-only commands with their checks, built on first use.
func readOnlyCommands() map[string]roFunc {
	readOnlyOnce.Do(buildReadOnly)
	return readOnlyLazy
}

// xxdRO checks xxd's options, which it recognises by their first letter (-ps is -postscript,
// -cols is -c); the output file, its second operand, is a write the path check sees.
func xxdRO(args []Word) string {
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		if !args[i].Known || len(v) < 2 || v[0] != '-' {
			continue
		}
		if v == "--" {
			return ""
		}
		switch c := v[1]; {
		case strings.IndexByte("abCEeihpruvd", c) >= 0:
		case strings.IndexByte("cglnosR", c) >= 0:
			if len(v) == 2 || (len(v) > 2 && (v[2] < '0' || v[2] > '9') && v[2] != '+' && v[2] != '-') {
				i++
			}
		default:
			return "xxd option " + v + " is not known to be read-only"
		}
	}
	return ""
}

// awkRO allows an awk program that only reads its input.
func awkRO(args []Word) string {
	if why := execOption("awk", args); why != "" {
		return why
	}
	return ""
}
