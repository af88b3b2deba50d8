// Package mutation shows that the test suites can fail. Its Bugs are deliberate bugs kept
// outside the library: each is an exact edit of one source file, applied at test time to the
// source as it is, and built in with go test's -overlay flag. Its test runs every suite against
// each bug and checks the table of what catches what in stress/README.md. See that file for how
// to run it.
package mutation
