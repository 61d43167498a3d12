package client

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
)

// The test server's shutdown behaviour (server_test.go): REINS_TEST_AT_EOF says what it does
// once its input ends — "exit", "stay" (it keeps running; SIGTERM ends it), or "ignore-term"
// (SIGTERM too is ignored: only SIGKILL ends it). It logs what it sees to REINS_TEST_LOG,
// writes its pid to REINS_TEST_PIDFILE, and with REINS_TEST_CHILD starts a child in its
// process group (as npx or a shell does) that logs a SIGTERM and exits on it.

// logEvent appends a line to REINS_TEST_LOG.
func logEvent(what string) {
	f, err := os.OpenFile(os.Getenv("REINS_TEST_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	fmt.Fprintln(f, what)
	f.Close()
}

// startShutdownWatch writes the server's pid, starts its child and handles SIGTERM as
// REINS_TEST_AT_EOF asks.
func startShutdownWatch() {
	mode := os.Getenv("REINS_TEST_AT_EOF")
	if mode == "" {
		return
	}
	if os.Getenv("REINS_TEST_CHILD") != "" {
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), "REINS_TEST_MCP_SERVER=child")
		if err := child.Start(); err != nil {
			logEvent("child failed: " + err.Error())
		}
	}
	terms := make(chan os.Signal, 1)
	signal.Notify(terms, syscall.SIGTERM)
	go func() {
		for range terms {
			logEvent("server term")
			if mode != "ignore-term" {
				os.Exit(0)
			}
		}
	}()
	_ = os.WriteFile(os.Getenv("REINS_TEST_PIDFILE"), []byte(strconv.Itoa(os.Getpid())), 0o600)
}

// atEOF is what the server does when its input has ended.
func atEOF() {
	mode := os.Getenv("REINS_TEST_AT_EOF")
	if mode == "" {
		return
	}
	logEvent("server eof")
	if mode != "exit" {
		select {}
	}
}

// runChild is the server's child: it waits, logging a SIGTERM before it exits on it.
func runChild() {
	terms := make(chan os.Signal, 1)
	signal.Notify(terms, syscall.SIGTERM)
	logEvent("child started")
	<-terms
	logEvent("child term")
	os.Exit(0)
}
