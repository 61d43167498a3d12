package permission

import "fmt"

// Source says where a rule, a directory or a mode came from. The order of the constants is the
// reporting order; it carries no precedence.
type Source int

const (
	SourceUser Source = iota
	SourceProject
	SourceLocal
	SourceFlag
	SourcePolicy
	SourceCLIArg
	SourceCommand
	SourceSession
)

// Sources lists every source in reporting order.
var Sources = []Source{SourceUser, SourceProject, SourceLocal, SourceFlag, SourcePolicy, SourceCLIArg, SourceCommand, SourceSession}

var sourceNames = [...]string{"userSettings", "projectSettings", "localSettings", "flagSettings", "policySettings", "cliArg", "command", "session"}

func (s Source) String() string {
	if s < 0 || int(s) >= len(sourceNames) {
		return fmt.Sprintf("Source(%d)", int(s))
	}
	return sourceNames[s]
}

// ParseSource parses a source name such as "localSettings".
func ParseSource(name string) (Source, error) {
	for i, n := range sourceNames {
		if n == name {
			return Source(i), nil
		}
	}
	return 0, fmt.Errorf("unknown permission source %q", name)
}

// Persisted reports whether updates to the source are written to a settings file.
func (s Source) Persisted() bool {
	return s == SourceUser || s == SourceProject || s == SourceLocal
}

// Editable reports whether the source accepts updates at all: the three settings files and the
// in-memory session and cliArg sources. Policy, flag and command sources are read-only.
func (s Source) Editable() bool {
	return s.Persisted() || s == SourceSession || s == SourceCLIArg
}

// MarshalText makes sources print by name in JSON.
func (s Source) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a source name.
func (s *Source) UnmarshalText(b []byte) error {
	v, err := ParseSource(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
