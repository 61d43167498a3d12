package posjson

import (
	"fmt"
	"strings"
)

// DidYouMean returns the known key a mistyped key most likely meant, or "": the same key in
// another case (Deny, Permissions), or one within two edits (permisions, dney). Every
// configuration file of Reins reports unknown keys with it.
func DidYouMean(key string, known []string) string {
	for _, k := range known {
		if strings.EqualFold(k, key) {
			return k
		}
	}
	if len(key) < 3 {
		return ""
	}
	best, bestD := "", 3
	lower := strings.ToLower(key)
	for _, k := range known {
		if d := editDistance(lower, strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// Suggest is DidYouMean as the end of a message: ` (did you mean "deny"?)`, or "".
func Suggest(key string, known []string) string {
	if s := DidYouMean(key, known); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
