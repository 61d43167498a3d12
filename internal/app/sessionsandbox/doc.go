// Package sessionsandbox builds a session's OS sandbox from its settings and permission
// context: the paths and hosts of the sandbox settings, the WebFetch domain rules, the Read
// deny rules' existing paths, the home folder's credential stores and secret files, the
// project's own cache folder and the quarantine ([Config]), and the backends this system has
// (REINS_SANDBOX_BACKEND may narrow them). [Start] starts it, or, where the sandbox is on only
// by default and no backend works, returns the context with the sandbox [Off] and says so once;
// a sandbox a settings file turned on never falls back to running commands unconfined.
//
// It is the session assembly's (internal/app) and the sandbox commands'; it asks no one (the
// hosts the allowed domains do not admit go to Options.AskHost) and knows no session or tool.
package sessionsandbox
