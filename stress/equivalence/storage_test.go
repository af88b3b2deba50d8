package equivalence

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	clientgo "k8s.io/client-go/util/workqueue"

	actorqueue "github.com/actorqueue/workqueue"
)

// gatedStorage is a FIFO storage that records its Push, Pop and Touch calls, and whose Pop
// announces itself on entered, then waits for gate to close.
type gatedStorage struct {
	mu      sync.Mutex
	items   []string
	log     []string
	entered chan struct{}
	gate    chan struct{}
}

func (s *gatedStorage) note(call string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, call)
}

func (s *gatedStorage) Push(item string)  { s.note("Push " + item); s.items = append(s.items, item) }
func (s *gatedStorage) Touch(item string) { s.note("Touch " + item) }
func (s *gatedStorage) Len() int          { return len(s.items) }

func (s *gatedStorage) Pop() string {
	s.entered <- struct{}{}
	<-s.gate
	item := s.items[0]
	s.items = s.items[1:]
	s.note("Pop " + item)
	return item
}

func (s *gatedStorage) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.log, ", ")
}

// TestAddWhileACustomStoragePops: a getter waits; an item is added, and the storage's Pop for
// that getter is under way when the item is added again. client-go pops inside Get, holding
// its lock, so the second Add comes after the Get: the item is added again during its
// processing, and goes back into storage at Done. actorqueue's storage must see the same calls.
func TestAddWhileACustomStoragePops(t *testing.T) {
	newQueues := [2]func(clientgo.Queue[string]) clientgo.TypedInterface[string]{
		func(s clientgo.Queue[string]) clientgo.TypedInterface[string] {
			return clientgo.NewTypedWithConfig(clientgo.TypedQueueConfig[string]{Queue: s})
		},
		func(s clientgo.Queue[string]) clientgo.TypedInterface[string] {
			return actorqueue.NewTypedWithConfig(actorqueue.TypedQueueConfig[string]{Queue: s})
		},
	}
	var results [2]string
	for i, newQueue := range newQueues {
		synctest.Test(t, func(t *testing.T) {
			s := &gatedStorage{entered: make(chan struct{}), gate: make(chan struct{})}
			q := newQueue(s)
			got := make(chan string, 1)
			go func() {
				item, _ := q.Get()
				got <- item
			}()
			synctest.Wait() // the getter waits
			var adds sync.WaitGroup
			adds.Go(func() { q.Add("a") })
			<-s.entered // the getter's Pop is under way
			adds.Go(func() { q.Add("a") })
			if i == 1 {
				synctest.Wait() // the second Add waits for the owner, busy in Pop
			} // (client-go's waits for the lock Get holds, which synctest cannot wait for)
			close(s.gate)
			adds.Wait()
			item := <-got
			q.Done(item)
			results[i] = fmt.Sprintf("Get %s; after Done, Len %d; storage: %s", item, q.Len(), s)
			q.ShutDown()
		})
	}
	if results[0] != results[1] {
		t.Errorf("client-go:  %s\nactorqueue: %s", results[0], results[1])
	}
}
