// Package skilltool is Claude Code's Skill tool: the model names a skill of the session and
// gets its instructions, with the paths of the other files in its folder for Read.
//
// The tool's prompt lists each skill's name and description, which is how they reach the
// system prompt; a body reaches the model only through a call. A call is decided by the
// engine like any other: Skill(name) rules deny, ask or allow it, and a Read deny or ask rule
// covering the skill's SKILL.md does the same (loading a skill reads that file). Otherwise it
// is allowed: it reads text the session already lists and runs nothing. Applying the skill's
// allowed-tools for the turn is the session's business, through OnLoad.
package skilltool

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/skills"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/internal/schemax"
)

// Name is the tool's name.
const Name = "Skill"

// Input is the Skill tool's input, as in Claude Code.
type Input struct {
	Skill string `json:"skill" jsonschema:"The skill name, exactly as listed (a plugin's skill is plugin:name)"`
	Args  string `json:"args,omitempty" jsonschema:"Optional arguments for the skill"`
}

// Options are what the tool is made with.
type Options struct {
	Skills *skills.Set
	// OnLoad, when set, is told of each skill a call loaded, with the call's environment: the
	// session applies the skill's allowed-tools for the turn through env.AddTurnRules.
	OnLoad func(ctx context.Context, s *skills.Skill, env *tool.Env)
	// Grants are the rules loading s would apply (what OnLoad adds); nil is s.Rules(). A
	// load that grants rules is asked about like any other grant.
	Grants func(s *skills.Skill) []permission.Rule
}

// New returns the Skill tool over the set's skills the model may load.
func New(o Options) tool.Tool {
	return tool.Build(tool.Def[Input]{
		Name:        Name,
		SearchHint:  "load a skill's instructions",
		Description: "Load a skill: its instructions and the files that come with it",
		PromptFunc:  func(context.Context) (string, error) { return prompt(o.Skills), nil },
		Schema: schemax.For[Input](func(s *jsonschema.Schema) {
			s.Properties["skill"].MinLength = schemax.Ptr(1)
		}),
		Validate: func(_ context.Context, in Input, _ *tool.Env) *tool.Failure {
			if find(o.Skills, in.Skill) == nil {
				return tool.Failf("Unknown skill: %s", in.Skill)
			}
			return nil
		},
		CheckPermissions: func(ctx context.Context, pc *permission.Context, in Input) permission.Decision {
			s := find(o.Skills, in.Skill)
			return check(ctx, pc, s, in.Skill, o.grants(s))
		},
		ReadOnly:        func(Input) bool { return true },
		ConcurrencySafe: func(Input) bool { return true },
		MaxResultChars:  tool.NeverPersist,
		Paths: func(in Input) []string {
			if s := find(o.Skills, in.Skill); s != nil {
				return []string{s.File}
			}
			return nil
		},
		Call: func(ctx context.Context, in Input, env *tool.Env) (tool.Result, error) {
			s := find(o.Skills, in.Skill)
			if s == nil {
				return tool.Failf("Unknown skill: %s", in.Skill).Result(), nil
			}
			files, truncated, err := s.Files(ctx)
			if err != nil {
				return tool.Result{}, fmt.Errorf("listing the files of skill %s: %w", s.Name, err)
			}
			if o.OnLoad != nil {
				o.OnLoad(ctx, s, env)
			}
			return tool.TextResult(render(s, in.Args, files, truncated)), nil
		},
	})
}

// find returns the skill the model may load by that name, or nil.
func find(set *skills.Set, name string) *skills.Skill {
	s := set.Get(strings.TrimPrefix(strings.TrimSpace(name), "/"))
	if s == nil || s.DisableModelInvocation {
		return nil
	}
	return s
}

// grants are the rules loading s would apply.
func (o Options) grants(s *skills.Skill) []permission.Rule {
	if s == nil {
		return nil
	}
	if o.Grants != nil {
		return o.Grants(s)
	}
	rules, _ := s.Rules()
	return rules
}

