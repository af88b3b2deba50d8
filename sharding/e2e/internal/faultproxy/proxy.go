// Package faultproxy is a TCP proxy that the end-to-end tests put between one replica and the
// API server to slow its traffic down and to cut it off, while both ends run unchanged.
//
// It forwards bytes, not requests: TLS and HTTP/2 pass through untouched, and a delay applies
// to every request and answer on the connection, watches included, as a slow network would.
package faultproxy

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// Proxy forwards the connections it accepts to a target address, applying the faults set
// on it. Its methods are safe for simultaneous use by multiple goroutines.
type Proxy struct {
	listener net.Listener
	target   string

	mu      sync.Mutex
	up      time.Duration // delay of the bytes the client sends
	down    time.Duration // delay of the bytes the server answers
	state   State
	changed chan struct{} // closed, and replaced, when the state changes
	links   map[*link]struct{}
	done    bool
	wg      sync.WaitGroup
}

// State is whether a Proxy forwards.
type State int

const (
	// Open forwards, after the delays.
	Open State = iota
	// Refused closes every connection and resets new ones at once, as an unreachable port
	// does: requests fail fast.
	Refused
	// Silent keeps connections open and accepts new ones but forwards nothing, as a network
	// that drops every packet does: requests hang until the client's own timeout. Opening
	// the proxy again closes the connections that were silenced, since the bytes they lost
	// cannot be made up.
	Silent
	// LoseRequests is Silent in one direction: the bytes the client sends are dropped, while
	// those the server sent before, delayed answers included, still arrive. A request made
	// now hangs; one made earlier can still succeed. Opening the proxy again closes the
	// connections, as after Silent.
	LoseRequests
	// HoldAnswers forwards the client's bytes and holds the server's: a request made now is
	// served, and its answer waits in the proxy, in order with the others, until the state
	// changes, when they go on (or are dropped, if the new state drops them). A process
	// stopped (SIGSTOP) once its answers are held, and the proxy opened, finds them waiting
	// when it resumes.
	HoldAnswers
)

// Start listens on a free loopback port and forwards each connection to target.
func Start(target string) (*Proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{listener: l, target: target, links: make(map[*link]struct{}), changed: make(chan struct{})}
	p.wg.Go(p.accept)
	return p, nil
}

// Addr returns the address clients connect to, "127.0.0.1:port".
func (p *Proxy) Addr() string { return p.listener.Addr().String() }

// SetDelay delays each chunk of bytes by up on its way to the target and by down on its way
// back, from the moment the proxy reads it; order is kept. It applies to bytes read from now
// on. Zero forwards at once.
func (p *Proxy) SetDelay(up, down time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.up, p.down = up, down
}

// Set puts the proxy in state s; see [State].
func (p *Proxy) Set(s State) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s == p.state {
		return
	}
	wasDropping := p.state == Silent || p.state == LoseRequests
	p.state = s
	close(p.changed)
	p.changed = make(chan struct{})
	if s == Refused || (s == Open && wasDropping) {
		for l := range p.links {
			l.close()
		}
	}
}

// Close stops accepting, closes every connection and waits for the proxy's goroutines.
func (p *Proxy) Close() error {
	err := p.listener.Close()
	p.mu.Lock()
	p.done = true
	for l := range p.links {
		l.close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	for {
		client, err := p.listener.Accept()
		if err != nil {
			return // closed
		}
		p.mu.Lock()
		if p.done || p.state == Refused {
			p.mu.Unlock()
			resetAndClose(client)
			continue
		}
		l := &link{client: client, gone: make(chan struct{})}
		p.links[l] = struct{}{}
		p.mu.Unlock()
		p.wg.Go(func() { p.serve(l) })
	}
}

// serve dials the target for l and forwards both ways until either side closes.
func (p *Proxy) serve(l *link) {
	defer func() {
		l.close()
		p.mu.Lock()
		delete(p.links, l)
		p.mu.Unlock()
	}()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	if !l.setServer(server) {
		server.Close()
		return
	}
	var both sync.WaitGroup
	both.Go(func() { p.pipe(l, server, l.client, true) })
	both.Go(func() { p.pipe(l, l.client, server, false) })
	both.Wait()
}

// chunk is bytes read from one side, to be written to the other at due.
type chunk struct {
	data []byte
	due  time.Time
}

// pipe copies src to dst, holding each chunk for the current delay of its direction and
// dropping it if the proxy drops that direction when it is due. It closes the link when either side fails.
func (p *Proxy) pipe(l *link, dst, src net.Conn, upward bool) {
	defer l.close()
	queue := make(chan chunk, 4096)
	var writer sync.WaitGroup
	writer.Go(func() {
		defer l.close()
		timer := time.NewTimer(0)
		defer timer.Stop()
		for c := range queue { // until the reader closes it, so that the reader never blocks
			if wait := time.Until(c.due); wait > 0 {
				timer.Reset(wait)
				select {
				case <-timer.C:
				case <-l.gone:
				}
			}
			p.waitWhileHeld(upward, l.gone)
			if l.isClosed() || p.dropping(upward) {
				continue
			}
			if _, err := dst.Write(c.data); err != nil {
				l.close()
			}
		}
	})
	defer writer.Wait()
	defer close(queue)
	for {
		buf := make([]byte, 32<<10)
		n, err := src.Read(buf)
		if n > 0 {
			queue <- chunk{data: buf[:n], due: time.Now().Add(p.delay(upward))}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				l.close()
			}
			return
		}
	}
}

func (p *Proxy) delay(upward bool) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if upward {
		return p.up
	}
	return p.down
}

// waitWhileHeld waits while the proxy holds the bytes going up (to the target) or down, or
// until gone is closed.
func (p *Proxy) waitWhileHeld(upward bool, gone <-chan struct{}) {
	for {
		p.mu.Lock()
		held, changed := !upward && p.state == HoldAnswers, p.changed
		p.mu.Unlock()
		if !held {
			return
		}
		select {
		case <-changed:
		case <-gone:
			return
		}
	}
}

// dropping reports whether the bytes going up (to the target) or down are dropped now.
func (p *Proxy) dropping(upward bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state == Silent || (upward && p.state == LoseRequests)
}

// link is one client connection and its connection to the target.
type link struct {
	client net.Conn
	gone   chan struct{} // closed by close

	mu     sync.Mutex
	server net.Conn
	closed bool
}

func (l *link) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// setServer records the connection to the target, or reports false if l is closed already.
func (l *link) setServer(server net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.server = server
	return true
}

// close closes both connections; the client's with a reset, as a failed network would.
func (l *link) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.closed = true
	close(l.gone)
	resetAndClose(l.client)
	if l.server != nil {
		l.server.Close()
	}
}

// resetAndClose closes c so that the peer sees a reset rather than an orderly end of stream.
func resetAndClose(c net.Conn) {
	if tcp, ok := c.(*net.TCPConn); ok {
		tcp.SetLinger(0)
	}
	c.Close()
}
