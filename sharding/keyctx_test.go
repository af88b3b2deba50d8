package sharding

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// reconcileFor works on item under ctx for d, and reports whether ctx ended first.
func reconcileFor(ctx context.Context, d time.Duration) (cut bool) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return false
	case <-ctx.Done():
		return true
	}
}

// TestHealthyReconcileNotCutShort is the regression test of the keys lost on kube-apiserver
// (the end-to-end scenarios pause and slow-answers): on a replica whose renewals all succeed
// at once, a reconcile shorter than RenewDeadline must never be cut short. With 250 ms retries
// the record the others compare changes once a second, so a key's context that kept the
// deadline set when it was handed out (S + RenewDeadline + RetryPeriod, S up to 1.25 s old)
// left a reconcile 0.25 to 1.25 s, and cut most 900 ms reconciles short, on every retry.
func TestHealthyReconcileNotCutShort(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := newSolo(t)
		start := time.Now() // on a whole second: the campaign begins
		defer o.close()
		key, _ := o.queue.Get()
		o.queue.Done(key)
		const rounds = 20
		cut := 0
		for i := range rounds {
			// Each round at another phase of the second: 0, 100, …, 900 ms past it.
			phase := time.Duration(i%10) * 100 * time.Millisecond
			next := time.Since(start).Truncate(time.Second) + time.Second
			time.Sleep(time.Until(start.Add(next + phase)))
			o.queue.Add(key)
			key, _ = o.queue.Get()
			if reconcileFor(o.queue.Context(key), 900*time.Millisecond) {
				cut++
			}
			o.queue.Done(key)
		}
		if cut > 0 {
			t.Errorf("%d of %d reconciles of 900 ms cut short on a healthy replica (RenewDeadline 1.2 s)", cut, rounds)
		}
	})
}

// TestKeysContextFollowsRenewals checks the context Get hands out: it has no fixed deadline,
// stays open for as long as renewals keep the hold window ahead of it by more than the drain
// budget, and ends, on a replica cut off from the API server, exactly the drain budget before
// the end of the hold window that the last renewal set, while client-go reports the loss
// later.
func TestKeysContextFollowsRenewals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := newSolo(t)
		defer o.close()
		key, _ := o.queue.Get()
		ctx := o.queue.Context(key)
		if d, ok := ctx.Deadline(); ok {
			t.Errorf("the key's context has the deadline %v; want none, as renewals move its end", d)
		}
		first, _ := o.queue.Held(key)
		// Cut the link at +10.6 s, not on a renewal's instant. The renewals (every 250 ms)
		// succeed at +10, +10.25 and +10.5 s; the record changed at +10 s (a new second of
		// renewTime), so the keys' context ends at 10 + RenewDeadline + RetryPeriod = +11.45 s,
		// while the elector, whose last success was at +10.5 s, tries again at +10.75 s and
		// reports the loss RenewDeadline later, at +11.95 s. Cut right after a renewal that
		// changed the record (at +10 s), the two would fall on one instant of the bubble's
		// clock and the scheduler would pick which comes first.
		time.Sleep(10*time.Second + 600*time.Millisecond)
		if err := ctx.Err(); err != nil {
			t.Fatalf("the key's context ended (%v) while renewals succeeded", err)
		}
		held, ok := o.queue.Held(key)
		if !ok || !held.After(first.Add(8*time.Second)) {
			t.Fatalf("Held = %v, %v after 10 s of renewals; want it moved on from %v", held, ok, first)
		}
		o.link.cut.Store(true)
		<-ctx.Done()
		held, ok = o.queue.Held(key)
		if !ok {
			t.Fatal("Held false when the key's context ended: the hold window closes a drain budget later")
		}
		if left := time.Until(held); left != o.sharder.times.DrainBudget() {
			t.Errorf("the key's context ended %v before the end of the hold window, want the drain budget %v", left, o.sharder.times.DrainBudget())
		}
		if got, ok := Fence(ctx); !ok || !got.Equal(held) {
			t.Errorf("Fence(ctx) = %v, %v; want Held's %v, true", got, ok, held)
		}
		if !o.sharder.Holds(0) {
			t.Error("the elector reported the loss before the key's context ended; the test shows nothing")
		}
		time.Sleep(time.Until(held))
		if _, ok := o.queue.Held(key); ok {
			t.Error("Held true at the end of the hold window")
		}
		if _, ok := Fence(ctx); ok {
			t.Error("Fence true at the end of the hold window")
		}
		o.queue.Done(key)
		o.link.cut.Store(false)
	})
}

// TestCutKeyRequeued checks that a key whose context the Queue ended while the bucket stayed
// held (its renewals were late) is processed again once they catch up, although its worker
// only calls Done, as a worker that takes a cancelled context for a shutdown does: the cut was
// the sharder's doing, not the key's, so the key's processing must not depend on the caller's
// retry policy (and its rate limiter's backoff, which grows with every cut).
func TestCutKeyRequeued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := newSolo(t)
		start := time.Now()
		defer o.close()
		key, _ := o.queue.Get()
		o.queue.Done(key)
		o.lateFrom(start, 900*time.Millisecond) // the keys' context ends at +11.45 s
		time.Sleep(time.Until(start.Add(11 * time.Second)))
		o.queue.Add("k")
		key, _ = o.queue.Get()
		if !reconcileFor(o.queue.Context(key), 5*time.Second) {
			t.Fatal("the key's context did not end while the renewals were late")
		}
		if !o.sharder.Holds(0) {
			t.Fatal("bucket lost: the test shows nothing")
		}
		o.queue.Done(key) // no AddRateLimited
		got := make(chan time.Time, 1)
		go func() {
			item, shutdown := o.queue.Get()
			if !shutdown {
				got <- time.Now()
				o.queue.Done(item)
			}
		}()
		time.Sleep(3 * time.Second)
		o.link.setLate(nil)
		select {
		case at := <-got:
			if at.Before(start.Add(12 * time.Second)) {
				t.Errorf("key handed out again at +%v, before a renewal extended the hold window", at.Sub(start))
			}
		default:
			t.Error("a key cut short while its bucket stayed held was not handed out again")
			o.queue.Add("k") // let the goroutine finish
			<-got
		}
	})
}
