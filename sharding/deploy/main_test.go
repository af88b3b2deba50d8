package deploy

import (
	"testing"

	"github.com/go-logr/logr"
	"go.uber.org/goleak"
	"k8s.io/klog/v2"
)

func TestMain(m *testing.M) {
	klog.SetLogger(logr.Discard()) // client-go's elector logs every acquisition
	goleak.VerifyTestMain(m)
}
