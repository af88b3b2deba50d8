package timing

import (
	"bytes"
	"time"
)

// The buckets spread over the replicas by two rules, both of which only decide when to
// campaign: who holds a bucket is always decided by client-go's election on its Lease.
//
//   - Fair share. Every RetryPeriod a replica lists the Leases and counts the live replicas:
//     itself, every holder whose Lease records it has seen change within LeaseDuration,
//     every replica named in a hand-over request on such a Lease, and every replica whose
//     member Lease it has seen change within LeaseDuration. It does not acquire a bucket
//     while it holds ⌈Buckets/live⌉ or more, nor one another replica asked for, unless the
//     bucket's Lease has stayed unchanged for Grace since it first refused (Restraint).
//   - Members. Each replica announces itself with a member Lease, which it renews every
//     RetryPeriod and deletes when it leaves, and waits one RetryPeriod after announcing
//     before it campaigns: replicas that start together count each other before any of them
//     acquires, so that none takes more than its share to hand it on.
//   - Hand-over requests. While every bucket is held, a replica holding at least two buckets
//     fewer than the busiest live replica names itself in an annotation on one of that
//     replica's Leases (Census.Ask); the holder hands the bucket over, and the others leave it
//     to the requester for Grace. While a bucket is free, it acquires that one instead.

// LeaseSeen is what the Census reads of one Lease of a list.
type LeaseSeen struct {
	Name      string
	Holder    string    // spec.holderIdentity; "" when free or released
	Renew     time.Time // spec.renewTime as the holder wrote it: compared, never read as time
	Requester string    // the replica named in the Lease's hand-over request, or ""
	// Member marks a replica's member Lease, which names it as Holder and which it renews
	// every RetryPeriod from its start until it leaves: a replica that holds no bucket yet is
	// live too. It holds no bucket.
	Member bool
}

// Census is one replica's count of the live replicas, from the Leases it lists, and its
// requests for buckets. Make it with NewCensus.
type Census struct {
	self          string
	buckets       int
	leaseDuration time.Duration

	views map[string]leaseView // by Lease name: what the last lists showed
	asked map[string]time.Time // by Lease name: when this replica's request lapses

	// The look in progress: what Ask hands out.
	counts   map[string]int      // buckets held, by live replica
	byHolder map[string][]string // Leases without a request, by live holder other than self, in list order
	mine     int
	deficit  int
	departed []string // member Leases of replicas gone for memberExpiry LeaseDurations
}

// memberExpiry is how many LeaseDurations a member Lease stays unchanged, as this replica saw
// it, before it counts as left behind by a replica that crashed, to be deleted (Departed).
const memberExpiry = 2

// Departed returns the member Leases of the last Look that have stayed unchanged for two
// LeaseDurations since this replica first saw them: their replicas crashed, and nobody else
// removes them. A replica that only lost touch creates its member Lease again.
func (c *Census) Departed() []string { return c.departed }

// leaseView is what the census last saw of one Lease.
type leaseView struct {
	holder    string
	renew     time.Time
	changedAt time.Time // when this replica saw holder or renew change
}

// NewCensus returns the census of the replica self, among replicas sharing buckets buckets on
// Leases of leaseDuration.
func NewCensus(self string, buckets int, leaseDuration time.Duration) *Census {
	return &Census{self: self, buckets: buckets, leaseDuration: leaseDuration,
		views: make(map[string]leaseView), asked: make(map[string]time.Time)}
}

