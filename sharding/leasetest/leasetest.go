// Package leasetest is an in-memory stand-in for the API server's Leases, for tests and
// examples of package sharding that run several replicas in one process.
//
// client-go's fake clientset stores objects without checking resourceVersion on update, so two
// candidates can both take an expired Lease there, and leader election loses its meaning. A
// [Server] answers Lease requests as kube-apiserver v1.37 does (see [Server] for what that
// covers). Each replica gets a clientset of its own over the one Server, which can cut it off.
package leasetest

import (
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// Server holds Leases for the clientsets it makes. The zero value is not usable: call
// NewServer. Its methods are safe for simultaneous use by multiple goroutines.
//
// It answers as kube-apiserver v1.37.2 does for Leases (k8s.io/kubernetes
// pkg/registry/coordination/lease and pkg/apis/coordination/validation, and the generic
// registry of k8s.io/apiserver):
//
//   - an update must carry the stored resourceVersion: none is 422 Invalid, another is 409
//     Conflict; an update of a missing Lease creates it; an update that changes nothing keeps
//     the resourceVersion;
//   - a create must carry none (500, as the storage layer answers), and gets a uid and a
//     creationTimestamp, which updates keep;
//   - without the CoordinatedLeaderElection feature gate (the default: beta and off in
//     v1.37), spec.strategy and spec.preferredHolder are dropped from a create, and from an
//     update unless the stored Lease already has them; with it ([WithCoordinatedLeaderElection]),
//     a preferredHolder without a strategy is 422 Invalid;
//   - the metadata (name, labels, annotations) and the spec are validated as the API server
//     validates them: leaseDurationSeconds > 0, leaseTransitions >= 0, a known strategy;
//   - times are stored to the microsecond, as MicroTime is serialized;
//   - a list honours its label selector.
//
// A delete honours its preconditions (409 Conflict when the resourceVersion or uid differs).
// Watches and patches are not served.
type Server struct {
	coordinated bool // the CoordinatedLeaderElection feature gate

	mu      sync.Mutex
	leases  map[string]*coordinationv1.Lease // by namespace/name
	version int
	uids    int
}

// Option configures a Server made by NewServer.
type Option func(*Server)

// WithCoordinatedLeaderElection makes the Server behave as a kube-apiserver with the
// CoordinatedLeaderElection feature gate on: spec.strategy and spec.preferredHolder are kept,
// and a preferredHolder without a strategy is refused with 422 Invalid.
func WithCoordinatedLeaderElection() Option { return func(s *Server) { s.coordinated = true } }

var leaseResource = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

// NewServer returns a Server without Leases, with the feature gates of a kube-apiserver's
// defaults unless opts say otherwise.
func NewServer(opts ...Option) *Server {
	s := &Server{leases: make(map[string]*coordinationv1.Lease)}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Clientset returns a fake clientset whose Lease requests (get, list, create, update, delete)
// reach s, and fail with 503 Service Unavailable while cut, if not nil, is set. Requests for
// other resources go to the clientset's own object tracker.
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
		return s.create(ns, lease)
	case "update":
		lease := action.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease).DeepCopy()
		return s.update(ns, lease)
	case "delete":
		return s.delete(ns, action.(k8stesting.DeleteAction))
	case "list":
		selector := action.(k8stesting.ListAction).GetListRestrictions().Labels
		list := &coordinationv1.LeaseList{}
		for _, lease := range s.leases {
			if lease.Namespace == ns && (selector == nil || selector.Matches(labels.Set(lease.Labels))) {
				list.Items = append(list.Items, *lease.DeepCopy())
			}
		}
		list.ResourceVersion = strconv.Itoa(s.version)
		return list, nil
	}
	return nil, apierrors.NewMethodNotSupported(leaseResource, action.GetVerb())
}

