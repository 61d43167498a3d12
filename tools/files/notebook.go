package files

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
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

// maxNotebookFileBytes is the largest notebook file Read and NotebookEdit parse.
const maxNotebookFileBytes = 256 << 20

// maxCellOutputChars is how much output of one cell Read shows.
const maxCellOutputChars = 10000

// notebook is a parsed .ipynb file. It is kept as generic JSON so that an edit changes only
// the cell it touches.
type notebook map[string]any

func parseNotebook(raw []byte) (notebook, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var nb notebook
	if err := dec.Decode(&nb); err != nil {
		return nil, err
	}
	if nb == nil {
		return nil, errors.New("not a notebook")
	}
	if _, ok := nb["cells"].([]any); !ok && nb["cells"] != nil {
		return nil, errors.New("cells is not a list")
	}
	return nb, nil
}

func (nb notebook) cells() []any {
	c, _ := nb["cells"].([]any)
	return c
}

func (nb notebook) language() string {
	md, _ := nb["metadata"].(map[string]any)
	li, _ := md["language_info"].(map[string]any)
	if name, ok := li["name"].(string); ok && name != "" {
		return name
	}
	return "python"
}

// hasCellIDs reports whether the notebook format has cell ids (nbformat 4.5 and later).
func (nb notebook) hasCellIDs() bool {
	major, _ := jsonInt(nb["nbformat"])
	minor, _ := jsonInt(nb["nbformat_minor"])
	return major > 4 || (major == 4 && minor >= 5)
}

func jsonInt(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.Atoi(n.String())
		return i, err == nil
	case float64:
		return int(n), true
	}
	return 0, false
}

// marshal writes the notebook as Jupyter does: sorted keys, one-space indent, no HTML
// escaping, a final newline.
func (nb notebook) marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(map[string]any(nb)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// multiline joins a notebook string field, stored as a string or a list of lines.
func multiline(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []any:
		var b strings.Builder
		for _, l := range s {
			if str, ok := l.(string); ok {
				b.WriteString(str)
			}
		}
		return b.String()
	}
	return ""
}

func cellID(cell map[string]any, i int) string {
	if id, ok := cell["id"].(string); ok && id != "" {
		return id
	}
	return fmt.Sprintf("cell-%d", i)
}

var ansiRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`) })

// renderNotebook shows every cell with its outputs: text as <cell> elements, images from the
// outputs as image blocks.
func renderNotebook(nb notebook, path string) []tool.Content {
	lang := nb.language()
	var blocks []tool.Content
	addText := func(s string) {
		if n := len(blocks); n > 0 && blocks[n-1].Type == "text" {
			blocks[n-1].Text += "\n" + s
			return
		}
		blocks = append(blocks, tool.Text(s))
	}
	for i, c := range nb.cells() {
		cell, _ := c.(map[string]any)
		if cell == nil {
			continue
		}
		id := cellID(cell, i)
		typ, _ := cell["cell_type"].(string)
		var meta string
		switch {
		case typ != "code":
			meta = "<cell_type>" + typ + "</cell_type>"
		case lang != "python":
			meta = "<language>" + lang + "</language>"
		}
		addText(fmt.Sprintf("<cell id=%q>%s%s</cell id=%q>", id, meta, multiline(cell["source"]), id))
		if typ != "code" {
			continue
		}
		outs, _ := cell["outputs"].([]any)
		var text strings.Builder
		var images []tool.Content
		for _, o := range outs {
			out, _ := o.(map[string]any)
			if out == nil {
				continue
			}
			switch out["output_type"] {
			case "stream":
				text.WriteString(multiline(out["text"]))
			case "execute_result", "display_data":
				data, _ := out["data"].(map[string]any)
				if t := multiline(data["text/plain"]); t != "" {
					text.WriteString(t)
					if !strings.HasSuffix(t, "\n") {
						text.WriteByte('\n')
					}
				}
				for _, mt := range []string{"image/png", "image/jpeg"} {
					if b64 := multiline(data[mt]); b64 != "" {
						images = append(images, tool.Content{Type: "image", MediaType: mt, Data: strings.Join(strings.Fields(b64), "")})
					}
				}
			case "error":
				ename, _ := out["ename"].(string)
				evalue, _ := out["evalue"].(string)
				fmt.Fprintf(&text, "%s: %s\n", ename, evalue)
				if tb, ok := out["traceback"].([]any); ok {
					for _, l := range tb {
						if s, ok := l.(string); ok {
							text.WriteString(ansiRE().ReplaceAllString(s, ""))
							text.WriteByte('\n')
						}
					}
				}
			}
		}
		if t := strings.TrimRight(text.String(), "\n"); t != "" {
			if len(t) > maxCellOutputChars {
				t = fmt.Sprintf("Outputs are too large to include. Use Bash with: cat %q | jq '.cells[%d].outputs'", path, i)
			}
			addText(t)
		}
		blocks = append(blocks, images...)
	}
	if len(blocks) == 0 {
		blocks = append(blocks, tool.Text("<system-reminder>Warning: the notebook exists but has no cells.</system-reminder>"))
	}
	return blocks
}

func (r *reader) readNotebook(f *os.File, fi os.FileInfo, abs string, env *tool.Env) (tool.Result, error) {
	if fi.Size() > maxNotebookFileBytes {
		return failed("Notebook file (%s) exceeds maximum allowed size (%s). Use Bash with jq to read specific cells: cat %q | jq '.cells[:20]'",
			tool.FormatSize(fi.Size()), tool.FormatSize(maxNotebookFileBytes), abs)
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		return tool.Result{}, fmt.Errorf("reading %s: %w", abs, err)
	}
	nb, err := parseNotebook(raw)
	if err != nil {
		return failed("Notebook %s is not valid JSON: %v", abs, err)
	}
	blocks := renderNotebook(nb, abs)
	size := 0
	for _, b := range blocks {
		size += len(b.Text)
	}
	if int64(size) > r.opts.maxReadBytes() {
		return failed("Notebook content (%s) exceeds maximum allowed size (%s). Use Bash with jq to read specific portions:\n"+
			"  cat %q | jq '.cells[:20]' # First 20 cells\n"+
			"  cat %q | jq '.cells[100:120]' # Cells 100-120\n"+
			"  cat %q | jq '.cells | length' # Count total cells\n"+
			"  cat %q | jq '.cells[] | select(.cell_type==\"code\") | .source' # All code sources",
			tool.FormatSize(int64(size)), tool.FormatSize(r.opts.maxReadBytes()), abs, abs, abs, abs)
	}
	if tokens := size / 4; tokens > r.opts.maxReadTokens() {
		return failed("File content (%d tokens) exceeds maximum allowed tokens (%d). Use Bash with jq to read specific cells: cat %q | jq '.cells[:20]'", tokens, r.opts.maxReadTokens(), abs)
	}
	if env.Files != nil {
		env.Files.Record(abs, tool.FileRead{ModTime: fi.ModTime(), Hash: hashBytes(raw)})
	}
	return tool.Result{Content: blocks, Output: ReadOutput{Type: "notebook", FilePath: abs, Cells: len(nb.cells())}}, nil
}

// NotebookEditInput is the input of the NotebookEdit tool.
type NotebookEditInput struct {
	NotebookPath string `json:"notebook_path" jsonschema:"The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)"`
	CellID       string `json:"cell_id,omitempty" jsonschema:"The ID of the cell to edit. When inserting a new cell, the new cell will be inserted after the cell with this ID, or at the beginning if not specified."`
	NewSource    string `json:"new_source" jsonschema:"The new source for the cell"`
	CellType     string `json:"cell_type,omitempty" jsonschema:"The type of the cell (code or markdown). If not specified, it defaults to the current cell type. If using edit_mode=insert, this is required."`
	EditMode     string `json:"edit_mode,omitempty" jsonschema:"The type of edit to make (replace, insert, delete). Defaults to replace."`
}

// NotebookEditOutput is the structured output of a NotebookEdit call.
type NotebookEditOutput struct {
	NotebookPath string `json:"notebook_path"`
	CellID       string `json:"cell_id,omitempty"`
	CellType     string `json:"cell_type,omitempty"`
	EditMode     string `json:"edit_mode"`
	NewSource    string `json:"new_source,omitempty"`
}

const notebookEditPrompt = `Completely replaces the contents of a specific cell in a Jupyter notebook (.ipynb file) with new source. Jupyter notebooks are interactive documents that combine code, text, and visualizations, commonly used for data analysis and scientific computing. The notebook_path parameter must be an absolute path, not a relative path. The cell_id is the ID of the cell to edit (as shown by the Read tool; "cell-N" addresses the cell at index N). Use edit_mode=insert to add a new cell after the cell with cell_id (or at the beginning when cell_id is omitted); cell_type is required then. Use edit_mode=delete to delete the cell with cell_id. You must Read the notebook before editing it.`

// NewNotebookEdit returns the NotebookEdit tool.
func NewNotebookEdit(opts Options) tool.Tool {
	e := &notebookEditor{opts: opts}
	return tool.Build(tool.Def[NotebookEditInput]{
		Name:        "NotebookEdit",
		SearchHint:  "edit Jupyter notebook cells (.ipynb)",
		Description: "Replace, insert or delete a cell of a Jupyter notebook",
		Prompt:      notebookEditPrompt,
		SchemaJSON: schemax.Static("NotebookEdit", func() *jsonschema.Schema {
			return schemax.For[NotebookEditInput](func(sc *jsonschema.Schema) {
				p := sc.Properties
				p["cell_type"].Enum = []any{"code", "markdown"}
				p["edit_mode"].Enum = []any{"replace", "insert", "delete"}
			})
		}),
		Validate: func(ctx context.Context, in NotebookEditInput, env *tool.Env) *tool.Failure {
			_, f := e.plan(ctx, in, env, msgModified)
			return f
		},
		CheckPermissions: func(ctx context.Context, pc *permission.Context, in NotebookEditInput) permission.Decision {
			return pc.CheckWrite(ctx, in.NotebookPath)
		},
		Paths: func(in NotebookEditInput) []string { return []string{in.NotebookPath} },
		Defer: true,
		Call:  e.call,
	})
}

type notebookEditor struct{ opts Options }

// notebookPlan is a validated notebook edit, ready to write.
type notebookPlan struct {
	abs     string
	target  target
	content []byte
	out     NotebookEditOutput
	message string
}

var cellIndexRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^cell-(\d+)$`) })

