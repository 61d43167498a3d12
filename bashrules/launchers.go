package bashrules

import "strings"

// launchers are tools whose subcommand runs another command given as its arguments (npx
// prettier, devbox run make, uv run pytest). Their options are too many and change too often to
// follow, so the command they run is guessed at every later word: deny and ask rules and the
// guessed command's safety checks (protected writes, exec-family options) apply to it, while
// allowing still needs a rule for the launcher itself.
var launchers = map[string][]string{
	"npx": {""}, "bunx": {""}, "uvx": {""}, "pnpx": {""}, "dotenv": {""}, "dotenvx": {"run"},
	"devbox": {"run"}, "pnpm": {"dlx", "exec"}, "yarn": {"dlx", "exec"}, "bun": {"x", "run"}, "npm": {"exec", "x"},
	"pipx": {"run"}, "uv": {"run"}, "poetry": {"run"}, "pdm": {"run"}, "rye": {"run"}, "hatch": {"run"}, "pixi": {"run", "exec"},
	"conda": {"run"}, "mamba": {"run"}, "micromamba": {"run"}, "mise": {"exec", "x"}, "rtx": {"exec", "x"}, "asdf": {"exec"},
	"direnv": {"exec"}, "nix": {"shell", "develop", "run"}, "nix-shell": {""}, "op": {"run"}, "doppler": {"run"},
	"aws-vault": {"exec"}, "sops": {"exec-env", "exec-file"}, "bundle": {"exec"}, "cargo": {"run"}, "go": {"run"},
	"dotnet": {"run"}, "stack": {"exec"}, "cabal": {"exec"}, "opam": {"exec"}, "rbenv": {"exec"}, "pyenv": {"exec"},
	"nodenv": {"exec"}, "volta": {"run"}, "fnm": {"exec"}, "nvm": {"exec", "run"}, "scl": {"enable"}, "toolbox": {"run"},
	"distrobox": {"enter"}, "docker": {"exec", "run"}, "podman": {"exec", "run"}, "kubectl": {"exec"},
}

// launched returns the words after a launcher's subcommand, and the script of nix-shell --run
// or --command.
func launched(name string, args []Word) (rest []Word, script *Word, ok bool) {
	subs, ok := launchers[name]
	if !ok {
		return nil, nil, false
	}
	if name == "nix-shell" || name == "nix" {
		for i, a := range args {
			if a.Known && (a.Value == "--run" || a.Value == "--command" || a.Value == "-c") && i+1 < len(args) {
				s := args[i+1]
				script = &s
			}
		}
	}
	if subs[0] == "" {
		return args, script, true
	}
	for i, a := range args {
		if !a.Known {
			return nil, script, script != nil
		}
		if strings.HasPrefix(a.Value, "-") {
			continue
		}
		if contains(subs, a.Value) {
			return args[i+1:], script, true
		}
		break
	}
	return nil, script, script != nil
}
