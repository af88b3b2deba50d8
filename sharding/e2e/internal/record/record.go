// Package record is the log that the end-to-end tests' replicas write and the harness reads:
// one JSON object per line, each an [Event] stamped with [Now].
//
// Every process of a test runs on one machine and stamps its events with the same clock,
// CLOCK_MONOTONIC, which the kernel shares among processes and which no wall-clock adjustment
// moves: intervals recorded by different replicas can be compared directly, with no skew.
package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Now returns the machine's monotonic clock (CLOCK_MONOTONIC) as a duration since an
// unspecified instant that is the same for every process of the machine.
func Now() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic("record: clock_gettime(CLOCK_MONOTONIC): " + err.Error())
	}
	return time.Duration(ts.Nano())
}

// Kind names what an Event records.
type Kind string

const (
	// Ready: the replica's informer has synced and its sharder runs.
	Ready Kind = "ready"
	// Start: a reconcile of Key began, having read Gen and RV from the informer's cache.
	Start Kind = "start"
	// Write: that reconcile wrote, having checked right before that its bucket was still
	// held (sharding.Fence). The writes are what the package's first promise is about: a
	// reconcile's span, for the overlap check, is from its Start to its last Write.
	Write Kind = "write"
	// End: that reconcile ended; Cancelled says whether it stopped before completing its work
	// (its context ended, or the check before a write failed), in which case the key is
	// retried.
	End Kind = "end"
	// Held: the buckets the replica holds changed; Buckets lists them.
	Held Kind = "held"
	// HandedOver: the replica gave Bucket up, for Cause, after draining for Drain; Overran
	// reconciles were still running at its deadline.
	HandedOver Kind = "handover"
	// Stopped: the replica's sharder has handed every bucket back and the replica exits.
	Stopped Kind = "stopped"
	// Cached: a replica with a sharded watch (package shardcache) finished preparing or
	// releasing a bucket; Buckets are the buckets it now watches and Count the objects it
	// caches.
	Cached Kind = "cached"
	// Synced: the watch of Bucket synced, Drain after the bucket's preparation began.
	Synced Kind = "synced"
	// Ignored: the API server ignores shard selectors; the replica filters on its own.
	Ignored Kind = "ignored"
	// Stats: what the replica measured of itself, asked for with SIGHUP: Count objects
	// cached, Heap bytes in use after a garbage collection, Events received by the watch,
	// Filtered of them dropped as outside the bucket, Bytes read from the API server.
	Stats Kind = "stats"
)

// Event is one line of a replica's log.
type Event struct {
	Kind    Kind          `json:"kind"`
	At      time.Duration `json:"at"` // Now() when it happened
	Replica string        `json:"replica"`

	Key       string `json:"key,omitempty"`
	Gen       int    `json:"gen,omitempty"` // the object's generation as the harness numbered it
	RV        string `json:"rv,omitempty"`  // the object's resourceVersion
	Cancelled bool   `json:"cancelled,omitempty"`

	Buckets []int         `json:"buckets,omitempty"`
	Bucket  int           `json:"bucket,omitempty"`
	Cause   string        `json:"cause,omitempty"`
	Drain   time.Duration `json:"drain,omitempty"`
	Overran int           `json:"overran,omitempty"`

	Count    int   `json:"count,omitempty"`
	Heap     int64 `json:"heap,omitempty"`
	Events   int64 `json:"events,omitempty"`
	Filtered int64 `json:"filtered,omitempty"`
	Bytes    int64 `json:"bytes,omitempty"`
}

// Writer appends Events to a file, one write per event so that a process killed at any
// instant leaves only whole lines behind. It is safe for simultaneous use by multiple
// goroutines.
type Writer struct {
	mu      sync.Mutex
	f       *os.File
	replica string
	err     error
}

// Create opens path for appending, creating it if needed, for the events of replica.
func Create(path, replica string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return &Writer{f: f, replica: replica}, nil
}

// Write stamps e with the replica's name, and with Now() if e.At is zero, and appends it.
// The first error is kept and returned by Close; later writes are skipped.
func (w *Writer) Write(e Event) {
	e.Replica = w.replica
	if e.At == 0 {
		e.At = Now()
	}
	line, err := json.Marshal(e)
	if err != nil {
		panic("record: " + err.Error()) // an Event always marshals
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		_, w.err = w.f.Write(append(line, '\n'))
	}
}

// Close closes the file and returns the first error of any Write or of the close.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.f.Close(); w.err == nil {
		w.err = err
	}
	return w.err
}

// Read returns the events of r in order. A last line without its newline, which a process
// killed mid-write could leave, is ignored; any other malformed line is an error.
func Read(r io.Reader) ([]Event, error) {
	var events []Event
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			return events, fmt.Errorf("record: line %d: %w", n, err)
		}
		events = append(events, e)
	}
}

// ReadFile returns the events of the file at path, as Read does.
func ReadFile(path string) ([]Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// Follower reads the events appended to a file since its last call, as a replica writes them.
// It is not safe for simultaneous use.
type Follower struct {
	path    string
	offset  int64
	partial []byte // the start of a line whose newline has not been written yet
}

// Follow returns a Follower of the file at path, which need not exist yet.
func Follow(path string) *Follower { return &Follower{path: path} }

// Next returns the whole lines appended since the last call, as events.
func (f *Follower) Next() ([]Event, error) {
	file, err := os.Open(f.path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if _, err := file.Seek(f.offset, io.SeekStart); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(file)
	if err != nil {
		return nil, err
	}
	f.offset += int64(len(data))
	data = append(f.partial, data...)
	end := bytes.LastIndexByte(data, '\n') + 1
	f.partial = append([]byte(nil), data[end:]...)
	return Read(bytes.NewReader(data[:end]))
}
