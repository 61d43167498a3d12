package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
)

// prober is implemented by a backend that can name what its probe's verdict depends on (its
// program, the kernel, the user, the reins binary), so that a success can be remembered.
type prober interface {
	ProbeKey(spec *Spec) string
}

func probeKey(b Backend, spec *Spec) string {
	if p, ok := b.(prober); ok {
		return p.ProbeKey(spec)
	}
	return ""
}

// probeCache is Config.ProbeCache's content: for each backend, the key of the machine's state
// under which its probe last succeeded. Only successes are kept: a failing backend is tried
// again by every session.
type probeCache struct {
	path   string
	Worked map[string]string `json:"worked"`
}

func loadProbeCache(path string) *probeCache {
	c := &probeCache{path: path, Worked: map[string]string{}}
	if path == "" {
		return c
	}
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, c)
		if c.Worked == nil {
			c.Worked = map[string]string{}
		}
	}
	return c
}

func (c *probeCache) worked(backend, key string) bool { return c.Worked[backend] == key }

// record notes a success and writes the file (a failure to write only costs the next
// session a probe).
func (c *probeCache) record(backend, key string) {
	if c.path == "" || c.Worked[backend] == key {
		return
	}
	c.Worked[backend] = key
	b, err := json.Marshal(c)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ".probe-*")
	if err != nil {
		return
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil && cerr == nil {
		err = os.Rename(tmp.Name(), c.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}

// FileKey describes the file at p for a probe key: its path, size and modification time.
func FileKey(p string) string {
	fi, err := os.Stat(p)
	if err != nil {
		return p + ":missing"
	}
	return p + ":" + fi.ModTime().UTC().Format("20060102T150405.000000000") + ":" + strconv.FormatInt(fi.Size(), 10)
}
