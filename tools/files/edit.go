package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/internal/schemax"
)

// EditInput is the input of the Edit tool.
type EditInput struct {
	FilePath   string `json:"file_path" jsonschema:"The absolute path to the file to modify"`
	OldString  string `json:"old_string" jsonschema:"The text to replace"`
	NewString  string `json:"new_string" jsonschema:"The text to replace it with (must be different from old_string)"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace all occurrences of old_string (default false)"`
}

// EditOutput is the structured output of an Edit call.
type EditOutput struct {
	FilePath   string `json:"filePath"`
	Created    bool   `json:"created,omitempty"`
	ReplaceAll bool   `json:"replaceAll,omitempty"`
	// Replacements is how many occurrences were replaced.
	Replacements int `json:"replacements"`
	// StartLine and EndLine are the lines of the first replacement in the new file.
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine"`
}

const editPrompt = `Performs exact string replacements in files.

Usage:
- You must use your Read tool at least once in the conversation before editing. This tool will error if you attempt an edit without reading the file.
- When editing text from Read tool output, ensure you preserve the exact indentation (tabs/spaces) as it appears AFTER the line number prefix. The line number prefix format is: line number + tab. Everything after that tab is the actual file content to match. Never include any part of the line number prefix in the old_string or new_string.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- Only use emojis if the user explicitly requests it. Avoid adding emojis to files unless asked.
- The edit will FAIL if old_string is not unique in the file. Either provide a larger string with more surrounding context to make it unique or use replace_all to change every instance of old_string.
- Use replace_all for replacing and renaming strings across the file. This parameter is useful if you want to rename a variable for instance.
- The file keeps its encoding and line endings; write old_string and new_string with plain \n line breaks.`

// NewEdit returns the Edit tool.
func NewEdit(opts Options) tool.Tool {
	e := &editor{opts: opts}
	return tool.Build(tool.Def[EditInput]{
		Name:        "Edit",
		SearchHint:  "modify file contents in place",
		Description: "Replace exact text in a file",
		Prompt:      editPrompt,
		// No MaxResultChars: Claude Code's 100,000 is above the 50,000 ceiling, the default.
		SchemaJSON: schemax.Static("Edit", func() *jsonschema.Schema {
			return schemax.For[EditInput](nil)
		}),
		Validate: func(ctx context.Context, in EditInput, env *tool.Env) *tool.Failure {
			_, f := e.plan(ctx, in, env, msgModified)
			return f
		},
		CheckPermissions: func(ctx context.Context, pc *permission.Context, in EditInput) permission.Decision {
			return pc.CheckWrite(ctx, in.FilePath)
		},
		Paths: func(in EditInput) []string { return []string{in.FilePath} },
		UserFacingName: func(in EditInput) string {
			if in.OldString == "" {
				return "Create"
			}
			return "Update"
		},
		Call: e.call,
	})
}

type editor struct{ opts Options }

// editPlan is a validated edit: the bytes to write and what to tell the model.
type editPlan struct {
	abs     string
	target  target
	data    []byte // the new file, encoded
	text    string // the new file as text with LF line endings, for the snippet
	out     EditOutput
	created bool
}

// plan validates an edit and computes the new file. It checks the input, then the path and
// its permission, then the file as it is on disk, then the replacement; the first that fails
// is the failure the model sees. A nil plan with no failure is a network path, left for the
// call to refuse (see isUNC).
func (e *editor) plan(ctx context.Context, in EditInput, env *tool.Env, modifiedMsg string) (*editPlan, *tool.Failure) {
	if in.OldString == in.NewString {
		return nil, tool.Fail("No changes to make: old_string and new_string are exactly the same.")
	}
	pc, abs, f := resolve(env, in.FilePath)
	if f != nil {
		return nil, f
	}
	if err := checkWriteDenied(ctx, pc, in.FilePath); err != nil {
		return nil, err
	}
	if isUNC(in.FilePath) {
		return nil, nil
	}
	t, fi, f := e.statTarget(abs)
	if f != nil {
		return nil, f
	}
	p := &editPlan{abs: abs, target: t, out: EditOutput{FilePath: abs, ReplaceAll: in.ReplaceAll}}
	if !t.exists {
		if in.OldString != "" {
			return nil, tool.Fail(missingMessage(pc, abs))
		}
		p.create(in.NewString)
		return p, nil
	}
	content, format, f := readForEdit(env, in, abs, t.path, fi, modifiedMsg)
	if f != nil {
		return nil, f
	}
	oldStr, newStr := in.OldString, in.NewString
	if format.crlf {
		// Match against the text as the model saw it (Read shows LF) and restore CR LF on write.
		content = strings.ReplaceAll(content, "\r\n", "\n")
		oldStr = strings.ReplaceAll(oldStr, "\r\n", "\n")
		newStr = strings.ReplaceAll(newStr, "\r\n", "\n")
	}
	r, f := replace(content, oldStr, newStr, in)
	if f != nil {
		return nil, f
	}
	p.apply(r, format)
	return p, nil
}

