// Package tool is the contract between a tool, the permission engine and the agent loop.
//
// A tool is defined once, with typed input, as a [Def] and turned into a [Tool] by [Build]. A
// Tool is a [Spec] (what it is apart from any input), the traits of an input ([Tool.Is]:
// read-only, destructive, concurrency-safe, open-world) and the behaviours of a call. Build
// fills every part a definition leaves out with a fail-closed default: no trait (not
// read-only, not concurrency-safe, not destructive), enabled, and a permission check that
// returns passthrough, so a tool that says nothing about permissions asks before it runs.
// (Claude Code's default allows; see docs/deviations.md.)
//
// Every call goes through the same steps: [Tool.Decode] applies the input schema's defaults,
// validates the raw JSON against the full JSON Schema (github.com/google/jsonschema-go) and
// reports every bad parameter at once; [Tool.ValidateInput] runs the tool's own checks; the
// permission engine decides; [Tool.Call] runs.
//
// Messages for the model are values, not Go errors: a failed check is a [*Failure], and a call
// that did not work returns a [Result] with IsError set (see [Failure.Result]). An error
// returned by Call is something that went wrong around the tool (an I/O error, a cancelled
// context); the agent loop shows it to the model too, but tools do not phrase errors for it.
package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/reinsdev/reins/permission"
)

// InterruptBehavior says what happens to a running call when the person sends a new message.
type InterruptBehavior int

const (
	// Block keeps the call running; the new message waits. The default.
	Block InterruptBehavior = iota
	// Cancel stops the call and discards its result.
	Cancel
)

// Tool is a built tool. Build is the only way to make one, so every method has a defined
// behaviour. It has three parts: its [Spec], what it is apart from any input; the traits of an
// input ([Tool.Is] and the input's paths and name); and the behaviours of a call (decode,
// validate, check permissions, call).
type Tool interface {
	// Name is Spec().Name: the tool's identity in rules, lookups and the model's calls.
	Name() string
	// Spec is what the tool is apart from any input, as a value: setting its fields changes no
	// tool.
	Spec() Spec
	// Prompt is the text that teaches the model to use the tool.
	Prompt(ctx context.Context) (string, error)
	// IsEnabled reports whether the tool is offered at all (it may depend on the environment).
	IsEnabled() bool
	// RequiresUserInteraction marks tools that must always reach a person. It is a method, as
	// the engine reads it (permission's userInteractor), so that a type wrapping a Tool keeps it.
	RequiresUserInteraction() bool

	// Is reports whether a call with input has the trait. A trait the tool does not describe,
	// input of another type, or a description that panics is false: the fail-closed value of
	// every trait (not read-only, not concurrency-safe, not destructive, not open-world).
	Is(tr Trait, input any) bool
	// Paths are the files a call touches, absolute or relative to the current directory.
	Paths(input any) []string
	// UserFacingName is the name a person is shown for a call with input.
	UserFacingName(input any) string
	// Egress is where a call can send data off the machine, for the engine's taint step
	// (permission.Sender). It is part of the contract, not an optional interface, so that a
	// type wrapping a Tool (an MCP tool with its pins) cannot hide it.
	Egress(ctx context.Context, pc *permission.Context, input any) permission.Egress
	// InputsEquivalent reports whether two inputs ask for the same thing. When a person edits
	// a call in the permission dialog, a non-equivalent edit is reported to the model with
	// the result, so it knows what actually ran.
	InputsEquivalent(a, b any) bool

	// Decode applies the schema's defaults, validates raw input against the schema and
	// decodes it. It reports every problem in one *InputError.
	Decode(raw json.RawMessage) (any, error)
	// ValidateInput runs the tool's own checks on decoded input; nil means the input is fine.
	ValidateInput(ctx context.Context, input any, env *Env) *Failure
	// CheckPermissions is the tool's part of the permission decision.
	CheckPermissions(ctx context.Context, pc *permission.Context, input any) permission.Decision
	// Call runs the tool. An error is a failure of the tool, shown to the model as an error
	// result; ctx cancellation stops the call.
	Call(ctx context.Context, input any, env *Env) (Result, error)
}

