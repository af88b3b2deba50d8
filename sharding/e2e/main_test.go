package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/actorqueue/workqueue/sharding/e2e/internal/cluster"
)

var (
	keep         = flag.Bool("e2e.keep", false, "keep the run's directory (records, logs, etcd) and print its path")
	featureGates = flag.String("e2e.feature-gates", "", "kube-apiserver's --feature-gates, e.g. CoordinatedLeaderElection=true (default: a cluster's defaults)")
)

// env is what every scenario shares: the API server and the replica program.
var env struct {
	dir     string
	cluster *cluster.Cluster
	replica string // path of the replica binary
}

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(setup{m}, goleak.IgnoreCurrent())
}

// setup wraps the tests with the shared API server and replica binary.
type setup struct{ m *testing.M }

func (s setup) Run() int {
	flag.Parse()
	if testing.Short() {
		fmt.Println("e2e: skipped with -short: the end-to-end tests start kube-apiserver")
		return 0
	}
	code, err := s.run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	return code
}

func (s setup) run() (int, error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "sharding-e2e-")
	if err != nil {
		return 0, err
	}
	env.dir = dir
	if *keep {
		fmt.Println("e2e: run directory", dir)
	} else {
		defer os.RemoveAll(dir)
	}

	start := time.Now()
	kubeAPIServer, err := cluster.ToolPath(ctx, ".", "kube-apiserver")
	if err != nil {
		return 0, err
	}
	if env.replica, err = cluster.ToolPath(ctx, ".", "replica"); err != nil {
		return 0, err
	}
	built := time.Since(start)

	env.cluster, err = cluster.Start(ctx, cluster.Options{Binary: kubeAPIServer, Dir: dir, FeatureGates: *featureGates})
	if err != nil {
		return 0, err
	}
	defer env.cluster.Stop()
	fmt.Printf("e2e: binaries ready in %v, kube-apiserver serving in %v more\n", built.Round(time.Millisecond), (time.Since(start) - built).Round(time.Millisecond))
	code := s.m.Run()
	printFigures()
	return code, nil
}
