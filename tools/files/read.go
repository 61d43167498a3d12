package files

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/internal/schemax"
)

// ReadInput is the input of the Read tool.
type ReadInput struct {
	FilePath string `json:"file_path" jsonschema:"The absolute path to the file to read"`
	Offset   int    `json:"offset,omitempty" jsonschema:"The line number to start reading from. Only provide if the file is too large to read at once"`
	Limit    int    `json:"limit,omitempty" jsonschema:"The number of lines to read. Only provide if the file is too large to read at once."`
	Pages    string `json:"pages,omitempty" jsonschema:"Page range for PDF files (e.g., \"1-5\", \"3\", \"10-20\"). Only applicable to PDF files. Maximum 20 pages per request."`
}

// ReadOutput is the structured output of a Read call.
type ReadOutput struct {
	Type       string `json:"type"` // "text", "image" or "notebook"
	FilePath   string `json:"filePath"`
	StartLine  int    `json:"startLine,omitempty"`
	NumLines   int    `json:"numLines,omitempty"`
	TotalLines int    `json:"totalLines,omitempty"` // known when the read reached the end
	Partial    bool   `json:"partial,omitempty"`
	MediaType  string `json:"mediaType,omitempty"`
	Width      int    `json:"width,omitempty"`
	Height     int    `json:"height,omitempty"`
	Cells      int    `json:"cells,omitempty"`
}

const readPrompt = `Reads a file from the local filesystem. You can access any file directly by using this tool.
Assume this tool is able to read all files on the machine. If the User provides a path to a file assume that path is valid. It is okay to read a file that does not exist; an error will be returned.

Usage:
- The file_path parameter must be an absolute path, not a relative path
- By default, it reads the whole file from the beginning; files larger than 256KB or longer than 25000 tokens must be read in parts
- You can optionally specify a line offset and limit (especially handy for long files), but it's recommended to read the whole file by not providing these parameters
- Results are returned using cat -n format, with line numbers starting at 1: each line is the line number, a tab, then the line
- This tool allows Reins to read images (PNG, JPG, GIF, WEBP). When reading an image file the contents are presented visually.
- This tool can read Jupyter notebooks (.ipynb files) and returns all cells with their outputs, combining code, text, and visualizations.
- This tool can only read files, not directories. To read a directory, use an ls command via the Bash tool.
- This tool cannot read binary files such as archives, executables or office documents.
- You can call multiple tools in a single response. It is always better to speculatively read multiple potentially useful files in parallel.
- If you read a file that exists but has empty contents you will receive a system reminder warning in place of file contents.
- You must Read a file before you can Edit or Write it.`

// NewRead returns the Read tool.
func NewRead(opts Options) tool.Tool {
	r := &reader{opts: opts}
	return tool.Build(tool.Def[ReadInput]{
		Name:        "Read",
		SearchHint:  "read files, images, notebooks",
		Description: "Read a file from the local filesystem",
		Prompt:      readPrompt,
		// The model asked for this text, and Read bounds it itself: saving it to a file to
		// be read again would loop.
		MaxResultChars: tool.NeverPersist,
		SchemaJSON: schemax.Static("Read", func() *jsonschema.Schema {
			return schemax.For[ReadInput](func(sc *jsonschema.Schema) {
				p := sc.Properties
				p["offset"].Minimum = ptr(0.0)
				p["limit"].ExclusiveMinimum = ptr(0.0)
			})
		}),
		Validate: r.validate,
		CheckPermissions: func(ctx context.Context, pc *permission.Context, in ReadInput) permission.Decision {
			return pc.CheckRead(ctx, in.FilePath)
		},
		ReadOnly:        func(ReadInput) bool { return true },
		ConcurrencySafe: func(ReadInput) bool { return true },
		Paths:           func(in ReadInput) []string { return []string{in.FilePath} },
		Call:            r.call,
	})
}

type reader struct{ opts Options }

