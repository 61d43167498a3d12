//go:build anthropicsdk

package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/llm/internal/sse"
)

// This file is the SDK side of the measurement described at sdkStream: a turn as the SDK
// does it — the whole request converted to the SDK's params and encoded by it on every
// request, sent by its client (its own retries off: llm.RetryPolicy retries), and the
// stream decoded into its union types, then mapped to llm events.

func init() { sdkStream = streamViaSDK }

var sdkClients sync.Map // *Provider → *sdk.Client

func (p *Provider) sdkClient() *sdk.Client {
	if c, ok := sdkClients.Load(p); ok {
		return c.(*sdk.Client)
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithMaxRetries(0),
		option.WithBaseURL(strings.TrimSuffix(p.endpoint, "v1/messages")),
		option.WithHTTPClient(p.client),
	}
	for k, vs := range p.header {
		switch k {
		case "Accept", "Anthropic-Version", "Content-Type", "User-Agent":
			continue // the SDK's own
		}
		for _, v := range vs {
			opts = append(opts, option.WithHeaderAdd(k, v))
		}
	}
	// The SDK's telemetry headers are not sent, as the hand-written client sends none.
	for _, h := range []string{"X-Stainless-Arch", "X-Stainless-Lang", "X-Stainless-Os", "X-Stainless-Package-Version",
		"X-Stainless-Retry-Count", "X-Stainless-Runtime", "X-Stainless-Runtime-Version", "X-Stainless-Timeout"} {
		opts = append(opts, option.WithHeaderDel(h))
	}
	opts = append(opts, option.WithHeader("User-Agent", "reins"))
	c := sdk.NewClient(opts...)
	sdkClients.Store(p, &c)
	return &c
}

func streamViaSDK(p *Provider, ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	params, opts, err := sdkRequestParams(req)
	if err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	client := p.sdkClient()
	return p.retry.Stream(ctx, onEvent, func(ctx context.Context, onEvent func(llm.Event)) (*llm.Response, error) {
		callOpts := opts
		if p.creds != nil {
			cred, err := p.credential(ctx, false)
			if err != nil {
				return nil, err
			}
			if cred.Bearer != "" {
				callOpts = append(callOpts[:len(callOpts):len(callOpts)], option.WithAuthToken(cred.Bearer))
			} else {
				callOpts = append(callOpts[:len(callOpts):len(callOpts)], option.WithAPIKey(cred.XAPIKey))
			}
		}
		return sdkStreamOnce(ctx, client, params, callOpts, onEvent)
	})
}

type sdkBlock struct {
	kind string
	ours int // our index; -1 until a text block has text
}

