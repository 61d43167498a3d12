package bashrules

import (
	"context"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/reinsdev/reins/bashrules/knowledge"
	"github.com/reinsdev/reins/permission"
)

// Round three: what the knowledge base knows decides what an allow rule covers and what a deny
// rule means.
var kbCases = []checkCase{
	// Allow rules cover only options the entry knows.
	{"kb-allow", "rm -rf build", r("allow:Bash(rm:*)"), "", "allow", "rm:*"},
	{"kb-allow", "rm --rec --for build", r("allow:Bash(rm:*)"), "", "allow", "rm:*"},
	{"kb-allow", "rm --frobnicate build", r("allow:Bash(rm:*)"), "", "ask", "option --frobnicate is not known to the knowledge base's entry for rm"},
	{"kb-allow", "rm -rQ build", r("allow:Bash(rm:*)"), "", "ask", "option -Q is not known"},
	{"kb-allow", "rm --force=yes build", r("allow:Bash(rm:*)"), "", "ask", "does not take a value"},
	{"kb-allow", "git --frob status", r("allow:Bash(git:*)"), "", "ask", "option --frob is not known to the knowledge base's entry for git"},
	{"kb-allow", "git -P status", r("allow:Bash(git:*)"), "", "allow", "git:*"},
	// No entry is partial (issue 39): an option the entry does not list asks, whatever the
	// subcommand; one past a subcommand the entry does not list asks too.
	{"kb-allow", "git log --oneline --graph", r("allow:Bash(git log:*)"), "", "allow", "git log:*"},
	{"kb-allow", "git push --frob origin", r("allow:Bash(git push:*)"), "", "ask", "option --frob is not known to the knowledge base's entry for git push"},
	{"kb-allow", "git frobnicate --all", r("allow:Bash(git:*)"), "", "ask", "a subcommand the knowledge base's entry does not list"},
	// Options that run code or name a program are covered only when the rule names them;
	// writes are the path stage's (sed -i on a project file stays allowed, as before).
	{"kb-allow", "sed -i s/a/b/ notes.txt", r("allow:Bash(sed:*)"), "", "allow", "sed:*"},
	{"kb-allow", "sed -i s/a/b/ .bashrc", r("allow:Bash(sed:*)"), "", "ask:safety", "protected file"},
	{"kb-allow", "git --exec-path=/tmp/x status", r("allow:Bash(git:*)"), "", "ask:safety", "git --exec-path"},
	// An ask, not a deny; like everything the analysis is unsure of, it asks in bypass mode too.
	{"kb-allow", "rm --frobnicate build", r("allow:Bash(rm:*)"), permission.ModeBypass, "ask", "not known to the knowledge base"},
	// A program with no entry: the rule as written, but its paths still meet the checks.
	{"kb-allow", "mytool --anything x", r("allow:Bash(mytool:*)"), "", "allow", "mytool:*"},
	{"kb-allow", "mytool x > .bashrc", r("allow:Bash(mytool:*)"), "", "ask:safety", ".bashrc"},
	// Deny rules match every spelling the entry knows.
	{"kb-deny", "sed --in-place s/a/b/ README.md", r("deny:Bash(sed -i:*)"), "", "deny", "sed -i:*"},
	{"kb-deny", "sed --in-pl s/a/b/ README.md", r("deny:Bash(sed -i:*)"), "", "deny", "sed -i:*"},
	{"kb-deny", "sed -ni.bak p README.md", r("deny:Bash(sed --in-place:*)"), "", "deny", "sed --in-place:*"},
	{"kb-deny", "tail --lin=5 README.md", r("deny:Bash(tail -n:*)"), "", "deny", "tail -n:*"},
	{"kb-deny", "cp -Rv a b", r("deny:Bash(cp --recursive:*)"), "", "deny", "cp --recursive:*"},
	{"kb-deny", "chmod --rec 777 x", r("deny:Bash(chmod -R:*)"), "", "deny", "chmod -R:*"},
	{"kb-deny", "npm publ --tag beta", r("deny:Bash(npm publish:*)"), "", "deny", "npm publish:*"},
	{"kb-deny", "git branch -D main", r("deny:Bash(git branch --delete --force:*)"), "", "deny", "git branch --delete --force:*"},
	{"kb-deny", "sed -n p README.md", r("deny:Bash(sed -i:*)"), "", "allow", "sed only reads"},
	// A rule that names an option's value matches that value, however attached.
	{"kb-deny", "tail -n5 README.md", r("deny:Bash(tail -n 5:*)"), "", "deny", "tail -n 5:*"},
	{"kb-deny", "tail --lines=5 README.md", r("deny:Bash(tail -n 5:*)"), "", "deny", "tail -n 5:*"},
	{"kb-deny", "tail -n 100 README.md", r("deny:Bash(tail -n 5:*)"), "", "allow", "tail only reads"},
	{"kb-deny", "git stash -m wip", r("deny:Bash(git stash --message:*)"), "", "deny", "git stash --message:*"}, // without a value: any value
	// A deny rule naming options of a program with no entry: unnormalisable options ask.
	{"kb-deny", "mytool --da x", r("deny:Bash(mytool --danger:*)"), "", "ask:safety", "cannot be normalised"},
	{"kb-deny", "mytool -d x", r("deny:Bash(mytool --danger:*)", "allow:Bash(mytool:*)"), "", "ask:safety", "cannot be normalised"},
	{"kb-deny", "mytool --danger x", r("deny:Bash(mytool --danger:*)"), "", "deny", "mytool --danger:*"},
	{"kb-deny", "mytool x", r("deny:Bash(mytool --danger:*)", "allow:Bash(mytool:*)"), "", "allow", "mytool:*"},
	// git commit's options are all known now: --am abbreviates --amend alone, as git reads it.
	{"kb-deny", "git commit --am", r("deny:Bash(git commit --amend:*)"), "", "deny", "git commit --amend:*"},
	// An option a complete entry does not know is one the program refuses (git: unknown
	// option), so it is not the rule's under another name.
	{"kb-deny", "git push --frce origin", r("deny:Bash(git push --force:*)"), "", "pass", "no rule allows"},
	{"kb-deny", "git push --no-verify origin", r("deny:Bash(git push --force:*)", "allow:Bash(git push:*)"), "", "allow", "git push:*"},
	// Which options take a value is said once: mv --backup takes an optional, attached value,
	// so the word after it is the file moved (the old table ate it as the value).
	{"kb-paths", "mv --backup .bashrc x", r("allow:Bash(mv:*)"), "", "ask:safety", "protected file"},
	{"kb-paths", "mv --backup=numbered .bashrc x", r("allow:Bash(mv:*)"), "", "ask:safety", "protected file"},
	{"kb-paths", "sort --outp .bashrc README.md", r("allow:Bash(sort:*)"), "", "ask:safety", "protected file"},
	{"kb-paths", "rm --interactive .bashrc", r("allow:Bash(rm:*)"), "", "ask:safety", "protected file"},
	{"kb-paths", "tee --output-error .bashrc", r("allow:Bash(tee:*)"), "", "ask:safety", "protected file"},
	{"kb-paths", "uniq --group README.md .bashrc", r("allow:Bash(uniq:*)"), "", "ask:safety", "protected file"},
	{"kb-paths", "cp --preserve .env /tmp/x", r("allow:Bash(cp:*)", "deny:Read(./.env)"), "", "deny", "Read(./.env)"},
	{"kb-paths", "cp --reflink .env /tmp/x", r("allow:Bash(cp:*)", "deny:Read(./.env)"), "", "deny", "Read(./.env)"},
	{"kb-paths", "ln --backup .env /tmp/y", r("allow:Bash(ln:*)", "deny:Read(./.env)"), "", "deny", "Read(./.env)"},
	{"kb-paths", "mkdir -Z .bashrc", r("allow:Bash(mkdir:*)"), "", "ask:safety", "protected file"},
	{"kb-paths", "date -I -f .env", r("allow:Bash(date:*)", "deny:Read(./.env)"), "", "deny", "Read(./.env)"},
	{"kb-paths", "strings -o .env", r("allow:Bash(strings:*)", "deny:Read(./.env)"), "", "deny", "Read(./.env)"},
	{"kb-paths", "install -C .env x", r("allow:Bash(install:*)", "deny:Read(./.env)"), "", "deny", "Read(./.env)"},
	// Variables an entry says choose or run a program.
	{"kb-env", "CC=/tmp/evil make", r("allow:Bash(make:*)"), "", "ask", "CC set, which make runs as a program"},
	{"kb-env", "RUSTC_WRAPPER=/tmp/x cargo build", r("allow:Bash(cargo build:*)"), "", "ask", "RUSTC_WRAPPER"},
	{"kb-env", "GOFLAGS=-toolexec=/tmp/x go build ./...", r("allow:Bash(go build:*)"), "", "ask", "GOFLAGS"},
	{"kb-env", "CC=/tmp/evil make", r("allow:Bash(make:*)", denyRm), "", "ask:safety", "CC"},
	{"kb-env", "env CC=/tmp/evil make", r("allow:Bash(env:*)", "allow:Bash(make:*)"), "", "ask", "env sets CC, which make runs as a program"},
	{"kb-env", "CGO_ENABLED=0 go build ./...", r("allow:Bash(go build:*)"), "", "allow", "go build:*"},
	// Options the new entries mark as running code or naming a program.
	{"kb-exec", "go test -exec /tmp/x ./...", r("allow:Bash(go test:*)"), "", "ask:safety", "go -exec runs a program"},
	{"kb-exec", "go build -toolexec=/tmp/x ./...", r("allow:Bash(go build:*)"), "", "ask:safety", "go -toolexec"},
	{"kb-exec", "make --eval='x:=$(shell id)' all", r("allow:Bash(make:*)"), "", "ask:safety", "make --eval"},
	{"kb-exec", "make --ev=x all", r("allow:Bash(make:*)"), "", "ask:safety", "make --eval"},
	{"kb-exec", "cargo --config build.rustc-wrapper=/tmp/x build", r("allow:Bash(cargo:*)"), "", "ask:safety", "cargo --config"},
	{"kb-exec", "gcc -wrapper /tmp/x a.c", r("allow:Bash(gcc:*)"), "", "ask:safety", "gcc -wrapper"},
	{"kb-exec", "cc -fplugin=./p.so a.c", r("allow:Bash(cc:*)"), "", "ask:safety", "cc -fplugin"},
	{"kb-exec", "ssh -F ./cfg host", r("allow:Bash(ssh:*)"), "", "ask:safety", "ssh -F"},
	{"kb-exec", "go test -run TestX -count=1 ./...", r("allow:Bash(go test:*)"), "", "allow", "go test:*"},
	{"kb-exec", "gcc -O2 -o app a.c", r("allow:Bash(gcc:*)"), "", "allow", "gcc:*"},
}