// binaryExts are extensions of files Read refuses: their bytes mean nothing as text.
var binaryExts = extSet(`
	png jpg jpeg gif bmp ico webp tiff tif psd heic heif avif raw cr2 nef
	mp4 mov avi mkv webm wmv flv m4v mpeg mpg 3gp
	mp3 wav ogg flac aac m4a wma aiff opus mid midi
	zip tar gz tgz bz2 tbz2 7z rar xz txz z lz lzma lz4 zst cab
	exe dll so dylib app msi deb rpm apk ipa bin dmg iso img
	o obj a lib class jar war ear pyc pyo pyd wasm node
	pdf doc docx xls xlsx ppt pptx odt ods odp rtf
	ttf otf woff woff2 eot
	sqlite sqlite3 db mdb accdb
	swf fla blend 3ds fbx glb`)

func extSet(list string) map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(list) {
		m["."+e] = true
	}
	return m
}

// imageExts are the image formats Read returns as image blocks.
var imageExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true}

// blockingDevices are device files whose reads never end or never return.
var blockingDevices = map[string]bool{
	"/dev/zero": true, "/dev/random": true, "/dev/urandom": true, "/dev/full": true,
	"/dev/stdin": true, "/dev/tty": true, "/dev/console": true, "/dev/stdout": true, "/dev/stderr": true,
	"/dev/fd/0": true, "/dev/fd/1": true, "/dev/fd/2": true,
	"/proc/self/fd/0": true, "/proc/self/fd/1": true, "/proc/self/fd/2": true,
}

var pagesRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$`) })

func binaryMessage(ext string) string {
	if ext == "" {
		return "This tool cannot read binary files. The file appears to be a binary file. Please use appropriate tools for binary file analysis."
	}
	return fmt.Sprintf("This tool cannot read binary files. The file appears to be a binary %s file. Please use appropriate tools for binary file analysis.", ext)
}

func (r *reader) validate(ctx context.Context, in ReadInput, env *tool.Env) *tool.Failure {
	if in.Pages != "" {
		m := pagesRE().FindStringSubmatch(in.Pages)
		bad := m == nil
		if !bad {
			first, _ := strconv.Atoi(m[1])
			last := first
			if m[2] != "" {
				last, _ = strconv.Atoi(m[2])
			}
			bad = first < 1 || last < first || last-first+1 > 20
		}
		if bad {
			return tool.Failf("Invalid pages parameter: %q. Use formats like \"1-5\", \"3\", or \"10-20\". Pages are 1-indexed and at most 20 pages can be read at once.", in.Pages)
		}
	}
	pc, abs, f := resolve(env, in.FilePath)
	if f != nil {
		return f
	}
	if isDeniedByRule(pc.CheckRead(untraced(ctx), in.FilePath)) {
		return tool.Fail(msgDenied)
	}
	if isUNC(in.FilePath) {
		return nil
	}
	ext := strings.ToLower(filepath.Ext(abs))
	if binaryExts[ext] && !imageExts[ext] && ext != ".pdf" {
		return tool.Fail(binaryMessage(ext))
	}
	if blockingDevices[abs] {
		return tool.Failf("Cannot read '%s': this device file would block or produce infinite output.", in.FilePath)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return tool.Fail(missingMessage(pc, abs))
	case err != nil:
		return tool.Failf("Cannot read %s: %v", abs, err)
	case fi.IsDir():
		return tool.Failf("%s is a directory, not a file. Use ls via the Bash tool to list a directory.", abs)
	case !fi.Mode().IsRegular():
		return tool.Failf("Cannot read '%s': this device file would block or produce infinite output.", in.FilePath)
	case ext == ".pdf":
		return tool.Failf("Reading PDF files is not supported. Use the Bash tool with a converter such as pdftotext to read %s.", abs)
	}
	return nil
}

func (r *reader) call(ctx context.Context, in ReadInput, env *tool.Env) (tool.Result, error) {
	if fail := r.validate(ctx, in, env); fail != nil {
		return fail.Result(), nil
	}
	_, abs, fail := resolve(env, in.FilePath)
	if fail != nil {
		return fail.Result(), nil
	}
	f, err := os.Open(abs)
	if err != nil {
		return tool.Result{}, fmt.Errorf("reading %s: %w", abs, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return tool.Result{}, fmt.Errorf("reading %s: %w", abs, err)
	}
	var res tool.Result
	switch ext := strings.ToLower(filepath.Ext(abs)); {
	case imageExts[ext]:
		res, err = r.readImage(f, fi, abs, env)
	case ext == ".ipynb":
		res, err = r.readNotebook(f, fi, abs, env)
	default:
		res, err = r.readText(ctx, f, fi, abs, in, env)
	}
	if err == nil && !res.IsError {
		// The model sees the file's content: a secret file taints the session (toolcall).
		res.Reads = []string{abs}
	}
	return res, err
}

func (r *reader) readText(ctx context.Context, f *os.File, fi os.FileInfo, abs string, in ReadInput, env *tool.Env) (tool.Result, error) {
	head := make([]byte, 8192)
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return tool.Result{}, fmt.Errorf("reading %s: %w", abs, err)
	}
	head = head[:n]
	utf16 := len(head) >= 2 && head[0] == bomUTF16LE[0] && head[1] == bomUTF16LE[1]
	if !utf16 && strings.IndexByte(string(head), 0) >= 0 {
		return tool.Result{}, errors.New(binaryMessage(strings.ToLower(filepath.Ext(abs))))
	}
	if in.Limit == 0 && fi.Size() > r.opts.maxReadBytes() {
		return failed("File content (%s) exceeds maximum allowed size (%s). Please use offset and limit parameters to read specific portions of the file, or use the Grep tool to search for specific content.",
			tool.FormatSize(fi.Size()), tool.FormatSize(r.opts.maxReadBytes()))
	}
	start := max(in.Offset, 1)
	// Hash only when the read may cover the whole file; a read from a later line is partial.
	var h hash.Hash
	var src io.Reader = &ctxReader{ctx: ctx, r: f}
	if start == 1 {
		h = sha256.New()
		src = io.TeeReader(src, h)
	}
	if utf16 {
		if _, err := io.CopyN(io.Discard, src, 2); err != nil {
			return tool.Result{}, fmt.Errorf("reading %s: %w", abs, err)
		}
		src = newUTF16LEReader(src)
	}
	maxTokens := r.opts.maxReadTokens()
	s, err := scanLines(src, start, in.Limit, 4*maxTokens+64, fi.Size())
	if err != nil {
		return tool.Result{}, fmt.Errorf("reading %s: %w", abs, err)
	}
	if tokens := s.bytes / 4; tokens > int64(maxTokens) {
		return failed("File content (%d tokens) exceeds maximum allowed tokens (%d). Please use offset and limit parameters to read specific portions of the file, or use the Grep tool to search for specific content.",
			tokens, maxTokens)
	}
	whole := start == 1 && s.eof
	fr := tool.FileRead{ModTime: fi.ModTime(), Offset: in.Offset, Limit: in.Limit, Partial: !whole, Change: changeTime(fi)}
	if whole {
		fr.Hash = hex.EncodeToString(h.Sum(nil))
	}
	if env.Files != nil {
		env.Files.Record(abs, fr)
	}
	out := ReadOutput{Type: "text", FilePath: abs, StartLine: start, NumLines: s.lines, Partial: !whole}
	if s.eof {
		out.TotalLines = s.total
	}
	text := string(s.text)
	if s.lines == 0 {
		if s.eof && s.total == 0 {
			text = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
		} else {
			text = fmt.Sprintf("<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). The file has %d lines.</system-reminder>", start, s.total)
		}
	}
	return tool.Result{Content: []tool.Content{tool.Text(text)}, Output: out}, nil
}

// ctxReader stops a long scan when its call is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