// Spec is what a tool is apart from any input: what the model and a tool search are told of
// it, and how the agent loads it, interrupts it and bounds its results.
type Spec struct {
	Name string
	// Aliases are former names that still resolve to the tool.
	Aliases []string
	// SearchHint is a few words a tool search can match when the name does not say it.
	SearchHint string
	// Description is a short human-readable description.
	Description string
	// InputSchema is the JSON Schema of the input, as sent to the model.
	InputSchema json.RawMessage
	Interrupt   InterruptBehavior
	// Defer keeps the tool's schema out of the first request; a tool search loads it.
	Defer bool
	// AlwaysLoad keeps the tool's schema in every request even when deferral is on.
	AlwaysLoad bool
	// MCP says the tool comes from an MCP server.
	MCP bool
	// MaxResultChars is how many characters of text a successful result may hand the model;
	// the agent saves a longer one to a file and sends a preview (see [DefaultMaxResultChars]).
	// Negative (NeverPersist) means never: the tool bounds its own output (Bash) or the model
	// asked for exactly this text (Read).
	MaxResultChars int
}

// Trait is a property of a call that depends on its input; see [Tool.Is].
type Trait int

const (
	// ReadOnly: the call changes nothing.
	ReadOnly Trait = iota + 1
	// Destructive: the call may destroy what cannot be brought back.
	Destructive
	// ConcurrencySafe: the call may run beside other concurrency-safe calls.
	ConcurrencySafe
	// OpenWorld: the call reaches beyond the machine (the network, another service).
	OpenWorld
)

// DefaultMaxResultChars is the result size past which the agent persists a result: the cap of
// a tool that sets none, and the ceiling of every tool's own cap, as Claude Code's
// min(maxResultSizeChars, 50000).
const DefaultMaxResultChars = 50_000

// NeverPersist is the [Def.MaxResultChars] of a tool whose results always go whole.
const NeverPersist = -1

// Def is a tool definition with typed input In. Only Name and Call are required; everything
// else has a fail-closed default.
type Def[In any] struct {
	Name        string
	Aliases     []string
	SearchHint  string
	Description string
	// Prompt is the model-facing text; PromptFunc computes it when it depends on state.
	Prompt     string
	PromptFunc func(ctx context.Context) (string, error)
	// Schema overrides the schema inferred from In. RawSchema is for tools that bring their
	// own JSON Schema, like MCP tools; their input is decoded as map[string]any.
	Schema    *jsonschema.Schema
	RawSchema json.RawMessage
	// SchemaJSON is a schema the program wrote, already encoded: what Schema or the
	// inference from In would give, prepared ahead of time so that building the tool does no
	// reflection (the built-in tools keep theirs in tools/internal/schemax, whose test keeps
	// them current). Build sends it as it is and parses and resolves it on first use.
	SchemaJSON json.RawMessage

	// Validate is the tool's own input check, for what a schema cannot say (a file that must
	// exist, a value that must differ from another). nil means the input is fine.
	Validate                func(ctx context.Context, in In, env *Env) *Failure
	CheckPermissions        func(ctx context.Context, pc *permission.Context, in In) permission.Decision
	RequiresUserInteraction bool
	// Sandboxed reports whether a call would run inside the OS sandbox (Bash); the engine's
	// step 1b asks it. Nil means never.
	Sandboxed func(pc *permission.Context, in In) bool
	// SetAsideInAuto says why auto mode sets aside an allow rule of this tool, which would let
	// code run that its classifier should judge (permission.AutoGuard; Bash), or "". Nil judges
	// by permission.IsDangerousAllowRule.
	SetAsideInAuto func(v permission.RuleValue) string

	ReadOnly        func(in In) bool
	Destructive     func(in In) bool
	ConcurrencySafe func(in In) bool
	OpenWorld       func(in In) bool
	// Egress says where a call can send data off the machine (permission.Sender), for the
	// engine's taint step. Nil: a call the tool marks open-world sends somewhere unknown, any
	// other sends nothing.
	Egress         func(ctx context.Context, pc *permission.Context, in In) permission.Egress
	Interrupt      InterruptBehavior
	Paths          func(in In) []string
	UserFacingName func(in In) string
	Enabled        func() bool
	// InputsEquivalent compares two inputs; nil compares them with reflect.DeepEqual.
	InputsEquivalent func(a, b In) bool
	Defer            bool
	AlwaysLoad       bool
	MCP              bool
	// MaxResultChars caps the text of a successful result the model sees whole (see
	// [Spec.MaxResultChars]): 0 is DefaultMaxResultChars, a larger cap is lowered to it, and
	// NeverPersist sends every result whole.
	MaxResultChars int

	Call func(ctx context.Context, in In, env *Env) (Result, error)
}

// Build turns a definition into a Tool, filling fail-closed defaults. It panics where [New]
// returns an error: for built-in tools that is a programming error found by the first test
// that builds the tool.
//
// A schema that Build infers from In or takes from Def.Schema is written by the program, so
// resolving it (most of what building a tool costs) waits until the first input is decoded:
// a session builds every built-in tool and the model calls a few. A SchemaJSON is taken as it
// is and parsed then too. A RawSchema comes from outside and is resolved at once, as by New.
func Build[In any](def Def[In]) Tool {
	t, err := build(def, def.RawSchema != nil)
	if err != nil {
		panic(err.Error())
	}
	return t
}

