package agent

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/reinsdev/reins/internal/cli/cmdutil"
)

// defaultMaxStdin bounds the prompt piped into `reins -p`. A prompt is text a model reads;
// more than this is a mistake (`cat big.log | reins -p`), and reading it all would hold it in
// memory and send it to the model before anything complained.
const defaultMaxStdin = 10 << 20

// maxStdin is the cap on piped standard input: REINS_MAX_STDIN_BYTES, or 10 MiB.
func maxStdin(f *cmdutil.Factory) int64 {
	if f.Getenv == nil {
		return defaultMaxStdin
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(f.Getenv("REINS_MAX_STDIN_BYTES")), 10, 64); err == nil && n > 0 {
		return n
	}
	return defaultMaxStdin
}

// readStdin reads standard input up to the cap, and fails clearly past it.
func readStdin(f *cmdutil.Factory) ([]byte, error) {
	limit := maxStdin(f)
	data, err := io.ReadAll(io.LimitReader(f.In, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the prompt from standard input: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("standard input is larger than %d bytes, the limit for a prompt (set REINS_MAX_STDIN_BYTES to raise it)", limit)
	}
	return data, nil
}
