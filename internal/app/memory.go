package app

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/memory"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tools/files"
)

// Memory is the session's memory files: those read at start (in the system prompt) and the
// folders' files read when the agent first works in them (added to the conversation).
type Memory struct {
	Loader *memory.Loader
	// Files are the files read at start, in prompt order.
	Files []memory.File

	mu      sync.Mutex
	nested  []memory.File // read after start, in order
	pending []string      // rendered nested files not yet sent
}

// MemoryOptions are where a session in s looks for memory files. The files meet the read rules
// of current (the session's permission context when asked), decided by engine.
func MemoryOptions(s *Settings, engine *permission.Engine, current func() *permission.Context) memory.Options {
	o := s.Options
	sources := o.Sources
	return memory.Options{
		Cwd: current().OriginalCwd(), Home: o.Home,
		ConfigDir: o.ConfigDir, ClaudeConfigDir: o.ClaudeConfigDir,
		ManagedDirs: o.ManagedFolders(),
		Trusted:     s.Trusted,
		Access:      memoryAccess{engine: engine, current: current},
		NoUser:      sources != nil && !slices.Contains(sources, permission.SourceUser),
		NoProject:   sources != nil && !slices.Contains(sources, permission.SourceProject),
	}
}

// memoryAccess is the session's read rules as memory meets them (memory.Access). The engine's
// rule-based steps for the Read tool decide, the steps nothing can bypass: tool-wide deny and
// ask rules, Read's deny and ask rules and its safety checks. An ask is a refusal, since no one
// is there to answer while memory loads; a read outside the working directories is no ask
// here, since reaching there is what an import is for (memory bounds a project's own).
type memoryAccess struct {
	engine  *permission.Engine
	current func() *permission.Context
}

// memoryReadTool is the Read tool whose check an import meets.
var memoryReadTool = files.NewRead(files.Options{})

func (m memoryAccess) CheckRead(ctx context.Context, path string) string {
	d := m.engine.RuleBased(ctx, m.current(), memoryReadTool, files.ReadInput{FilePath: path})
	switch d.Behavior {
	case permission.Deny:
		return fmt.Sprintf("the Read rules deny it (%s)", d.Reason)
	case permission.Ask:
		return fmt.Sprintf("reading it asks (%s), and there is no one to answer while memory loads", d.Reason)
	}
	return ""
}

func (m memoryAccess) Secret(ctx context.Context, path string) bool {
	_, secret := m.current().SecretFile(ctx, path)
	return secret
}

// Read taints the session for a secret file memory read, as toolcall does for the Read tool.
func (m memoryAccess) Read(ctx context.Context, path string) {
	pc := m.current()
	s, ok := pc.SecretFile(ctx, path)
	if !ok {
		return
	}
	pc.Taint().Record(permission.SecretRead{Path: path, Pattern: s.Pattern, Tool: MemoryReader})
}

// MemoryReader is the reader a memory file's taint record names.
const MemoryReader = "a memory file's @ import"

// LoadMemory reads the memory files of a session; warn gets each file left out.
func LoadMemory(ctx context.Context, opts memory.Options, warn func(string)) (*Memory, error) {
	l := memory.NewLoader(opts)
	files, err := l.Load(ctx)
	if err != nil {
		return nil, err
	}
	for _, w := range l.Warnings() {
		warn(w.String())
	}
	return &Memory{Loader: l, Files: files}, nil
}

// All is every memory file read so far: those of the start, then the folders'.
func (m *Memory) All() []memory.File {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append(slices.Clone(m.Files), m.nested...)
}

// touch reads the memory of the folders down to path, once, for the next request. A file
// left out is in the Loader's warnings, which /memory shows: printing here would cut into a
// chat's screen.
func (m *Memory) touch(ctx context.Context, path string) {
	files, err := m.Loader.Nested(ctx, path)
	if err != nil || len(files) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nested = append(m.nested, files...)
	if s := memory.RenderNested(files); s != "" {
		m.pending = append(m.pending, s)
	}
}

// Notices returns, once, the folders' memory read since the last call.
func (m *Memory) Notices() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.pending
	m.pending = nil
	return out
}

// pathKeys are the tool inputs that name a file or folder a call works in.
var pathKeys = []string{"file_path", "path", "notebook_path"}

// Follow reads the memory of every folder a tool call of the session names, from the
// assistant messages on bus, resolving relative paths against cwd. The returned function stops.
//
// The bus delivers on its own goroutine, so a folder's memory usually joins the request after
// the call that first worked there, and at the latest the one after.
func (m *Memory) Follow(ctx context.Context, bus *agent.Bus, cwd func() string) func() {
	return bus.Subscribe(func(e agent.Event) {
		if e.Type != agent.EventAssistant || e.Response == nil {
			return
		}
		for _, b := range e.Response.Message.Content {
			if b.Type != llm.BlockToolUse {
				continue
			}
			for _, p := range inputPaths(b.Input) {
				if !filepath.IsAbs(p) {
					p = filepath.Join(cwd(), p)
				}
				m.touch(ctx, p)
			}
		}
	})
}

func inputPaths(input json.RawMessage) []string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(input, &fields) != nil {
		return nil
	}
	var out []string
	for _, k := range pathKeys {
		var s string
		if json.Unmarshal(fields[k], &s) == nil && s != "" {
			out = append(out, s)
		}
	}
	return out
}
