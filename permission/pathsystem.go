package permission

import (
	"path/filepath"
	"runtime"
	"strings"
)

// PathSystem is how one operating system names files: the facts a path check needs so that
// two spellings of one file are judged alike. The tables are data, one per system, and every
// function that reads them takes the table explicitly, so the tests of every system run on
// any system; the checks of a process consult [HostSystem].
//
// The engine is stricter than any one table on every system: it compares paths lower-cased
// everywhere and asks for Windows' device, UNC, 8.3 and trailing-dot forms everywhere
// (suspiciousPath), as Claude Code does. The tables add what only holds on their system.
type PathSystem struct {
	Name string
	// FoldCase: the default volumes compare names case-insensitively (APFS, NTFS).
	FoldCase bool
	// Separators are the characters that separate path components.
	Separators string
	// Aliases are pairs of (real, link) prefixes that name the same folder (macOS's /tmp is
	// /private/tmp).
	Aliases [][2]string
	// DataStreams: "name:stream" names an alternate data stream of name, and "name::$DATA"
	// is name itself (NTFS).
	DataStreams bool
	// TrailingDotsSpaces: the system drops trailing dots and spaces of a component
	// (".env." opens .env).
	TrailingDotsSpaces bool
	// DeviceNames are reserved names that open a device in any folder, with any extension
	// (NUL, CON, COM1.txt).
	DeviceNames []string
	// ShortNames: a component with "~digit" may be the 8.3 short name of any long name
	// (PROGRA~1, SETTIN~1.JSO), so it cannot be matched against rules.
	ShortNames bool
	// SensitiveHomeDirs are folders under the home directory that hold credentials, mail,
	// messages and browser data: read-denied by default, as the credential stores are.
	SensitiveHomeDirs []string
}

// Linux is the Linux table: case-sensitive, "/" only, no aliases.
var Linux = PathSystem{Name: "linux", Separators: "/"}

// Darwin is the macOS table: APFS's default volumes fold case, and /tmp, /var and /etc are
// links into /private.
var Darwin = PathSystem{
	Name: "darwin", FoldCase: true, Separators: "/",
	Aliases: [][2]string{{"/private/tmp", "/tmp"}, {"/private/var", "/var"}, {"/private/etc", "/etc"}},
	SensitiveHomeDirs: []string{
		"Library/Keychains", "Library/Cookies", "Library/Mail", "Library/Messages",
		"Library/Safari", "Library/Accounts", "Library/Calendars", "Library/Containers/com.apple.mail",
		"Library/Application Support/Google/Chrome", "Library/Application Support/Firefox",
		"Library/Application Support/BraveSoftware", "Library/Application Support/Microsoft Edge",
		"Library/Application Support/com.apple.TCC", "Library/Group Containers/group.com.apple.notes",
	},
}

// Windows is the Windows table.
var Windows = PathSystem{
	Name: "windows", FoldCase: true, Separators: `\/`,
	DataStreams: true, TrailingDotsSpaces: true, ShortNames: true,
	DeviceNames: []string{"con", "prn", "aux", "nul", "conin$", "conout$",
		"com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8", "com9",
		"lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9"},
	SensitiveHomeDirs: []string{
		`AppData\Roaming\Microsoft\Credentials`, `AppData\Local\Microsoft\Credentials`,
		`AppData\Roaming\Microsoft\Protect`, `AppData\Local\Google\Chrome\User Data`,
		`AppData\Local\Microsoft\Edge\User Data`, `AppData\Roaming\Mozilla\Firefox\Profiles`,
	},
}

// HostSystem is the table of the system this process runs on.
func HostSystem() *PathSystem {
	switch runtime.GOOS {
	case "darwin", "ios":
		return &Darwin
	case "windows":
		return &Windows
	}
	return &Linux
}

// split returns p's components, separated by any of the system's separators.
func (s *PathSystem) split(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return strings.ContainsRune(s.Separators, r) })
}

// Canonical is p as the system resolves it for comparison: separators as "/", each
// component without its "::$DATA" stream suffix and trailing dots and spaces where the system
// drops them, macOS's /private aliases as their link (/tmp), and lower-cased where names fold.
// A drive letter ("C:") stays the first component.
func (s *PathSystem) Canonical(p string) string {
	abs := strings.ContainsRune(s.Separators, rune(firstByte(p)))
	comps := s.split(p)
	for i, c := range comps {
		if s.DataStreams && !(i == 0 && isDrive(c)) {
			if j := strings.IndexByte(c, ':'); j >= 0 && strings.EqualFold(c[j:], "::$DATA") {
				c = c[:j]
			}
		}
		if s.TrailingDotsSpaces && c != "." && c != ".." {
			if t := strings.TrimRight(c, ". "); t != "" {
				c = t
			}
		}
		comps[i] = c
	}
	out := strings.Join(comps, "/")
	if abs {
		out = "/" + out
	}
	for _, a := range s.Aliases {
		if out == a[0] || strings.HasPrefix(out, a[0]+"/") {
			out = a[1] + out[len(a[0]):]
		}
	}
	if s.FoldCase {
		out = strings.ToLower(out)
	}
	return out
}

// Same reports whether a and b name the same file on the system, as far as names tell.
func (s *PathSystem) Same(a, b string) bool { return s.Canonical(a) == s.Canonical(b) }

// Suspicious says why p cannot be judged by its name on the system — it may open something
// other than the file it names — or "". A person must approve such a path.
func (s *PathSystem) Suspicious(p string) string {
	if !s.DataStreams && !s.ShortNames && len(s.DeviceNames) == 0 {
		return ""
	}
	for i, c := range s.split(p) {
		if s.DataStreams && !(i == 0 && isDrive(c)) {
			if j := strings.IndexByte(c, ':'); j >= 0 && !strings.EqualFold(c[j:], "::$DATA") {
				return "an NTFS alternate data stream"
			}
		}
		if s.ShortNames && hasShortName(c) {
			return "a Windows 8.3 short name (it may stand for any long name)"
		}
		if len(s.DeviceNames) > 0 {
			stem := strings.ToLower(strings.TrimRight(c, ". "))
			if k := strings.IndexByte(stem, '.'); k >= 0 {
				stem = stem[:k]
			}
			for _, d := range s.DeviceNames {
				if stem == d {
					return "a Windows device name (" + strings.ToUpper(d) + ")"
				}
			}
		}
	}
	return ""
}

// SensitivePaths are the system's sensitive folders under home, as absolute paths.
func (s *PathSystem) SensitivePaths(home string) []string {
	var out []string
	for _, d := range s.SensitiveHomeDirs {
		out = append(out, filepath.Join(home, filepath.FromSlash(strings.ReplaceAll(d, `\`, "/"))))
	}
	return out
}

func firstByte(p string) byte {
	if p == "" {
		return 0
	}
	return p[0]
}

func isDrive(c string) bool {
	return len(c) == 2 && c[1] == ':' && (c[0]|0x20 >= 'a' && c[0]|0x20 <= 'z')
}
