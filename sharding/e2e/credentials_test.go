package e2e

import (
	"context"
)

// replicaToken returns the credential of the scenario's replicas, made on first use: the
// sharding module's rbac.yaml applied to the scenario's namespace (after h.editRoles, if set)
// and a token of its ServiceAccount that the server issued. The replicas are thus authorized
// by RBAC, through the Roles a user would apply, never as admins: a permission the library
// needs and the Roles lack fails the scenario.
func (h *harness) replicaToken() string {
	h.t.Helper()
	if h.token == "" {
		token, err := h.cluster.ServiceAccount(context.Background(), h.ns, h.editRoles)
		if err != nil {
			h.t.Fatal(err)
		}
		h.token = token
	}
	return h.token
}
