package files

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

const testNotebook = `{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "intro",
   "metadata": {},
   "source": [
    "# Title"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 3,
   "id": "calc",
   "metadata": {
    "tags": [
     "x<y"
    ]
   },
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "2\n"
     ]
    }
   ],
   "source": [
    "print(1+1)"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
`

func cellsOf(t *testing.T, s string) []map[string]any {
	t.Helper()
	var nb struct {
		Cells []map[string]any `json:"cells"`
	}
	if err := json.Unmarshal([]byte(s), &nb); err != nil {
		t.Fatalf("notebook is no longer JSON: %v\n%s", err, s)
	}
	return nb.Cells
}

func TestNotebookEdit(t *testing.T) {
	type check func(t *testing.T, cells []map[string]any, msg string)
	tests := []struct {
		name  string
		in    obj
		check check
	}{
		{"replace by id", obj{"cell_id": "calc", "new_source": "print(3)"}, func(t *testing.T, c []map[string]any, msg string) {
			if len(c) != 2 || c[1]["source"] != "print(3)" || c[1]["execution_count"] != nil || len(c[1]["outputs"].([]any)) != 0 {
				t.Errorf("cells %v", c)
			}
			if msg != "Updated cell calc with print(3)" {
				t.Errorf("message %q", msg)
			}
		}},
		{"replace by index, changing the type", obj{"cell_id": "cell-1", "new_source": "*text*", "cell_type": "markdown"}, func(t *testing.T, c []map[string]any, msg string) {
			if c[1]["cell_type"] != "markdown" || c[1]["source"] != "*text*" || c[1]["outputs"] != nil {
				t.Errorf("cells %v", c)
			}
			if _, has := c[1]["execution_count"]; has {
				t.Error("markdown cell kept execution_count")
			}
		}},
		{"insert after", obj{"cell_id": "intro", "new_source": "x = 1", "cell_type": "code", "edit_mode": "insert"}, func(t *testing.T, c []map[string]any, msg string) {
			if len(c) != 3 || c[1]["source"] != "x = 1" || c[1]["cell_type"] != "code" || c[2]["id"] != "calc" {
				t.Errorf("cells %v", c)
			}
			id, _ := c[1]["id"].(string)
			if len(id) != 12 || msg != fmt.Sprintf("Inserted cell %s with x = 1", id) {
				t.Errorf("id %q, message %q", id, msg)
			}
		}},
		{"insert at the start", obj{"new_source": "## Top", "cell_type": "markdown", "edit_mode": "insert"}, func(t *testing.T, c []map[string]any, msg string) {
			if len(c) != 3 || c[0]["source"] != "## Top" || c[1]["id"] != "intro" {
				t.Errorf("cells %v", c)
			}
		}},
		{"replace past the end inserts", obj{"cell_id": "cell-2", "new_source": "tail()"}, func(t *testing.T, c []map[string]any, msg string) {
			if len(c) != 3 || c[2]["source"] != "tail()" || c[2]["cell_type"] != "code" {
				t.Errorf("cells %v", c)
			}
		}},
		{"delete", obj{"cell_id": "intro", "new_source": "", "edit_mode": "delete"}, func(t *testing.T, c []map[string]any, msg string) {
			if len(c) != 1 || c[0]["id"] != "calc" || msg != "Deleted cell intro" {
				t.Errorf("cells %v, message %q", c, msg)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			p := f.write("n.ipynb", testNotebook)
			f.mustOK(NewRead(Options{}), obj{"file_path": p})
			in := obj{"notebook_path": p}
			for k, v := range tc.in {
				in[k] = v
			}
			res := f.mustOK(NewNotebookEdit(Options{}), in)
			got := f.read("n.ipynb")
			tc.check(t, cellsOf(t, got), res.TextOf())
			// Written the way Jupyter writes: one-space indent, sorted keys, no HTML escapes.
			if !strings.HasPrefix(got, "{\n \"cells\": [\n  {\n") || !strings.Contains(got, `"x<y"`) || !strings.HasSuffix(got, "}\n") {
				t.Errorf("format:\n%s", got)
			}
		})
	}
}

func TestNotebookEditUnchangedRoundTrip(t *testing.T) {
	f := newFixture(t)
	p := f.write("n.ipynb", testNotebook)
	f.mustOK(NewRead(Options{}), obj{"file_path": p})
	f.mustOK(NewNotebookEdit(Options{}), obj{"notebook_path": p, "cell_id": "intro", "new_source": []string{"# Title"}[0]})
	// Only the edited cell changes; Jupyter's own layout survives (source lists become a string).
	want := strings.Replace(testNotebook, "\"source\": [\n    \"# Title\"\n   ]", "\"source\": \"# Title\"", 1)
	if got := f.read("n.ipynb"); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestNotebookEditErrors(t *testing.T) {
	f := newFixture(t, denyRule("Edit", "locked/**"))
	ne := NewNotebookEdit(Options{})
	p := f.write("n.ipynb", testNotebook)
	f.write("locked/n.ipynb", testNotebook)
	f.write("bad.ipynb", "{")
	f.write("other.txt", "x")
	tests := []struct {
		name, stage string
		in          obj
		want        string
	}{
		{"not a notebook", "validate", obj{"notebook_path": f.path("other.txt"), "cell_id": "a", "new_source": "x"},
			"File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool."},
		{"insert without type", "validate", obj{"notebook_path": p, "new_source": "x", "edit_mode": "insert"},
			"Cell type is required when using edit_mode=insert."},
		{"bad mode", "decode", obj{"notebook_path": p, "cell_id": "a", "new_source": "x", "edit_mode": "append"},
			"InputValidationError: NotebookEdit failed due to the following issue:\nThe parameter `edit_mode` must be one of: replace, insert, delete (got append)"},
		{"denied", "validate", obj{"notebook_path": f.path("locked/n.ipynb"), "cell_id": "intro", "new_source": "x"}, msgDenied},
		{"missing", "validate", obj{"notebook_path": f.path("none.ipynb"), "cell_id": "intro", "new_source": "x"}, "Notebook file does not exist."},
		{"not read", "validate", obj{"notebook_path": p, "cell_id": "intro", "new_source": "x"}, msgNotRead},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { f.mustFail(ne, tc.in, tc.stage, tc.want) })
	}
	f.mustOK(NewRead(Options{}), obj{"file_path": p})
	more := []struct {
		name string
		in   obj
		want string
	}{
		{"no cell id", obj{"notebook_path": p, "new_source": "x"}, "Cell ID must be specified when not inserting a new cell."},
		{"unknown cell", obj{"notebook_path": p, "cell_id": "nope", "new_source": "x"}, `Cell with ID "nope" not found in notebook.`},
		{"index out of range", obj{"notebook_path": p, "cell_id": "cell-7", "new_source": "x"}, `Cell with ID "cell-7" not found in notebook.`},
		{"delete past the end", obj{"notebook_path": p, "cell_id": "cell-2", "new_source": "", "edit_mode": "delete"}, `Cell with ID "cell-2" not found in notebook.`},
	}
	for _, tc := range more {
		t.Run(tc.name, func(t *testing.T) { f.mustFail(ne, tc.in, "validate", tc.want) })
	}
	if f.read("n.ipynb") != testNotebook {
		t.Fatal("a refused edit changed the notebook")
	}
}

func TestNotebookEditInvalidJSON(t *testing.T) {
	f := newFixture(t)
	p := f.write("bad.ipynb", "{")
	f.env.DryRun = true
	f.mustFail(NewNotebookEdit(Options{}), obj{"notebook_path": p, "cell_id": "a", "new_source": "x"}, "validate", "Notebook is not valid JSON.")
}