// Look takes the Leases listed at now, in list order, and returns the fair share: the most
// buckets this replica acquires, ⌈buckets/live replicas⌉. Ask then returns the Leases to ask
// for, one at a time.
func (c *Census) Look(now time.Time, leases []LeaseSeen) (share int) {
	c.counts = map[string]int{c.self: 0}
	c.byHolder = make(map[string][]string)
	c.mine = 0
	c.departed = nil
	for _, l := range leases {
		view := leaseView{holder: l.Holder, renew: l.Renew, changedAt: now}
		if old, ok := c.views[l.Name]; ok && old.holder == l.Holder && old.renew.Equal(l.Renew) {
			view.changedAt = old.changedAt
		}
		c.views[l.Name] = view
		fresh := now.Sub(view.changedAt) < c.leaseDuration
		if l.Member {
			if fresh && l.Holder != "" {
				c.counts[l.Holder] += 0 // a replica that announces itself is live
			}
			if now.Sub(view.changedAt) >= memberExpiry*c.leaseDuration {
				c.departed = append(c.departed, l.Name)
			}
			continue
		}
		if l.Requester != "" && fresh {
			c.counts[l.Requester] += 0 // a replica asking for a bucket, or handed one, is live
		}
		if l.Holder == "" || !fresh {
			continue // free, released, or its holder stopped renewing
		}
		c.counts[l.Holder]++
		if l.Holder == c.self {
			c.mine++
		} else if l.Requester == "" {
			c.byHolder[l.Holder] = append(c.byHolder[l.Holder], l.Name)
		}
	}
	share = (c.buckets + len(c.counts) - 1) / len(c.counts)
	for name, until := range c.asked {
		if now.After(until) || c.views[name].holder == c.self {
			delete(c.asked, name) // lapsed, or granted
		}
	}
	c.deficit = share - c.mine - len(c.asked)
	held := 0
	for _, n := range c.counts {
		held += n
	}
	if held < c.buckets {
		c.deficit = 0 // a bucket is free: acquire it rather than take one from another replica
	}
	return share
}

// Ask returns the next Lease of the last Look to ask its holder for, while this replica holds
// two buckets fewer than the busiest live replica (counting those it asked for as held), or
// ok == false. Call Asked when the request was written; one that met a conflict is skipped (the
// Lease moved on since the list: the next Look sees it again).
func (c *Census) Ask() (lease string, ok bool) {
	if c.deficit <= 0 {
		return "", false
	}
	c.deficit--
	busiest := ""
	for holder, leases := range c.byHolder {
		if len(leases) == 0 {
			continue
		}
		if busiest == "" || c.counts[holder] > c.counts[busiest] ||
			(c.counts[holder] == c.counts[busiest] && holder < busiest) {
			busiest = holder
		}
	}
	if busiest == "" || c.counts[busiest] < c.mine+len(c.asked)+2 {
		c.deficit = 0
		return "", false
	}
	lease = c.byHolder[busiest][0]
	c.byHolder[busiest] = c.byHolder[busiest][1:]
	c.counts[busiest]--
	return lease, true
}

// Asked notes that this replica's request for lease was written at now: it stands for
// LeaseDuration, or until the Lease names this replica.
func (c *Census) Asked(now time.Time, lease string) { c.asked[lease] = now.Add(c.leaseDuration) }

// Restraint is one campaign's restraint from acquiring its bucket beyond what the balance
// allows (see the Census). Its zero value has refused nothing.
type Restraint struct {
	refused   time.Time // when it first refused, while the Lease held refusedAt
	refusedAt []byte
}

// Allows reports whether the campaign may acquire the bucket at now: record is the Lease's
// record as last read; requestedByAnother, whether its hand-over request names another
// replica; holding and share, the buckets this replica holds and its fair share. It allows
// below the share and unrequested, or once the Lease has stayed unchanged for grace since it
// first refused.
func (r *Restraint) Allows(now time.Time, record []byte, requestedByAnother bool, holding, share int, grace time.Duration) bool {
	if r.refused.IsZero() || !bytes.Equal(record, r.refusedAt) {
		r.refused, r.refusedAt = time.Time{}, record // the Lease changed: the wait starts again
	}
	if !r.refused.IsZero() && now.Sub(r.refused) >= grace {
		return true
	}
	if !requestedByAnother && holding < share {
		return true
	}
	if r.refused.IsZero() {
		r.refused = now
	}
	return false
}
