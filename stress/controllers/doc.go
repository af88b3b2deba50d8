// Package controllers runs actorqueue inside real controllers: the classic client-go
// controller (a shared informer over a fake clientset, event handlers, workers that retry),
// side by side with client-go's own queue, and a controller-runtime controller that uses
// actorqueue through its NewQueue option. See stress/README.md.
package controllers
