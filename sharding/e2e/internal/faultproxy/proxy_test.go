package faultproxy

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The proxy is tested over loopback TCP in real time, as the end-to-end tests use it; every
// wait is a read with a deadline.

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// echo starts a server that writes back what it reads, and returns its address.
func echo(t *testing.T) string { return echoNotify(t, nil) }

// echoNotify is echo that also sends on got, if not nil, each time it has read something.
func echoNotify(t *testing.T, got chan<- struct{}) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				buf := make([]byte, 1024)
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					select {
					case got <- struct{}{}:
					default: // nobody waits (or got is nil)
					}
					if _, err := c.Write(buf[:n]); err != nil {
						return
					}
				}
			})
		}
	})
	return l.Addr().String()
}

func start(t *testing.T) (*Proxy, func() net.Conn) { return startTo(t, echo(t)) }

func startTo(t *testing.T, target string) (*Proxy, func() net.Conn) {
	t.Helper()
	p, err := Start(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	dial := func() net.Conn {
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	return p, dial
}

// roundTrip writes msg and reads it back within timeout; it returns the error of the read.
func roundTrip(c net.Conn, msg string, timeout time.Duration) error {
	if _, err := c.Write([]byte(msg)); err != nil {
		return err
	}
	c.SetReadDeadline(time.Now().Add(timeout))
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(c, buf); err != nil {
		return err
	}
	if string(buf) != msg {
		return errors.New("echoed " + string(buf))
	}
	return nil
}

func TestForwards(t *testing.T) {
	_, dial := start(t)
	c := dial()
	for _, msg := range []string{"one", "two", "three"} {
		if err := roundTrip(c, msg, 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDelay(t *testing.T) {
	for _, tc := range []struct{ up, down time.Duration }{{200 * time.Millisecond, 0}, {0, 200 * time.Millisecond}, {100 * time.Millisecond, 100 * time.Millisecond}} {
		p, dial := start(t)
		p.SetDelay(tc.up, tc.down)
		c := dial()
		began := time.Now()
		if err := roundTrip(c, "slow", 5*time.Second); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(began); took < tc.up+tc.down {
			t.Errorf("delays %v up, %v down: the round trip took %v", tc.up, tc.down, took)
		}
	}
}

func TestRefused(t *testing.T) {
	p, dial := start(t)
	c := dial()
	if err := roundTrip(c, "before", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	p.Set(Refused)
	if err := roundTrip(c, "after", 5*time.Second); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("open connection after Refused: %v, want it reset", err)
	}
	// A new connection is reset: at the dial already, or at the first read.
	if c, err := net.Dial("tcp", p.Addr()); err == nil {
		defer c.Close()
		if err := roundTrip(c, "new", 5*time.Second); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("new connection while Refused: %v, want it reset", err)
		}
	}
	p.Set(Open)
	if err := roundTrip(dial(), "again", 5*time.Second); err != nil {
		t.Errorf("new connection once Open again: %v", err)
	}
}

func TestSilent(t *testing.T) {
	p, dial := start(t)
	c := dial()
	if err := roundTrip(c, "before", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	p.Set(Silent)
	if err := roundTrip(c, "lost", 300*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("open connection while Silent: %v, want no answer", err)
	}
	if err := roundTrip(dial(), "lost too", 300*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("new connection while Silent: %v, want no answer", err)
	}
	p.Set(Open)
	if err := roundTrip(c, "after", 5*time.Second); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("silenced connection once Open: %v, want it closed", err)
	}
	if err := roundTrip(dial(), "fresh", 5*time.Second); err != nil {
		t.Errorf("new connection once Open: %v", err)
	}
}

func TestLoseRequests(t *testing.T) {
	got := make(chan struct{}, 1)
	p, dial := startTo(t, echoNotify(t, got))
	p.SetDelay(0, 300*time.Millisecond)
	c := dial()
	if _, err := c.Write([]byte("early")); err != nil {
		t.Fatal(err)
	}
	<-got // the server has the request; its echo is held by the delay
	p.Set(LoseRequests)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, len("early"))
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatalf("the answer to a request sent before LoseRequests: %v", err)
	}
	p.SetDelay(0, 0)
	if err := roundTrip(c, "late", 300*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a request sent while LoseRequests: %v, want no answer", err)
	}
	p.Set(Open)
	if err := roundTrip(dial(), "fresh", 5*time.Second); err != nil {
		t.Errorf("new connection once Open: %v", err)
	}
}

// TestHoldAnswers: a request made while the proxy holds answers reaches the server, its answer
// waits, and it arrives on the same connection once the proxy opens.
func TestHoldAnswers(t *testing.T) {
	got := make(chan struct{}, 1)
	p, dial := startTo(t, echoNotify(t, got))
	c := dial()
	p.Set(HoldAnswers)
	if err := roundTrip(c, "held", 300*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a request sent while HoldAnswers: %v, want its answer held", err)
	}
	select {
	case <-got:
	default:
		t.Fatal("the server never had the request")
	}
	p.Set(Open)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, len("held"))
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "held" {
		t.Fatalf("the held answer once Open: %q, %v", buf, err)
	}
	if err := roundTrip(c, "after", 5*time.Second); err != nil {
		t.Errorf("the same connection once Open: %v", err)
	}
}