func sdkStreamOnce(ctx context.Context, client *sdk.Client, params sdk.MessageNewParams, opts []option.RequestOption, onEvent func(llm.Event)) (*llm.Response, error) {
	stream := client.Messages.NewStreaming(ctx, params, opts...)
	defer stream.Close()
	var (
		acc    llm.Accumulator
		blocks []sdkBlock
		n      int
		usage  llm.Usage
		stop   llm.StopReason
		model  string
		id     string
	)
	emit := func(ev llm.Event) error {
		if err := acc.Add(ev); err != nil {
			return fmt.Errorf("anthropic: malformed stream: %w", err)
		}
		onEvent(ev)
		return nil
	}
	var err error
	for err == nil && stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			m := ev.Message
			usage, model, id = sdkUsageOf(m.Usage), string(m.Model), m.ID
			err = emit(llm.Event{Type: llm.EventMessageStart, MessageID: m.ID, Model: string(m.Model), Usage: usage})
		case "content_block_start":
			cb := ev.ContentBlock
			b := sdkBlock{kind: cb.Type, ours: -1}
			switch cb.Type {
			case "text":
				if cb.Text != "" {
					b.ours, n = n, n+1
					err = emit(llm.Event{Type: llm.EventTextDelta, Index: b.ours, Text: cb.Text})
				}
			case "tool_use":
				b.ours, n = n, n+1
				err = emit(llm.Event{Type: llm.EventToolUseStart, Index: b.ours, ToolUseID: cb.ID, ToolName: cb.Name})
			case "thinking":
				b.ours, n = n, n+1
				err = emit(llm.Event{Type: llm.EventThinkingDelta, Index: b.ours, Text: cb.Thinking})
				if err == nil && cb.Signature != "" {
					err = emit(llm.Event{Type: llm.EventSignatureDelta, Index: b.ours, Signature: cb.Signature})
				}
			case "redacted_thinking":
				b.ours, n = n, n+1
				err = emit(llm.Event{Type: llm.EventRedactedThinking, Index: b.ours, Data: cb.Data})
			}
			blocks = append(blocks, b)
		case "content_block_delta":
			i := int(ev.Index)
			if i < 0 || i >= len(blocks) {
				return nil, fmt.Errorf("anthropic: malformed stream: delta for block %d of %d", i, len(blocks))
			}
			b, d := &blocks[i], ev.Delta
			switch {
			case d.Type == "text_delta" && b.kind == "text" && d.Text != "":
				if b.ours < 0 {
					b.ours, n = n, n+1
				}
				err = emit(llm.Event{Type: llm.EventTextDelta, Index: b.ours, Text: d.Text})
			case d.Type == "input_json_delta" && b.kind == "tool_use" && d.PartialJSON != "":
				err = emit(llm.Event{Type: llm.EventToolInputDelta, Index: b.ours, PartialJSON: d.PartialJSON})
			case d.Type == "thinking_delta" && b.kind == "thinking" && d.Thinking != "":
				err = emit(llm.Event{Type: llm.EventThinkingDelta, Index: b.ours, Text: d.Thinking})
			case d.Type == "signature_delta" && b.kind == "thinking" && d.Signature != "":
				err = emit(llm.Event{Type: llm.EventSignatureDelta, Index: b.ours, Signature: d.Signature})
			}
		case "message_delta":
			stop = llm.StopReason(ev.Delta.StopReason)
			sdkUsageDelta(&usage, ev.Usage)
		case "message_stop":
			err = emit(llm.Event{Type: llm.EventMessageStop, StopReason: stop, Usage: usage})
		}
	}
	if err == nil {
		err = stream.Err()
	}
	if err != nil {
		return nil, sdkError(ctx, err)
	}
	if !acc.Stopped() {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("anthropic: stream ended before message_stop: %w", io.ErrUnexpectedEOF)
	}
	resp := acc.Response()
	resp.Model, resp.ID = model, id
	return resp, nil
}

func sdkError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var se *sdk.Error
	if !errors.As(err, &se) {
		return fmt.Errorf("anthropic: %w", err)
	}
	e := &llm.APIError{Provider: providerName, StatusCode: se.StatusCode, Type: string(se.Type()), Message: se.Message, RequestID: se.RequestID, Err: err}
	if e.StatusCode < 400 {
		e.StatusCode = 0
	}
	if e.Message == "" {
		e.Message = sse.Truncate(se.RawJSON(), 300)
	}
	if se.Response != nil && e.StatusCode != 0 {
		if d, ok := llm.ParseRetryAfter(se.Response.Header, time.Now()); ok {
			e.RetryAfter = d
		}
	}
	return e
}

// sdkUsageDelta applies message_delta's totals; those absent keep message_start's.
func sdkUsageDelta(usage *llm.Usage, u sdk.MessageDeltaUsage) {
	usage.OutputTokens = int(u.OutputTokens)
	if u.JSON.InputTokens.Valid() {
		usage.InputTokens = int(u.InputTokens)
	}
	if u.JSON.CacheReadInputTokens.Valid() {
		usage.CacheReadInputTokens = int(u.CacheReadInputTokens)
	}
	if u.JSON.CacheCreationInputTokens.Valid() {
		usage.CacheCreationInputTokens = int(u.CacheCreationInputTokens)
	}
}

func sdkUsageOf(u sdk.Usage) llm.Usage {
	return llm.Usage{
		InputTokens:              int(u.InputTokens),
		OutputTokens:             int(u.OutputTokens),
		CacheReadInputTokens:     int(u.CacheReadInputTokens),
		CacheCreationInputTokens: int(u.CacheCreationInputTokens),
	}
}

