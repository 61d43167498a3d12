// Package session keeps conversations on disk so that they can be continued.
//
// Every conversation is a JSONL file, <root>/<sanitized cwd>/<id>.jsonl, where root is
// ~/.reins/projects (or $REINS_CONFIG_DIR/projects) and the sanitized cwd is the working
// directory with every character other than an ASCII letter or digit replaced by '-'. The first
// line describes the session; every later line is one message, one change of the session's
// permission state, or a compaction's boundary, written to the file the moment it happens. A
// compaction writes a compact_boundary line and then the summary that replaced the
// conversation: [Store.Load] returns the messages from the last boundary on, and the history
// before it stays in the file.
//
// Durability: a line is written once its Append call returns — it then survives the end of
// the process, kill -9 included — and acknowledged once a later [Writer.Flush] (or Close)
// returns nil — it is then fsynced and survives a crash of the machine too. The fsyncs run in
// the background, one covering every line written before it (group commit); the agent
// flushes at the end of every turn, before it reports the result. See [Writer].
//
// [Store.Load] reads a file back tolerantly: a torn or unreadable line is skipped, and a
// conversation cut off between a tool_use and its tool_result gets the missing results
// ("Interrupted by user"), so that the restored history is always valid to send to a model.
// It reads through package boundedfile, line by line: a session file (or sub-agent transcript)
// that is not a regular file, is larger than [MaxFileBytes] or has a line longer than
// [MaxLineBytes] is an error naming it, and a cancelled context ends the read.
package session

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/reinsdev/reins/agent"
	"github.com/reinsdev/reins/boundedfile"
	"github.com/reinsdev/reins/llm"
	"github.com/reinsdev/reins/tool"
)

// Version is the format version written in the first line of a session file.
const Version = 1

// ErrNotFound is returned when no session matches.
var ErrNotFound = errors.New("no saved session found")

// ErrInUse is returned by [Store.Reopen] for a session another writer has open.
var ErrInUse = errors.New("is in use by another reins process")

// LostResultMessage answers, on resume, a tool call whose result is not in the session file.
// The agent records "Interrupted by user" itself when a person interrupts a call, so a missing
// result means the process died or the session could not be written: the call may have run,
// and saying it was interrupted would be false.
const LostResultMessage = "No result was recorded for this tool call: the session ended before it was saved (the process stopped, or the session file could not be written). The tool may have run; check its effects before running it again."

// Store is the folder that holds every project's sessions.
type Store struct {
	// Root is the folder of project folders, e.g. ~/.reins/projects.
	Root string
	// Now is the clock for timestamps; nil means time.Now.
	Now func() time.Time

	// fsync syncs a file or folder to disk; nil means (*os.File).Sync. Tests replace it to
	// see when Writers sync and to hold a sync back.
	fsync func(*os.File) error
	// syncDelay replaces [syncDelay] when set (tests).
	syncDelay time.Duration
	// maxReadBytes replaces [MaxFileBytes] when set (tests).
	maxReadBytes int64
}

// NewStore returns the store under configDir (~/.reins).
func NewStore(configDir string) *Store {
	return &Store{Root: filepath.Join(configDir, "projects")}
}

const maxSanitizedLen = 200

// Sanitize turns a working directory into a folder name: every character other than an ASCII
// letter or digit becomes '-'. Names longer than 200 bytes are cut and get a hash of the whole
// path, so different long paths stay apart.
func Sanitize(cwd string) string {
	b := make([]byte, 0, len(cwd))
	for _, r := range cwd { // a character, or one byte that is not UTF-8
		if isAlnum(r) {
			b = append(b, byte(r))
		} else {
			b = append(b, '-')
		}
	}
	s := string(b)
	if len(s) <= maxSanitizedLen {
		return s
	}
	sum := sha256.Sum256([]byte(cwd))
	return s[:maxSanitizedLen] + "-" + hex.EncodeToString(sum[:4])
}

func isAlnum(r rune) bool {
	return 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9'
}

