module github.com/reinsdev/reins/bench/libcmp

go 1.26.7

require (
	github.com/go-git/go-git/v5 v5.19.2
	golang.org/x/image v0.48.0
	golang.org/x/sys v0.50.0
)

require (
	github.com/go-git/gcfg v1.5.1-0.20230307220236-3a3c6141e376 // indirect
	github.com/go-git/go-billy/v5 v5.9.0 // indirect
	github.com/jbenet/go-context v0.0.0-20150711004518-d14ea06fba99 // indirect
	golang.org/x/net v0.56.0 // indirect
	gopkg.in/warnings.v0 v0.1.2 // indirect
)
