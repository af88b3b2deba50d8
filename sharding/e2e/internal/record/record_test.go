package record

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestWriteAndFollow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	f := Follow(path)
	if events, err := f.Next(); err != nil || len(events) != 0 {
		t.Fatalf("before the file exists: %v, %v", events, err)
	}
	w, err := Create(path, "r1")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(Event{Kind: Start, Key: "ns/a", Gen: 2, RV: "7"})
	w.Write(Event{Kind: Held, Buckets: []int{0, 3}, At: 5 * time.Second})
	events, err := f.Next()
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 || events[0].Replica != "r1" || events[0].Key != "ns/a" || events[0].At == 0 ||
		events[1].At != 5*time.Second || !slices.Equal(events[1].Buckets, []int{0, 3}) {
		t.Fatalf("events %+v", events)
	}

	// A line cut short, as a process killed mid-write leaves it, waits for its end.
	raw, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.WriteString(`{"kind":"end","key":"ns/`)
	if events, err := f.Next(); err != nil || len(events) != 0 {
		t.Fatalf("with half a line: %+v, %v", events, err)
	}
	raw.WriteString(`b","gen":3}` + "\n")
	if events, err := f.Next(); err != nil || len(events) != 1 || events[0].Key != "ns/b" || events[0].Gen != 3 {
		t.Fatalf("once the line is whole: %+v, %v", events, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestReadIgnoresOnlyAnUnfinishedLastLine(t *testing.T) {
	events, err := Read(strings.NewReader(`{"kind":"ready"}` + "\n" + `{"kind":"st`))
	if err != nil || len(events) != 1 || events[0].Kind != Ready {
		t.Errorf("unfinished last line: %+v, %v", events, err)
	}
	if _, err := Read(strings.NewReader("garbage\n" + `{"kind":"ready"}` + "\n")); err == nil {
		t.Error("a malformed whole line: no error")
	}
}
