package crshard

import (
	"testing"

	"github.com/go-logr/logr"
	"go.uber.org/goleak"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

func TestMain(m *testing.M) {
	klog.SetLogger(logr.Discard()) // client-go's elector logs every acquisition and failure
	ctrllog.SetLogger(logr.Discard())
	goleak.VerifyTestMain(m)
}