func (e *notebookEditor) plan(ctx context.Context, in NotebookEditInput, env *tool.Env, modifiedMsg string) (*notebookPlan, *tool.Failure) {
	pc, abs, f := resolve(env, in.NotebookPath)
	if f != nil {
		return nil, f
	}
	mode := in.EditMode
	if mode == "" {
		mode = "replace"
	}
	if strings.ToLower(filepath.Ext(abs)) != ".ipynb" {
		return nil, tool.Fail("File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.")
	}
	if mode != "replace" && mode != "insert" && mode != "delete" {
		return nil, tool.Fail("Edit mode must be replace, insert, or delete.")
	}
	if mode == "insert" && in.CellType == "" {
		return nil, tool.Fail("Cell type is required when using edit_mode=insert.")
	}
	if err := checkWriteDenied(ctx, pc, in.NotebookPath); err != nil {
		return nil, err
	}
	if isUNC(in.NotebookPath) {
		return nil, nil
	}
	t, err := writeTarget(abs, e.opts)
	if err != nil {
		return nil, tool.Failf("Error reading %s: %v", abs, err)
	}
	if !t.exists {
		return nil, tool.Fail("Notebook file does not exist.")
	}
	fi, err := os.Stat(t.path)
	if err != nil {
		return nil, tool.Failf("Error reading %s: %v", abs, err)
	}
	if fi.Size() > maxNotebookFileBytes {
		return nil, tool.Failf("Notebook is too large to edit (%s).", tool.FormatSize(fi.Size()))
	}
	raw, err := os.ReadFile(t.path)
	if err != nil {
		return nil, tool.Failf("Error reading %s: %v", abs, err)
	}
	if err := checkFresh(env, abs, fi, raw, true, modifiedMsg); err != nil {
		return nil, err
	}
	nb, err := parseNotebook(raw)
	if err != nil {
		return nil, tool.Fail("Notebook is not valid JSON.")
	}
	p := &notebookPlan{abs: abs, target: t}
	var fail *tool.Failure
	if p.message, p.out, fail = applyNotebookEdit(nb, in); fail != nil {
		return nil, fail
	}
	p.out.NotebookPath = abs
	if p.content, err = nb.marshal(); err != nil {
		return nil, tool.Failf("encoding notebook %s: %v", abs, err)
	}
	return p, nil
}

