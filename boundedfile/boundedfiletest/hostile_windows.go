package boundedfiletest

// systemHostile adds nothing on Windows: see hostile_unix.go.
func systemHostile() []File { return nil }
