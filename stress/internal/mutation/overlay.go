package mutation

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Mutate returns the source of bug's file, read under root (the library module's directory),
// with bug's edits applied. Each edit's Old must occur exactly once in the source as the
// earlier edits left it; otherwise the code changed under the bug, and Mutate returns an error
// that names the bug and the snippet, rather than a mutant that is not the bug.
func Mutate(root string, bug Bug) (string, error) {
	text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(bug.File)))
	if err != nil {
		return "", fmt.Errorf("bug %s: %w", bug.Name, err)
	}
	source := string(text)
	for _, e := range bug.Edits {
		if n := strings.Count(source, e.Old); n != 1 {
			return "", fmt.Errorf("bug %s: %q occurs %d times in %s, not once: update the bug to the code as it is now", bug.Name, e.Old, n, bug.File)
		}
		source = strings.Replace(source, e.Old, e.New, 1)
	}
	return source, nil
}

// Overlay writes, in dir, bug's mutated copy of its file and the file that maps the real one to
// it for the -overlay flag of go build and go test, and returns the latter's path. root must be
// the library module's directory, as an absolute path: go matches an overlay's paths only as
// absolute paths. Every package built with the flag, in any module of the workspace, is built
// with the bug.
func Overlay(root, dir string, bug Bug) (string, error) {
	if !filepath.IsAbs(root) {
		return "", fmt.Errorf("overlay root %q is not absolute", root)
	}
	source, err := Mutate(root, bug)
	if err != nil {
		return "", err
	}
	mutant := filepath.Join(dir, bug.Name, filepath.Base(bug.File))
	if err := os.MkdirAll(filepath.Dir(mutant), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(mutant, []byte(source), 0o644); err != nil {
		return "", err
	}
	overlay, err := json.Marshal(struct{ Replace map[string]string }{
		map[string]string{filepath.Join(root, filepath.FromSlash(bug.File)): mutant},
	})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, bug.Name+".json")
	return path, os.WriteFile(path, overlay, 0o644)
}
