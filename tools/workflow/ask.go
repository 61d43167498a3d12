package workflow

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/tool"
	"github.com/reinsdev/reins/tools/internal/schemax"
)

// AskUserQuestionName is the AskUserQuestion tool's name.
const AskUserQuestionName = "AskUserQuestion"

// AskMessage is the ask AskUserQuestion's permission check returns.
const AskMessage = "Answer questions?"

// Option is one answer a question offers.
type Option struct {
	Label       string `json:"label" jsonschema:"The text of the choice shown to the user (1-5 words)"`
	Description string `json:"description" jsonschema:"What this choice means or implies"`
}

// Question is one question with its choices. The user may always answer in their own words
// instead.
type Question struct {
	Question    string   `json:"question" jsonschema:"The complete question, ending with a question mark"`
	Header      string   `json:"header" jsonschema:"A very short label shown as a chip (at most 12 characters), e.g. \"Auth method\""`
	Options     []Option `json:"options" jsonschema:"2 to 4 distinct choices; do not add an \"Other\" choice, it is always offered"`
	MultiSelect bool     `json:"multiSelect,omitempty" jsonschema:"Allow choosing several options. Defaults to false"`
}

// AskUserQuestionInput is AskUserQuestion's input. Answers is filled by whoever puts the
// questions to the user (see [WithAnswers]); the model leaves it out.
type AskUserQuestionInput struct {
	Questions []Question        `json:"questions" jsonschema:"1 to 4 questions to ask the user"`
	Answers   map[string]string `json:"answers,omitempty" jsonschema:"The user's answers, keyed by question text. Filled in by the permission prompt; do not set it"`
}

// AskUserQuestionOutput is AskUserQuestion's structured result.
type AskUserQuestionOutput struct {
	Questions []Question        `json:"questions"`
	Answers   map[string]string `json:"answers"`
}

// WithAnswers returns in with the user's answers (question text → chosen label, or several
// labels joined with ", ", or free text) — the updated input an asker approves with.
func WithAnswers(in AskUserQuestionInput, answers map[string]string) AskUserQuestionInput {
	in.Answers = maps.Clone(answers)
	return in
}

const uniqueMessage = "Question texts must be unique, option labels must be unique within each question"

const askPrompt = `Ask the user questions while you work, when you need to:
1. Gather their preferences or requirements
2. Clarify an ambiguous instruction
3. Get a decision on how to implement something
4. Offer them a choice of direction

Notes:
- Ask 1 to 4 questions at once, each with 2 to 4 distinct options. The user can always answer in their own words instead, so do not add an "Other" option.
- Set multiSelect: true when several options may apply together.
- If you recommend an option, list it first and end its label with "(Recommended)".
- In plan mode, use this to clarify requirements before the plan is final, not to ask whether the plan is ready (ExitPlanMode asks for approval).`

// NewAskUserQuestion returns the AskUserQuestion tool.
func NewAskUserQuestion() tool.Tool {
	return tool.Build(tool.Def[AskUserQuestionInput]{
		Name:        AskUserQuestionName,
		SearchHint:  "ask the user multiple-choice questions",
		Description: "Ask the user questions with multiple-choice answers",
		Prompt:      askPrompt,
		SchemaJSON: schemax.Static(AskUserQuestionName, func() *jsonschema.Schema {
			return schemax.For[AskUserQuestionInput](func(s *jsonschema.Schema) {
				qs := s.Properties["questions"]
				qs.MinItems, qs.MaxItems = schemax.Ptr(1), schemax.Ptr(4)
				opts := qs.Items.Properties["options"]
				opts.MinItems, opts.MaxItems = schemax.Ptr(2), schemax.Ptr(4)
				schemax.Default(qs.Items.Properties["multiSelect"], false)
			})
		}),
		Validate: func(_ context.Context, in AskUserQuestionInput, _ *tool.Env) *tool.Failure {
			return validateQuestions(in.Questions)
		},
		CheckPermissions: func(context.Context, *permission.Context, AskUserQuestionInput) permission.Decision {
			return permission.Decision{Behavior: permission.Ask, Message: AskMessage,
				Reason: &permission.Reason{Type: permission.ReasonOther, Detail: "questions must be answered by the user"}}
		},
		RequiresUserInteraction: true,
		ReadOnly:                func(AskUserQuestionInput) bool { return true },
		ConcurrencySafe:         func(AskUserQuestionInput) bool { return true },
		Defer:                   true,
		Call: func(_ context.Context, in AskUserQuestionInput, _ *tool.Env) (tool.Result, error) {
			if len(in.Answers) == 0 {
				return tool.ErrorResult("The user did not answer the questions. Continue without their answers, or ask again if you cannot proceed."), nil
			}
			var parts []string
			for _, q := range in.Questions {
				if a, ok := in.Answers[q.Question]; ok {
					parts = append(parts, `"`+q.Question+`"="`+a+`"`)
				}
			}
			text := fmt.Sprintf("User has answered your questions: %s. You can now continue with the user's answers in mind.", strings.Join(parts, ", "))
			return tool.Result{
				Content: []tool.Content{tool.Text(text)},
				Output:  AskUserQuestionOutput{Questions: in.Questions, Answers: maps.Clone(in.Answers)},
			}, nil
		},
	})
}

// validateQuestions enforces the counts (the schema states them too) and uniqueness.
func validateQuestions(qs []Question) *tool.Failure {
	if len(qs) < 1 || len(qs) > 4 {
		return tool.Failf("Ask between 1 and 4 questions, not %d", len(qs))
	}
	seen := map[string]bool{}
	for _, q := range qs {
		if len(q.Options) < 2 || len(q.Options) > 4 {
			return tool.Failf("Question %q needs between 2 and 4 options, not %d", q.Question, len(q.Options))
		}
		if seen[q.Question] {
			return tool.Fail(uniqueMessage)
		}
		seen[q.Question] = true
		labels := map[string]bool{}
		for _, o := range q.Options {
			if labels[o.Label] {
				return tool.Fail(uniqueMessage)
			}
			labels[o.Label] = true
		}
	}
	return nil
}
