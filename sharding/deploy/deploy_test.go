package deploy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"math"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apimachinery/pkg/watch"
	applyconfigurationscoordinationv1 "k8s.io/client-go/applyconfigurations/coordination/v1"
	"k8s.io/client-go/kubernetes/scheme"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/actorqueue/workqueue/sharding"
	"github.com/actorqueue/workqueue/sharding/leasetest"
)

// objects decodes every document of every manifest strictly (an unknown or duplicated field
// fails) with client-go's scheme, by file name.
func objects(t *testing.T) map[string][]runtime.Object {
	t.Helper()
	decoder := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme,
		json.SerializerOptions{Yaml: true, Strict: true})
	files, err := fs.Glob(Manifests, "*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests embedded: %v", err)
	}
	byFile := make(map[string][]runtime.Object)
	for _, name := range files {
		data, err := Manifests.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		docs := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			doc, err := docs.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			obj, _, err := decoder.Decode(doc, nil, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			byFile[name] = append(byFile[name], obj)
		}
	}
	return byFile
}

// one returns the only object of type T among objs, failing the test if there is not exactly one.
func one[T runtime.Object](t *testing.T, objs []runtime.Object) T {
	t.Helper()
	var found []T
	for _, obj := range objs {
		if o, ok := obj.(T); ok {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		var zero T
		t.Fatalf("%d objects of type %T, want 1", len(found), zero)
	}
	return found[0]
}

func TestManifestsDecode(t *testing.T) {
	want := map[string]int{"rbac.yaml": 5, "rbac-cluster.yaml": 2, "deployment.yaml": 1, "pdb.yaml": 1}
	got := make(map[string]int)
	for name, objs := range objects(t) {
		got[name] = len(objs)
	}
	if !maps.Equal(got, want) {
		t.Errorf("objects by file: %v, want %v", got, want)
	}
}

// TestRoleHasTheVerbsTheSharderUses runs a sharder through an acquisition, renewals, its
// balancing and a graceful release on the in-memory Lease server, records every verb it uses
// on Leases, and requires rbac.yaml's Role to grant exactly those: none missing (a replica
// would fail in the cluster), none more (least privilege).
func TestRoleHasTheVerbsTheSharderUses(t *testing.T) {
	var role *rbacv1.Role
	for _, obj := range objects(t)["rbac.yaml"] {
		if r, ok := obj.(*rbacv1.Role); ok && r.Name == "my-controller-leases" {
			role = r
		}
	}
	if role == nil || len(role.Rules) != 1 {
		t.Fatalf("rbac.yaml: want a Role my-controller-leases with one rule, got %v", role)
	}
	rule := role.Rules[0]
	if !slices.Equal(rule.APIGroups, []string{"coordination.k8s.io"}) || !slices.Equal(rule.Resources, []string{"leases"}) || len(rule.ResourceNames) != 0 {
		t.Fatalf("the Role's rule is %+v, want the Leases of coordination.k8s.io, by any name", rule)
	}

	var used []string
	synctest.Test(t, func(t *testing.T) {
		client := &recording{LeasesGetter: leasetest.NewServer().Clientset(nil).CoordinationV1(), verbs: make(map[string]bool)}
		s := sharding.New(sharding.Config{Client: client, Namespace: "my-system", Name: "my-controller", Identity: "a", Buckets: 2,
			LeaseDuration: 2 * time.Second, RenewDeadline: 1200 * time.Millisecond, RetryPeriod: 250 * time.Millisecond})
		ctx, stop := context.WithCancel(context.Background())
		ran := make(chan struct{})
		go func() {
			defer close(ran)
			s.Run(ctx)
		}()
		time.Sleep(2 * time.Second) // acquired and renewed both buckets, listed the Leases
		if held := s.Held(); len(held) != 2 {
			t.Errorf("held %v after 2 s alone, want both buckets", held)
		}
		stop() // a graceful release of each
		<-ran
		client.mu.Lock()
		used = slices.Sorted(maps.Keys(client.verbs))
		client.mu.Unlock()
	})
	granted := slices.Sorted(slices.Values(rule.Verbs))
	if !slices.Equal(granted, used) {
		t.Errorf("the Role grants %v on Leases; the sharder used %v", granted, used)
	}
}

// TestGracePeriodCoversAHandover checks deployment.yaml's terminationGracePeriodSeconds
// against the longest graceful exit the sharder can make with the default durations: it
// waits up to LeaseDuration for the buckets' reconciles while renewing, then, if they are not
// done, for the hold window of its last renewal to close (RenewDeadline + RetryPeriod until
// the keys' contexts end, then the drain budget), plus a second for the process to exit.
func TestGracePeriodCoversAHandover(t *testing.T) {
	deployment := one[*appsv1.Deployment](t, objects(t)["deployment.yaml"])
	grace := deployment.Spec.Template.Spec.TerminationGracePeriodSeconds
	cfg := sharding.Config{Client: leasetest.NewServer().Clientset(nil).CoordinationV1(), Namespace: "my-system", Name: "my-controller", Identity: "a", Buckets: 1}
	exit := sharding.DefaultLeaseDuration + sharding.DefaultRenewDeadline + sharding.DefaultRetryPeriod + cfg.DrainBudget()
	want := int64(math.Ceil(exit.Seconds())) + 1
	if grace == nil {
		t.Fatalf("no terminationGracePeriodSeconds: Kubernetes' default of 30 s fits only the default durations")
	}
	if *grace < want {
		t.Errorf("terminationGracePeriodSeconds is %d, want at least %d: a graceful exit takes up to %v", *grace, want, exit)
	}
	if exit != 28636363636 { // 15 s + 15 s/1.1, as deployment.yaml and the README say
		t.Errorf("the longest graceful exit with the defaults is %v, which the manifest's comment does not say", exit)
	}
}

// TestManifestsFitTogether checks what ties the manifests to each other and to the program:
// one namespace, the bindings' subject the ServiceAccount the pods run as, their roleRefs
// roles that exist, the pod's name and namespace from the downward API, the
// PodDisruptionBudget selecting the Deployment's pods.
func TestManifestsFitTogether(t *testing.T) {
	byFile := objects(t)
	rbac := byFile["rbac.yaml"]
	account := one[*corev1.ServiceAccount](t, rbac)
	deployment := one[*appsv1.Deployment](t, byFile["deployment.yaml"])
	pdb := one[*policyv1.PodDisruptionBudget](t, byFile["pdb.yaml"])
	ns := account.Namespace
	for _, obj := range append(slices.Clone(rbac), deployment, pdb) {
		if got := obj.(metav1.Object).GetNamespace(); got != ns {
			t.Errorf("%T %s in namespace %q, want %q", obj, obj.(metav1.Object).GetName(), got, ns)
		}
	}

	roles := make(map[string]bool) // "Kind/name"
	for _, obj := range append(slices.Clone(rbac), byFile["rbac-cluster.yaml"]...) {
		switch o := obj.(type) {
		case *rbacv1.Role:
			roles["Role/"+o.Name] = true
		case *rbacv1.ClusterRole:
			roles["ClusterRole/"+o.Name] = true
		}
	}
	bindings := 0
	for _, obj := range append(slices.Clone(rbac), byFile["rbac-cluster.yaml"]...) {
		var ref rbacv1.RoleRef
		var subjects []rbacv1.Subject
		switch o := obj.(type) {
		case *rbacv1.RoleBinding:
			ref, subjects = o.RoleRef, o.Subjects
		case *rbacv1.ClusterRoleBinding:
			ref, subjects = o.RoleRef, o.Subjects
		default:
			continue
		}
		bindings++
		if !roles[ref.Kind+"/"+ref.Name] {
			t.Errorf("a binding refers to %s %s, which no manifest defines", ref.Kind, ref.Name)
		}
		want := []rbacv1.Subject{{Kind: "ServiceAccount", Name: account.Name, Namespace: ns}}
		if !slices.Equal(subjects, want) {
			t.Errorf("binding to %s: subjects %v, want %v", ref.Name, subjects, want)
		}
	}
	if bindings != 3 {
		t.Errorf("%d bindings, want 3", bindings)
	}

	pod := deployment.Spec.Template
	if pod.Spec.ServiceAccountName != account.Name {
		t.Errorf("the pods run as %q, want the ServiceAccount %q", pod.Spec.ServiceAccountName, account.Name)
	}
	fields := make(map[string]string)
	for _, c := range pod.Spec.Containers {
		for _, env := range c.Env {
			if env.ValueFrom != nil && env.ValueFrom.FieldRef != nil {
				fields[env.Name] = env.ValueFrom.FieldRef.FieldPath
			}
		}
	}
	if want := map[string]string{"POD_NAME": "metadata.name", "POD_NAMESPACE": "metadata.namespace"}; !maps.Equal(fields, want) {
		t.Errorf("downward API: %v, want %v", fields, want)
	}
	selector, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil || selector.Empty() || !selector.Matches(labels.Set(pod.Labels)) {
		t.Errorf("the PodDisruptionBudget's selector %v does not select the pods %v (%v)", pdb.Spec.Selector, pod.Labels, err)
	}
}

// recording is a Lease client that notes each verb used.
type recording struct {
	coordinationv1client.LeasesGetter
	mu    sync.Mutex
	verbs map[string]bool
}

func (r *recording) Leases(namespace string) coordinationv1client.LeaseInterface {
	return recordingLeases{r.LeasesGetter.Leases(namespace), r}
}

func (r *recording) note(verb string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.verbs[verb] = true
}

// recordingLeases notes every method of the interface, so that a verb the sharder starts to
// use shows, whichever it is.
type recordingLeases struct {
	inner coordinationv1client.LeaseInterface
	r     *recording
}

func (c recordingLeases) Create(ctx context.Context, lease *coordinationv1.Lease, opts metav1.CreateOptions) (*coordinationv1.Lease, error) {
	c.r.note("create")
	return c.inner.Create(ctx, lease, opts)
}

func (c recordingLeases) Update(ctx context.Context, lease *coordinationv1.Lease, opts metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	c.r.note("update")
	return c.inner.Update(ctx, lease, opts)
}

func (c recordingLeases) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	c.r.note("delete")
	return c.inner.Delete(ctx, name, opts)
}

func (c recordingLeases) DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, list metav1.ListOptions) error {
	c.r.note("deletecollection")
	return c.inner.DeleteCollection(ctx, opts, list)
}

func (c recordingLeases) Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordinationv1.Lease, error) {
	c.r.note("get")
	return c.inner.Get(ctx, name, opts)
}

func (c recordingLeases) List(ctx context.Context, opts metav1.ListOptions) (*coordinationv1.LeaseList, error) {
	c.r.note("list")
	return c.inner.List(ctx, opts)
}

func (c recordingLeases) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	c.r.note("watch")
	return c.inner.Watch(ctx, opts)
}

func (c recordingLeases) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*coordinationv1.Lease, error) {
	c.r.note("patch")
	return c.inner.Patch(ctx, name, pt, data, opts, subresources...)
}

func (c recordingLeases) Apply(ctx context.Context, lease *applyconfigurationscoordinationv1.LeaseApplyConfiguration, opts metav1.ApplyOptions) (*coordinationv1.Lease, error) {
	c.r.note("patch") // server-side apply is a patch to RBAC
	return c.inner.Apply(ctx, lease, opts)
}