// applyNotebookEdit makes the edit in on nb and returns the message for the model. mode is
// valid and insert has a cell type; everything else is checked here.
func applyNotebookEdit(nb notebook, in NotebookEditInput) (string, NotebookEditOutput, *tool.Failure) {
	mode := in.EditMode
	if mode == "" {
		mode = "replace"
	}
	out := NotebookEditOutput{EditMode: mode, NewSource: in.NewSource, CellType: in.CellType}
	var message string
	cells := nb.cells()
	idx := 0
	if in.CellID == "" {
		if mode != "insert" {
			return "", out, tool.Fail("Cell ID must be specified when not inserting a new cell.")
		}
	} else {
		idx = -1
		for i, c := range cells {
			if cell, ok := c.(map[string]any); ok && cell["id"] == in.CellID {
				idx = i
				break
			}
		}
		if idx < 0 {
			if m := cellIndexRE().FindStringSubmatch(in.CellID); m != nil {
				if n, err := strconv.Atoi(m[1]); err == nil && (n < len(cells) || (mode == "replace" && n == len(cells))) {
					idx = n
				}
			}
		}
		if idx < 0 {
			return "", out, tool.Failf("Cell with ID %q not found in notebook.", in.CellID)
		}
		if mode == "insert" {
			idx++ // after the named cell
		}
	}
	// Replacing the cell just past the end adds one, as Claude Code does.
	if mode == "replace" && idx == len(cells) {
		mode = "insert"
		if in.CellType == "" {
			in.CellType = "code"
		}
	}
	out.EditMode, out.CellType = mode, in.CellType
	switch mode {
	case "delete":
		cell, _ := cells[idx].(map[string]any)
		id := cellID(cell, idx)
		cells = append(cells[:idx:idx], cells[idx+1:]...)
		out.CellID = id
		message = "Deleted cell " + id
	case "insert":
		cell := map[string]any{"cell_type": in.CellType, "metadata": map[string]any{}, "source": in.NewSource}
		id := fmt.Sprintf("cell-%d", idx)
		if nb.hasCellIDs() {
			id = newCellID()
			cell["id"] = id
		}
		if in.CellType == "code" {
			cell["execution_count"] = nil
			cell["outputs"] = []any{}
		}
		cells = append(cells[:idx:idx], append([]any{cell}, cells[idx:]...)...)
		out.CellID = id
		message = fmt.Sprintf("Inserted cell %s with %s", id, in.NewSource)
	default:
		cell, ok := cells[idx].(map[string]any)
		if !ok {
			return "", out, tool.Failf("Cell with ID %q not found in notebook.", in.CellID)
		}
		cell["source"] = in.NewSource
		if in.CellType != "" {
			cell["cell_type"] = in.CellType
		}
		if cell["cell_type"] == "code" {
			cell["execution_count"] = nil
			cell["outputs"] = []any{}
		} else {
			delete(cell, "execution_count")
			delete(cell, "outputs")
		}
		out.CellID = in.CellID
		out.CellType, _ = cell["cell_type"].(string)
		message = fmt.Sprintf("Updated cell %s with %s", in.CellID, in.NewSource)
	}
	nb["cells"] = cells
	return message, out, nil
}

// newCellID makes a cell id like Jupyter's: short, random, lower-case.
func newCellID() string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

func (e *notebookEditor) call(ctx context.Context, in NotebookEditInput, env *tool.Env) (tool.Result, error) {
	p, f := e.plan(ctx, in, env, msgModifiedAtCall)
	if f != nil {
		return f.Result(), nil
	}
	if p == nil {
		return tool.Result{}, fmt.Errorf("cannot edit the network path %s", in.NotebookPath)
	}
	if err := writeAtomic(p.target, p.content, e.opts); err != nil {
		return tool.Result{}, err
	}
	recordWrite(env, p.abs, p.content)
	return tool.Result{Content: []tool.Content{tool.Text(p.message)}, Output: p.out}, nil
}