// Dir is the folder of cwd's sessions.
func (s *Store) Dir(cwd string) string { return filepath.Join(s.Root, Sanitize(cwd)) }

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// validName accepts session and sub-agent ids and other plain names, never a path: a letter
// or digit, then up to 127 letters, digits, '.', '_' or '-'.
func validName(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i, r := range id {
		if !isAlnum(r) && (i == 0 || r != '.' && r != '_' && r != '-') {
			return false
		}
	}
	return true
}

// ValidID reports whether id is a UUID in its canonical text form (any version), the form
// session ids take.
func ValidID(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i, c := range id {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// NewID returns a random (version 4) UUID.
func NewID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// line is one line of a session file.
type line struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	// type "session"
	Version   int    `json:"version,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	Model     string `json:"model,omitempty"`
	// type "message"
	Message *llm.Message `json:"message,omitempty"`
	// type "permissions"
	Permissions *agent.SessionState `json:"permissions,omitempty"`
	// type "compact_boundary"
	Compact *agent.Boundary `json:"compactMetadata,omitempty"`
	// Resume is the state the lines before the boundary left (see resume.go); absent in
	// boundaries written before Writers recorded it, and by a Writer that did not know it.
	Resume *resumeState `json:"resume,omitempty"`
	// type "checkpoint": a file checkpoint (a rewind point) began here, before its user
	// message was recorded.
	PointID string `json:"pointId,omitempty"`
	// The kinds and fields of state.go: a message's uuid (also of "resume_at") and usage,
	// and "file_state".
	UUID     string         `json:"uuid,omitempty"`
	Usage    *llm.Usage     `json:"usage,omitempty"`
	Measured int            `json:"measured,omitempty"`
	Path     string         `json:"path,omitempty"`
	FileRead *tool.FileRead `json:"fileRead,omitempty"`
	Forget   bool           `json:"forget,omitempty"`
	// type "git" (peek.go)
	Branch string `json:"gitBranch,omitempty"`
}

// Transcript is a session read back from disk.
type Transcript struct {
	ID, Path string
	Cwd      string
	Model    string
	// Messages is the conversation, repaired so that it can be sent to a model.
	Messages []llm.Message
	// Permissions is the last recorded permission state, or nil.
	Permissions *agent.SessionState
	// Compactions are the compactions read, in order. Messages starts after the last: with
	// its summary. The messages before it stay in the file, for a person to read.
	Compactions []agent.Boundary
	// Points are the ids of the checkpoint lines read, in order: the file checkpoints that
	// began in this session, each before its user message.
	Points []string
	// Skipped counts lines read that could not be read.
	Skipped int
	// From is the offset in the file where the read began: 0 when the whole file was read,
	// else the last compaction's boundary line (see [Store.Load]). Compactions, Points and
	// Skipped cover the lines from there on.
	From int64
	// Usage is what the API reported for the last reply since the last compaction, and
	// Measured how many messages of the conversation it covered (0: none recorded).
	Usage    llm.Usage
	Measured int

	tornTail bool // the file does not end with a newline
	// end is the state the file's lines leave (what a boundary written next records), when
	// the whole of it is known: Load sets it, LoadBefore and Parse do not.
	end *resumeState
	// size is how much of the file was read: its size then.
	size int64
	// ids are the uuids of the messages as read, before Repair; files what the model knew of
	// files (state.go).
	ids   []string
	files map[string]fileEntry
}

// Saved is one session file of a working directory.
type Saved struct {
	ID       string
	Modified time.Time
}

// List returns cwd's sessions, the most recently written first (equal times by id, the
// greater first). A directory with no session folder yet has none.
func (s *Store) List(cwd string) ([]Saved, error) {
	ents, err := os.ReadDir(s.Dir(cwd))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing sessions: %w", err)
	}
	var out []Saved
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if e.IsDir() || !ok {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed since the listing
		}
		out = append(out, Saved{ID: id, Modified: info.ModTime()})
	}
	slices.SortFunc(out, func(a, b Saved) int {
		if c := b.Modified.Compare(a.Modified); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, nil
}

// Latest returns the id of cwd's most recently written session.
func (s *Store) Latest(cwd string) (string, error) {
	saved, err := s.List(cwd)
	if err != nil {
		return "", err
	}
	if len(saved) == 0 {
		return "", fmt.Errorf("%w for %s", ErrNotFound, cwd)
	}
	return saved[0].ID, nil
}

// Find returns the file of session id: in cwd's folder, or else in any project's folder.
func (s *Store) Find(cwd, id string) (string, error) {
	if !validName(id) {
		return "", fmt.Errorf("invalid session id %q", id)
	}
	p := filepath.Join(s.Dir(cwd), id+".jsonl")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	matches, _ := filepath.Glob(filepath.Join(s.Root, "*", id+".jsonl"))
	if len(matches) == 0 {
		return "", fmt.Errorf("%w with id %s", ErrNotFound, id)
	}
	return matches[0], nil
}

// Bounds of a session or sub-agent transcript. A resume reads the conversation since the last
// compaction (its messages are sent to the model), so these bound the memory and time a resume
// costs while leaving room for any session Reins writes: a tool result over 50,000 characters
// goes to a file, so a heavy turn — a few results, a long Write, a screenshot — is a few
// hundred kilobytes, and 500 turns without a compaction about 100 MB. The history before the
// last compaction is not bounded: a session of any length opens. A conversation or a line over
// its bound is an error naming the file and the bound, and the file is left as it is: nothing
// is skipped or cut short.
const (
	// MaxFileBytes is the most of a session file Load reads and keeps: the part from its last
	// compaction to its end, 256 MiB, two and a half times a heavy 500-turn session without a
	// compaction. (Readers of the whole file, such as policy replay, use it as their cap.)
	MaxFileBytes = 256 << 20
	// MaxLineBytes is the longest line (one message) Load reads: 128 MiB. One message holds a
	// prompt, or a turn's tool results; a prompt from standard input is at most 10 MiB, and
	// a pasted one as long as 70 MB has been read back before.
	MaxLineBytes = 128 << 20
)

// fileLimits are the bounds a session or sub-agent transcript is read within.
var fileLimits = boundedfile.Limits{MaxBytes: MaxFileBytes, MaxLine: MaxLineBytes, Kind: "session file"}

// Load reads session id of cwd (see [Store.Find]) for a resume: the conversation from the last
// compaction on, with the state the lines before it left (cwd, model, permission state), in
// the time that part takes to read, whatever the length of the history before it (see
// resume.go). The file must be a regular file (a symlink is followed); a FIFO, a device or a
// folder is a [*boundedfile.NotRegularError], a conversation since the last compaction over
// [MaxFileBytes] a [*TooLongError], a line over [MaxLineBytes] a
// [*boundedfile.LineTooLongError], and a cancelled ctx ends the read.
func (s *Store) Load(ctx context.Context, cwd, id string) (*Transcript, error) {
	p, err := s.Find(cwd, id)
	if err != nil {
		return nil, err
	}
	t, err := s.loadFile(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("reading session %s: %w", id, err)
	}
	t.ID = id
	return t, nil
}

// ErrNoPoint is LoadBefore's error for a session file without the checkpoint line of a point.
var ErrNoPoint = errors.New("has no checkpoint line for this point")

// LoadBefore reads session id of cwd as it was when the file checkpoint point began: the
// conversation (and permission state) recorded before the point's checkpoint line, which the
// session writes before the point's user message. It is what --resume would have restored at
// that moment, compactions included. A file without that line (a session recorded before
// reins wrote them, or a point of another session) is [ErrNoPoint]: the point is never
// looked for by the messages' text. It reads the file from its start up to the point's line,
// keeping at most [MaxFileBytes] of conversation.
func (s *Store) LoadBefore(ctx context.Context, cwd, id, point string) (*Transcript, error) {
	path, err := s.Find(cwd, id)
	if err != nil {
		return nil, err
	}
	p := parser{at: point, limit: s.maxRead(), path: path}
	if err := readLines(ctx, path, func(raw []byte) error {
		if err := p.line(raw); err != nil {
			return err
		}
		if p.before != nil {
			return errStop // the rest of the file does not matter
		}
		return nil
	}); err != nil && !errors.Is(err, errStop) {
		return nil, fmt.Errorf("reading session %s: %w", id, err)
	}
	if p.before == nil {
		return nil, fmt.Errorf("session %s %w %s", id, ErrNoPoint, point)
	}
	if err := p.before.end(); err != nil {
		return nil, fmt.Errorf("reading session %s: %w", id, err)
	}
	t := p.before.finish()
	t.ID, t.Path = id, path
	return t, nil
}

// readLines calls fn for every line of the session file at path, of any length, each line
// within [MaxLineBytes].
func readLines(ctx context.Context, path string, fn func([]byte) error) error {
	f, err := boundedfile.Open(path, fileLimits.Kind)
	if err != nil {
		return err
	}
	defer f.Close()
	lim := fileLimits
	lim.MaxBytes = 1 << 62 // the callers bound what they keep
	return f.Lines(ctx, 0, lim, fn)
}

// Parse reads the content of a session file. It never fails: what cannot be read is counted in
// Skipped. Lines have no length limit here (the data is already in memory); [Store.Load]
// reads a file within [MaxFileBytes] and [MaxLineBytes].
func Parse(data []byte) *Transcript {
	var p parser
	for l := range bytes.Lines(data) {
		p.line(l)
	}
	return p.finish()
}

// parser builds a Transcript one line at a time.
type parser struct {
	t Transcript
	// compacted is set by a compact_boundary line: the next message (the summary) replaces
	// the conversation. Until it comes — a crash between the two lines — the conversation
	// stays as it was.
	compacted bool
	// at, when set, is a point id: the parser keeps in before what the transcript was when
	// its first checkpoint line was read.
	at     string
	before *parser

	// limit, when set, bounds kept: the bytes of the lines the transcript holds (the
	// conversation since the last compaction, the points and compactions read); path names
	// the file when it is over.
	limit, kept, keptBesides int64
	path                     string
	// over is set while the conversation since the last compaction is over the limit: it is
	// let go, and a later compaction may still replace it; at the end it is an error.
	over bool
	// resets counts the compactions whose summary replaced the conversation.
	resets int
	// read is the bytes of the lines read.
	read int64
	// ids are the uuids of t.Messages, in step with them (state.go); upTo, when set, is the
	// uuid LoadUpTo ends the conversation at, and snap the state when its message was read.
	ids  []string
	upTo string
	snap *parser
}

// line reads one line of the file, with its newline if it has one. It never fails: what cannot
// be read is counted in Skipped. raw is not kept.
func (p *parser) line(raw []byte) error {
	t := &p.t
	p.read += int64(len(raw))
	t.tornTail = raw[len(raw)-1] != '\n'
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return nil
	}
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		t.Skipped++
		return nil
	}
	switch l.Type {
	case "session":
		t.Cwd, t.Model = l.Cwd, l.Model
	case "message":
		if l.Message == nil || !validMessage(*l.Message) {
			t.Skipped++
			return nil
		}
		if p.compacted {
			t.Messages, p.compacted, p.over = nil, false, false
			p.resets++
			p.kept = p.keptBesides
			p.compactedState()
		}
		if p.over {
			return nil
		}
		t.Messages = append(t.Messages, *l.Message)
		p.message(&l)
		return p.keep(len(raw), false)
	case "compact_boundary":
		if l.Compact == nil {
			t.Skipped++
			return nil
		}
		// What follows replaces the conversation so far: a resumed session goes on from the
		// summary.
		p.compacted = true
		t.Compactions = append(t.Compactions, *l.Compact)
		return p.keep(len(raw), true)
	case "permissions":
		if l.Permissions != nil {
			st := *l.Permissions
			t.Permissions = &st
		}
	case "git":
		// What the listing shows (Peek); nothing of the conversation.
	case "file_state":
		if !p.fileState(&l) {
			t.Skipped++
		}
	case "resume_at":
		if !p.resumeAt(&l) {
			t.Skipped++
		}
	case "checkpoint":
		if l.PointID == "" {
			t.Skipped++
			return nil
		}
		if p.at != "" && l.PointID == p.at && p.before == nil {
			p.before = p.clone()
		}
		t.Points = append(t.Points, l.PointID)
		return p.keep(len(raw), true)
	default:
		t.Skipped++
	}
	return nil
}

// keep counts n bytes more kept: of the conversation (let go at the next compaction), or of
// the points and compactions (kept to the end). A conversation past the limit is let go (see
// over); points and compactions past it end the read.
func (p *parser) keep(n int, besides bool) error {
	if besides {
		p.keptBesides += int64(n)
	}
	p.kept += int64(n)
	if p.limit <= 0 || p.kept <= p.limit {
		return nil
	}
	if p.keptBesides > p.limit {
		return p.tooLong()
	}
	p.over, p.t.Messages, p.ids, p.kept = true, nil, nil, p.keptBesides
	return nil
}

func (p *parser) tooLong() error { return &TooLongError{Path: p.path, Limit: p.limit} }

// end is the error of a read that ended with the conversation over the limit.
func (p *parser) end() error {
	if p.over {
		return p.tooLong()
	}
	return nil
}

func (p *parser) finish() *Transcript {
	p.t.ids = p.ids
	p.t.Messages = Repair(p.t.Messages)
	return &p.t
}

func validMessage(m llm.Message) bool {
	if m.Role != llm.RoleUser && m.Role != llm.RoleAssistant || len(m.Content) == 0 {
		return false
	}
	for _, b := range m.Content {
		if b.Validate() != nil {
			return false
		}
	}
	return true
}

// Repair makes a restored conversation valid to send: consecutive messages of the same role
// are merged, a tool_use id used twice in one message keeps only its first use, every tool_use
// is answered by a tool_result at the start of the next message (missing ones say
// [LostResultMessage]), tool_results that answer nothing are dropped, messages left
// empty are dropped, and the conversation starts with a user message.
func Repair(msgs []llm.Message) []llm.Message {
	out := msgs
	// A pass can expose new work (dropping an empty message joins its neighbours); a few
	// passes reach the fixed point.
	for range 4 {
		next := repairPass(out)
		if reflect.DeepEqual(next, out) {
			break
		}
		out = next
	}
	return out
}

func repairPass(msgs []llm.Message) []llm.Message {
	var out []llm.Message
	for _, m := range msgs {
		if len(m.Content) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			out[n-1].Content = append(out[n-1].Content, m.Content...)
			continue
		}
		out = append(out, llm.Message{Role: m.Role, Content: slices.Clone(m.Content)})
	}
	for len(out) > 0 && out[0].Role != llm.RoleUser {
		out = out[1:]
	}
	for i := 0; i < len(out); i++ {
		m := &out[i]
		if m.Role == llm.RoleUser {
			var asked map[string]bool
			if i > 0 {
				asked = map[string]bool{}
				for _, u := range out[i-1].ToolUses() {
					asked[u.ID] = true
				}
			}
			m.Content = slices.DeleteFunc(m.Content, func(b llm.Block) bool {
				if b.Type != llm.BlockToolResult {
					return false
				}
				if !asked[b.ToolUseID] {
					return true
				}
				delete(asked, b.ToolUseID) // a second result for the same use goes too
				return false
			})
			continue
		}
		seen := map[string]bool{}
		m.Content = slices.DeleteFunc(m.Content, func(b llm.Block) bool {
			if b.Type != llm.BlockToolUse {
				return false
			}
			dup := seen[b.ID]
			seen[b.ID] = true
			return dup
		})
		uses := m.ToolUses()
		if len(uses) == 0 {
			continue
		}
		if i+1 == len(out) || out[i+1].Role != llm.RoleUser {
			out = slices.Insert(out, i+1, llm.Message{Role: llm.RoleUser})
		}
		next := &out[i+1]
		byID := map[string]llm.Block{}
		var rest []llm.Block
		for _, b := range next.Content {
			switch {
			case b.Type != llm.BlockToolResult:
				rest = append(rest, b)
			case byID[b.ToolUseID].Type == "":
				byID[b.ToolUseID] = b
			}
		}
		results := make([]llm.Block, 0, len(uses)+len(rest))
		for _, u := range uses {
			if b, ok := byID[u.ID]; ok {
				results = append(results, b)
			} else {
				results = append(results, llm.ToolResult(u.ID, []llm.Block{llm.Text(LostResultMessage)}, true))
			}
		}
		next.Content = append(results, rest...)
		i++ // the results message is done
	}
	return slices.DeleteFunc(out, func(m llm.Message) bool { return len(m.Content) == 0 })
}
