// Package knowledge is what the Bash check knows about programs, as data: one reviewed entry
// per program (or family), in the text files of programs/, embedded in the binary. An entry
// says how the program reads its arguments — every option with its spellings (aliases), the
// value it takes, whether long options may be abbreviated and short ones clustered — and what
// an option does that a permission check must see: run code, select a program or helper,
// write or read a file. It also lists the program's subcommands, each with options of its own,
// and the environment variables it honours that choose or run programs.
//
// Adding a program is adding an entry; no code changes. The package knows nothing of rules,
// the permission engine or the shell parser: bashrules asks it (Lookup, Program.Parse).
//
// # Contract
//
// An entry is complete unless it says "partial": an option a complete entry does not list is
// unknown, and bashrules treats unknown as "not known to be harmless" — an allow rule for the
// program does not cover it. A partial entry's facts still hold (its effects, aliases and
// arities), but what it does not list is not evidence of anything. A broken entry is an error
// naming its file, line and column; the embedded entries are loaded once and a broken one
// panics at first use (a test loads them all), so a binary never runs with half its knowledge.
//
// # Format
//
// One directive a line; # starts a comment. Words are separated by spaces.
//
//	program NAME [NAME...]   start an entry; every NAME runs it (awk gawk mawk nawk)
//	sub NAME [NAME...]       start a subcommand of the current program (npm install i add)
//	flags FLAG...            for the current program or subcommand:
//	                           abbrev   long options may be abbreviated to a unique prefix
//	                           digits   -NUM is an option (head -5)
//	                           posix    options end at the first operand (find, env, xargs)
//	                           partial  the option list is not complete
//	                           inherit  the program's options are also accepted after the subcommand
//	                           subabbrev subcommands may be abbreviated to a unique prefix (npm publ)
//	                           readonly in the read-only set: allowed without a rule when
//	                                    every option is known and none writes, runs or
//	                                    reads a file list, and every path it names passes
//	                                    the Read check (a program whose arguments need
//	                                    reading in its own way registers its read-only
//	                                    code in bashrules, and then only the names it
//	                                    registers join: awk, not gawk)
//	                           nooptions (program only) the entry lists what its roles need,
//	                                    not the program's options: it is no option table
//	                                    (Lookup does not return it; Facts does)
//	                           group    (program only) the names are different programs
//	                                    that share the entry's facts, not one program's
//	                                    names: a deny rule for one is not for the others
//	                           dashdash every single-dash word option may also be written
//	                                    with two dashes (sqlite3 -batch, --batch)
//	                           openlong a long option the entry does not list is a setting
//	                                    of the program's own that a check need not see
//	                                    (npm's configuration keys)
//	                           negate   --X may be written --no-X, and --no-X as --X (git)
//	                           noopts   it reads no options: every word is an operand
//	                                    (test -f FILE, break 2)
//	                           atfile   an argument @FILE stands for the arguments FILE
//	                                    holds (gcc, binutils), which the check cannot see
//	opt SPELLING... [WORD...] one option: its spellings, then what it does
//	env VAR EFFECT...         an environment variable the program honours
//	sigil CHAR CANON          an operand starting with CHAR means option CANON (git push +main)
//	role ROLE [WORD...]       (program only) what the program does with its arguments:
//	                            interpreter [SUB...]  runs program text: its code options'
//	                                                  values, the operands of SUB (deno eval),
//	                                                  else its standard input
//	                            shell [posix]         runs a shell script; posix: the bash
//	                                                  parser reads it faithfully
//	                            runner each|argv|remote|stdin  runs its arguments as commands:
//	                                                  each operand a command line, the operands
//	                                                  a command and its arguments, a remote
//	                                                  shell's command line after the host, or
//	                                                  what it reads on standard input
//	                            dbclient [operands]   runs database statements: its code
//	                                                  options' values; operands: also its
//	                                                  operands after the database (sqlite3)
//	                            launcher [SUB...]     runs the words after SUB as a command
//	                                                  (every word after its options with none)
//	                            local [SUB...]        SUB reach no network; with none, the
//	                                                  program's own work is local
//	                            data                  its operands are data, never commands
//	                            globhazard            a pattern among its arguments may expand
//	                                                  to one of its options that writes or runs
//	                            codemodules MOD...    (an interpreter's) modules that, run with
//	                                                  -m, run their arguments, standard input
//	                                                  or another program as code (timeit, pdb)
//	                            goals                 every operand but an assignment is a goal
//	                            edits                 acceptEdits lets it run once every file it
//	                                                  writes passes the write check
//	                            network [SUB...]      connects to other hosts
//	                            subscripts            (a builtin's) evaluates array subscripts
//	                                                  in the names it is given
//	                            shelltext args|file   (a builtin's) runs shell text: its
//	                                                  arguments (eval) or a script file (source)
//	                            nosuggest             no allow rule is suggested for it
//	                            commands [SUB...]     its first argument, a subcommand's name,
//	                                                  is never a file; after SUB, a script's name
//	                            runsnamed SUB...      after SUB the next word names what runs:
//	                                                  a suggested rule is the call itself
//	                            setsvars              (a builtin's) sets the variables its
//	                                                  arguments name (read x, printf -v x)
//	                            declares              (a builtin's) a plain declaration: names,
//	                                                  assignments, attribute options
//	                            destroys KIND         deletes or overwrites files, counted by
//	                                                  the damage budget's code for KIND (remove,
//	                                                  files, shrink, output, blocks, move, copy,
//	                                                  walk, mirror, repo)
//	                            execvalues            some options or operands run code, read
//	                                                  by value (crontab FILE, tmux send-keys)
//	                            paths KIND [OPTION...] what its operands are: none (not files),
//	                                                  read, write or remove; after read, the
//	                                                  entry's options that make it read whole
//	                                                  trees below them (a program whose paths
//	                                                  need code registers it in bashrules)
//	                            wrapper [safe] START [OPTION...]  runs the command given as its
//	                                                  arguments; safe: it adds no power, so an
//	                                                  allow rule for that command allows the
//	                                                  whole. START is operand (the command
//	                                                  starts at the first operand past the
//	                                                  OPTIONs, the entry's own spellings read
//	                                                  with the entry's arity; any other option
//	                                                  leaves it unknown), code (code registered
//	                                                  in bashrules/cmdline finds it) or guess
//	                                                  (every later word may be it: the call asks)
//	                            chdir [stack]         changes the shell's directory to its
//	                                                  operand; stack: to one from the directory
//	                                                  stack (popd), which asks
//	                            seescode              (an interpreter's) the analysis reads its
//	                                                  program itself (awk): it is no unseen code
//	                            printsnames [SUB...]  its output is file names, one a line
//	                                                  (find, ls); with SUB, that subcommand's
//	                                                  (git ls-files); see also opt printsnames
//	help ARGS...              what prints the options, for the test against the installed
//	                          program (default --help; may repeat; "help man [PAGE]": the
//	                          manual page; "help none": nothing does); on a subcommand, what
//	                          prints its options
//	helpsub ARGS...           (program only) what prints a subcommand's options, {} standing
//	                          for its name (git: {} -h; go: help {}; default {} --help)
//	helpskip SPELLING...      spellings the help shows that are not options (its layout)
//	helpoperands SPELLING...  options the help shows followed by words that are not their
//	                          value: the operands of the mode they select (git config
//	                          --get-urlmatch NAME URL), or another option's under the same
//	                          spelling (git shortlog's help has git log's -n NUMBER)
//	version ARGS...           (program only) what prints the version the from line names
//	                          (default --version)
//	like NAME                 (program only) it also takes every option of NAME's entry
//	                          (rgrep takes grep's, npx npm's)
//	from TEXT...              where the option list was read, with the version (GNU
//	                          coreutils 9.1 --help): every entry says it
//	alias CANON WORD...       (program only) an operand spelled WORD means CANON, for deny
//	                          and ask rules (kubectl's resource names: po pod are pods);
//	                          CANON may be a list, a category (kubectl's all)
//
// A spelling is -x (short; clusters with others: -rf), --long, or -word (a long option spelled
// with one dash, as find and go use; it does not cluster). A spelling ending in "=" takes a
// value (--lines=5, --lines 5, -n5, -n 5); ending in "?" takes an optional value that must be
// attached (--color=auto, -i.bak). The words after the spellings are effects — exec (runs code
// or a command), program (names a program or helper to run), write (writes or removes the file
// its value names, or files in general when it takes none), read (reads the file its value
// names), host (its value is a host or URL the program connects to), suffix (its value becomes
// part of the names of files it writes: cp --suffix), list (its value names a file listing more
// files: tar -T), opts (its value names a file of more options: curl -K), at (a value @FILE
// reads FILE: curl -d @x), mount (its value binds a host path into a container), pipe (a value
// |CMD runs CMD through a shell, any other is a file written: psql -o) and state (it changes
// the system beyond files: date --set, ss --kill) — and as=NAME[,NAME] to give the option a
// canonical name other than its first long spelling (git push --force-with-lease as=force; git
// branch -D as=delete,force). Three more words are facts for the check of code the analysis
// cannot see, not effects (an allow rule for the program covers them): code (its value is
// program text the program runs: python -c), script (its value is a command line the program
// runs: hyperfine --prepare) and norun (after it no command runs: ssh -N; for an interpreter,
// no program text runs: --version, node --check). The word printsnames marks an option that
// makes the output file names (grep -l, git diff --name-only), so that xargs may run a
// read-only command on them. The word newer marks an option newer than the program's version in
// Debian stable, which the test against the installed program's help then does not require.
//
// A fact about a program lives in its entry and nowhere else: bashrules keeps no list of
// interpreters, runners, launchers, wrappers, directory changers or local subcommands of its
// own.
package knowledge
