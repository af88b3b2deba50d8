// Package leasetest is an in-memory stand-in for the API server's Leases, for tests and
// examples of package sharding that run several replicas in one process.
//
// client-go's fake clientset stores objects without checking resourceVersion on update, so two
// candidates can both take an expired Lease there, and leader election loses its meaning. A
// [Server] refuses a stale update with a conflict, as the real API server does. Each replica
// gets a clientset of its own over the one Server, which can cut it off.
package leasetest

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

// Server holds Leases for the clientsets it makes. The zero value is not usable: call
// NewServer. Its methods are safe for simultaneous use by multiple goroutines.
type Server struct {
	mu      sync.Mutex
	leases  map[string]*coordinationv1.Lease // by namespace/name
	version int
}

var leaseResource = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

// NewServer returns a Server without Leases.
func NewServer() *Server { return &Server{leases: make(map[string]*coordinationv1.Lease)} }

// Clientset returns a fake clientset whose Lease requests (get, list, create, update) reach s,
// and fail with 503 Service Unavailable while cut, if not nil, is set. Requests for other
// resources go to the clientset's own object tracker.
func (s *Server) Clientset(cut *atomic.Bool) *fake.Clientset {
	cs := fake.NewClientset()
	cs.PrependReactor("*", "leases", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if cut != nil && cut.Load() {
			return true, nil, apierrors.NewServiceUnavailable("leasetest: cut off from the API server")
		}
		obj, err := s.serve(action)
		return true, obj, err
	})
	return cs
}

func (s *Server) serve(action k8stesting.Action) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := action.GetNamespace()
	// Switch on the verb: an update action also has the methods of a create action.
	switch action.GetVerb() {
	case "get":
		name := action.(k8stesting.GetAction).GetName()
		lease, ok := s.leases[ns+"/"+name]
		if !ok {
			return nil, apierrors.NewNotFound(leaseResource, name)
		}
		return lease.DeepCopy(), nil
	case "create":
		lease := action.(k8stesting.CreateAction).GetObject().(*coordinationv1.Lease).DeepCopy()
		lease.Namespace = ns
		if _, ok := s.leases[ns+"/"+lease.Name]; ok {
			return nil, apierrors.NewAlreadyExists(leaseResource, lease.Name)
		}
		s.store(lease)
		return lease.DeepCopy(), nil
	case "update":
		lease := action.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease).DeepCopy()
		lease.Namespace = ns
		current, ok := s.leases[ns+"/"+lease.Name]
		if !ok {
			return nil, apierrors.NewNotFound(leaseResource, lease.Name)
		}
		if current.ResourceVersion != lease.ResourceVersion {
			return nil, apierrors.NewConflict(leaseResource, lease.Name, errors.New("the object has been modified"))
		}
		s.store(lease)
		return lease.DeepCopy(), nil
	case "list":
		// The label selector is ignored: every Lease of the namespace is listed.
		list := &coordinationv1.LeaseList{}
		for _, lease := range s.leases {
			if lease.Namespace == ns {
				list.Items = append(list.Items, *lease.DeepCopy())
			}
		}
		return list, nil
	}
	return nil, apierrors.NewMethodNotSupported(leaseResource, action.GetVerb())
}

// store saves lease under a new resourceVersion.
func (s *Server) store(lease *coordinationv1.Lease) {
	s.version++
	lease.ResourceVersion = strconv.Itoa(s.version)
	s.leases[lease.Namespace+"/"+lease.Name] = lease
}

// Holders returns the holder of each Lease, by namespace/name; a released Lease has "".
func (s *Server) Holders() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := make(map[string]string, len(s.leases))
	for key, lease := range s.leases {
		h[key] = ""
		if lease.Spec.HolderIdentity != nil {
			h[key] = *lease.Spec.HolderIdentity
		}
	}
	return h
}
