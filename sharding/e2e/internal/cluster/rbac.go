package cluster

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"

	"github.com/actorqueue/workqueue/sharding/deploy"
)

// Manifest decodes the sharding module's manifest file name (package deploy: "rbac.yaml",
// "deployment.yaml", …) strictly with client-go's scheme, one object per document.
func Manifest(name string) ([]runtime.Object, error) {
	data, err := deploy.Manifests.ReadFile(name)
	if err != nil {
		return nil, err
	}
	decoder := json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme,
		json.SerializerOptions{Yaml: true, Strict: true})
	docs := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []runtime.Object
	for {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, _, err := decoder.Decode(doc, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		objs = append(objs, obj)
	}
}

// Move puts the manifests' objects in namespace: the namespaced ones and the subjects of the
// bindings; cluster-wide objects are renamed "<namespace>-<name>" (and so are the roles their
// bindings refer to), so that each namespace has its own.
func Move(objs []runtime.Object, namespace string) {
	for _, obj := range objs {
		switch o := obj.(type) {
		case *rbacv1.ClusterRole:
			o.Name = namespace + "-" + o.Name
		case *rbacv1.ClusterRoleBinding:
			o.Name = namespace + "-" + o.Name
			o.RoleRef.Name = namespace + "-" + o.RoleRef.Name
			moveSubjects(o.Subjects, namespace)
		case *rbacv1.RoleBinding:
			o.Namespace = namespace
			moveSubjects(o.Subjects, namespace)
		case metav1.Object:
			o.SetNamespace(namespace)
		}
	}
}

func moveSubjects(subjects []rbacv1.Subject, namespace string) {
	for i := range subjects {
		if subjects[i].Kind == rbacv1.ServiceAccountKind {
			subjects[i].Namespace = namespace
		}
	}
}

// Create creates obj, one of the kinds of the manifests, with client.
func Create(ctx context.Context, client kubernetes.Interface, obj runtime.Object, opts metav1.CreateOptions) error {
	var err error
	switch o := obj.(type) {
	case *corev1.ServiceAccount:
		_, err = client.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, opts)
	case *rbacv1.Role:
		_, err = client.RbacV1().Roles(o.Namespace).Create(ctx, o, opts)
	case *rbacv1.RoleBinding:
		_, err = client.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, opts)
	case *rbacv1.ClusterRole:
		_, err = client.RbacV1().ClusterRoles().Create(ctx, o, opts)
	case *rbacv1.ClusterRoleBinding:
		_, err = client.RbacV1().ClusterRoleBindings().Create(ctx, o, opts)
	case *appsv1.Deployment: // the server runs no pods: create it with a dry run
		_, err = client.AppsV1().Deployments(o.Namespace).Create(ctx, o, opts)
	case *policyv1.PodDisruptionBudget:
		_, err = client.PolicyV1().PodDisruptionBudgets(o.Namespace).Create(ctx, o, opts)
	default:
		return fmt.Errorf("cluster: cannot create a %T", obj)
	}
	return err
}

// ServiceAccount applies the sharding module's rbac.yaml to namespace, each object changed by
// edit first (nil: as it is), and returns a token of its ServiceAccount that the server
// issued (the TokenRequest API), valid for an hour: requests with it are the ServiceAccount's,
// which RBAC authorizes through the Roles. It returns once the server authorizes every rule
// of the Roles for the ServiceAccount, within 30 s.
func (c *Cluster) ServiceAccount(ctx context.Context, namespace string, edit func(runtime.Object)) (string, error) {
	client, err := kubernetes.NewForConfig(c.Config(""))
	if err != nil {
		return "", err
	}
	objs, err := Manifest("rbac.yaml")
	if err != nil {
		return "", err
	}
	Move(objs, namespace)
	var account *corev1.ServiceAccount
	var rules []rbacv1.PolicyRule
	for _, obj := range objs {
		if edit != nil {
			edit(obj)
		}
		switch o := obj.(type) {
		case *corev1.ServiceAccount:
			account = o
		case *rbacv1.Role:
			rules = append(rules, o.Rules...)
		}
		if err := Create(ctx, client, obj, metav1.CreateOptions{}); err != nil {
			return "", fmt.Errorf("applying rbac.yaml: %w", err)
		}
	}
	if account == nil {
		return "", errors.New("rbac.yaml has no ServiceAccount")
	}
	token, err := client.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, account.Name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("requesting a token of %s/%s: %w", namespace, account.Name, err)
	}
	user := "system:serviceaccount:" + namespace + ":" + account.Name
	return token.Status.Token, awaitAuthorized(ctx, client, user, namespace, rules, 30*time.Second)
}

// awaitAuthorized waits until the server authorizes user for every verb of rules in
// namespace: RBAC's authorizer learns of new bindings through a watch, a moment after they are
// created.
func awaitAuthorized(ctx context.Context, client kubernetes.Interface, user, namespace string, rules []rbacv1.PolicyRule, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, rule := range rules {
		for _, group := range rule.APIGroups {
			for _, resource := range rule.Resources {
				for _, verb := range rule.Verbs {
					review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
						User: user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
						ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: namespace, Verb: verb, Group: group, Resource: resource},
					}}
					for {
						answer, err := client.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
						if err != nil {
							return err
						}
						if answer.Status.Allowed {
							break
						}
						if time.Now().After(deadline) {
							return fmt.Errorf("%s may not %s %s in %s after %v: %s", user, verb, resource, namespace, timeout, answer.Status.Reason)
						}
						select {
						case <-ctx.Done():
							return ctx.Err()
						case <-time.After(50 * time.Millisecond):
						}
					}
				}
			}
		}
	}
	return nil
}