// check decides a call: Skill(name) rules, then the Read rules of SKILL.md's deny and ask,
// then the skill's grants: a load that would apply allowed-tools asks, as a grant (Claude Code
// asks before a skill with allowed-tools runs); "don't ask again" is Skill(name) for the
// session. One that grants nothing only reads instructions, and is allowed.
func check(ctx context.Context, pc *permission.Context, s *skills.Skill, name string, grants []permission.Rule) permission.Decision {
	if s == nil {
		// Validate refuses it first; a check that cannot see the skill never allows.
		return permission.Decision{Behavior: permission.Ask, Message: permission.RequestMessage(Name)}
	}
	for _, b := range []permission.Behavior{permission.Deny, permission.Ask, permission.Allow} {
		for _, r := range pc.ContentRules(b, Name) {
			if !matches(r.Value.Content, s.Name) {
				continue
			}
			permission.NoteRule(ctx, "skill: name rule", r, b.String())
			d := permission.Decision{Behavior: b, Reason: &permission.Reason{Type: permission.ReasonRule, Rule: r}}
			switch b {
			case permission.Deny:
				d.Message = fmt.Sprintf("Skill %s has been denied by permission rule '%s' from %s.", s.Name, r.Value.String(), r.Source)
			case permission.Ask:
				d.Message = permission.RequestMessage(Name)
			}
			return d
		}
	}
	if rd := pc.CheckRead(ctx, s.File); rd.Behavior == permission.Deny || rd.Behavior == permission.Ask && rd.Reason != nil && (rd.Reason.Type == permission.ReasonRule || rd.Reason.Type == permission.ReasonSafetyCheck) {
		permission.Notef(ctx, "skill: read of SKILL.md", rd.Behavior.String(), "%s", s.File)
		return rd
	}
	permission.Notef(ctx, "skill: name rule", "no match", "%s", name)
	if len(grants) > 0 {
		return grantAsk(ctx, s, grants)
	}
	return permission.Decision{Behavior: permission.Allow,
		Reason: &permission.Reason{Type: permission.ReasonOther, Detail: "loading a skill reads its instructions and runs nothing"}}
}

// grantAsk is the ask of a load that would grant rules: it names each with where it is
// written, and suggests Skill(name) for the session.
func grantAsk(ctx context.Context, s *skills.Skill, grants []permission.Rule) permission.Decision {
	names := make([]string, len(grants))
	for i, r := range grants {
		names[i] = r.Value.String()
		if o := r.Origin.String(); o != "" {
			names[i] += " (" + o + ")"
		}
	}
	list := strings.Join(names, ", ")
	permission.Notef(ctx, "skill: grants allowed-tools", "ask", "%s", list)
	return permission.Decision{Behavior: permission.Ask,
		Message: fmt.Sprintf("Load the skill %s? Its allowed-tools then run without asking until the turn ends: %s.", s.Name, list),
		Reason:  &permission.Reason{Type: permission.ReasonOther, Detail: "the skill grants allowed-tools: " + list},
		Suggestions: []permission.Update{{Type: permission.AddRules, Destination: permission.SourceSession, Behavior: permission.Allow,
			Rules: []permission.RuleValue{{Tool: Name, Content: s.Name}}}}}
}

// matches is a Skill rule's content against a name: exact, or "prefix:*".
func matches(content, name string) bool {
	if p, ok := strings.CutSuffix(content, ":*"); ok {
		return name == p || strings.HasPrefix(name, p+":")
	}
	return content == name
}

// render is what the model reads: where the skill is, its instructions, the arguments, and
// the files it may read.
func render(s *skills.Skill, args string, files []string, truncated bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Launching skill: %s\n\nBase directory for this skill: %s\n\n%s\n", s.Name, s.Dir, s.Body)
	if a := strings.TrimSpace(args); a != "" {
		fmt.Fprintf(&b, "\nARGUMENTS: %s\n", a)
	}
	if len(files) > 0 {
		b.WriteString("\nFiles in this skill's folder (read them with Read when the instructions call for them):\n")
		for _, f := range files {
			fmt.Fprintf(&b, "- %s\n", f)
		}
		if truncated {
			fmt.Fprintf(&b, "(more files are not listed: at most %d, from folders at most a few levels deep)\n", skills.MaxFiles)
		}
	}
	return b.String()
}

// prompt lists the skills the model may load, names and descriptions only.
func prompt(set *skills.Set) string {
	var b strings.Builder
	b.WriteString(`Load a skill: specialised instructions for a kind of task, with files that come with them.

When a task matches a skill's description, call this tool with the skill's name before you start the task; follow the instructions it returns. Do not load a skill that is already loaded in this conversation, and do not guess names: use only those listed below.

<available_skills>
`)
	for _, s := range set.ForModel() {
		fmt.Fprintf(&b, "<skill>\n<name>%s</name>\n<description>%s</description>\n<location>%s</location>\n</skill>\n", s.Name, s.Description, s.Where())
	}
	b.WriteString("</available_skills>")
	return b.String()
}
