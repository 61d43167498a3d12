package bashrules

// The read-only code of the programs whose entries are in knowledge/programs/clusters.kb: what
// their entries cannot state as data (which subcommands only list).

func init() {
	registerReadOnly("docker", dockerRO)
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
