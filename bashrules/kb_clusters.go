package bashrules

// The read-only code of the programs whose entries are in knowledge/programs/clusters.kb: what
// their entries cannot state as data (which subcommands only list).

func init() {
	registerReadOnly("docker", dockerRO)
}
