package permission

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// DefaultSecretFiles are the files that hold secrets wherever they are: reading one taints the
// session (taint.go). The patterns are Read-rule patterns (docs/permissions.md, "Taint"); an
// unanchored one matches at any depth anywhere on the machine, "~/" ones under the home
// directory. Settings add to this list (permissions.secretFiles); nothing removes from it.
var DefaultSecretFiles = []string{
	// Environment files: .env, .env.local, .env.production, .envrc.
	".env*",
	// Keys and certificates with their private halves.
	"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore",
	// SSH private keys (the public halves match too: the name is all the table has).
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
	// Credentials of package registries, git and network tools.
	".npmrc", ".netrc", "_netrc", ".pypirc", ".git-credentials", ".pgpass", ".htpasswd",
	// Cloud and container credentials.
	"~/.aws/credentials", "~/.config/gcloud/**", "~/.azure/**", "~/.kube/config", "~/.docker/config.json",
	"~/.gnupg/**",
	// Tokens of command-line clients: GitHub's gh and hub, Cargo, RubyGems, Terraform.
	"~/.config/gh/hosts.yml", "~/.config/hub", "~/.cargo/credentials", "~/.cargo/credentials.toml",
	"~/.gem/credentials", "~/.terraform.d/credentials.tfrc.json",
	// Shell and REPL histories: the tokens and passwords typed on command lines.
	".bash_history", ".zsh_history", ".sh_history", "~/.local/share/fish/fish_history",
	".python_history", ".node_repl_history", ".psql_history", ".mysql_history", ".rediscli_history",
}

// SecretFile is one pattern of files that hold secrets.
type SecretFile struct {
	// Pattern is a Read-rule path pattern.
	Pattern string
	// Origin is where a pattern from settings was written; empty for DefaultSecretFiles.
	Origin Origin
	// Root is the directory a "/x" pattern is relative to (the settings file's root).
	Root string

	rule *Rule
}

// ValidateSecretFile checks a pattern of permissions.secretFiles: the rules of a Read rule's
// content, and not empty.
func ValidateSecretFile(p string) error {
	if strings.TrimSpace(p) == "" {
		return errors.New("secret file pattern cannot be empty")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return ErrNULByte
	}
	if err := ValidateRule(RuleValue{Tool: "Read", Content: p}.String()); err != nil {
		return err
	}
	if _, err := compilePathPattern(p, Deny, nil); err != nil {
		return err
	}
	return nil
}

// compileSecrets compiles the default patterns and extra, in that order. A pattern is matched
// as a Read deny rule is: case-insensitively, against every form of a path.
func compileSecrets(extra []SecretFile) ([]SecretFile, error) {
	out := make([]SecretFile, 0, len(DefaultSecretFiles)+len(extra))
	for _, p := range DefaultSecretFiles {
		out = append(out, SecretFile{Pattern: p})
	}
	out = append(out, extra...)
	var errs []error
	kept := out[:0]
	for _, s := range out {
		r := &Rule{Value: RuleValue{Tool: "Read", Content: s.Pattern}, Behavior: Deny, Origin: s.Origin, Root: s.Root}
		if err := r.compile(nil); err != nil {
			errs = append(errs, fmt.Errorf("secret file pattern %q (%s): %w", s.Pattern, s.Origin, err))
			continue
		}
		s.rule = r
		kept = append(kept, s)
	}
	return kept, errors.Join(errs...)
}

// SecretFiles are the context's secret file patterns: the defaults, then those of settings.
func (c *Context) SecretFiles() []SecretFile {
	out := make([]SecretFile, len(c.secrets))
	for i, s := range c.secrets {
		out[i] = s
		out[i].rule = nil
	}
	return out
}

// SecretFile returns the secret pattern that covers p — the path as given or any form it
// takes through symlinks — and whether one does. p may be relative to the current directory.
// A path that cannot be resolved counts as a secret: the answer must not be "no" by mistake.
func (c *Context) SecretFile(ctx context.Context, p string) (SecretFile, bool) {
	abs, err := c.ResolvePath(p)
	if err != nil {
		return SecretFile{Pattern: p}, true
	}
	forms := pathForms(ctx, abs)
	for _, s := range c.secrets {
		for _, f := range forms {
			if c.secretMatch(s.rule, f) {
				return s, true
			}
		}
	}
	return SecretFile{}, false
}

// secretMatch is a Read deny rule's match, with one addition: a pattern without an anchor is
// also matched from the root, so ".env*" covers a .env outside the working directories too.
func (c *Context) secretMatch(r *Rule, f pathForm) bool {
	if r.matchPath(c, f) {
		return true
	}
	return r.path != nil && r.path.anchor == anchorCwd && r.matchFrom("/", f)
}
