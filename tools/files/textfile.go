package files

import (
	"bytes"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// encoding is a text file's character encoding.
type encoding int

const (
	encUTF8 encoding = iota
	encUTF16LE
)

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
)

// textFormat is how a text file is stored: what Edit and Write keep when they rewrite it.
type textFormat struct {
	enc  encoding
	bom  bool // a UTF-8 byte-order mark (UTF-16LE always has one)
	crlf bool // lines end in CR LF
}

// decodeText decodes a file's raw bytes and detects its format. The returned text keeps its
// line endings.
func decodeText(raw []byte) (string, textFormat) {
	var f textFormat
	var s string
	switch {
	case bytes.HasPrefix(raw, bomUTF16LE):
		f.enc = encUTF16LE
		s = decodeUTF16LE(raw[2:])
	case bytes.HasPrefix(raw, bomUTF8):
		f.bom = true
		s = string(raw[3:])
	default:
		s = string(raw)
	}
	f.crlf = mostlyCRLF(s)
	return s, f
}

// mostlyCRLF reports whether more lines end in CR LF than in a bare LF.
func mostlyCRLF(s string) bool {
	crlf := strings.Count(s, "\r\n")
	return crlf > 0 && crlf > strings.Count(s, "\n")-crlf
}

func decodeUTF16LE(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	s := string(utf16.Decode(u))
	if len(b)%2 == 1 {
		s += string(utf8.RuneError)
	}
	return s
}

// encode turns text back into the file's format. Line endings are left as they are in s.
func (f textFormat) encode(s string) []byte {
	switch f.enc {
	case encUTF16LE:
		u := utf16.Encode([]rune(s))
		out := make([]byte, 2, 2+2*len(u))
		copy(out, bomUTF16LE)
		for _, c := range u {
			out = append(out, byte(c), byte(c>>8))
		}
		return out
	default:
		if f.bom {
			return append(append([]byte{}, bomUTF8...), s...)
		}
		return []byte(s)
	}
}

// toCRLF turns LF line endings into CR LF.
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}
