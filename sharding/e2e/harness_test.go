package e2e

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/cluster"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/faultproxy"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
)

// timing is a set of Lease durations, with the reconciles' own times chosen for it.
type timing struct {
	name                string
	lease, renew, retry time.Duration
	// work is how long a reconcile works; stop, how long it takes to return once its
	// bucket's context is done: within the drain budget, as the package requires.
	work, stop time.Duration
}

// Reconciles take most of the drain budget to return once cancelled: within the package's
// assumption, and late enough that a bucket context cancelled late shows.
var (
	// fast: sub-second retries, as the sharding module's example and benchmark use; drain
	// budget 368 ms, of which a reconcile leaves 168 ms, as it did of 568 ms before
	// RenewDeadline went from 1 s to 1.2 s: what a busy machine's scheduling may take.
	fast = timing{name: "2s/1.2s/250ms", lease: 2 * time.Second, renew: 1200 * time.Millisecond, retry: 250 * time.Millisecond,
		work: 200 * time.Millisecond, stop: 200 * time.Millisecond}
	// longRenew: sub-second retries with room for a renew loop to outlive a hand-over (issue
	// 42's scenario): client-go's elector keeps retrying a failed renewal for 2 s, longer than
	// a hand-over asked for takes (about a second) and the grace a free bucket waits for its
	// requester (750 ms); drain budget 477 ms, 70% of it to stop.
	longRenew = timing{name: "3s/2s/250ms", lease: 3 * time.Second, renew: 2 * time.Second, retry: 250 * time.Millisecond,
		work: 200 * time.Millisecond, stop: 330 * time.Millisecond}
	// defaults: client-go's and Kubernetes' core components'; drain budget 1.636 s.
	defaults = timing{name: "15s/10s/2s", lease: 15 * time.Second, renew: 10 * time.Second, retry: 2 * time.Second,
		work: time.Second, stop: 1100 * time.Millisecond}
)

// window is the hold window, LeaseDuration/(1+MaxClockDrift), with the default drift.
func (tm timing) window() time.Duration {
	return time.Duration(float64(tm.lease) / (1 + sharding.DefaultMaxClockDrift))
}

// drainBudget is Config.DrainBudget: window − RenewDeadline − RetryPeriod.
func (tm timing) drainBudget() time.Duration { return tm.window() - tm.renew - tm.retry }

// harness runs one scenario: its namespace of ConfigMaps, its replicas, and their records.
type harness struct {
	t       *testing.T
	tm      timing
	ns      string
	dir     string
	buckets int
	client  kubernetes.Interface
	cluster *cluster.Cluster // the API server the replicas talk to
	t0      time.Duration    // record.Now() when the scenario began

	replicaArgs []string // extra flags of every replica
	// token is the replicas' credential, made at the first launch (replicaToken); editRoles,
	// if set before, changes the manifests' objects before they are applied.
	token     string
	editRoles func(runtime.Object)

	objects map[string]*corev1.ConfigMap // by key, as last written
	final   map[string]int               // generation last written, by key
	updates struct {
		stop chan struct{}
		done chan struct{}
	}

	procs  map[string]*proc
	events []record.Event // every replica's, in the order read
	deaths map[string]time.Duration
	pauses []pause
	leases *leaseLog
}

// proc is one replica process and the proxy in front of its API server connection.
type proc struct {
	name   string
	cmd    *exec.Cmd
	proxy  *faultproxy.Proxy
	follow *record.Follower
	exited chan struct{}
	exitAt time.Duration // record.Now() once the process was reaped
	err    error
}

const (
	buckets       = 12
	keysPerBucket = 4
)

// newHarness creates a namespace named after the test with keysPerBucket ConfigMaps in each
// of the buckets, each at generation 1.
func newHarness(t *testing.T, tm timing, replicaArgs ...string) *harness {
	t.Helper()
	needEnv(t)
	return newHarnessOn(t, env.cluster, tm, replicaArgs...)
}

// newHarnessOn is newHarness on the API server c.
func newHarnessOn(t *testing.T, c *cluster.Cluster, tm timing, replicaArgs ...string) *harness {
	t.Helper()
	h := emptyHarness(t, c, tm, replicaArgs...)
	h.populate()
	t.Cleanup(h.cleanup)
	h.watchLeases()
	return h
}

