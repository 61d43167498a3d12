// Package built records which of the parts of Reins that are built on first use have been
// built in this process: the telemetry exporters (and their gRPC connections), the clouds'
// credential chains, the auto-mode classifier, the Bash knowledge base and the OS sandbox. A
// session that does not use one must not pay for it at start (a plain `reins -p` turn, or
// `reins --version`, builds none), and the record is how a test tells that it did not:
// internal/cli writes it to the file REINS_DEBUG_BUILT names when the process ends.
//
// Mark is cheap and safe for concurrent use. The
// package imports only the standard library, so that the core (bashrules/knowledge) may mark
// its parts too.
package built

import (
	"slices"
	"sync"
)

// Part is one part built on first use.
type Part string

// The parts.
const (
	// Telemetry is the OpenTelemetry providers and exporters.
	Telemetry Part = "telemetry"
	// GRPC is an OTLP exporter over gRPC.
	GRPC Part = "grpc"
	// AWSCredentials is the AWS SDK's configuration and credential chain (Bedrock).
	AWSCredentials Part = "aws-credentials"
	// GoogleCredentials is Google's application default credentials (Vertex AI).
	GoogleCredentials Part = "google-credentials"
	// Classifier is the auto-mode classifier's first judgement.
	Classifier Part = "classifier"
	// Knowledge is the Bash knowledge base, parsed from its embedded files.
	Knowledge Part = "knowledge"
	// Sandbox is the OS sandbox: its proxy and the probe of its backends.
	Sandbox Part = "sandbox"
)

// All lists every part, in the order above.
var All = []Part{Telemetry, GRPC, AWSCredentials, GoogleCredentials, Classifier, Knowledge, Sandbox}

var (
	mu    sync.Mutex
	parts = map[Part]bool{}
)

// Mark records that p has been built.
func Mark(p Part) {
	mu.Lock()
	parts[p] = true
	mu.Unlock()
}

// Parts returns the parts built so far, sorted.
func Parts() []Part {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Part, 0, len(parts))
	for p := range parts {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// reset forgets every part (tests).
func reset() {
	mu.Lock()
	clear(parts)
	mu.Unlock()
}
