//go:build mutants

package mutant

import "os"

var active = Bug(os.Getenv("ACTORQUEUE_MUTANT"))

// Active reports whether bug is the one named by ACTORQUEUE_MUTANT.
func Active(bug Bug) bool { return bug == active }
