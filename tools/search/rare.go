package search

import "bytes"

// rarest returns the offset of the needle byte that occurs least often in source text (see
// byteRank); with fold, a letter counts as its more common case, since both are searched.
func rarest(needle []byte, fold bool) int {
	best, bestRank := 0, 256
	for i, c := range needle {
		r := int(byteRank[c])
		if fold {
			if o := otherCase(c); o != c {
				r = max(r, int(byteRank[o]))
			}
		}
		if r < bestRank {
			best, bestRank = i, r
		}
	}
	return best
}

func otherCase(c byte) byte {
	switch {
	case 'a' <= c && c <= 'z':
		return c - 'a' + 'A'
	case 'A' <= c && c <= 'Z':
		return c - 'A' + 'a'
	}
	return c
}

// rareIndex finds needle in s by scanning (vectorised, with IndexByte) for its byte at offset
// rare — the rarest one — and comparing the whole needle only there. Searching for the first
// byte instead, as bytes.Index does, stalls on needles that start with a common letter
// (errors.New): most of the hits are false.
func rareIndex(s, needle []byte, rare int) int {
	n := len(needle)
	switch {
	case n == 0:
		return 0
	case n == 1:
		return bytes.IndexByte(s, needle[0])
	case len(s) < n:
		return -1
	}
	c := needle[rare]
	// Positions of the rare byte that leave room for the needle around them.
	lo, hi := rare, len(s)-(n-1-rare)
	for pos := lo; pos < hi; {
		j := bytes.IndexByte(s[pos:hi], c)
		if j < 0 {
			return -1
		}
		at := pos + j - rare
		if bytes.Equal(s[at:at+n], needle) {
			return at
		}
		pos += j + 1
	}
	return -1
}

// rareFoldIndex is rareIndex ignoring ASCII case; needle is lower case. It scans for the rare
// byte in both cases, remembering the next occurrence of each so no byte is scanned twice.
func rareFoldIndex(s, needle []byte, rare int) int {
	n := len(needle)
	if n == 0 {
		return 0
	}
	if len(s) < n {
		return -1
	}
	lo := needle[rare]
	up := otherCase(lo)
	first, end := rare, len(s)-(n-1-rare)
	next := func(from int, c byte) int {
		if j := bytes.IndexByte(s[from:end], c); j >= 0 {
			return from + j
		}
		return -1
	}
	nl, nu := -2, -2 // next occurrence of each case at or after i: -1 none, -2 not yet known
	if up == lo {
		nu = -1
	}
	for i := first; i < end; {
		if nl != -1 && nl < i {
			nl = next(i, lo)
		}
		if nu != -1 && nu < i {
			nu = next(i, up)
		}
		switch {
		case nl < 0 && nu < 0:
			return -1
		case nu < 0 || (nl >= 0 && nl < nu):
			i = nl
		default:
			i = nu
		}
		if at := i - rare; equalFoldASCII(s[at:at+n], needle) {
			return at
		}
		i++
	}
	return -1
}
