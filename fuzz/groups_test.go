package fuzz

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/actorqueue/workqueue"
)

// FuzzGroups is the differential target of the options of issue 28 on FIFO queues: Group,
// MaxPerGroup, MaxRetries and GiveUp. The input chooses a kind of queue, a number of groups
// (item mod k; none), a limit per group, a limiter and a maximum of retries for a rate-limiting
// queue, then a sequence of client-go's calls, which the queue and groupModel both receive on
// synctest's fake clock. Every answer, every Get's item, and every give-up (item and attempts,
// heard in the caller of AddRateLimited) must match: see duel.
func FuzzGroups(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		synctest.Test(t, func(t *testing.T) {
			in := &input{data: data}
			d, g := newGroupDuel(t, in)
			for calls := 0; calls < maxCalls && !in.done(); calls++ {
				c := in.pick(callsOf(d.level))
				if c == 9 {
					g.addRateLimited(d, choose(in, keys...))
					continue
				}
				clientGoCall(d, in, c)
			}
			d.finish(keys)
		})
	})
}

// groupKind is one way to build a queue with the options.
type groupKind int

const (
	groupedQueue        groupKind = iota // NewTypedWithConfig
	groupedDelaying                      // NewTypedDelayingQueueWithConfig
	groupedRateLimiting                  // NewTypedRateLimitingQueueWithConfig
	groupedMetrics                       // that, named, with metrics
	retriesForeign                       // that around a delaying queue of another package: no groups
	groupKinds
)

// giveUps records the give-ups one side heard.
type giveUps struct {
	mu    sync.Mutex
	heard []string
}

func (g *giveUps) hear(item int, attempts int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.heard = append(g.heard, fmt.Sprintf("GiveUp(%d, %d)", item, attempts))
}

func (g *giveUps) take() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := strings.Join(g.heard, ", ")
	g.heard = nil
	return s
}

// groupDuel is what FuzzGroups adds to a duel: the give-ups each side heard.
type groupDuel struct{ sides [2]*giveUps }

// newGroupDuel decodes the options from in and returns the duel between the queue they build
// and groupModel.
func newGroupDuel(t *testing.T, in *input) (*duel[int], *groupDuel) {
	d, g, _ := newGroupDuelWith(t, in, workqueue.Debounce{})
	return d, g
}

// newGroupDuelWith is newGroupDuel with the debounce window window on both sides, and returns
// the Superseded of both too. A window goes with a queue that can have one: the kind
// retriesForeign becomes groupedRateLimiting.
func newGroupDuelWith(t *testing.T, in *input, window workqueue.Debounce) (*duel[int], *groupDuel, *supersededDuel) {
	kind := groupKind(in.pick(int(groupKinds)))
	if kind == retriesForeign && window.Window > 0 {
		kind = groupedRateLimiting
	}
	k, limit := in.pick(4), in.pick(3) // k groups (0: no Group); limit per group
	if kind == retriesForeign {
		k = 0
	}
	if k == 0 {
		limit = 0
	}
	var group func(int) string
	modelGroup := func(int) string { return "" }
	if k > 0 {
		group = func(item int) string { return fmt.Sprint(item % k) }
		modelGroup = group
	}
	g := &groupDuel{sides: [2]*giveUps{new(giveUps), new(giveUps)}}
	var spec *limiterSpec
	maxRetries := 0
	var real workqueue.TypedInterface[int]
	var sup workqueue.TypedSuperseder[int]
	name := fmt.Sprintf("groups %d, MaxPerGroup %d", k, limit)
	if window.Window > 0 {
		name = fmt.Sprintf("Debounce %+v, %s", window, name)
	}
	l := plain
	switch kind {
	case groupedQueue:
		q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[int]{Group: group, MaxPerGroup: limit, Debounce: window})
		name, real, sup = "NewTypedWithConfig, "+name, foreign[int]{q}, q
	case groupedDelaying:
		q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[int]{Group: group, MaxPerGroup: limit, Debounce: window})
		name, l, real, sup = "NewTypedDelayingQueueWithConfig, "+name, delaying, foreignDelaying[int]{q}, q.(workqueue.TypedSuperseder[int])
	default:
		l = rateLimiting
		s := decodeLimiter(in, tame, 2)
		spec = &s
		maxRetries = in.pick(4)
		var giveUp func(int, int)
		if maxRetries > 0 {
			giveUp = g.sides[0].hear
		}
		config := workqueue.TypedRateLimitingQueueConfig[int]{Group: group, MaxPerGroup: limit, MaxRetries: maxRetries, GiveUp: giveUp, Debounce: window}
		switch kind {
		case groupedMetrics:
			config.Name, config.MetricsProvider = "fuzz", quietMetrics{}
		case retriesForeign:
			config.DelayingQueue = foreignDelaying[int]{workqueue.NewTypedDelayingQueue[int]()}
		}
		name = fmt.Sprintf("NewTypedRateLimitingQueueWithConfig(%v), %s, MaxRetries %d", kind, name, maxRetries)
		q := workqueue.NewTypedRateLimitingQueueWithConfig(build[int](s), config)
		real = foreignRateLimiting[int]{q}
		sup, _ = q.(workqueue.TypedSuperseder[int]) // not one of ours around a foreign delaying queue
	}
	var limiter reference[int]
	var giveUp func(int, int)
	if spec != nil {
		limiter = ref[int](*spec)
		if maxRetries > 0 {
			giveUp = g.sides[1].hear
		}
	}
	m := newGroupModel(modelGroup, limit, limiter, maxRetries, giveUp)
	m.debounce = window
	return startDuel(t, name, l, kind == groupedMetrics, real, m, spec), g, &supersededDuel{sides: [2]workqueue.TypedSuperseder[int]{sup, m}}
}

func (k groupKind) String() string {
	return []string{"", "", "own queue", "metrics", "foreign delaying queue"}[k]
}

// foreignRateLimiting hides a rate-limiting queue's extensions, which groupModel does not have.
type foreignRateLimiting[T comparable] struct {
	workqueue.TypedRateLimitingInterface[T]
}

// addRateLimited calls AddRateLimited on both sides; each answers with the give-ups it heard
// during the call.
func (g *groupDuel) addRateLimited(d *duel[int], item int) {
	d.call(fmt.Sprintf("AddRateLimited(%d)", item), "AddRateLimited", func(q workqueue.TypedInterface[int]) string {
		q.(workqueue.TypedRateLimitingInterface[int]).AddRateLimited(item)
		side := g.sides[1]
		if q == d.real {
			side = g.sides[0]
		}
		return side.take()
	})
}
