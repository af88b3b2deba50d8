package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/actorqueue/workqueue/sharding/e2e/internal/cluster"
)

// process is one replica, running as a child process.
type process struct {
	name   string
	cmd    *exec.Cmd
	exited chan struct{} // closed once it exited and its output is read
	err    error         // how it exited, once exited is closed
}

// startReplica starts this program as the replica name, on the cluster's API server with
// token, and in namespace. Its standard output is printed prefixed with its name; its standard error, its
// logs, goes to dir/<name>.log.
func startReplica(dir, name string, c *cluster.Cluster, token, namespace string) (*process, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	log, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-replica", name, "-server", c.URL, "-ca", c.CAFile, "-token", token, "-namespace", namespace)
	cmd.Stderr = log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlive the example
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		log.Close()
		return nil, err
	}
	p := &process{name: name, cmd: cmd, exited: make(chan struct{})}
	go func() {
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			say("  %s │ %s", name, lines.Text())
		}
		p.err = cmd.Wait()
		log.Close()
		close(p.exited)
	}()
	return p, nil
}

// term sends the replica SIGTERM: it hands its buckets back, and exits.
func (p *process) term() { p.cmd.Process.Signal(syscall.SIGTERM) }

// wait waits for the replica to exit, up to timeout. It returns an error if the replica did
// not exit in time (it is killed then) or did not exit with status 0.
func (p *process) wait(timeout time.Duration) error {
	select {
	case <-p.exited:
	case <-time.After(timeout):
		p.cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("%s did not exit within %v of SIGTERM", p.name, timeout)
	}
	if p.err != nil {
		return fmt.Errorf("%s exited: %w", p.name, p.err)
	}
	return nil
}

// kill kills the replica if it still runs, and waits for it.
func (p *process) kill() {
	select {
	case <-p.exited:
	default:
		p.cmd.Process.Kill()
		<-p.exited
	}
}
