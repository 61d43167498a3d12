// Command firstreq is a fake of the Anthropic Messages API for bench/mcpstart.sh: it answers
// every request with a short text and prints, for each request, the time it arrived (Unix
// nanoseconds), the request body's size in bytes and the size of its "tools" array. It prints
// its base URL on the first line of standard output and serves until it is killed.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	os.Stdout.Sync()
	http.HandleFunc("/v1/messages", func(w http.ResponseWriter, r *http.Request) {
		at := time.Now().UnixNano()
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model string          `json:"model"`
			Tools json.RawMessage `json:"tools"`
		}
		_ = json.Unmarshal(body, &req)
		fmt.Printf("%d %d %d\n", at, len(body), len(req.Tools))
		os.Stdout.Sync()
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(event, data string) {
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data)
			w.(http.Flusher).Flush()
		}
		model, _ := json.Marshal(req.Model)
		send("message_start", `{"type":"message_start","message":{"id":"msg_fake","type":"message","role":"assistant","model":`+string(model)+
			`,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":100,"output_tokens":1}}}`)
		send("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		send("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`)
		send("content_block_stop", `{"type":"content_block_stop","index":0}`)
		send("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}`)
		send("message_stop", `{"type":"message_stop"}`)
	})
	log.Fatal(http.Serve(ln, nil))
}
