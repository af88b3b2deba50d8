package sharding

import (
	"context"
	"errors"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
)

// quietVerbosity is the level at which a campaign's elector logs what client-go's elector
// reports as an error but is the election of a healthy cluster at work (see quietLogger):
// the level of the elector's own "Failed to acquire lease".
const quietVerbosity = 4

// quietLogger returns electing with a logger for the elector that runs in it, which the
// campaign stops by cancelling electing. client-go's elector logs at error level, and at
// level 0 for a renew loop's end, what a healthy cluster does all the time: two replicas
// creating a bucket's Lease at once ("already exists"), or writing it from the same version
// (a conflict: the other won); a request cut short when the campaign stops the elector
// (context canceled, on every graceful hand-over); and a refusal to acquire beyond the fair
// share (errAtShare). The logger moves those to level quietVerbosity; every other error,
// and every cancellation before the campaign stopped the elector, stays where the elector
// put it.
func quietLogger(electing context.Context) context.Context {
	logger := klog.FromContext(electing)
	sink := logger.GetSink()
	if sink == nil {
		return electing // logr.Discard
	}
	if withDepth, ok := sink.(logr.CallDepthLogSink); ok {
		sink = withDepth.WithCallDepth(1) // quietSink's frame
	}
	// WithSink, unlike logr.New, does not Init the sink again: it is shared.
	return klog.NewContext(electing, logger.WithSink(quietSink{sink, electing}))
}

// quietSink is a logr.LogSink that moves the elector's reports of a healthy election to
// level quietVerbosity (see quietLogger).
type quietSink struct {
	logr.LogSink
	electing context.Context // done once the campaign stops the elector
}

func (q quietSink) Error(err error, msg string, keysAndValues ...any) {
	if q.healthy(err) {
		q.Info(quietVerbosity, msg, append(keysAndValues, "err", err)...)
		return
	}
	q.LogSink.Error(err, msg, keysAndValues...)
}

func (q quietSink) Info(level int, msg string, keysAndValues ...any) {
	if level < quietVerbosity {
		for i := 1; i < len(keysAndValues); i += 2 {
			if err, ok := keysAndValues[i].(error); ok && q.healthy(err) {
				level = quietVerbosity
			}
		}
	}
	if level > 0 && !q.LogSink.Enabled(level) {
		return
	}
	q.LogSink.Info(level, msg, keysAndValues...)
}

// healthy reports whether err is the election of a healthy cluster at work.
func (q quietSink) healthy(err error) bool {
	switch {
	case errors.Is(err, errAtShare), apierrors.IsAlreadyExists(err), apierrors.IsConflict(err):
		return true
	case errors.Is(err, context.Canceled):
		return q.electing.Err() != nil
	}
	return false
}

func (q quietSink) WithValues(keysAndValues ...any) logr.LogSink {
	return quietSink{q.LogSink.WithValues(keysAndValues...), q.electing}
}

func (q quietSink) WithName(name string) logr.LogSink {
	return quietSink{q.LogSink.WithName(name), q.electing}
}