// statTarget finds the file an edit of abs writes (see writeTarget) and refuses one that
// cannot be edited; fi is nil when the file does not exist yet.
func (e *editor) statTarget(abs string) (target, os.FileInfo, *tool.Failure) {
	t, err := writeTarget(abs, e.opts)
	if err != nil {
		return target{}, nil, tool.Failf("Error reading %s: %v", abs, err)
	}
	if !t.exists {
		return t, nil, nil
	}
	fi, err := os.Stat(t.path)
	if err != nil {
		return target{}, nil, tool.Failf("Error reading %s: %v", abs, err)
	}
	if fi.IsDir() {
		return target{}, nil, tool.Failf("%s is a directory, not a file.", abs)
	}
	if fi.Size() > maxEditBytes {
		return target{}, nil, tool.Failf("File is too large to edit (%s). Maximum editable file size is %s.", tool.FormatSize(fi.Size()), tool.FormatSize(maxEditBytes))
	}
	return t, fi, nil
}

// create plans the creation of a file that does not exist: its content is new, as given.
func (p *editPlan) create(newString string) {
	p.created, p.out.Created = true, true
	p.data = []byte(newString)
	p.text = strings.ReplaceAll(newString, "\r\n", "\n")
	p.out.Replacements, p.out.StartLine, p.out.EndLine = 1, 1, 1+strings.Count(p.text, "\n")
}

// readForEdit reads the existing file at path (abs as the model named it) as text, and
// refuses an edit the file's content or its state since the last Read rules out.
func readForEdit(env *tool.Env, in EditInput, abs, path string, fi os.FileInfo, modifiedMsg string) (string, textFormat, *tool.Failure) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", textFormat{}, tool.Failf("Error reading %s: %v", abs, err)
	}
	content, format := decodeText(raw)
	if in.OldString == "" && strings.TrimSpace(content) != "" {
		return "", textFormat{}, tool.Fail("Cannot create new file - file already exists.")
	}
	if strings.ToLower(filepath.Ext(abs)) == ".ipynb" {
		return "", textFormat{}, tool.Fail("File is a Jupyter Notebook. Use the NotebookEdit to edit this file.")
	}
	if err := checkFresh(env, abs, fi, raw, false, modifiedMsg); err != nil {
		return "", textFormat{}, err
	}
	return content, format, nil
}

// replacement is the text of a file after an edit.
type replacement struct {
	text     string
	start    int    // byte offset in text of the first replacement
	inserted string // the text put there, in the file's quote style
	count    int    // occurrences replaced
}

// replace replaces oldStr with newStr in content, all three with the line endings the model
// saw (LF); its failures quote in.OldString as the model wrote it. An empty oldStr (allowed
// only for a file that is empty or white space) makes newStr the whole file.
func replace(content, oldStr, newStr string, in EditInput) (replacement, *tool.Failure) {
	if oldStr == "" {
		return replacement{text: newStr, inserted: newStr, count: 1}, nil
	}
	actual := findActualString(content, oldStr)
	if actual == "" {
		return replacement{}, tool.Failf("String to replace not found in file.\nString: %s", in.OldString)
	}
	n := strings.Count(content, actual)
	if n > 1 && !in.ReplaceAll {
		return replacement{}, tool.Failf("Found %d matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: %s", n, in.OldString)
	}
	if actual != oldStr {
		newStr = preserveQuoteStyle(actual, newStr)
	}
	// Deleting a whole line takes its line break along.
	if newStr == "" && !strings.HasSuffix(actual, "\n") && strings.Contains(content, actual+"\n") {
		actual += "\n"
	}
	r := replacement{start: strings.Index(content, actual), inserted: newStr}
	if in.ReplaceAll {
		r.count = strings.Count(content, actual)
		r.text = strings.ReplaceAll(content, actual, newStr)
	} else {
		r.count = 1
		r.text = content[:r.start] + newStr + content[r.start+len(actual):]
	}
	if r.text == content {
		return replacement{}, tool.Fail("Original and edited file match exactly. Failed to apply edit.")
	}
	return r, nil
}

