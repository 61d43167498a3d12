package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/reinsdev/reins/llm"
)

// MemoryFile is one memory file of the session, as /memory lists it.
type MemoryFile struct {
	Path string
	// Source says where it comes from ("project", "user", "imported by …").
	Source string
}

// MemoryReport is what /memory shows: the files read, those left out and why, and whether the
// project's memory is framed as untrusted.
type MemoryReport struct {
	Files     []MemoryFile
	Warnings  []string
	Untrusted bool
}

// initPrompt is the turn /init sends: the model reads the project and writes CLAUDE.md, with
// the Write tool and so through the permission engine like any other edit.
const initPrompt = `Please analyze this codebase and create a CLAUDE.md file in the working directory, which will be given to future coding agents working in this repository.

What to add:
1. The commands used most: how to build, lint and run the tests, including how to run a single test.
2. The high-level architecture and structure of the code: what someone must know to be productive, which needs reading several files to understand.

Usage notes:
- If there is already a CLAUDE.md, suggest improvements to it instead of starting over.
- Include the important parts of a README.md, AGENTS.md, .cursorrules, .cursor/rules/ or .github/copilot-instructions.md if there are any.
- Do not repeat yourself, and do not list every component or file: they can be found easily.
- Do not make up information that is not backed by the files you read.
- Begin the file with:

# CLAUDE.md

This file gives guidance to coding agents working with code in this repository.`

// untrustedMemoryNote starts the chat of an untrusted project that has memory files.
const untrustedMemoryNote = "This project is not trusted: its CLAUDE.md and AGENTS.md are shown to the model as the repository's information, not as instructions, and may not import files outside it. /memory lists them; reins trust trusts the project."

// editorDone is sent when the editor /memory started exits.
type editorDone struct {
	path string
	err  error
}

// memoryCommand runs /memory [N|project|user|local].
func (m *Model) memoryCommand(args []string) tea.Cmd {
	if m.cfg.Memory == nil {
		m.entries = append(m.entries, &entry{kind: entryError, text: "/memory: this session has no memory files"})
		return nil
	}
	r := m.cfg.Memory()
	if len(args) == 0 {
		m.entries = append(m.entries, &entry{kind: entryInfo, text: m.memoryList(r)})
		return nil
	}
	path, err := m.memoryTarget(r, args[0])
	if err != nil {
		m.entries = append(m.entries, &entry{kind: entryError, text: err.Error()})
		return nil
	}
	return m.openEditor(path)
}

func (m *Model) memoryList(r MemoryReport) string {
	var b strings.Builder
	if len(r.Files) == 0 {
		b.WriteString("No memory files. /init writes a CLAUDE.md for this project.\n")
	} else {
		b.WriteString("Memory files, in the order the model reads them:\n")
	}
	for i, f := range r.Files {
		fmt.Fprintf(&b, "  %d. %s (%s)\n", i+1, m.short(f.Path), f.Source)
	}
	if r.Untrusted {
		b.WriteString(untrustedMemoryNote + "\n")
	}
	if len(r.Warnings) > 0 {
		b.WriteString("Left out:\n")
		for _, w := range r.Warnings {
			b.WriteString("  " + w + "\n")
		}
	}
	b.WriteString("/memory N opens file N in $EDITOR; /memory project, local or user opens that file (created when you save it). Changes reach the model from the next session.")
	return b.String()
}

// memoryTarget is the file /memory ARG opens.
func (m *Model) memoryTarget(r MemoryReport, arg string) (string, error) {
	switch arg {
	case "project":
		return filepath.Join(m.cfg.Cwd, "CLAUDE.md"), nil
	case "local":
		return filepath.Join(m.cfg.Cwd, "CLAUDE.local.md"), nil
	case "user":
		if m.cfg.Home == "" {
			return "", fmt.Errorf("/memory user: no home folder")
		}
		return filepath.Join(m.cfg.Home, ".claude", "CLAUDE.md"), nil
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 || n > len(r.Files) {
		return "", fmt.Errorf("/memory %s: give a file's number from the list (1 to %d), or project, local or user", arg, len(r.Files))
	}
	return r.Files[n-1].Path, nil
}

// openEditor suspends the chat and opens path in $VISUAL or $EDITOR (vi without either).
func (m *Model) openEditor(path string) tea.Cmd {
	editor := strings.Fields(os.Getenv("VISUAL"))
	if len(editor) == 0 {
		editor = strings.Fields(os.Getenv("EDITOR"))
	}
	if len(editor) == 0 {
		editor = []string{"vi"}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		m.entries = append(m.entries, &entry{kind: entryError, text: fmt.Sprintf("/memory: %v", err)})
		return nil
	}
	c := exec.Command(editor[0], append(editor[1:], path)...)
	return tea.ExecProcess(c, func(err error) tea.Msg { return editorDone{path: path, err: err} })
}

func (m *Model) editorDone(msg editorDone) {
	if msg.err != nil {
		m.entries = append(m.entries, &entry{kind: entryError, text: fmt.Sprintf("/memory: the editor of %s failed: %v", m.short(msg.path), msg.err)})
		return
	}
	m.entries = append(m.entries, &entry{kind: entryInfo, text: "Edited " + m.short(msg.path) + ". The model reads it from the next session."})
}

// initCommand sends /init's prompt as the person's turn.
func (m *Model) initCommand() tea.Cmd {
	if m.running {
		m.queued = append(m.queued, initPrompt)
		return nil
	}
	m.scrollback.follow()
	m.entries = append(m.entries, &entry{kind: entryUser, text: "/init"})
	return m.startTurn(llm.UserText(initPrompt))
}

// short names a path relative to the working directory or home when it is under one.
func (m *Model) short(p string) string {
	if rel, err := filepath.Rel(m.cfg.Cwd, p); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	if m.cfg.Home != "" {
		if rel, err := filepath.Rel(m.cfg.Home, p); err == nil && filepath.IsLocal(rel) {
			return "~/" + rel
		}
	}
	return p
}
