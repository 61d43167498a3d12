package bashrules

// runsNamedProgram reports whether argv is "cmd sub ..." with sub a subcommand whose next
// word names what runs: a package script, a file, a container, another program (the entry's
// runsnamed role). A "cmd sub:*" rule for it would allow every script or program, far more
// than the command that was asked about, so the suggestion for such a command is the command
// itself.
func runsNamedProgram(name string, argv []Word) bool {
	return len(argv) >= 2 && roles().runsNamed[name][argv[1].Value]
}
