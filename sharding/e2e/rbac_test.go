package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/actorqueue/workqueue/sharding/e2e/internal/cluster"
	"github.com/actorqueue/workqueue/sharding/e2e/internal/record"
)

// TestMissingPermission runs one replica under rbac.yaml's Role for Leases less one verb, and
// requires the library to say so, in the replica's log, within refusalTimeout of the
// replica being ready: an error naming the request (op), the Lease and the server's
// Forbidden, which names the verb. Every other scenario runs under the whole Role, so a verb
// the library needs and the Role lacks fails them; this one shows that the failure is
// reported rather than a stall.
func TestMissingPermission(t *testing.T) {
	cases := []struct{ kind, verb string }{
		{"queue", "get"}, {"queue", "create"}, {"queue", "update"}, {"queue", "list"},
		{"controller-runtime", "update"},
	}
	for _, c := range cases {
		t.Run(c.kind+"/"+c.verb, func(t *testing.T) {
			h := newHarness(t, fast, "-kind", c.kind)
			h.editRoles = withoutVerb("leases", c.verb)
			p := h.start("r1")
			ready := record.Now()
			lease := h.ns + "/e2e-" // a bucket's Lease; the balancer's list names the namespace
			if c.verb == "list" {
				lease = h.ns + `"`
			}
			log := filepath.Join(h.dir, p.name+".log")
			var line string
			if !h.await(refusalTimeout, func() bool { line = refusal(log, c.verb, lease); return line != "" }) {
				data, _ := os.ReadFile(log)
				t.Fatalf("no refusal of %s on leases reported within %v of ready; the replica's log:\n%s", c.verb, refusalTimeout, tail(string(data), 20))
			}
			t.Logf("reported %.3fs after ready: %s", (record.Now() - ready).Seconds(), line)
		})
	}
}

// refusalTimeout bounds the time from a replica ready to its report of a refused request: a
// few RetryPeriods, and a loaded machine.
const refusalTimeout = 10 * time.Second

// withoutVerb returns an edit of the manifests that drops verb from the Roles' rules on
// resource.
func withoutVerb(resource, verb string) func(runtime.Object) {
	return func(obj runtime.Object) {
		if role, ok := obj.(*rbacv1.Role); ok {
			for i, rule := range role.Rules {
				if slices.Contains(rule.Resources, resource) {
					role.Rules[i].Verbs = slices.DeleteFunc(slices.Clone(rule.Verbs), func(v string) bool { return v == verb })
				}
			}
		}
	}
}

// refusal returns the first line of the log file that reports the op verb on lease (a
// prefix) refused as Forbidden by the library, or "".
func refusal(log, verb, lease string) string {
	data, _ := os.ReadFile(log)
	for line := range strings.Lines(string(data)) {
		if strings.Contains(line, "a Lease request failed") && strings.Contains(line, `op="`+verb+`"`) &&
			strings.Contains(line, `lease="`+lease) && strings.Contains(line, "is forbidden") &&
			strings.Contains(line, "cannot "+verb+" resource") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestManifestsOnServer creates every manifest of the sharding module on kube-apiserver in a
// namespace of its own: rbac.yaml for real, the others with a dry run (the server runs no
// pods), which validates and admits them as a creation would.
func TestManifestsOnServer(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	client, err := kubernetes.NewForConfig(env.cluster.Config(""))
	if err != nil {
		t.Fatal(err)
	}
	const ns = "e2e-manifests"
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"rbac.yaml", "rbac-cluster.yaml", "deployment.yaml", "pdb.yaml"} {
		objs, err := cluster.Manifest(file)
		if err != nil {
			t.Fatal(err)
		}
		cluster.Move(objs, ns)
		opts := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"}
		if file == "rbac.yaml" {
			opts.DryRun = nil
		}
		for _, obj := range objs {
			if err := cluster.Create(ctx, client, obj, opts); err != nil {
				t.Errorf("%s: %T %s: %v", file, obj, obj.(metav1.Object).GetName(), err)
			}
		}
	}
}
