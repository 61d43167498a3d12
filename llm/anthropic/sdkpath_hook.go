package anthropic

import (
	"context"

	"github.com/reinsdev/reins/llm"
)

// sdkStream, when set, streams a turn through anthropic-sdk-go instead of this package's
// own encoder, transport and decoder. Only the build tag anthropicsdk sets it (sdkpath.go):
// it is the other side of the measurement that keeps the hand-written client (issue 43;
// docs/architecture.md, "The Anthropic client"), kept so the numbers can be taken again:
//
//	GOFLAGS=-tags=anthropicsdk bench/agent.sh 15
//	go test -tags anthropicsdk -run '^$' -bench 'StreamTurn|FirstEvent' ./llm/anthropic
var sdkStream func(p *Provider, ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error)
