// Command fakellm is a minimal fake of the Anthropic Messages API for bench/agent.sh: it
// answers a request that offers the Read tool and holds no tool result yet with one Read call of the
// file named by -read, and every other request with a short text, streamed as the real API
// streams. It prints its base URL on the first line of standard output and serves until it
// is killed. With -log it writes one line per request (path, model, messages, tools, body
// size), so that a client's side requests — and requests for paths it does not serve, which
// get a 404 — can be seen.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
)

func main() {
	read := flag.String("read", "/etc/hostname", "the file the model asks to read")
	logPath := flag.String("log", "", "append a line per request to this file")
	call := flag.String("call", "", "instead of the first turn's Read, call this tool in every turn (bench/sdk.sh's MCP round trip)")
	callInput := flag.String("input", `{"text":"hi"}`, "the input of -call's tool")
	flag.Parse()
	logf := func(string, ...any) {}
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			log.Fatal(err)
		}
		var mu sync.Mutex
		logf = func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(f, format+"\n", args...)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		logf("unknown %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	})
	http.HandleFunc("/v1/messages", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string            `json:"model"`
			Messages []json.RawMessage `json:"messages"`
			Tools    []struct {
				Name string `json:"name"`
			} `json:"tools"`
			Stream bool `json:"stream"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			logf("bad %s %s: %v", r.Method, r.URL, err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		offersRead, offersCall := false, false
		for _, t := range req.Tools {
			offersRead = offersRead || t.Name == "Read"
			offersCall = offersCall || (*call != "" && t.Name == *call)
		}
		answered := bytes.Contains(body, []byte(`"tool_result"`))
		if *call != "" {
			// Every turn calls the tool once: the last message is the turn's prompt until the
			// call is answered.
			last := []byte{}
			if n := len(req.Messages); n > 0 {
				last = req.Messages[n-1]
			}
			answered = bytes.Contains(last, []byte(`"tool_result"`))
		}
		logf("messages %s model=%s messages=%d tools=%d stream=%v tool_result=%v bytes=%d",
			r.URL, req.Model, len(req.Messages), len(req.Tools), req.Stream, answered, len(body))
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(event, data string) {
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data)
			w.(http.Flusher).Flush()
		}
		model, _ := json.Marshal(req.Model)
		send("message_start", `{"type":"message_start","message":{"id":"msg_fake","type":"message","role":"assistant","model":`+string(model)+
			`,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":100,"output_tokens":1}}}`)
		stop := "end_turn"
		// Clients may open a conversation with several user messages (Claude Code sends
		// context first); what matters is whether the Read has been answered.
		if offersCall && !answered {
			name, _ := json.Marshal(*call)
			partial, _ := json.Marshal(*callInput)
			send("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_fake_1","name":`+string(name)+`,"input":{}}}`)
			send("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+string(partial)+`}}`)
			stop = "tool_use"
		} else if offersRead && !answered && *call == "" {
			input, _ := json.Marshal(map[string]string{"file_path": *read})
			partial, _ := json.Marshal(string(input))
			send("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_fake_1","name":"Read","input":{}}}`)
			send("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+string(partial)+`}}`)
			stop = "tool_use"
		} else {
			send("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			send("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The file has been read."}}`)
		}
		send("content_block_stop", `{"type":"content_block_stop","index":0}`)
		send("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+stop+`","stop_sequence":null},"usage":{"output_tokens":20}}`)
		send("message_stop", `{"type":"message_stop"}`)
	})
	log.Fatal(http.Serve(ln, nil))
}
