package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/actorqueue/workqueue/sharding/e2e/internal/cluster"
)

var (
	keep          = flag.Bool("e2e.keep", false, "keep the run's directory (records, logs, etcd) and print its path")
	featureGates  = flag.String("e2e.feature-gates", "", "kube-apiserver's --feature-gates, e.g. CoordinatedLeaderElection=true (default: a cluster's defaults, and ShardedListAndWatch=true unless named here)")
	runtimeConfig = flag.String("e2e.runtime-config", "", "kube-apiserver's --runtime-config, e.g. coordination.k8s.io/v1beta1=true, which CoordinatedLeaderElection needs")
)

// env is what every scenario shares: the API server and the replica program, started by the
// first scenario that needs them (the checks' own tests do not).
var env struct {
	once      sync.Once
	err       error
	dir       string
	cluster   *cluster.Cluster
	replica   string // path of the replica executable
	apiserver string // path of the kube-apiserver executable

	// gateOff is a second API server, with ShardedListAndWatch off (as in a cluster that has
	// not turned the alpha feature on): started by the first test that needs one.
	gateOff struct {
		once    sync.Once
		err     error
		cluster *cluster.Cluster
	}
}

// gateOn is the feature gate of server-side sharded list and watch (KEP-5866), on.
const gateOn = "ShardedListAndWatch=true"

// gates returns kube-apiserver's --feature-gates for the shared server: -e2e.feature-gates,
// with ShardedListAndWatch on unless the flag names it.
func gates() string {
	switch {
	case strings.Contains(*featureGates, "ShardedListAndWatch"):
		return *featureGates
	case *featureGates == "":
		return gateOn
	}
	return *featureGates + "," + gateOn
}

// needGateOff returns the API server with ShardedListAndWatch off, starting it (after the
// shared one) on first use.
func needGateOff(t *testing.T) *cluster.Cluster {
	t.Helper()
	needEnv(t)
	env.gateOff.once.Do(func() {
		dir := filepath.Join(env.dir, "gate-off")
		if env.gateOff.err = os.MkdirAll(dir, 0o755); env.gateOff.err != nil {
			return
		}
		start := time.Now()
		env.gateOff.cluster, env.gateOff.err = cluster.Start(context.Background(), cluster.Options{Binary: env.apiserver, Dir: dir,
			FeatureGates: "ShardedListAndWatch=false", RuntimeConfig: *runtimeConfig})
		fmt.Printf("e2e: a second kube-apiserver, ShardedListAndWatch off, serving %v later\n", time.Since(start).Round(time.Millisecond))
	})
	if env.gateOff.err != nil {
		t.Fatal(env.gateOff.err)
	}
	return env.gateOff.cluster
}

// parallel is -test.parallel unless given: the kinds of replica, and the scenarios with
// client-go's durations, which mostly wait out 15-second Leases, all run at once (see
// TestSharding), more than GOMAXPROCS, the default.
const parallel = "8"

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", parallel)
	}
	goleak.VerifyTestMain(withEnv{m})
}

// withEnv runs the tests, then stops what they started.
type withEnv struct{ m *testing.M }

func (w withEnv) Run() int {
	code := w.m.Run()
	if env.gateOff.cluster != nil {
		env.gateOff.cluster.Stop()
	}
	if env.cluster != nil {
		env.cluster.Stop()
	}
	if env.dir != "" && !*keep {
		os.RemoveAll(env.dir)
	}
	printFigures()
	return code
}

// needEnv starts the shared API server and builds the replica, once, or skips the test with
// -short.
func needEnv(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the end-to-end tests start kube-apiserver")
	}
	env.once.Do(func() { env.err = setUp() })
	if env.err != nil {
		t.Fatal(env.err)
	}
}

func setUp() error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "sharding-e2e-")
	if err != nil {
		return err
	}
	env.dir = dir
	if *keep {
		fmt.Println("e2e: run directory", dir)
	}
	start := time.Now()
	kubeAPIServer, err := cluster.ToolPath(ctx, ".", "kube-apiserver")
	if err != nil {
		return err
	}
	env.apiserver = kubeAPIServer
	if env.replica, err = cluster.ToolPath(ctx, ".", "replica"); err != nil {
		return err
	}
	built := time.Since(start)
	env.cluster, err = cluster.Start(ctx, cluster.Options{Binary: kubeAPIServer, Dir: dir, FeatureGates: gates(), RuntimeConfig: *runtimeConfig})
	if err != nil {
		return err
	}
	fmt.Printf("e2e: executables ready in %v, kube-apiserver serving %v later\n", built.Round(time.Millisecond), (time.Since(start) - built).Round(time.Millisecond))
	return nil
}
