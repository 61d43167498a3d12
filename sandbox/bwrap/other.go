//go:build !linux

// Bubblewrap needs Linux's namespaces: on every other system the package is empty, and
// internal/app lists it among the backends only on Linux (backends_linux.go).
package bwrap
