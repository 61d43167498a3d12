package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/reinsdev/reins/llm"
)

// maxBreakpoints is the API's limit on cache_control markers per request.
const maxBreakpoints = 4

// breakpoint is the cache_control marker, with its leading comma.
const breakpoint = `,"cache_control":{"type":"ephemeral"}`

// The "messages" field is written here by hand, as the SDK's reflective encoder wrote it:
// the fields of each object in the order of the SDK's param structs, optional fields
// left out when empty, strings escaped as encoding/json escapes them and raw JSON (a tool's
// input) compacted and HTML-escaped as encoding/json writes a json.RawMessage. The SDK is
// kept as a test dependency only, and TestRequestBodyMatchesSDK and
// TestRequestBodyMatchesSDKProperty hold the two encodings equal byte for byte.

// checkMessages reports the first block or role the API cannot take, in the order the
// messages are sent, and returns the position of the cache breakpoint the conversation gets
// under llm.CacheAuto: the last block sent of the last user message (msg -1 when there is
// none). The conversation up to it is the prefix the next turn reuses. size guesses the
// encoded size of the messages, so that the body is allocated once.
func checkMessages(msgs []llm.Message) (msg, block, size int, err error) {
	msg, block = -1, -1
	for i, m := range msgs {
		last := -1
		for j, b := range m.Content {
			size += 64 + len(b.Text) + len(b.Input) + len(b.Data) + len(b.Thinking) + len(b.Signature)
			switch b.Type {
			case llm.BlockThinking, llm.BlockRedactedThinking:
				// Only the model thinks: the API takes these back in assistant messages,
				// where they cannot carry a cache breakpoint.
				if m.Role != llm.RoleAssistant {
					return -1, -1, 0, fmt.Errorf("message %d: %s block in a %s message", i, b.Type, m.Role)
				}
			case llm.BlockText:
				if b.Text == "" {
					continue // the API rejects empty text blocks; not sent
				}
			case llm.BlockImage, llm.BlockToolUse:
			case llm.BlockToolResult:
				for _, c := range b.Content {
					size += 48 + len(c.Text) + len(c.Data)
					if c.Type != llm.BlockText && c.Type != llm.BlockImage {
						return -1, -1, 0, fmt.Errorf("message %d: tool_result %s: unsupported content block %q", i, b.ToolUseID, c.Type)
					}
				}
			default:
				return -1, -1, 0, fmt.Errorf("message %d: unsupported block type %q", i, b.Type)
			}
			last = j
		}
		switch m.Role {
		case llm.RoleUser:
			msg, block = i, last
		case llm.RoleAssistant:
		default:
			return -1, -1, 0, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	if block < 0 {
		msg = -1
	}
	return msg, block, size + size/8, nil
}

// appendMessages writes the "messages" array of msgs, which checkMessages accepted, with a
// cache breakpoint on block markBlock of message markMsg (none when markMsg is -1).
func appendMessages(out []byte, msgs []llm.Message, markMsg, markBlock int) ([]byte, error) {
	out = append(out, `"messages":[`...)
	var err error
	for i, m := range msgs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"content":[`...)
		first := true
		for j, b := range m.Content {
			if b.Type == llm.BlockText && b.Text == "" {
				continue
			}
			if !first {
				out = append(out, ',')
			}
			first = false
			if out, err = appendBlock(out, b, i == markMsg && j == markBlock); err != nil {
				return nil, fmt.Errorf("message %d: %w", i, err)
			}
		}
		out = append(out, `],"role":`...)
		if m.Role == llm.RoleUser {
			out = append(out, `"user"}`...)
		} else {
			out = append(out, `"assistant"}`...)
		}
	}
	return append(out, ']'), nil
}

func appendBlock(out []byte, b llm.Block, mark bool) ([]byte, error) {
	switch b.Type {
	case llm.BlockText:
		return appendText(out, b.Text, mark), nil
	case llm.BlockImage:
		return appendImage(out, b, mark), nil
	case llm.BlockThinking:
		// Sent back byte for byte as it came: the signature covers the text.
		out = append(out, `{"signature":`...)
		out = appendString(out, b.Signature)
		out = append(out, `,"thinking":`...)
		out = appendString(out, b.Thinking)
		return append(out, `,"type":"thinking"}`...), nil
	case llm.BlockRedactedThinking:
		out = append(out, `{"data":`...)
		out = appendString(out, b.Data)
		return append(out, `,"type":"redacted_thinking"}`...), nil
	case llm.BlockToolUse:
		out = append(out, `{"id":`...)
		out = appendString(out, b.ID)
		out = append(out, `,"input":`...)
		input := b.Input
		if len(input) == 0 {
			input = json.RawMessage(`{}`)
		}
		var err error
		if out, err = appendRaw(out, input); err != nil {
			return nil, fmt.Errorf("tool_use %s: input: %w", b.ID, err)
		}
		out = append(out, `,"name":`...)
		out = appendString(out, b.Name)
		if mark {
			out = append(out, breakpoint...)
		}
		return append(out, `,"type":"tool_use"}`...), nil
	default: // llm.BlockToolResult; checkMessages let nothing else through
		out = append(out, `{"tool_use_id":`...)
		out = appendString(out, b.ToolUseID)
		if b.IsError {
			out = append(out, `,"is_error":true`...)
		}
		if mark {
			out = append(out, breakpoint...)
		}
		first := true
		for _, c := range b.Content {
			if c.Type == llm.BlockText && c.Text == "" {
				continue
			}
			if first {
				out = append(out, `,"content":[`...)
				first = false
			} else {
				out = append(out, ',')
			}
			if c.Type == llm.BlockText {
				out = appendText(out, c.Text, false)
			} else {
				out = appendImage(out, c, false)
			}
		}
		if !first {
			out = append(out, ']')
		}
		return append(out, `,"type":"tool_result"}`...), nil
	}
}

func appendText(out []byte, text string, mark bool) []byte {
	out = append(out, `{"text":`...)
	out = appendString(out, text)
	if mark {
		out = append(out, breakpoint...)
	}
	return append(out, `,"type":"text"}`...)
}

func appendImage(out []byte, b llm.Block, mark bool) []byte {
	out = append(out, `{"source":{"data":`...)
	out = appendString(out, b.Data)
	if b.MediaType != "" {
		out = append(out, `,"media_type":`...)
		out = appendString(out, b.MediaType)
	}
	out = append(out, `,"type":"base64"}`...)
	if mark {
		out = append(out, breakpoint...)
	}
	return append(out, `,"type":"image"}`...)
}

// appendRaw writes raw JSON as encoding/json writes a json.RawMessage: compacted, with
// <, >, &, U+2028 and U+2029 escaped. It fails on anything that is not one JSON value.
// It compacts straight onto out and escapes only when there is something to escape, so
// that a tool input or schema costs no allocation of its own.
func appendRaw(out []byte, raw []byte) ([]byte, error) {
	buf := bytes.NewBuffer(out)
	if err := json.Compact(buf, raw); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if compact := b[len(out):]; hasHTMLSpecial(compact) {
		// HTMLEscape cannot write over its source: it writes after it, and the escaped
		// text then moves down in its place.
		json.HTMLEscape(buf, compact)
		b = buf.Bytes()
		escaped := b[len(out)+len(compact):]
		b = b[:len(out)+copy(b[len(out):], escaped)]
	}
	return b, nil
}

// hasHTMLSpecial reports whether b holds a byte or character json.HTMLEscape changes.
func hasHTMLSpecial(b []byte) bool {
	for i, c := range b {
		switch c {
		case '<', '>', '&':
			return true
		case 0xe2: // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
			if i+2 < len(b) && b[i+1] == 0x80 && b[i+2]&^1 == 0xa8 {
				return true
			}
		}
	}
	return false
}

// appendString writes s as a JSON string exactly as encoding/json writes it (with HTML
// escaping, its default): ", \ and control characters escaped, \b \f \n \r \t by name;
// <, >, & and U+2028, U+2029 as \u escapes; each byte of invalid UTF-8 as \ufffd.
// FuzzAppendString holds it equal to json.Marshal.
func appendString(out []byte, s string) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			out = append(out, s[start:i]...)
			switch c {
			case '"', '\\':
				out = append(out, '\\', c)
			case '\b':
				out = append(out, '\\', 'b')
			case '\f':
				out = append(out, '\\', 'f')
			case '\n':
				out = append(out, '\\', 'n')
			case '\r':
				out = append(out, '\\', 'r')
			case '\t':
				out = append(out, '\\', 't')
			default:
				out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, s[start:i]...)
			out = append(out, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			out = append(out, s[start:i]...)
			out = append(out, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}