// New is [Build] for definitions that come from outside the program, like an MCP server's
// tools: a definition without a name or Call, or whose schema does not parse or resolve, is
// an error. That includes a "$schema" other than draft-07 or 2020-12 (jsonschema-go
// validates only those), a "$ref" to nothing, a default that fails its own schema, and a
// schema whose validation could recurse without end or explode ([CheckSchemaShape],
// [CheckSchemaDepth]).
func New[In any](def Def[In]) (Tool, error) {
	return build(def, true)
}

// build is New, resolving the schema at once when eager is set, or else on first use.
func build[In any](def Def[In], eager bool) (Tool, error) {
	if def.Name == "" || def.Call == nil {
		return nil, errors.New("tool.Build: a tool needs a Name and a Call")
	}
	t := &built[In]{def: def}
	var schema *jsonschema.Schema
	var err error
	switch {
	case def.SchemaJSON != nil:
		t.schemaJSON = def.SchemaJSON
	case def.RawSchema != nil:
		t.schemaJSON = def.RawSchema
		schema = new(jsonschema.Schema)
		if err = CheckSchemaDepth(def.RawSchema); err == nil {
			err = json.Unmarshal(def.RawSchema, schema)
		}
	case def.Schema != nil:
		schema = def.Schema
	default:
		schema, err = jsonschema.For[In](nil)
	}
	if err == nil && t.schemaJSON == nil {
		t.schemaJSON, err = json.Marshal(schema)
	}
	if err != nil {
		return nil, fmt.Errorf("tool.Build(%s): input schema: %w", def.Name, err)
	}
	t.hasDefaults = bytes.Contains(t.schemaJSON, []byte(`"default"`))
	t.spec = Spec{Name: def.Name, Aliases: def.Aliases, SearchHint: def.SearchHint, Description: def.Description,
		InputSchema: t.schemaJSON, Interrupt: def.Interrupt, Defer: def.Defer, AlwaysLoad: def.AlwaysLoad, MCP: def.MCP,
		MaxResultChars: maxResultChars(def.MaxResultChars)}
	resolve := func() (*inputSchema, error) {
		if schema == nil {
			schema = new(jsonschema.Schema)
			if err := json.Unmarshal(t.schemaJSON, schema); err != nil {
				return nil, err
			}
		}
		return resolveSchema(schema, t.schemaJSON)
	}
	if eager {
		is, err := resolve()
		if err != nil {
			return nil, fmt.Errorf("tool.Build(%s): input schema: %w", def.Name, err)
		}
		t.schema = func() *inputSchema { return is }
		return t, nil
	}
	t.schema = sync.OnceValue(func() *inputSchema {
		is, err := resolve()
		if err != nil {
			// Only a schema the program wrote is resolved late (see Build): a bug that
			// the first test decoding an input of the tool finds.
			panic(fmt.Sprintf("tool.Build(%s): input schema: %v", def.Name, err))
		}
		return is
	})
	return t, nil
}

type built[In any] struct {
	def        Def[In]
	spec       Spec
	schema     func() *inputSchema // resolved once, at build or on first use
	schemaJSON json.RawMessage
	// hasDefaults is set when the schema may hold a default (a conservative text test).
	hasDefaults bool
}

func (t *built[In]) Name() string { return t.def.Name }
func (t *built[In]) Spec() Spec   { return t.spec }
func (t *built[In]) RequiresUserInteraction() bool {
	return t.def.RequiresUserInteraction
}

// SetAsideInAuto implements permission.AutoGuard.
func (t *built[In]) SetAsideInAuto(v permission.RuleValue) string {
	if t.def.SetAsideInAuto != nil {
		return t.def.SetAsideInAuto(v)
	}
	if permission.IsDangerousAllowRule(v) {
		return "Claude Code sets this rule aside in auto mode"
	}
	return ""
}

// WouldSandbox implements permission.SandboxedChecker.
func (t *built[In]) WouldSandbox(pc *permission.Context, input any) bool {
	in, ok := t.input(input)
	return ok && t.def.Sandboxed != nil && t.def.Sandboxed(pc, in)
}

// maxResultChars is Def.MaxResultChars as Spec says it: NeverPersist, or a cap no larger than
// DefaultMaxResultChars.
func maxResultChars(n int) int {
	switch {
	case n < 0:
		return NeverPersist
	case n == 0:
		return DefaultMaxResultChars
	default:
		return min(n, DefaultMaxResultChars)
	}
}

