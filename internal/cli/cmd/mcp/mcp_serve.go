package mcp

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/reinsdev/reins/internal/app"
	"github.com/reinsdev/reins/internal/cli/cmdutil"
	"github.com/reinsdev/reins/mcp/serve"
	"github.com/reinsdev/reins/permission"
	"github.com/reinsdev/reins/toolcall"
)

type mcpServeOptions struct {
	f         *cmdutil.Factory
	perm      cmdutil.PermFlags
	http      string
	listenAny bool
	token     string
	logFile   string
	verbose   bool
}

const mcpServeHelp = `Serves Reins' built-in tools to an MCP client (an IDE, another agent, a desktop app) over
standard input and output, or over streamable HTTP with --http.

The tools are the agent's tools with the same filters: settings files, --allowedTools,
--disallowedTools, --permission-mode, --settings and --add-dir. Every tools/call goes
through the permission engine:
  deny  the call returns an error result naming the rule or reason
  allow the call runs; progress is sent as MCP progress notifications, and a cancelled
        request (notifications/cancelled) stops the call and kills its processes
  ask   the question goes to the client as an elicitation request (allow once, allow for
        this session, deny) when the client supports elicitation; otherwise the call is
        denied with the ask message and how to grant it

Each client connection is its own session: its own file state (Read before Edit), shell and
session rules. When the client declares roots, its working directories are its roots
intersected with the configured ones; a root outside them is refused.

Over HTTP the endpoint is /mcp and every request needs "Authorization: Bearer <token>"
(401 otherwise). The token comes from --token or REINS_MCP_TOKEN, or is generated and printed
on standard error. --http binds loopback addresses only unless --listen-any is given.

Logs go to standard error, or to --log-file; standard output carries only the protocol.`

func newMCPServeCmd(f *cmdutil.Factory, runF func(*mcpServeOptions) error) *cobra.Command {
	opts := &mcpServeOptions{f: f}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve Reins' guarded tools to MCP clients (stdio, or streamable HTTP with --http)",
		Long:  mcpServeHelp,
		Example: `  reins mcp serve
  reins mcp serve --allowedTools "Bash(go test:*)" --permission-mode acceptEdits
  reins mcp serve --http 127.0.0.1:8765`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return mcpServeRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.http, "http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio")
	fl.BoolVar(&opts.listenAny, "listen-any", false, "allow --http on a non-loopback address")
	fl.StringVar(&opts.token, "token", "", "the bearer token HTTP clients must send (default: REINS_MCP_TOKEN, else generated)")
	fl.StringVar(&opts.logFile, "log-file", "", "write logs to this file instead of standard error (every session and call, as --verbose)")
	fl.BoolVar(&opts.verbose, "verbose", false, "log every session and call (INFO) to standard error; without it only warnings and errors are")
	opts.perm.Register(cmd)
	return cmd
}

func mcpServeRun(ctx context.Context, opts *mcpServeOptions) error {
	f := opts.f
	if opts.http == "" && (opts.listenAny || opts.token != "") {
		return cmdutil.UsageErrorf("--listen-any and --token only apply with --http")
	}
	// Standard error is a person's (or an IDE's) to read: it gets warnings and errors only,
	// unless asked for more; a log file gets everything.
	logOut, level := f.ErrOut, slog.LevelWarn
	if opts.verbose {
		level = slog.LevelInfo
	}
	if opts.logFile != "" {
		level = slog.LevelInfo
		lf, err := os.OpenFile(opts.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("--log-file: %w", err)
		}
		defer lf.Close()
		logOut = lf
	}
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))

	// As for a run: a broken deny or ask rule stops the server, and so does bypass as root;
	// Bash is confined as in the agent when the sandbox is enabled (no backend is an error).
	// Warnings go to the log: standard output carries only the protocol.
	ho, err := cmdutil.HostOptions(f, &opts.perm)
	if err != nil {
		return err
	}
	ho.Report = app.Reporter{Warn: func(m string) { log.Warn(m) }, Note: func(m string) { log.Info(m) }}
	host, err := app.NewHost(ctx, ho)
	if err != nil {
		return err
	}
	defer host.Close()
	alog, err := host.OpenAudit("mcp-serve")
	if err != nil {
		return err
	}
	defer alog.Close()
	env := host.Settings
	srv, err := serve.New(ctx, serve.Options{
		Name:        "reins",
		Version:     "dev",
		Permissions: env.Context,
		NewToolset: func(perms func() *permission.Context) serve.Toolset {
			pool := host.NewPool(perms)
			return serve.Toolset{Tools: pool.Tools, Cwd: pool.Cwd, Close: pool.Close}
		},
		Logger:        log,
		PolicyVersion: env.PolicyVersion,
		Record: func(session string, c toolcall.Call, out toolcall.Outcome) {
			alog.Record("mcp-serve:"+session, c, out)
		},
		Audit: func(session string) toolcall.Auditor { return alog.Auditor("mcp-serve:" + session) },
	})
	if err != nil {
		return err
	}
	if opts.http == "" {
		log.Info("serving MCP over stdio", "dirs", env.Context.WorkingDirs(), "mode", env.Context.Mode())
		return srv.Serve(ctx, io.NopCloser(f.In), nopWriteCloser{f.Out})
	}
	return serveMCPHTTP(ctx, f, opts, srv, log)
}

// serveMCPHTTP serves /mcp on opts.http until ctx ends.
func serveMCPHTTP(ctx context.Context, f *cmdutil.Factory, opts *mcpServeOptions, srv *serve.Server, log *slog.Logger) error {
	host, _, err := net.SplitHostPort(opts.http)
	if err != nil {
		return cmdutil.UsageErrorf("--http %q: %v (want HOST:PORT, e.g. 127.0.0.1:8765)", opts.http, err)
	}
	if !opts.listenAny && !isLoopbackHost(host) {
		return cmdutil.UsageErrorf("--http %s is not a loopback address: anyone who can reach it could run tools here; use 127.0.0.1 or add --listen-any", opts.http)
	}
	token := opts.token
	if token == "" {
		token = f.Getenv("REINS_MCP_TOKEN")
	}
	generated := token == ""
	if generated {
		token = rand.Text()
	}
	ln, err := net.Listen("tcp", opts.http)
	if err != nil {
		return fmt.Errorf("--http: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.Handler(token))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	url := "http://" + ln.Addr().String() + "/mcp"
	fmt.Fprintf(f.ErrOut, "reins: serving MCP at %s\n", url)
	if generated {
		fmt.Fprintf(f.ErrOut, "reins: bearer token (send \"Authorization: Bearer <token>\"): %s\n", token)
	}
	log.Info("serving MCP over HTTP", "url", url, "listen_any", opts.listenAny)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("--http: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
	return nil
}

// isLoopbackHost reports whether host names only this machine.
func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
