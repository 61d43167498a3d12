package files

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/internal/schemax"
)

// WriteInput is the input of the Write tool.
type WriteInput struct {
	FilePath string `json:"file_path" jsonschema:"The absolute path to the file to write (must be absolute, not relative)"`
	Content  string `json:"content" jsonschema:"The content to write to the file"`
}

// WriteOutput is the structured output of a Write call.
type WriteOutput struct {
	Type     string `json:"type"` // "create" or "update"
	FilePath string `json:"filePath"`
}

const writePrompt = `Writes a file to the local filesystem.

Usage:
- This tool will overwrite the existing file if there is one at the provided path.
- If this is an existing file, you MUST use the Read tool first to read the file's contents. This tool will fail if you did not read the file first.
- Missing parent directories are created.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- NEVER proactively create documentation files (*.md) or README files. Only create documentation files if explicitly requested by the User.
- Only use emojis if the user explicitly requests it. Avoid writing emojis to files unless asked.`

// NewWrite returns the Write tool.
func NewWrite(opts Options) tool.Tool {
	w := &writer{opts: opts}
	return tool.Build(tool.Def[WriteInput]{
		Name:        "Write",
		SearchHint:  "create or overwrite files",
		Description: "Write a file to the local filesystem",
		Prompt:      writePrompt,
		SchemaJSON: schemax.Static("Write", func() *jsonschema.Schema {
			return schemax.For[WriteInput](nil)
		}),
		Validate: func(ctx context.Context, in WriteInput, env *tool.Env) *tool.Failure {
			_, f := w.plan(ctx, in, env, msgModified)
			return f
		},
		CheckPermissions: func(ctx context.Context, pc *permission.Context, in WriteInput) permission.Decision {
			return pc.CheckWrite(ctx, in.FilePath)
		},
		Paths: func(in WriteInput) []string { return []string{in.FilePath} },
		Call:  w.call,
	})
}

type writer struct{ opts Options }

type writePlan struct {
	abs    string
	target target
	data   []byte
}

func (w *writer) plan(ctx context.Context, in WriteInput, env *tool.Env, modifiedMsg string) (*writePlan, *tool.Failure) {
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
	t, err := writeTarget(abs, w.opts)
	if err != nil {
		return nil, tool.Failf("Error reading %s: %v", abs, err)
	}
	p := &writePlan{abs: abs, target: t, data: []byte(in.Content)}
	if !t.exists {
		return p, nil
	}
	fi, err := os.Stat(t.path)
	if err != nil {
		return nil, tool.Failf("Error reading %s: %v", abs, err)
	}
	if fi.IsDir() {
		return nil, tool.Failf("%s is a directory, not a file.", abs)
	}
	if fi.Size() > maxEditBytes {
		return nil, tool.Failf("File is too large to overwrite (%s). Maximum size is %s.", tool.FormatSize(fi.Size()), tool.FormatSize(maxEditBytes))
	}
	raw, err := os.ReadFile(t.path)
	if err != nil {
		return nil, tool.Failf("Error reading %s: %v", abs, err)
	}
	if err := checkFresh(env, abs, fi, raw, true, modifiedMsg); err != nil {
		return nil, err
	}
	// Keep the file's encoding; the content's line endings are written as given.
	_, format := decodeText(raw)
	p.data = format.encode(in.Content)
	return p, nil
}

func (w *writer) call(ctx context.Context, in WriteInput, env *tool.Env) (tool.Result, error) {
	p, f := w.plan(ctx, in, env, msgModifiedAtCall)
	if f != nil {
		return f.Result(), nil
	}
	if p == nil {
		return tool.Result{}, errors.New("cannot write the network path " + in.FilePath)
	}
	if err := writeAtomic(p.target, p.data, w.opts); err != nil {
		return tool.Result{}, err
	}
	recordWrite(env, p.abs, p.data)
	if p.target.exists {
		return tool.Result{Content: []tool.Content{tool.Text(fmt.Sprintf("The file %s has been updated successfully.", p.abs))},
			Output: WriteOutput{Type: "update", FilePath: p.abs}}, nil
	}
	return tool.Result{Content: []tool.Content{tool.Text(fmt.Sprintf("File created successfully at: %s", p.abs))},
		Output: WriteOutput{Type: "create", FilePath: p.abs}}, nil
}