func (t *built[In]) Prompt(ctx context.Context) (string, error) {
	if t.def.PromptFunc != nil {
		return t.def.PromptFunc(ctx)
	}
	return t.def.Prompt, nil
}

func (t *built[In]) IsEnabled() bool {
	return t.def.Enabled == nil || t.def.Enabled()
}

// input recovers the typed input. Anything else is a caller bug; the zero value keeps the
// fail-closed defaults meaningful.
func (t *built[In]) input(v any) (In, bool) {
	in, ok := v.(In)
	return in, ok
}

func (t *built[In]) Decode(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, &InputError{Tool: t.def.Name, Issues: []string{fmt.Sprintf("The input is not valid JSON: %v", err)}}
	}
	if issues := t.schema().check(&generic); len(issues) > 0 {
		return nil, &InputError{Tool: t.def.Name, Issues: issues}
	}
	// Decode what was validated, defaults included. Without defaults the raw input is decoded
	// as sent, which keeps integers beyond float64's precision exact.
	if t.hasDefaults {
		withDefaults, err := json.Marshal(generic)
		if err != nil {
			return nil, &InputError{Tool: t.def.Name, Issues: []string{err.Error()}}
		}
		raw = withDefaults
	}
	var in In
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, &InputError{Tool: t.def.Name, Issues: []string{err.Error()}}
	}
	return in, nil
}

func (t *built[In]) ValidateInput(ctx context.Context, input any, env *Env) *Failure {
	in, ok := t.input(input)
	if !ok {
		return Failf("%s: input of type %T, want %T", t.def.Name, input, in)
	}
	if t.def.Validate == nil {
		return nil
	}
	return t.def.Validate(ctx, in, env)
}

func (t *built[In]) CheckPermissions(ctx context.Context, pc *permission.Context, input any) permission.Decision {
	in, ok := t.input(input)
	if !ok || t.def.CheckPermissions == nil {
		return permission.Decision{Behavior: permission.Passthrough, Message: permission.RequestMessage(t.def.Name)}
	}
	return t.def.CheckPermissions(ctx, pc, in)
}

func (t *built[In]) InputsEquivalent(a, b any) bool {
	ia, okA := t.input(a)
	ib, okB := t.input(b)
	if !okA || !okB {
		// Foreign input: equivalent only if identical, so a difference is never hidden.
		return reflect.DeepEqual(a, b)
	}
	if t.def.InputsEquivalent != nil {
		return t.def.InputsEquivalent(ia, ib)
	}
	return reflect.DeepEqual(ia, ib)
}

func (t *built[In]) Is(tr Trait, input any) bool {
	var f func(In) bool
	switch tr {
	case ReadOnly:
		f = t.def.ReadOnly
	case Destructive:
		f = t.def.Destructive
	case ConcurrencySafe:
		f = t.def.ConcurrencySafe
	case OpenWorld:
		f = t.def.OpenWorld
	}
	return callBool(t, f, input)
}

// Egress implements permission.Sender. Input of another type sends somewhere unknown: the
// answer must not be "nowhere" by mistake.
func (t *built[In]) Egress(ctx context.Context, pc *permission.Context, input any) permission.Egress {
	in, ok := t.input(input)
	switch {
	case !ok:
		return permission.Egress{Unseen: fmt.Sprintf("%s got input of type %T", t.def.Name, input)}
	case t.def.Egress != nil:
		return t.def.Egress(ctx, pc, in)
	case t.Is(OpenWorld, input):
		return permission.Egress{Unseen: t.def.Name + " is an open-world tool"}
	}
	return permission.Egress{}
}

// callBool evaluates an optional predicate; missing predicates, foreign input and panics all
// answer false, the fail-closed value for every flag.
func callBool[In any](t *built[In], f func(In) bool, input any) (v bool) {
	in, ok := t.input(input)
	if f == nil || !ok {
		return false
	}
	defer func() {
		if recover() != nil {
			v = false
		}
	}()
	return f(in)
}

func (t *built[In]) Paths(input any) []string {
	in, ok := t.input(input)
	if t.def.Paths == nil || !ok {
		return nil
	}
	return t.def.Paths(in)
}

func (t *built[In]) UserFacingName(input any) string {
	in, ok := t.input(input)
	if t.def.UserFacingName == nil || !ok {
		return t.def.Name
	}
	return t.def.UserFacingName(in)
}

func (t *built[In]) Call(ctx context.Context, input any, env *Env) (Result, error) {
	in, ok := t.input(input)
	if !ok {
		return Result{}, fmt.Errorf("%s: input of type %T, want %T", t.def.Name, input, in)
	}
	return t.def.Call(ctx, in, env)
}
