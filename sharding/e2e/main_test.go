package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/actorqueue/workqueue/sharding/e2e/internal/cluster"
)

var (
	keep          = flag.Bool("e2e.keep", false, "keep the run's directory (records, logs, etcd) and print its path")
	featureGates  = flag.String("e2e.feature-gates", "", "kube-apiserver's --feature-gates, e.g. CoordinatedLeaderElection=true (default: a cluster's defaults)")
	runtimeConfig = flag.String("e2e.runtime-config", "", "kube-apiserver's --runtime-config, e.g. coordination.k8s.io/v1beta1=true, which CoordinatedLeaderElection needs")
)

// env is what every scenario shares: the API server and the replica program, started by the
// first scenario that needs them (the checks' own tests do not).
var env struct {
	once    sync.Once
	err     error
	dir     string
	cluster *cluster.Cluster
	replica string // path of the replica executable
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
	if env.replica, err = cluster.ToolPath(ctx, ".", "replica"); err != nil {
		return err
	}
	built := time.Since(start)
	env.cluster, err = cluster.Start(ctx, cluster.Options{Binary: kubeAPIServer, Dir: dir, FeatureGates: *featureGates, RuntimeConfig: *runtimeConfig})
	if err != nil {
		return err
	}
	fmt.Printf("e2e: executables ready in %v, kube-apiserver serving %v later\n", built.Round(time.Millisecond), (time.Since(start) - built).Round(time.Millisecond))
	return nil
}
