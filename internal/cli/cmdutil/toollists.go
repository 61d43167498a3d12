package cmdutil

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/settings"
)

// toolListFlags are the flags that take several values after one flag, as Claude Code's
// commander options do: --disallowedTools 'Bash(curl:*)' 'Bash(rm:*)'.
var toolListFlags = map[string]string{
	"--allowedTools": "--allowedTools", "--allowed-tools": "--allowedTools",
	"--disallowedTools": "--disallowedTools", "--disallowed-tools": "--disallowedTools",
}

// ExpandToolLists rewrites the variadic form of --allowedTools and --disallowedTools into one
// --flag=value per value, before cobra parses the arguments. As in Claude Code, a list flag
// takes the argument after it whatever it is, and then every following argument up to the
// next one that starts with "-"; the "--flag=value" form takes one value.
//
// Cobra alone would take only the first value and make the rest prompt text, so a second deny
// rule silently became part of the prompt and blocked nothing. The variadic form has the
// opposite hazard, a prompt read as rules, so every value after the first must be a valid
// permission rule list: anything else is a usage error telling how to end the list, and a
// rule is never turned into prompt text nor a prompt into a rule without saying so.
func ExpandToolLists(root *cobra.Command, args []string) ([]string, error) {
	valued := ValueFlags(root)
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		name, _, hasValue := strings.Cut(a, "=")
		flag, isList := toolListFlags[name]
		switch {
		case isList && !hasValue:
			if i+1 >= len(args) {
				return nil, UsageErrorf("flag needs an argument: %s", a)
			}
			i++
			out = append(out, flag+"="+args[i])
			for i+1 < len(args) && !isFlagLike(args[i+1]) {
				i++
				v := args[i]
				if err := checkListValue(v); err != nil {
					return nil, UsageErrorf("%s takes every value up to the next flag, and %q is not a permission rule (%v): "+
						`end the list with "--" before the prompt (reins -p %s "Bash(rm:*)" -- "your prompt"), or give the rules as one comma-separated value`,
						flag, v, err, flag)
				}
				out = append(out, flag+"="+v)
			}
		case isList:
			// One value after "=": only the spelling of the flag is brought to the canonical one.
			out = append(out, flag+a[len(name):])
		case !hasValue && valued[a] && i+1 < len(args):
			// Another flag's value is copied as it is, even when it looks like a list flag.
			out = append(out, a, args[i+1])
			i++
		default:
			out = append(out, a)
		}
	}
	return out, nil
}

// isFlagLike is commander's test for an option: "-" followed by anything.
func isFlagLike(s string) bool { return len(s) > 1 && s[0] == '-' }

// checkListValue reports why a later value of a list flag is not a list of rules.
func checkListValue(v string) error {
	rules := settings.SplitToolList(v)
	if len(rules) == 0 {
		return fmt.Errorf("it is empty")
	}
	for _, r := range rules {
		if err := permission.ValidateRule(r); err != nil {
			return fmt.Errorf("%q: %w", r, err)
		}
	}
	return nil
}

// ValueFlags lists the spellings ("--name", "-n") of every flag in the command tree that takes
// a value, so that a value is never mistaken for a flag.
func ValueFlags(root *cobra.Command) map[string]bool {
	out := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				if f.NoOptDefVal != "" {
					return
				}
				out["--"+f.Name] = true
				if f.Shorthand != "" {
					out["-"+f.Shorthand] = true
				}
			})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// ToolListFlag reports whether name is one of the list flags, and its canonical name.
func ToolListFlag(name string) (canonical string, ok bool) {
	canonical, ok = toolListFlags[name]
	return canonical, ok
}
