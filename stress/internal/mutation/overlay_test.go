package mutation

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// libraryRoot is the library module's directory, from this package's.
func libraryRoot(t *testing.T) string {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestBugsApply runs with every test run, not only the mutation check: each bug still applies
// to the source as it is, exactly, and leaves Go that parses. A change to the library that
// moves code out from under a bug fails here, naming the bug.
func TestBugsApply(t *testing.T) {
	root := libraryRoot(t)
	names := map[string]bool{}
	for _, bug := range Bugs {
		if bug.Name == "" || bug.Breaks == "" || len(bug.Edits) == 0 {
			t.Errorf("bug %+v lacks a name, a description or an edit", bug)
		}
		if names[bug.Name] {
			t.Errorf("two bugs are named %s", bug.Name)
		}
		names[bug.Name] = true
		source, err := Mutate(root, bug)
		if err != nil {
			t.Error(err)
			continue
		}
		if _, err := parser.ParseFile(token.NewFileSet(), bug.File, source, parser.SkipObjectResolution); err != nil {
			t.Errorf("bug %s leaves %s unparsable: %v", bug.Name, bug.File, err)
		}
	}
}

// TestMutateWantsEachSnippetOnce: a snippet that is gone, or that occurs twice, is an error
// that names the bug, not a silent mutant.
func TestMutateWantsEachSnippetOnce(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "f.go"), []byte("package f\n\nvar a, b = 1, 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, old := range []string{"2", "1"} {
		_, err := Mutate(root, Bug{Name: "b", File: "f.go", Edits: []Edit{{old, "3"}}})
		if err == nil || !strings.Contains(err.Error(), "bug b:") {
			t.Errorf("snippet %q: error %v, want one naming bug b", old, err)
		}
	}
	got, err := Mutate(root, Bug{Name: "b", File: "f.go", Edits: []Edit{{"a, b", "a, c"}, {"c = 1", "c = 2"}}})
	if want := "package f\n\nvar a, c = 2, 1\n"; err != nil || got != want {
		t.Errorf("Mutate = %q, %v; want %q: edits apply in order, each to the source the earlier left", got, err, want)
	}
}

// TestOverlayMapsTheRealFile: the overlay file maps the real file's absolute path to the
// mutated copy, which holds the bug.
func TestOverlayMapsTheRealFile(t *testing.T) {
	root := libraryRoot(t)
	bug := Bugs[0]
	path, err := Overlay(root, t.TempDir(), bug)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var overlay struct{ Replace map[string]string }
	if err := json.Unmarshal(text, &overlay); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(root, filepath.FromSlash(bug.File))
	mutant, ok := overlay.Replace[real]
	if !ok || len(overlay.Replace) != 1 {
		t.Fatalf("overlay %s replaces %v, want %s only", path, overlay.Replace, real)
	}
	copied, err := os.ReadFile(mutant)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(copied), bug.Edits[0].New) {
		t.Errorf("the copy %s does not hold the bug's edit %q", mutant, bug.Edits[0].New)
	}
	if _, err := Overlay("relative", t.TempDir(), bug); err == nil {
		t.Error("Overlay took a relative root")
	}
}
