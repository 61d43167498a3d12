package settings

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/posjson"
)

// AuditSettings is the audit key of one settings file: where the audit log goes and what it
// holds (see package audit). Absent keys are nil.
type AuditSettings struct {
	// Enabled false turns the log off (it is on by default); never honoured when policy
	// settings require the log.
	Enabled *BoolEntry `json:"enabled,omitempty"`
	// Required, honoured from policy settings only, makes a log that cannot be written stop
	// Reins.
	Required      *BoolEntry `json:"required,omitempty"`
	Path          *Entry     `json:"path,omitempty"`
	MaxBytes      *Entry     `json:"maxBytes,omitempty"`
	MaxFiles      *Entry     `json:"maxFiles,omitempty"`
	LogToolInputs *BoolEntry `json:"logToolInputs,omitempty"`
}

// PolicyBundleSettings is the policyBundle key of a managed settings file: a signed settings
// document fetched from URL and verified with PublicKey (see package settings/policy).
type PolicyBundleSettings struct {
	URL       Entry      `json:"url"`
	PublicKey Entry      `json:"publicKey"`
	Required  *BoolEntry `json:"required,omitempty"`
}

// parseTeamKeys reads the audit and policyBundle keys. Both are errors when malformed in any
// file: a policy's audit requirement or bundle that went missing would run as none.
func parseTeamKeys(root *posjson.Value, s *Settings, at func(off int, format string, args ...any) *ParseError, pos func(off int) (int, int)) error {
	p := sandboxParser{at: at, pos: pos}
	if v := p.objectAt(root, "", "audit"); v != nil {
		a := &AuditSettings{}
		for _, b := range []struct {
			key string
			dst **BoolEntry
		}{{"enabled", &a.Enabled}, {"required", &a.Required}, {"logToolInputs", &a.LogToolInputs}} {
			p.boolean(v, "audit.", b.key, b.dst)
		}
		p.str(v, "audit.", "path", &a.Path, nonEmpty)
		p.str(v, "audit.", "maxBytes", &a.MaxBytes, positiveInt)
		p.str(v, "audit.", "maxFiles", &a.MaxFiles, positiveInt)
		s.Audit = a
	}
	if v := p.objectAt(root, "", "policyBundle"); v != nil {
		b := &PolicyBundleSettings{}
		var u, k *Entry
		p.str(v, "policyBundle.", "url", &u, checkBundleURL)
		p.str(v, "policyBundle.", "publicKey", &k, nonEmpty)
		p.boolean(v, "policyBundle.", "required", &b.Required)
		if p.err == nil && (u == nil || k == nil) {
			p.fail(at(v.Off, "policyBundle needs both url and publicKey"))
		}
		if u != nil && k != nil {
			b.URL, b.PublicKey = *u, *k
		}
		s.PolicyBundle = b
	}
	return p.err
}

// str reads a string, or a number written as one (maxBytes), checked by check.
func (p *sandboxParser) str(obj *posjson.Value, prefix, key string, dst **Entry, check func(string) string) {
	v := obj.Get(key)
	if v == nil || v.Kind == posjson.Null {
		return
	}
	text := v.Str
	switch v.Kind {
	case posjson.String:
	case posjson.Number:
		text = v.Raw
	default:
		p.fail(p.at(v.Off, "%s%s must be a string, not %s", prefix, key, v.Kind))
		return
	}
	if why := check(text); why != "" {
		p.fail(p.at(v.Off, "%s%s %q: %s", prefix, key, text, why))
		return
	}
	line, col := p.pos(v.Off)
	*dst = &Entry{Value: text, Line: line, Col: col}
}

func (p *sandboxParser) objectAt(obj *posjson.Value, prefix, key string) *posjson.Value {
	v := obj.Get(key)
	if v == nil || v.Kind == posjson.Null {
		return nil
	}
	if v.Kind != posjson.Object {
		p.fail(p.at(v.Off, "%s%s must be an object, not %s", prefix, key, v.Kind))
		return nil
	}
	return v
}

func nonEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return "must not be empty"
	}
	return ""
}

func positiveInt(s string) string {
	if n, err := strconv.ParseInt(s, 10, 64); err != nil || n <= 0 {
		return "must be a positive whole number"
	}
	return ""
}

// checkBundleURL accepts http and https URLs: the signature, not the transport, is what is
// trusted, so a plain http mirror is as good as any.
func checkBundleURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "must be an http:// or https:// URL"
	}
	return ""
}

// AuditConfig is the audit log's configuration merged over every source.
type AuditConfig struct {
	// Enabled is true unless a user, local, flag or policy file turned the log off and no
	// policy requires it.
	Enabled  bool
	Required bool
	// Path is the log's file ("" for the default under the config folder); RequiredFrom
	// names the policy file that requires the log.
	Path          string
	MaxBytes      int64
	MaxFiles      int
	LogToolInputs bool
	RequiredFrom  string
}

// Audit merges the audit keys: later sources win for the scalars, a policy file's required
// wins over everything, and a shared project file (which arrives with a repository) cannot
// turn the log off, point it elsewhere or change what it holds; nor can a local file until
// the project is trusted (a repository can commit one too).
func (l *Loaded) Audit(trusted bool) AuditConfig {
	c := AuditConfig{Enabled: true}
	var policyPath string
	for _, f := range l.Files {
		a := f.Settings.Audit
		if a == nil || f.Source == permission.SourceProject || (WaitsForTrust(f.Source) && !trusted) {
			continue
		}
		if a.Enabled != nil {
			c.Enabled = a.Enabled.Value
		}
		if a.Path != nil {
			c.Path = l.opts.expand(a.Path.Value)
			if f.Source == permission.SourcePolicy {
				policyPath = c.Path
			}
		}
		if a.MaxBytes != nil {
			c.MaxBytes, _ = strconv.ParseInt(a.MaxBytes.Value, 10, 64)
		}
		if a.MaxFiles != nil {
			n, _ := strconv.Atoi(a.MaxFiles.Value)
			c.MaxFiles = n
		}
		if a.LogToolInputs != nil {
			c.LogToolInputs = a.LogToolInputs.Value
		}
		if a.Required != nil && a.Required.Value && f.Source == permission.SourcePolicy {
			c.Required, c.RequiredFrom = true, fmt.Sprintf("%s:%d:%d", f.Path, a.Required.Line, a.Required.Col)
		}
	}
	if c.Required {
		c.Enabled = true
		if policyPath != "" {
			c.Path = policyPath
		}
	}
	return c
}

// PolicyBundle is the policyBundle of the managed settings (the last one wins), nil for none,
// with the file that names it. A policyBundle in any other source is ignored: only the
// administrator chooses whose policy applies.
func (l *Loaded) PolicyBundle() (*PolicyBundleSettings, string) {
	var b *PolicyBundleSettings
	var from string
	for _, f := range l.Files {
		if f.Source == permission.SourcePolicy && !f.Bundle && f.Settings.PolicyBundle != nil {
			b, from = f.Settings.PolicyBundle, f.Path
		}
	}
	return b, from
}
