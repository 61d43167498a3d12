package sandbox

import (
	"bytes"
	"strings"
)

// safeGitKeys are the settings of a repository's config that run nothing: what `git init`,
// `git clone` and everyday branch and remote commands write. Anything else (core.fsmonitor,
// core.hooksPath, core.sshCommand, core.pager, aliases, filters, diff and merge drivers,
// credential helpers, include.path, …) can make git run a program, so a config with it is
// moved aside when a sandboxed command wrote it. "*" stands for a subsection name.
var safeGitKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true, "core.logallrefupdates": true,
	"core.ignorecase": true, "core.precomposeunicode": true, "core.symlinks": true, "core.autocrlf": true,
	"core.eol": true, "core.safecrlf": true, "core.quotepath": true, "core.sharedrepository": true,
	"core.checkstat": true, "core.trustctime": true, "core.untrackedcache": true, "core.splitindex": true,
	"core.commitgraph": true, "core.multipackindex": true, "core.compression": true, "core.loosecompression": true,
	"core.bigfilethreshold": true, "core.preloadindex": true, "core.abbrev": true,
	"extensions.objectformat": true, "extensions.refstorage": true, "extensions.worktreeconfig": true,
	"extensions.preciousobjects": true, "extensions.noop": true,
	"init.defaultbranch": true, "user.name": true, "user.email": true,
	"remote.*.url": true, "remote.*.pushurl": true, "remote.*.fetch": true, "remote.*.push": true,
	"remote.*.tagopt": true, "remote.*.prune": true, "remote.*.mirror": true,
	"branch.*.remote": true, "branch.*.merge": true, "branch.*.rebase": true, "branch.*.pushremote": true,
	"branch.*.description": true,
	"submodule.*.url":      true, "submodule.*.active": true, "submodule.*.branch": true, "submodule.*.shallow": true,
	"gc.auto": true, "gc.autodetach": true, "fetch.prune": true, "pull.rebase": true, "pull.ff": true,
	"push.default": true, "push.autosetupremote": true, "index.version": true, "feature.manyfiles": true,
	"maintenance.auto": true, "maintenance.strategy": true, "rerere.enabled": true, "merge.conflictstyle": true,
	"status.showuntrackedfiles": true, "lfs.repositoryformatversion": true,
}

// safeGitConfig reports whether the git config text sets only safeGitKeys, with remote URLs
// that name no command (ext::, fd::). A line it cannot read makes it unsafe.
func safeGitConfig(b []byte) bool {
	section := ""
	for _, line := range strings.Split(string(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return false
			}
			var ok bool
			if section, ok = sectionName(line[1:end]); !ok {
				return false
			}
			line = strings.TrimSpace(line[end+1:]) // "[core] bare = false" is one line to git
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if section == "" || strings.HasSuffix(line, "\\") {
			return false // a key outside a section, or a value continued on the next line
		}
		key, value, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if strings.ContainsAny(key, " \t\"") || !safeGitKeys[section+"."+key] {
			return false
		}
		if strings.HasSuffix(key, "url") && (strings.Contains(value, "ext::") || strings.Contains(value, "fd::")) {
			return false
		}
	}
	return true
}

// sectionName turns a section header's inside (`core`, `remote "origin"`, `remote.origin`)
// into the name safeGitKeys uses (`core`, `remote.*`).
func sectionName(h string) (string, bool) {
	h = strings.TrimSpace(h)
	name, sub, hasSub := strings.Cut(h, " ")
	if !hasSub {
		name, _, hasSub = strings.Cut(h, ".")
	} else if sub = strings.TrimSpace(sub); len(sub) < 2 || sub[0] != '"' || sub[len(sub)-1] != '"' {
		return "", false
	}
	name = strings.ToLower(name)
	if name == "" || strings.ContainsAny(name, "\"\\") {
		return "", false
	}
	if hasSub {
		return name + ".*", true
	}
	return name, true
}