// delete removes a Lease, if its preconditions hold, as the API server's delete does.
func (s *Server) delete(ns string, action k8stesting.DeleteAction) (runtime.Object, error) {
	name := action.GetName()
	lease, ok := s.leases[ns+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(leaseResource, name)
	}
	if p := action.GetDeleteOptions().Preconditions; p != nil {
		if p.ResourceVersion != nil && *p.ResourceVersion != lease.ResourceVersion ||
			p.UID != nil && *p.UID != lease.UID {
			return nil, apierrors.NewConflict(leaseResource, name, errors.New("precondition failed"))
		}
	}
	delete(s.leases, ns+"/"+name)
	s.version++
	return lease.DeepCopy(), nil
}

// create stores a new Lease, as the API server's create does.
func (s *Server) create(ns string, lease *coordinationv1.Lease) (runtime.Object, error) {
	if lease.Namespace != "" && lease.Namespace != ns {
		return nil, apierrors.NewBadRequest("the namespace of the object does not match the namespace on the request")
	}
	lease.Namespace = ns
	if _, ok := s.leases[ns+"/"+lease.Name]; ok {
		return nil, apierrors.NewAlreadyExists(leaseResource, lease.Name)
	}
	if lease.ResourceVersion != "" {
		return nil, apierrors.NewInternalError(errors.New("resourceVersion should not be set on objects to be created"))
	}
	return s.insert(lease)
}

// insert stores lease as a new object: system fields, the feature gate, validation.
func (s *Server) insert(lease *coordinationv1.Lease) (runtime.Object, error) {
	s.uids++
	lease.UID = types.UID("leasetest-" + strconv.Itoa(s.uids))
	lease.CreationTimestamp = metav1.NewTime(time.Now().Truncate(time.Second))
	lease.DeletionTimestamp, lease.DeletionGracePeriodSeconds = nil, nil
	if !s.coordinated {
		lease.Spec.Strategy, lease.Spec.PreferredHolder = nil, nil
	}
	if errs := validate(lease, nil); len(errs) > 0 {
		return nil, invalid(lease.Name, errs)
	}
	s.store(lease)
	return lease.DeepCopy(), nil
}

// update replaces a Lease, as the API server's update does.
func (s *Server) update(ns string, lease *coordinationv1.Lease) (runtime.Object, error) {
	if lease.Namespace != "" && lease.Namespace != ns {
		return nil, apierrors.NewBadRequest("the namespace of the object does not match the namespace on the request")
	}
	lease.Namespace = ns
	current, ok := s.leases[ns+"/"+lease.Name]
	if !ok {
		lease.ResourceVersion = ""
		return s.insert(lease) // a Lease may be created by an update
	}
	switch lease.ResourceVersion {
	case "":
		return nil, invalid(lease.Name, field.ErrorList{field.Invalid(field.NewPath("metadata", "resourceVersion"), 0, "must be specified for an update")})
	case current.ResourceVersion:
	default:
		return nil, apierrors.NewConflict(leaseResource, lease.Name, errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	}
	lease.Generation = current.Generation
	if !s.coordinated {
		if current.Spec.Strategy == nil {
			lease.Spec.Strategy = nil
		}
		if current.Spec.PreferredHolder == nil {
			lease.Spec.PreferredHolder = nil
		}
	}
	if lease.UID == "" {
		lease.UID = current.UID
	}
	lease.CreationTimestamp = current.CreationTimestamp
	if errs := validate(lease, current); len(errs) > 0 {
		return nil, invalid(lease.Name, errs)
	}
	truncate(lease)
	if apiequality.Semantic.DeepEqual(lease, current) {
		return current.DeepCopy(), nil // nothing changed: nothing is written
	}
	s.store(lease)
	return lease.DeepCopy(), nil
}

// store saves lease under a new resourceVersion.
func (s *Server) store(lease *coordinationv1.Lease) {
	truncate(lease)
	s.version++
	lease.ResourceVersion = strconv.Itoa(s.version)
	s.leases[lease.Namespace+"/"+lease.Name] = lease
}

// truncate keeps the microseconds of the Lease's times, as their serialization does, and
// drops their monotonic clock readings, which do not travel either.
func truncate(lease *coordinationv1.Lease) {
	for _, t := range []*metav1.MicroTime{lease.Spec.AcquireTime, lease.Spec.RenewTime} {
		if t != nil {
			t.Time = t.Time.Truncate(time.Microsecond)
		}
	}
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