// sdkRequestParams converts a request as the adapter did when it was built on the SDK
// (body_test.go's sdkParams, the oracle, is the same conversion).
func sdkRequestParams(req *llm.Request) (sdk.MessageNewParams, []option.RequestOption, error) {
	params := sdk.MessageNewParams{Model: req.Model, MaxTokens: int64(req.MaxTokens), StopSequences: req.StopSequences}
	if req.ThinkingBudget != 0 {
		params.Thinking = sdk.ThinkingConfigParamOfEnabled(int64(req.ThinkingBudget))
	}
	var explicit []bool
	for _, b := range req.System {
		if b.Text == "" {
			continue
		}
		params.System = append(params.System, sdk.TextBlockParam{Text: b.Text})
		explicit = append(explicit, b.CacheBreakpoint)
	}
	for _, t := range req.Tools {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		tool := &sdk.ToolParam{Name: t.Name, InputSchema: param.Override[sdk.ToolInputSchemaParam](schema)}
		if t.Description != "" {
			tool.Description = sdk.String(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: tool})
	}
	for i, m := range req.Messages {
		content, err := sdkBlocks(m.Content)
		if err != nil {
			return params, nil, fmt.Errorf("message %d: %w", i, err)
		}
		if m.Role == llm.RoleUser {
			params.Messages = append(params.Messages, sdk.MessageParam{OfUser: &sdk.UserMessageParam{Content: content}})
		} else {
			params.Messages = append(params.Messages, sdk.MessageParam{OfAssistant: &sdk.AssistantMessageParam{Content: content}})
		}
	}
	if req.Cache == llm.CacheAuto {
		sdkBreakpoints(&params, explicit)
	}
	var opts []option.RequestOption
	if req.Temperature != nil {
		opts = append(opts, option.WithJSONSet("temperature", *req.Temperature))
	}
	return params, opts, nil
}

func sdkBreakpoints(params *sdk.MessageNewParams, explicit []bool) {
	budget := maxBreakpoints
	if n := len(params.Tools); n > 0 {
		params.Tools[n-1].OfTool.CacheControl = sdk.NewCacheControlEphemeralParam()
		budget--
	}
	if n := len(params.System); n > 0 {
		params.System[n-1].CacheControl = sdk.NewCacheControlEphemeralParam()
		budget--
	}
	for i := len(params.Messages) - 1; i >= 0; i-- {
		u := params.Messages[i].OfUser
		if u == nil {
			continue
		}
		if n := len(u.Content); n > 0 {
			if cc := u.Content[n-1].GetCacheControl(); cc != nil {
				*cc = sdk.NewCacheControlEphemeralParam()
				budget--
			}
		}
		break
	}
	for i := len(params.System) - 2; i >= 0 && budget > 0; i-- {
		if explicit[i] {
			params.System[i].CacheControl = sdk.NewCacheControlEphemeralParam()
			budget--
		}
	}
}

func sdkBlocks(blocks []llm.Block) ([]sdk.ContentBlockParamUnion, error) {
	out := make([]sdk.ContentBlockParamUnion, 0, len(blocks))
	for _, b := range blocks {
		switch b.Type {
		case llm.BlockThinking:
			out = append(out, sdk.NewThinkingBlock(b.Signature, b.Thinking))
		case llm.BlockRedactedThinking:
			out = append(out, sdk.NewRedactedThinkingBlock(b.Data))
		case llm.BlockText:
			if b.Text != "" {
				out = append(out, sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{Text: b.Text}})
			}
		case llm.BlockImage:
			out = append(out, sdk.ContentBlockParamUnion{OfImage: sdkImage(b)})
		case llm.BlockToolUse:
			input := b.Input
			if len(input) == 0 {
				input = json.RawMessage(`{}`)
			}
			out = append(out, sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{ID: b.ID, Name: b.Name, Input: input}})
		case llm.BlockToolResult:
			r := &sdk.ToolResultBlockParam{ToolUseID: b.ToolUseID}
			if b.IsError {
				r.IsError = sdk.Bool(true)
			}
			for _, c := range b.Content {
				switch c.Type {
				case llm.BlockText:
					if c.Text != "" {
						r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: c.Text}})
					}
				case llm.BlockImage:
					r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{OfImage: sdkImage(c)})
				default:
					return nil, fmt.Errorf("tool_result %s: unsupported content block %q", b.ToolUseID, c.Type)
				}
			}
			out = append(out, sdk.ContentBlockParamUnion{OfToolResult: r})
		default:
			return nil, fmt.Errorf("unsupported block type %q", b.Type)
		}
	}
	return out, nil
}

func sdkImage(b llm.Block) *sdk.ImageBlockParam {
	return &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
		Data:      b.Data,
		MediaType: sdk.Base64ImageSourceMediaType(b.MediaType),
	}}}
}