// apply makes r the plan's new file, encoded as the old one was.
func (p *editPlan) apply(r replacement, format textFormat) {
	p.text = r.text
	p.out.Replacements = r.count
	p.out.StartLine = 1 + strings.Count(r.text[:r.start], "\n")
	p.out.EndLine = p.out.StartLine + strings.Count(r.inserted, "\n")
	updated := r.text
	if format.crlf {
		updated = toCRLF(updated)
	}
	p.data = format.encode(updated)
}

func (e *editor) call(ctx context.Context, in EditInput, env *tool.Env) (tool.Result, error) {
	p, f := e.plan(ctx, in, env, msgModifiedAtCall)
	if f != nil {
		return f.Result(), nil
	}
	if p == nil {
		return tool.Result{}, fmt.Errorf("cannot edit the network path %s", in.FilePath)
	}
	if err := writeAtomic(p.target, p.data, e.opts); err != nil {
		return tool.Result{}, err
	}
	recordWrite(env, p.abs, p.data)
	msg := fmt.Sprintf("The file %s has been updated successfully.", p.abs)
	if in.ReplaceAll {
		msg = fmt.Sprintf("The file %s has been updated. All occurrences were successfully replaced.", p.abs)
	}
	msg += "\n\nHere's the result of running `cat -n` on a snippet of the edited file:\n" +
		snippet(p.text, p.out.StartLine, p.out.EndLine, snippetContext)
	return tool.Result{Content: []tool.Content{tool.Text(msg)}, Output: p.out}, nil
}

// snippetContext is how many lines around a change the result shows.
const snippetContext = 4

// snippet numbers lines first-ctx through last+ctx of text, cat -n style.
func snippet(text string, first, last, ctx int) string {
	from, to := max(first-ctx, 1), last+ctx
	var b strings.Builder
	line := 1
	for len(text) > 0 && line <= to {
		i := strings.IndexByte(text, '\n')
		cur := text
		if i >= 0 {
			cur, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if line >= from {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(strconv.Itoa(line))
			b.WriteByte('\t')
			b.WriteString(cur)
		}
		line++
	}
	return b.String()
}

// Curly quotes, which models tend to write as straight ones.
const (
	lsquo = '‘'
	rsquo = '’'
	ldquo = '“'
	rdquo = '”'
)

func normalizeQuotes(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case lsquo, rsquo:
			return '\''
		case ldquo, rdquo:
			return '"'
		}
		return r
	}, s)
}

// findActualString finds search in content, first as it is and then with curly quotes read as
// straight ones, and returns the text of content that matched ("" for none).
func findActualString(content, search string) string {
	if strings.Contains(content, search) {
		return search
	}
	nc, ns := normalizeQuotes(content), normalizeQuotes(search)
	i := strings.Index(nc, ns)
	if i < 0 {
		return ""
	}
	// Normalising maps rune to rune, so rune positions agree between nc and content.
	skip, n := utf8.RuneCountInString(nc[:i]), utf8.RuneCountInString(ns)
	start := 0
	for range skip {
		_, w := utf8.DecodeRuneInString(content[start:])
		start += w
	}
	end := start
	for range n {
		_, w := utf8.DecodeRuneInString(content[end:])
		end += w
	}
	return content[start:end]
}

// preserveQuoteStyle writes the straight quotes of replacement as curly ones when the text it
// replaces (actual) used curly quotes, so an edit does not change a file's typography.
func preserveQuoteStyle(actual, replacement string) string {
	double := strings.ContainsAny(actual, string([]rune{ldquo, rdquo}))
	single := strings.ContainsAny(actual, string([]rune{lsquo, rsquo}))
	if !double && !single {
		return replacement
	}
	rs := []rune(replacement)
	opening := func(i int) bool {
		if i == 0 {
			return true
		}
		p := rs[i-1]
		return unicode.IsSpace(p) || strings.ContainsRune("([{—–", p)
	}
	for i, r := range rs {
		switch {
		case r == '"' && double:
			if opening(i) {
				rs[i] = ldquo
			} else {
				rs[i] = rdquo
			}
		case r == '\'' && single:
			between := i > 0 && i+1 < len(rs) && unicode.IsLetter(rs[i-1]) && unicode.IsLetter(rs[i+1])
			if !between && opening(i) {
				rs[i] = lsquo
			} else {
				rs[i] = rsquo
			}
		}
	}
	return string(rs)
}
