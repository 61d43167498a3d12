package anthropic

import (
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/reinsdev/reins/llm"
)

// maxBreakpoints is the API's limit on cache_control markers per request.
const maxBreakpoints = 4

// buildParams translates req into the SDK's request, plus request options
// for fields the SDK's params do not carry.
func buildParams(req *llm.Request) (sdk.MessageNewParams, []option.RequestOption, error) {
	if req.MaxTokens <= 0 {
		return sdk.MessageNewParams{}, nil, fmt.Errorf("max tokens must be positive, got %d", req.MaxTokens)
	}
	params := sdk.MessageNewParams{
		Model:         req.Model,
		MaxTokens:     int64(req.MaxTokens),
		StopSequences: req.StopSequences,
	}
	var explicit []bool // CacheBreakpoint of each block in params.System
	for _, b := range req.System {
		if b.Text == "" {
			continue // the API rejects empty text blocks
		}
		params.System = append(params.System, sdk.TextBlockParam{Text: b.Text})
		explicit = append(explicit, b.CacheBreakpoint)
	}
	for _, t := range req.Tools {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		tool := &sdk.ToolParam{
			Name: t.Name,
			// The schema goes out verbatim: converting it to the SDK's
			// typed form would drop keywords it does not model.
			InputSchema: param.Override[sdk.ToolInputSchemaParam](schema),
		}
		if t.Description != "" {
			tool.Description = sdk.String(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: tool})
	}
	for i, m := range req.Messages {
		content, err := convertBlocks(m.Content)
		if err != nil {
			return sdk.MessageNewParams{}, nil, fmt.Errorf("message %d: %w", i, err)
		}
		switch m.Role {
		case llm.RoleUser:
			params.Messages = append(params.Messages, sdk.MessageParam{OfUser: &sdk.UserMessageParam{Content: content}})
		case llm.RoleAssistant:
			params.Messages = append(params.Messages, sdk.MessageParam{OfAssistant: &sdk.AssistantMessageParam{Content: content}})
		default:
			return sdk.MessageNewParams{}, nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	if req.Cache == llm.CacheAuto {
		placeBreakpoints(&params, explicit)
	}
	var opts []option.RequestOption
	if req.Temperature != nil {
		// The 2026-10-21 API version's params have no temperature field;
		// an explicit request for one is still passed on, and the API
		// decides.
		opts = append(opts, option.WithJSONSet("temperature", *req.Temperature))
	}
	return params, opts, nil
}

// placeBreakpoints marks the last tool, the last system block and the last
// block of the last user message as ephemeral cache breakpoints: tools and
// system prompt are stable across turns, and the conversation up to the
// newest user message is the prefix the next turn will reuse. Explicitly
// requested system breakpoints fill what is left of the API's limit, latest
// first.
func placeBreakpoints(params *sdk.MessageNewParams, explicit []bool) {
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

func convertBlocks(blocks []llm.Block) ([]sdk.ContentBlockParamUnion, error) {
	out := make([]sdk.ContentBlockParamUnion, 0, len(blocks))
	for _, b := range blocks {
		switch b.Type {
		case llm.BlockText:
			if b.Text == "" {
				continue // the API rejects empty text blocks
			}
			out = append(out, sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{Text: b.Text}})
		case llm.BlockImage:
			out = append(out, sdk.ContentBlockParamUnion{OfImage: imageParam(b)})
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
					r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{OfImage: imageParam(c)})
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

func imageParam(b llm.Block) *sdk.ImageBlockParam {
	return &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
		Data:      b.Data,
		MediaType: sdk.Base64ImageSourceMediaType(b.MediaType),
	}}}
}
