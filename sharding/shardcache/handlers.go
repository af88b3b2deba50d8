package shardcache

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/tools/cache"
)

// registration is an event handler added to the Informer: added in turn to every bucket's
// informer, now and to come.
type registration struct {
	inf     *Informer
	handler cache.ResourceEventHandler
	opts    cache.HandlerOptions

	shards map[*shard]cache.ResourceEventHandlerRegistration // guarded by inf.mu
	// first are the registrations with the buckets watched when the handler was added: it
	// has synced once the Informer has and they have. Guarded by inf.mu; nil once synced.
	first  []cache.ResourceEventHandlerRegistration
	synced atomic.Bool
	once   sync.Once
	done   chan struct{} // closed once synced; see HasSyncedChecker
}

// AddEventHandler adds handler to every bucket's informer, now and to come; see
// AddEventHandlerWithOptions.
func (inf *Informer) AddEventHandler(handler cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return inf.AddEventHandlerWithOptions(handler, cache.HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod adds handler with a resync period; see
// AddEventHandlerWithOptions.
func (inf *Informer) AddEventHandlerWithResyncPeriod(handler cache.ResourceEventHandler, resyncPeriod time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return inf.AddEventHandlerWithOptions(handler, cache.HandlerOptions{ResyncPeriod: &resyncPeriod})
}

// AddEventHandlerWithOptions adds handler to every bucket's informer, now and to come, with
// options: it receives the objects of the buckets watched now as Add events, and each bucket
// acquired later the same way. With ByUID, a deletion is noted (see Hash) before handler
// sees it. It fails once the Informer has stopped.
func (inf *Informer) AddEventHandlerWithOptions(handler cache.ResourceEventHandler, options cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if inf.stopped {
		return nil, errors.New("sharding: shardcache: handler not added: the Informer has stopped")
	}
	r := &registration{inf: inf, handler: handler, opts: options,
		shards: make(map[*shard]cache.ResourceEventHandlerRegistration), done: make(chan struct{})}
	for _, sh := range inf.shards {
		if err := r.attach(sh); err != nil {
			r.detach()
			return nil, err
		}
		r.first = append(r.first, r.shards[sh])
	}
	inf.handlers = append(inf.handlers, r)
	return r, nil
}

// RemoveEventHandler removes a handler that AddEventHandler* returned, from every bucket's
// informer.
func (inf *Informer) RemoveEventHandler(handle cache.ResourceEventHandlerRegistration) error {
	r, ok := handle.(*registration)
	if !ok || r.inf != inf {
		return errors.New("sharding: shardcache: RemoveEventHandler: not a registration of this Informer")
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	inf.handlers = slices.DeleteFunc(inf.handlers, func(h *registration) bool { return h == r })
	return r.detach()
}

// attach adds r's handler to sh's informer. The caller holds inf.mu.
func (r *registration) attach(sh *shard) error {
	handler := r.handler
	if r.inf.opts.Field == ByUID {
		handler = noting{ResourceEventHandler: handler, sh: sh}
	}
	reg, err := sh.informer.AddEventHandlerWithOptions(handler, r.opts)
	if err != nil {
		return err
	}
	r.shards[sh] = reg
	return nil
}

// detach removes r's handler from every bucket's informer. The caller holds inf.mu.
func (r *registration) detach() error {
	var errs []error
	for sh, reg := range r.shards {
		errs = append(errs, sh.informer.RemoveEventHandler(reg))
		delete(r.shards, sh)
	}
	return errors.Join(errs...)
}

// HasSynced reports whether the Informer has synced and the handler has received the objects
// of the buckets watched when it was added. Once true, it stays true.
func (r *registration) HasSynced() bool {
	if r.synced.Load() {
		return true
	}
	if !r.inf.HasSynced() {
		return false
	}
	r.inf.mu.Lock()
	defer r.inf.mu.Unlock()
	for _, reg := range r.first {
		if !reg.HasSynced() {
			return false
		}
	}
	r.first = nil // synced for good: let released buckets' registrations go
	r.synced.Store(true)
	return true
}

// HasSyncedChecker returns a DoneChecker whose channel is closed once HasSynced is true (or
// the Informer has stopped).
func (r *registration) HasSyncedChecker() cache.DoneChecker {
	r.once.Do(func() {
		r.inf.mu.Lock()
		waits := []<-chan struct{}{r.inf.synced}
		for _, reg := range r.first {
			waits = append(waits, reg.HasSyncedChecker().Done())
		}
		r.inf.mu.Unlock()
		go func() {
			for _, w := range waits {
				select {
				case <-w:
				case <-r.inf.ended:
					return
				}
			}
			r.synced.Store(true)
			close(r.done)
		}()
	})
	return checker{r.inf.opts.Resource + " handler", r.done}
}
