package sharding

import (
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// apiServer is the Leases of a fake API server shared by the replicas of a test. client-go's
// object tracker does not check resourceVersion on update, so two candidates could both take
// an expired Lease; apiServer refuses a stale update with a conflict, as the real server does.
type apiServer struct {
	mu      sync.Mutex
	leases  map[string]*coordinationv1.Lease
	version int
}

var leaseResource = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

func newAPIServer() *apiServer { return &apiServer{leases: make(map[string]*coordinationv1.Lease)} }

// client returns a clientset whose Lease requests reach s, and fail while cut is set.
func (s *apiServer) client(cut *atomic.Bool) *fake.Clientset {
	cs := fake.NewClientset()
	cs.PrependReactor("*", "leases", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if cut.Load() {
			return true, nil, apierrors.NewServiceUnavailable("cut off from the API server")
		}
		obj, err := s.serve(action)
		return true, obj, err
	})
	return cs
}

func (s *apiServer) serve(action k8stesting.Action) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Switch on the verb: an update action also has the methods of a create action.
	switch action.GetVerb() {
	case "get":
		name := action.(k8stesting.GetAction).GetName()
		lease, ok := s.leases[name]
		if !ok {
			return nil, apierrors.NewNotFound(leaseResource, name)
		}
		return lease.DeepCopy(), nil
	case "create":
		lease := action.(k8stesting.CreateAction).GetObject().(*coordinationv1.Lease).DeepCopy()
		if _, ok := s.leases[lease.Name]; ok {
			return nil, apierrors.NewAlreadyExists(leaseResource, lease.Name)
		}
		s.store(lease)
		return lease.DeepCopy(), nil
	case "update":
		lease := action.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease).DeepCopy()
		current, ok := s.leases[lease.Name]
		if !ok {
			return nil, apierrors.NewNotFound(leaseResource, lease.Name)
		}
		if current.ResourceVersion != lease.ResourceVersion {
			return nil, apierrors.NewConflict(leaseResource, lease.Name, errors.New("the object has been modified"))
		}
		s.store(lease)
		return lease.DeepCopy(), nil
	case "list":
		list := &coordinationv1.LeaseList{}
		for _, lease := range s.leases {
			list.Items = append(list.Items, *lease.DeepCopy())
		}
		return list, nil
	}
	return nil, apierrors.NewMethodNotSupported(leaseResource, action.GetVerb())
}

// store saves lease under a new resourceVersion.
func (s *apiServer) store(lease *coordinationv1.Lease) {
	s.version++
	lease.ResourceVersion = strconv.Itoa(s.version)
	s.leases[lease.Name] = lease
}

// holders returns the holder of each Lease, by name.
func (s *apiServer) holders() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := make(map[string]string, len(s.leases))
	for name, lease := range s.leases {
		if lease.Spec.HolderIdentity != nil {
			h[name] = *lease.Spec.HolderIdentity
		}
	}
	return h
}
