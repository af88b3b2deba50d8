package leasetest

import (
	"slices"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validate checks lease as the API server does before it stores a create (old is nil) or an
// update of old: its metadata, and the rules of k8s.io/kubernetes
// pkg/apis/coordination/validation.ValidateLeaseSpec.
func validate(lease, old *coordinationv1.Lease) field.ErrorList {
	var errs field.ErrorList
	if old == nil {
		errs = apivalidation.ValidateObjectMeta(&lease.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	} else {
		errs = apivalidation.ValidateObjectMetaUpdate(&lease.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	}
	spec := field.NewPath("spec")
	if d := lease.Spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(spec.Child("leaseDurationSeconds"), *d, "must be greater than 0"))
	}
	if n := lease.Spec.LeaseTransitions; n != nil && *n < 0 {
		errs = append(errs, field.Invalid(spec.Child("leaseTransitions"), *n, "must be greater than or equal to 0"))
	}
	if s := lease.Spec.Strategy; s != nil {
		errs = append(errs, validateStrategy(*s, spec.Child("strategy"))...)
	}
	if p := lease.Spec.PreferredHolder; p != nil && *p != "" && (lease.Spec.Strategy == nil || *lease.Spec.Strategy == "") {
		errs = append(errs, field.Forbidden(spec.Child("preferredHolder"), "may only be specified if `strategy` is defined"))
	}
	return errs
}

// knownStrategies are the strategies without a domain that the API server accepts.
var knownStrategies = []coordinationv1.CoordinatedLeaseStrategy{coordinationv1.OldestEmulationVersion}

// validateStrategy accepts a strategy Kubernetes defines, or a qualified name with a domain
// prefix ("example.com/mine"), as the API server does.
func validateStrategy(s coordinationv1.CoordinatedLeaseStrategy, path *field.Path) field.ErrorList {
	if !strings.Contains(string(s), "/") {
		if slices.Contains(knownStrategies, s) {
			return nil
		}
		return field.ErrorList{field.NotSupported(path, s, knownStrategies)}
	}
	var errs field.ErrorList
	for _, msg := range content.IsQualifiedName(string(s)) {
		errs = append(errs, field.Invalid(path, s, msg))
	}
	return errs
}

// invalid is the API server's 422 answer for a Lease that fails validation.
func invalid(name string, errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: "coordination.k8s.io", Kind: "Lease"}, name, errs)
}