// emptyHarness creates the scenario's namespace on c, without ConfigMaps.
func emptyHarness(t *testing.T, c *cluster.Cluster, tm timing, replicaArgs ...string) *harness {
	t.Helper()
	cfg := c.Config("")
	cfg.QPS, cfg.Burst = 1000, 1000 // client-go's default of 5 a second would pace the changes
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := "e2e-" + strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(ns) > 63 { // a label: keep it unique with a hash of the whole name
		ns = fmt.Sprintf("%s-%08x", strings.TrimRight(ns[:54], "-"), uint32(sharding.Hash(ns)))
	}
	h := &harness{
		t: t, tm: tm, ns: ns, buckets: buckets, client: client, cluster: c, t0: record.Now(),
		dir:         filepath.Join(env.dir, ns),
		replicaArgs: replicaArgs,
		objects:     make(map[string]*corev1.ConfigMap),
		final:       make(map[string]int),
		procs:       make(map[string]*proc),
		deaths:      make(map[string]time.Duration),
	}
	if err := os.MkdirAll(h.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return h
}

// populate creates keysPerBucket ConfigMaps in each of the buckets, each at generation 1.
func (h *harness) populate() {
	t, client, ns, ctx := h.t, h.client, h.ns, context.Background()
	byUID := slices.Contains(h.replicaArgs, "-watch=uid")
	perBucket := make([]int, buckets)
	for i, filled := 0, 0; filled < buckets; i++ {
		name := fmt.Sprintf("cm-%03d", i)
		b := bucketOf(ns+"/"+name, buckets)
		if !byUID && perBucket[b] == keysPerBucket {
			continue
		}
		cm, err := client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Data:       map[string]string{"gen": "1"},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if byUID { // the bucket is the UID's, known once created: keep it only if its bucket has room
			if b = sharding.BucketOf(sharding.Hash(string(cm.UID)), buckets); perBucket[b] == keysPerBucket {
				if err := client.CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
				continue
			}
			uidBuckets.Store(ns+"/"+name, b)
		}
		if perBucket[b]++; perBucket[b] == keysPerBucket {
			filled++
		}
		h.objects[ns+"/"+name], h.final[ns+"/"+name] = cm, 1
	}
}

// at formats an instant relative to the scenario's start.
func (h *harness) at(d time.Duration) string { return fmt.Sprintf("%.3fs", (d - h.t0).Seconds()) }

// start starts a replica named name and waits until it reports ready.
func (h *harness) start(name string) *proc {
	h.t.Helper()
	p := h.launch(name)
	h.awaitReady(p)
	return p
}

// awaitReady waits until each of ps reports ready.
func (h *harness) awaitReady(ps ...*proc) {
	h.t.Helper()
	for _, p := range ps {
		h.waitFor(p.name+" ready", 60*time.Second, func() bool {
			return h.has(func(e record.Event) bool { return e.Replica == p.name && e.Kind == record.Ready })
		})
	}
}

// launch starts a replica named name.
func (h *harness) launch(name string) *proc {
	h.t.Helper()
	proxy, err := faultproxy.Start(strings.TrimPrefix(h.cluster.URL, "https://"))
	if err != nil {
		h.t.Fatal(err)
	}
	recordPath := filepath.Join(h.dir, name+".jsonl")
	args := append([]string{
		"-server", "https://" + proxy.Addr(), "-ca", h.cluster.CAFile, "-token", h.replicaToken(),
		"-namespace", h.ns, "-identity", name, "-record", recordPath,
		"-buckets", strconv.Itoa(h.buckets),
		"-lease", h.tm.lease.String(), "-renew", h.tm.renew.String(), "-retry", h.tm.retry.String(),
		"-work", h.tm.work.String(), "-stop-latency", h.tm.stop.String(),
		// A worker per key: every key changed lately is in flight, so that a fault finds as
		// many reconciles running as there are, and a new holder starts a bucket's keys at once.
		"-workers", strconv.Itoa(len(h.final)),
	}, h.replicaArgs...)
	log, err := os.Create(filepath.Join(h.dir, name+".log"))
	if err != nil {
		h.t.Fatal(err)
	}
	cmd := exec.Command(env.replica, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	p := &proc{name: name, cmd: cmd, proxy: proxy, follow: record.Follow(recordPath), exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		p.exitAt = record.Now()
		log.Close()
		close(p.exited)
	}()
	h.procs[name] = p
	return p
}

// poll reads the events the replicas appended since the last poll.
func (h *harness) poll() {
	for _, p := range h.procs {
		events, err := p.follow.Next()
		if err != nil {
			h.t.Fatalf("reading %s's record: %v", p.name, err)
		}
		h.events = append(h.events, events...)
	}
}

// has reports whether some event read so far satisfies match.
func (h *harness) has(match func(record.Event) bool) bool {
	for _, e := range h.events {
		if match(e) {
			return true
		}
	}
	return false
}

// waitFor polls the records until cond holds, and fails the test now if it does not within
// timeout.
func (h *harness) waitFor(what string, timeout time.Duration, cond func() bool) {
	h.t.Helper()
	if !h.await(timeout, cond) {
		h.t.Fatalf("%s: not within %v", what, timeout)
	}
}

// await polls the records until cond holds or timeout passes, and reports whether it held.
func (h *harness) await(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		h.poll()
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		for _, p := range h.procs {
			select {
			case <-p.exited:
				if _, dead := h.deaths[p.name]; !dead && p.err != nil {
					h.t.Fatalf("%s exited: %v (see %s)", p.name, p.err, filepath.Join(h.dir, p.name+".log"))
				}
			default:
			}
		}
		<-tick.C
	}
}

// updateEvery starts changing one ConfigMap every period, round robin over shuffled keys,
// until stopUpdates; every change raises its generation.
func (h *harness) updateEvery(period time.Duration) {
	keys := make([]string, 0, len(h.objects))
	for key := range h.objects {
		keys = append(keys, key)
	}
	rand.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	h.updates.stop, h.updates.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(h.updates.done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-h.updates.stop:
				return
			case <-tick.C:
			}
			key := keys[i%len(keys)]
			cm := h.objects[key].DeepCopy()
			cm.Data["gen"] = strconv.Itoa(h.final[key] + 1)
			updated, err := h.client.CoreV1().ConfigMaps(h.ns).Update(context.Background(), cm, metav1.UpdateOptions{})
			if err != nil {
				h.t.Errorf("updating %s: %v", key, err)
				return
			}
			h.objects[key], h.final[key] = updated, h.final[key]+1
		}
	}()
}