func init() { checkCases = append(checkCases, kbCases...) }

// optionTables are the entries that describe a program's options (not roles-only ones,
// which rules read as no entry).
func optionTables() []*knowledge.Command {
	var out []*knowledge.Command
	for _, e := range knowledge.Builtin().Programs() {
		if !e.NoOptions {
			out = append(out, e)
		}
	}
	return out
}

// completeEntries are the entries without subcommands whose option lists are complete.
func completeEntries() []*knowledge.Command {
	var out []*knowledge.Command
	for _, e := range optionTables() {
		// An entry that reads no options has none to cover (every word is an operand).
		if !e.Partial && !e.NoOpts && len(e.Subcommands()) == 0 && e.Names[0] != "awk" {
			out = append(out, e)
		}
	}
	return out
}

// TestAllowRuleNeverCoversUnknownOrDangerous: under Bash(prog:*), an option the entry does not
// know, or one it marks as running code, naming a program or changing the system, is never
// allowed.
func TestAllowRuleNeverCoversUnknownOrDangerous(t *testing.T) {
	f := newFixture(t)
	entries := completeEntries()
	rapid.Check(t, func(rt *rapid.T) {
		e := rapid.SampledFrom(entries).Draw(rt, "entry")
		name := e.Names[0]
		var opt string
		if rapid.Bool().Draw(rt, "unknown") {
			if e.OpenLong {
				rt.Skip("every long option is one of the program's settings (npm's keys)")
			}
			l := rapid.StringMatching(`[a-z]{3,8}`).Draw(rt, "long")
			if o, amb := e.Long(l); o != nil || amb {
				rt.Skip("a known option")
			}
			opt = "--" + l
		} else {
			var bad []*knowledge.Option
			for _, o := range e.Options {
				if o.Effects.Dangerous() || o.Effects&knowledge.State != 0 {
					bad = append(bad, o)
				}
			}
			if len(bad) == 0 {
				rt.Skip("no dangerous option")
			}
			o := rapid.SampledFrom(bad).Draw(rt, "option")
			opt = rapid.SampledFrom(o.Spellings).Draw(rt, "spelling")
			if o.ArityOf(opt) != knowledge.None {
				opt += "=x"
			}
		}
		cmd := name + " " + opt + " README.md README.md" // two operands: sed -i needs a file besides its script
		pc := f.context(t, permission.ModeDefault, "allow:Bash("+name+":*)")
		if d := Check(context.Background(), pc, cmd); d.Behavior == permission.Allow {
			rt.Fatalf("Check(%q) under Bash(%s:*) = allow (%s)", cmd, name, reasonText(d))
		}
	})
}

