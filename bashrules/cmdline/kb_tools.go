package cmdline

import "strings"

// The peels of the wrappers whose entries are in knowledge/programs/tools.kb.

func init() {
	registerPeel("env", peelEnv)
}

// peelEnv reads env's assignments and options: -C runs the command in another directory and
// -S gives it as one string that env splits, read here as a script.
func peelEnv(args []Word) (int, *Word, bool, bool) {
	i := 0
	otherDir := false
	for i < len(args) {
		a := args[i]
		if !a.Known {
			return i, nil, otherDir, false
		}
		v := a.Value
		switch {
		case v == "--":
			i++
		case v == "-" || v == "-i" || v == "-0" || v == "-v" || v == "--null" || v == "--ignore-environment" || v == "--debug":
			i++
			continue
		case v == "-u" || v == "--unset":
			i += 2
			continue
		case strings.HasPrefix(v, "--unset=") || (strings.HasPrefix(v, "-u") && len(v) > 2):
			i++
			continue
		case v == "-C" || v == "--chdir":
			otherDir = true
			i += 2
			continue
		case strings.HasPrefix(v, "--chdir=") || (strings.HasPrefix(v, "-C") && len(v) > 2):
			otherDir = true
			i++
			continue
		case v == "-S" || v == "--split-string":
			if i+1 < len(args) {
				return i + 1, &args[i+1], otherDir, true
			}
			return i, nil, otherDir, false
		case strings.HasPrefix(v, "-S") || strings.HasPrefix(v, "--split-string="):
			s := args[i]
			if strings.HasPrefix(v, "-S") {
				s.Value = v[2:]
			} else {
				s.Value = strings.TrimPrefix(v, "--split-string=")
			}
			return i + 1, &s, otherDir, true
		case strings.HasPrefix(v, "-") && len(v) > 1:
			return i, nil, otherDir, false
		}
		break
	}
	for i < len(args) && args[i].Known && EnvAssignRE().MatchString(args[i].Value) {
		i++
	}
	return i, nil, otherDir, true
}