// stopUpdates stops the changes and waits until the last one is written.
func (h *harness) stopUpdates() {
	if h.updates.stop != nil {
		close(h.updates.stop)
		<-h.updates.done
		h.updates.stop = nil
	}
}

// kill sends SIGKILL to p and returns when; p's open reconciles end when it is reaped.
func (h *harness) kill(p *proc) time.Duration {
	at := record.Now()
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
	h.deaths[p.name] = p.exitAt
	p.proxy.Close()
	h.poll()
	return at
}

// pause stops p with SIGSTOP for d, then continues it. d is the fault, not a wait for a
// condition.
func (h *harness) pause(p *proc, d time.Duration) {
	from := record.Now()
	p.cmd.Process.Signal(syscall.SIGSTOP)
	time.Sleep(d)
	p.cmd.Process.Signal(syscall.SIGCONT)
	h.pauses = append(h.pauses, pause{replica: p.name, from: from, to: record.Now()})
}

// stall stalls p's reconciles right before their next check of sharding.Fence (on), or lets
// them go on (off): the replica's SIGUSR1 and SIGUSR2.
func (h *harness) stall(p *proc, on bool) {
	sig := syscall.SIGUSR2
	if on {
		sig = syscall.SIGUSR1
	}
	p.cmd.Process.Signal(sig)
}

// leave sends SIGTERM to p and waits for it to hand its buckets back and exit 0.
func (h *harness) leave(p *proc) time.Duration {
	h.t.Helper()
	at := h.terminate(p)
	h.awaitExit(p)
	return at
}

// terminate sends SIGTERM to p, which leaves gracefully, and returns when.
func (h *harness) terminate(p *proc) time.Duration {
	at := record.Now()
	p.cmd.Process.Signal(syscall.SIGCONT) // in case it was paused
	p.cmd.Process.Signal(syscall.SIGTERM)
	return at
}

// awaitExit waits for p, sent SIGTERM, to hand its buckets back and exit 0.
func (h *harness) awaitExit(p *proc) {
	h.t.Helper()
	limit := 2*h.tm.lease + 10*time.Second
	select {
	case <-p.exited:
	case <-time.After(limit):
		h.t.Errorf("%s did not exit within %v of SIGTERM; killing it", p.name, limit)
		h.kill(p)
		return
	}
	if p.err != nil {
		h.t.Errorf("%s exited: %v (see %s)", p.name, p.err, filepath.Join(h.dir, p.name+".log"))
	}
	h.deaths[p.name] = p.exitAt
	p.proxy.Close()
	h.poll()
}

// live returns the names of the replicas still running, in start order.
func (h *harness) live() []string {
	var names []string
	for name := range h.procs {
		if _, dead := h.deaths[name]; !dead {
			names = append(names, name)
		}
	}
	sortByStart(names, h.events)
	return names
}

// sortByStart sorts replica names by their Ready event.
func sortByStart(names []string, events []record.Event) {
	ready := make(map[string]time.Duration)
	for _, e := range events {
		if e.Kind == record.Ready {
			ready[e.Replica] = e.At
		}
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(ready[a], ready[b]) })
}

// cleanup kills what a failed scenario left running.
func (h *harness) cleanup() {
	h.stopUpdates()
	if h.leases != nil {
		h.leases.end()
	}
	for _, p := range h.procs {
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Signal(syscall.SIGKILL)
			<-p.exited
		}
		p.proxy.Close()
	}
	if h.t.Failed() && *keep {
		h.t.Logf("records and logs: %s", h.dir)
	} else if h.t.Failed() {
		h.t.Logf("rerun with -e2e.keep to keep the records and logs")
	}
}