// TestDenyRuleMatchesEverySpelling: a deny rule on an option an entry lists (of the program,
// or of one of its subcommands) is matched by every spelling the program accepts: each alias,
// its abbreviation, clustered, with an attached value. Every entry takes part, partial ones
// too: what a partial entry lists is a fact.
func TestDenyRuleMatchesEverySpelling(t *testing.T) {
	f := newFixture(t)
	entries := optionTables()
	rapid.Check(t, func(rt *rapid.T) {
		e := rapid.SampledFrom(entries).Draw(rt, "entry")
		cmd, prefix := e, e.Names[0]
		if subs := e.Subcommands(); len(subs) > 0 {
			cmd = rapid.SampledFrom(subs).Draw(rt, "sub")
			prefix += " " + strings.ReplaceAll(cmd.Names[0], "/", " ") // docker container/rm is two words
		}
		if len(cmd.Options) == 0 {
			rt.Skip("no options")
		}
		o := rapid.SampledFrom(cmd.Options).Draw(rt, "option")
		var plain []string // an option family (-f*) has no one spelling to write
		for _, sp := range o.Spellings {
			if !strings.HasSuffix(sp, "*") {
				plain = append(plain, sp)
			}
		}
		if len(plain) == 0 {
			rt.Skip("an option family")
		}
		if strings.ContainsAny(strings.Join(plain, ""), "\"'`$\\;&|<>()*?[]#~{} ") {
			// less -" is written quoted, in the command and the rule alike.
			rt.Skip("a spelling the shell reads as syntax")
		}
		ruleSp := rapid.SampledFrom(plain).Draw(rt, "rule spelling")
		sp := rapid.SampledFrom(plain).Draw(rt, "spelling")
		word := spellingVariant(rt, cmd, o, sp)
		ruleWords := ruleSp
		if o.ArityOf(ruleSp) == knowledge.Required {
			ruleWords += " 5" // the rule's own value, so the option is an option in the rule too
		}
		line := prefix + " " + word + " README.md"
		if e.Names[0] == "time" {
			// The shell's keyword runs the next word as the command (`time -a x` runs -a), so
			// GNU time's options are reached through `command time`.
			line = "command " + line
		}
		pc := f.context(t, permission.ModeDefault, "deny:Bash("+prefix+" "+ruleWords+":*)")
		if d := Check(context.Background(), pc, line); d.Behavior != permission.Deny {
			rt.Fatalf("Check(%q) with deny Bash(%s %s:*) = %s (%s)", line, prefix, ruleWords, outcome(d), reasonText(d))
		}
	})
}

