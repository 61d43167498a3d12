package bashrules

import "strings"

// sedInfo is what a sed script does besides editing its input.
type sedInfo struct {
	reads, writes []string // files named by r, R, w, W and the w flag of s
	exec          bool     // e command or e flag of s: runs the pattern space as a command
	unparsed      bool     // the script did not parse; it may do anything
}

// analyzeSed reads a GNU sed script far enough to find the commands that touch files or run
// programs. Anything it does not recognise makes the script unparsed.
func analyzeSed(s string) sedInfo {
	p := &sedParser{s: s}
	p.script()
	return p.info
}

type sedParser struct {
	s    string
	i    int
	info sedInfo
}

func (p *sedParser) eof() bool { return p.i >= len(p.s) }
func (p *sedParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

func (p *sedParser) skipSpace() {
	for !p.eof() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// rest returns the text up to the end of the line (file names, labels, text arguments).
func (p *sedParser) rest() string {
	j := strings.IndexByte(p.s[p.i:], '\n')
	if j < 0 {
		j = len(p.s) - p.i
	}
	out := p.s[p.i : p.i+j]
	p.i += j
	return out
}

func (p *sedParser) fail() { p.info.unparsed = true; p.i = len(p.s) }

func (p *sedParser) script() {
	for !p.eof() {
		p.skipSpace()
		switch c := p.peek(); c {
		case 0:
			return
		case '\n', ';', '}':
			p.i++
			continue
		case '#':
			p.rest()
			continue
		}
		if !p.address() {
			p.fail()
			return
		}
		p.skipSpace()
		for p.peek() == '!' {
			p.i++
			p.skipSpace()
		}
		if p.eof() {
			p.fail()
			return
		}
		p.command()
	}
}

// address consumes an optional address or address range.
func (p *sedParser) address() bool {
	if !p.addr1() {
		return false
	}
	p.skipSpace()
	if p.peek() == ',' {
		p.i++
		p.skipSpace()
		if c := p.peek(); c == '+' || c == '~' {
			p.i++
		}
		return p.addr1()
	}
	return true
}

func (p *sedParser) addr1() bool {
	switch c := p.peek(); {
	case c >= '0' && c <= '9':
		for !p.eof() && (p.peek() >= '0' && p.peek() <= '9' || p.peek() == '~') {
			p.i++
		}
	case c == '$':
		p.i++
	case c == '/':
		p.i++
		if !p.regex('/') {
			return false
		}
		p.regexFlags()
	case c == '\\':
		p.i++
		if p.eof() {
			return false
		}
		d := p.s[p.i]
		p.i++
		if !p.regex(d) {
			return false
		}
		p.regexFlags()
	}
	return true
}

func (p *sedParser) regexFlags() {
	for !p.eof() && (p.peek() == 'I' || p.peek() == 'M') {
		p.i++
	}
}

// regex consumes a regular expression up to the unescaped delimiter d.
func (p *sedParser) regex(d byte) bool {
	for !p.eof() {
		c := p.s[p.i]
		switch {
		case c == '\\':
			p.i += 2
			continue
		case c == '[' && d != '[':
			p.bracket()
			continue
		case c == d:
			p.i++
			return true
		case c == '\n':
			return false
		}
		p.i++
	}
	return false
}

// bracket consumes a bracket expression, inside which the delimiter is an ordinary character.
func (p *sedParser) bracket() {
	j := p.i + 1
	if j < len(p.s) && p.s[j] == '^' {
		j++
	}
	if j < len(p.s) && p.s[j] == ']' {
		j++
	}
	for j < len(p.s) && p.s[j] != ']' && p.s[j] != '\n' {
		if p.s[j] == '[' && j+1 < len(p.s) && strings.IndexByte(":.=", p.s[j+1]) >= 0 {
			end := strings.Index(p.s[j+2:], string(p.s[j+1])+"]")
			if end < 0 {
				break
			}
			j += 2 + end + 2
			continue
		}
		j++
	}
	if j < len(p.s) && p.s[j] == ']' {
		p.i = j + 1
		return
	}
	p.i++ // an unmatched [ is literal
}

func (p *sedParser) command() {
	c := p.s[p.i]
	p.i++
	switch c {
	case '{':
	case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
	case 'l', 'L', 'q', 'Q':
		p.skipSpace()
		for !p.eof() && p.peek() >= '0' && p.peek() <= '9' {
			p.i++
		}
	case 'b', 't', 'T', ':':
		p.skipSpace()
		for !p.eof() && p.peek() != ';' && p.peek() != '\n' {
			p.i++
		}
	case 'a', 'i', 'c':
		p.rest()
	case 'r', 'R':
		p.skipSpace()
		if f := p.rest(); f != "" {
			p.info.reads = append(p.info.reads, f)
		}
	case 'w', 'W':
		p.skipSpace()
		p.write(p.rest())
	case 'e':
		p.info.exec = true
		p.rest()
	case 'v':
		p.skipSpace()
		for !p.eof() && p.peek() != ';' && p.peek() != '\n' {
			p.i++
		}
	case 's':
		p.substitute()
	case 'y':
		if p.eof() {
			p.fail()
			return
		}
		d := p.s[p.i]
		p.i++
		// Two parts, source and destination characters, each ending at the delimiter.
		if ok := p.plain(d); !ok {
			p.fail()
		} else if ok = p.plain(d); !ok {
			p.fail()
		}
	default:
		p.fail()
	}
}

func (p *sedParser) write(f string) {
	switch f {
	case "", "/dev/stdout", "/dev/stderr":
		if f == "" {
			p.info.unparsed = true
		}
		return
	}
	p.info.writes = append(p.info.writes, f)
}

// plain consumes text up to an unescaped delimiter (y's operands, s's replacement).
func (p *sedParser) plain(d byte) bool {
	for !p.eof() {
		c := p.s[p.i]
		if c == '\\' {
			p.i += 2
			continue
		}
		p.i++
		if c == d {
			return true
		}
	}
	return false
}

func (p *sedParser) substitute() {
	if p.eof() || p.peek() == '\n' || p.peek() == '\\' {
		p.fail()
		return
	}
	d := p.s[p.i]
	p.i++
	if !p.regex(d) || !p.plain(d) {
		p.fail()
		return
	}
	for !p.eof() {
		switch c := p.peek(); {
		case c == 'g' || c == 'p' || c == 'i' || c == 'I' || c == 'm' || c == 'M' || (c >= '0' && c <= '9'):
			p.i++
		case c == 'e':
			p.info.exec = true
			p.i++
		case c == 'w':
			p.i++
			p.skipSpace()
			p.write(p.rest())
			return
		default:
			return
		}
	}
}
