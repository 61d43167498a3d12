//go:build !unix

package search

import "os"

func mapFile(*os.File, int64) ([]byte, func(), bool) { return nil, nil, false }