// spellingVariant spells option o as sp, abbreviated or clustered at random where the
// command accepts it, with a value attached as the program would take it.
func spellingVariant(rt *rapid.T, cmd *knowledge.Command, o *knowledge.Option, sp string) string {
	word := sp
	long, short := strings.HasPrefix(sp, "--"), len(sp) == 2
	switch {
	case long && cmd.Abbrev && rapid.Bool().Draw(rt, "abbreviate"):
		for n := 3; n <= len(sp); n++ {
			// The prefix must name this spelling alone: git push --for is --force,
			// --force-with-lease or --force-if-includes, one option of the entry but three
			// spellings with different values, and git refuses it as ambiguous.
			if got, amb := cmd.Long(sp[2:n]); got == o && !amb && longSpellingsWithPrefix(cmd, sp[:n]) == 1 {
				word = sp[:n]
				break
			}
		}
	case short && rapid.Bool().Draw(rt, "cluster"):
		if c := clusterMate(cmd, o); c != 0 {
			word = "-" + string(c) + sp[1:]
		}
	}
	switch o.ArityOf(sp) {
	case knowledge.Required:
		switch {
		case long:
			word += "=5"
		case short:
			word += "5"
		default:
			word += " 5" // -name 5: a single-dash word takes the next word
		}
	case knowledge.Optional:
		if short {
			word += "5"
		} else {
			word += "=5" // --name=5, and a single-dash word's -name=5 (terraform -refresh=false)
		}
	}
	return word
}

// longSpellingsWithPrefix counts the command's long spellings that start with prefix.
func longSpellingsWithPrefix(cmd *knowledge.Command, prefix string) int {
	n := 0
	for _, p := range cmd.Options {
		for _, s := range p.Spellings {
			if strings.HasPrefix(s, "--") && strings.HasPrefix(s, prefix) {
				n++
			}
		}
	}
	return n
}

// clusterMate is a value-less short option of the command other than o, or 0.
func clusterMate(cmd *knowledge.Command, o *knowledge.Option) byte {
	for _, p := range cmd.Options {
		for _, s := range p.Spellings {
			if len(s) == 2 && p != o && p.ArityOf(s) == knowledge.None && (s[1] >= 'a' && s[1] <= 'z' || s[1] >= 'A' && s[1] <= 'Z') {
				return s[1]
			}
		}
	}
	return 0
}
