// Package mutation shows that the stress suites can fail: its test runs every suite against
// each deliberate bug of internal/mutant and checks the table of what catches what in
// stress/README.md. See that file for how to run it.
package mutation
