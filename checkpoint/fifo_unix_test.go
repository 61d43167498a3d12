//go:build unix

package checkpoint

import "github.com/reinsdev/reins/boundedfile/boundedfiletest"

// fifoPlants is a FIFO at the restored file.
func fifoPlants() []plantCase {
	return []plantCase{{"a FIFO at the file", func(f *fixture) { boundedfiletest.Mkfifo(f.path("src/a.txt")) }, false}}
}
