package sharding

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actorqueue/workqueue/sharding/internal/timing"
)

// holding is a bucket held by one campaign, from the elector's acquisition to the hand-over.
// Workers enter it when they take one of the bucket's keys and exit it at Done; the hand-over
// ends it, after which no worker enters, and waits until the last one has exited. Within it,
// the keys are handed out under the bucket's tenure (see package timing), which a renewal may
// replace with a new one; each key keeps the tenure it was handed out in.
//
// Every decision that keeps two replicas apart reads the clock (enter, Queue.Held): none waits
// for a timer or for the elector's report, which a paused process delivers late.
type holding struct {
	bucket int
	lease  *bucketLease                   // the campaign's
	tenure *atomic.Pointer[timing.Tenure] // the bucket's current tenure (Sharder.tenures)
	// ctx is cancelled (by cancel) when the bucket is lost, when a graceful hand-over runs out
	// of time, and when the sharder halts, so that reconciles can stop early.
	ctx       context.Context
	cancelCtx context.CancelFunc

	mu       sync.Mutex
	ending   bool
	inFlight int
	byTenure map[uint64]int // keys in processing, by the tenure they were handed out in
	drained  chan struct{}  // closed once ending and inFlight == 0
	// keys is the context of the keys handed out in tenure keysTenure since it last lapsed, nil
	// while it has lapsed. It ends once the clock passes the tenure's keys' end as the latest
	// renewal set it, when a new tenure begins, or with ctx: alarm runs check at the keys' end
	// and re-arms while renewals move it. A fixed deadline per key would cut reconciles short
	// on a healthy replica, since the hold window moves only once a second.
	keys       context.Context
	endKeys    context.CancelFunc
	keysTenure uint64
	alarm      *time.Timer // nil until the first key; stopped by cancel
}

func newHolding(bucket int, lease *bucketLease, tenure *atomic.Pointer[timing.Tenure]) *holding {
	ctx, cancel := context.WithCancel(context.Background())
	return &holding{bucket: bucket, lease: lease, tenure: tenure, ctx: ctx, cancelCtx: cancel,
		byTenure: make(map[uint64]int), drained: make(chan struct{})}
}

// current returns the bucket's current tenure, the zero Tenure (lapsed, holding nothing) if
// none has begun.
func (h *holding) current() timing.Tenure {
	if t := h.tenure.Load(); t != nil {
		return *t
	}
	return timing.Tenure{}
}

// cancel ends the holding's context, and so every key's, and stops the alarm.
func (h *holding) cancel() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cancelCtx()
	if h.alarm != nil {
		h.alarm.Stop()
	}
	h.keys = nil
}

// accepting reports whether the holding still takes keys.
func (h *holding) accepting() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.ending
}

// enter counts one more key in processing and returns the key's context and tenure, unless
// the holding is ending or the tenure has lapsed at now (renewals are late); it reports
// whether the key may be processed.
func (h *holding) enter(now time.Time) (keys context.Context, tenure uint64, ok bool) {
	t := h.current()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ending || h.ctx.Err() != nil || t.Lapsed(now) {
		return nil, 0, false
	}
	if h.keys != nil && h.keysTenure != t.Number {
		h.endKeys() // a tenure began since: interrupt is on its way
		h.keys = nil
	}
	if h.keys == nil {
		h.keys, h.endKeys = context.WithCancel(h.ctx)
		h.keysTenure = t.Number
		if h.alarm == nil {
			h.alarm = time.AfterFunc(t.KeysEnd.Sub(now), h.check)
		} else {
			h.alarm.Reset(t.KeysEnd.Sub(now))
		}
	}
	h.inFlight++
	h.byTenure[t.Number]++
	return h.keys, t.Number, true
}

// check ends the keys' context if their tenure's keys' end has passed or another tenure has
// begun, and otherwise re-arms the alarm for the keys' end a renewal has set since. The alarm
// runs it.
func (h *holding) check() {
	t := h.current()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.keys == nil {
		return // lapsed already, or cancelled
	}
	if now := time.Now(); h.keysTenure == t.Number && now.Before(t.KeysEnd) {
		h.alarm.Reset(t.KeysEnd.Sub(now))
		return
	}
	h.endKeys()
	h.keys = nil
}

// interrupt ends the context of the keys handed out in the tenures before t, which has just
// begun, and returns how many of the tenure just before it are still in processing.
func (h *holding) interrupt(t timing.Tenure) (running int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.keys != nil && h.keysTenure < t.Number {
		h.endKeys()
		h.keys = nil
	}
	return h.byTenure[t.Number-1]
}

// cut reports whether keys, a context enter returned, has ended while the holding still takes
// keys: its tenure lapsed or was interrupted, and its keys are the replica's to process again.
func (h *holding) cut(keys context.Context) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.ending && keys.Err() != nil
}

// lapsed reports whether the holding still takes keys but its tenure has lapsed at now.
func (h *holding) lapsed(now time.Time) bool {
	t := h.current()
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.ending && t.Lapsed(now)
}

// exit counts one key of tenure fewer in processing.
func (h *holding) exit(tenure uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inFlight--
	if h.byTenure[tenure]--; h.byTenure[tenure] == 0 {
		delete(h.byTenure, tenure)
	}
	if h.ending && h.inFlight == 0 {
		close(h.drained)
	}
}

// end stops the holding from taking keys and returns a channel closed once no key entered is
// still in processing. It may be called more than once.
func (h *holding) end() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.ending {
		h.ending = true
		if h.inFlight == 0 {
			close(h.drained)
		}
	}
	return h.drained
}

// running returns the number of keys of the current tenure still in processing; those of the
// tenures before were counted when their tenure was interrupted.
func (h *holding) running() int {
	t := h.current()
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.byTenure[t.Number]
}
