package metrics

// GivenUpProvider is implemented by providers that also count the items a queue gave up on:
// items that reached the queue's maximum of rate-limited requeues (the MaxRetries of the
// workqueue configs), which AddRateLimited dropped instead of requeueing. client-go has no such
// counter; the providers of this repository's prometheus and controllerruntime modules record
// it as workqueue_given_up_total. A queue with a maximum asks for the counter once, when it is
// created, and increments it in the goroutine of the AddRateLimited call that gave up, so the
// counter must be safe for concurrent use.
type GivenUpProvider interface {
	NewGivenUpMetric(name string) CounterMetric
}

// NewGivenUp returns the given-up counter of the queue named name, from provider or, when nil,
// the global provider: nil for an unnamed queue, or when the provider does not implement
// [GivenUpProvider]. It panics, as New does, if there is no provider or it returns nil.
func NewGivenUp(name string, provider Provider) CounterMetric {
	if name == "" {
		return nil
	}
	p, ok := providerOf(name, provider).(GivenUpProvider)
	if !ok {
		return nil
	}
	return made(p.NewGivenUpMetric(name), "NewGivenUpMetric", name)
}
