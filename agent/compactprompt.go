package agent

import "strings"

// The summary prompt follows the structure of Claude Code's compaction prompt: the model
// first reasons in <analysis> (dropped afterwards), then writes a <summary> in nine sections
// that carry what the work needs to go on. The wording is Reins' own.

// compactSystem is the system prompt of the summary request.
const compactSystem = "You are a helpful AI assistant tasked with summarizing conversations."

// compactInstructions asks for the summary; custom instructions (/compact …, or a PreCompact
// hook's) follow it.
const compactInstructions = `Your task is to write a detailed summary of the conversation so far. Another instance of you will continue the work from this summary alone, so it must hold every technical detail, decision and piece of code needed to go on without losing context.

Do not call any tools: answer with text only.

First, inside <analysis> tags, go through the conversation in order and note, for each part: what the user asked and meant; how you approached it; the decisions made; file names, code snippets, function signatures and edits; the errors met and how they were fixed; and any feedback from the user, above all where they asked for something to be done differently. Check that the summary below is complete and accurate.

Then write the summary inside <summary> tags, with these sections:

1. Primary Request and Intent: everything the user asked for, in detail.
2. Key Technical Concepts: the technologies, frameworks and ideas discussed.
3. Files and Code Sections: the files read, changed or created, why each matters, and the important code (full snippets where they matter).
4. Errors and Fixes: each error met, how it was fixed, and what the user said about it.
5. Problem Solving: the problems solved and the troubleshooting still going on.
6. All User Messages: every message from the user that is not a tool result, so that their feedback and changes of intent are kept.
7. Pending Tasks: what you were explicitly asked to do and have not done yet.
8. Current Work: exactly what was being worked on just before this summary, with file names and code.
9. Optional Next Step: the next step, only if it follows directly from the user's most recent request and the current work; quote the most recent messages word for word so that the task is not misread. Do not start on anything the user did not ask for.`

// compactRequest is the user text of the summary request.
func compactRequest(custom string) string {
	custom = strings.TrimSpace(custom)
	if custom == "" {
		return compactInstructions
	}
	return compactInstructions + "\n\nAdditional instructions for this summary:\n" + custom
}

// summaryPreamble opens the message that replaces the conversation.
const summaryPreamble = "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier part of the conversation.\n\n"

// continueAuto ends it after an automatic compaction, which happens in the middle of the work.
const continueAuto = "\n\nPlease continue the conversation from where it left off without asking the user any further questions. Continue with the last task that you were asked to work on."

// extractSummary returns the summary a reply holds: the content of its <summary> tags (the
// <analysis> scratch work dropped), or the whole text without the analysis when the model
// did not use the tags.
func extractSummary(text string) string {
	if i := strings.Index(text, "<analysis>"); i >= 0 {
		if j := strings.Index(text[i:], "</analysis>"); j >= 0 {
			text = text[:i] + text[i+j+len("</analysis>"):]
		}
	}
	if i := strings.Index(text, "<summary>"); i >= 0 {
		rest := text[i+len("<summary>"):]
		if j := strings.LastIndex(rest, "</summary>"); j >= 0 {
			rest = rest[:j]
		}
		text = rest
	}
	return strings.TrimSpace(text)
}
