// Package cluster runs the API server of the end-to-end tests: kube-apiserver, built from
// k8s.io/kubernetes by the Go command (a tool of this module), as a child process, on an etcd
// embedded in the calling process, with RBAC on. The tests are admins (Cluster.Token); the
// replicas run as the ServiceAccount of the sharding module's manifests, under its Roles
// (Cluster.ServiceAccount, rbac.go).
package cluster

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/client-go/rest"
)

// Options configures Start.
type Options struct {
	// Binary is the path of kube-apiserver, e.g. from [ToolPath]. Required.
	Binary string
	// Dir holds etcd's data, the server's certificates, keys and log. Required.
	Dir string
	// FeatureGates is kube-apiserver's --feature-gates, e.g. "CoordinatedLeaderElection=true";
	// empty keeps the defaults, as a cluster has them.
	FeatureGates string
	// RuntimeConfig is kube-apiserver's --runtime-config, e.g.
	// "coordination.k8s.io/v1beta1=true", which CoordinatedLeaderElection needs; empty keeps
	// the default APIs.
	RuntimeConfig string
}

// Cluster is a running etcd and kube-apiserver.
type Cluster struct {
	// URL is the server's address, "https://127.0.0.1:port".
	URL string
	// CAFile verifies the server's certificate, which names 127.0.0.1 and localhost.
	CAFile string
	// Token authenticates a member of system:masters, allowed everything: the tests' own
	// credential, never the replicas'.
	Token string
	// Log is the file kube-apiserver writes its output to.
	Log string

	etcd      *embed.Etcd
	apiserver *exec.Cmd
	exited    chan struct{}
	exitErr   error
}

// ToolPath returns the path of the executable that the Go command builds, and caches, for the
// tool name of the module in dir (a tool directive of its go.mod). The first call on an empty
// build cache compiles it: minutes for kube-apiserver.
func ToolPath(ctx context.Context, dir, name string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "tool", "-n", name)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go tool -n %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Start starts etcd and kube-apiserver and returns once the server answers /readyz, within
// a minute and a half.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	if o.Binary == "" || o.Dir == "" {
		return nil, errors.New("cluster: Options.Binary and Options.Dir are required")
	}
	etcd, etcdURL, err := startEtcd(o.Dir)
	if err != nil {
		return nil, err
	}
	c := &Cluster{etcd: etcd, exited: make(chan struct{}), Log: filepath.Join(o.Dir, "kube-apiserver.log")}
	if err := c.startAPIServer(o, etcdURL); err != nil {
		etcd.Close()
		return nil, err
	}
	if err := c.awaitReady(ctx, 90*time.Second); err != nil {
		c.Stop()
		return nil, fmt.Errorf("%w (see %s)", err, c.Log)
	}
	return c, nil
}

func (c *Cluster) startAPIServer(o Options, etcdURL string) error {
	secret := make([]byte, 16)
	rand.Read(secret)
	c.Token = hex.EncodeToString(secret)
	tokens := filepath.Join(o.Dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(c.Token+`,e2e-admin,e2e-admin,"system:masters"`+"\n"), 0o600); err != nil {
		return err
	}
	saKey, err := writeServiceAccountKey(filepath.Join(o.Dir, "sa.key"))
	if err != nil {
		return err
	}
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	certDir := filepath.Join(o.Dir, "certificates")
	c.URL = "https://" + net.JoinHostPort("127.0.0.1", ports[0])
	c.CAFile = filepath.Join(certDir, "apiserver.crt")
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + ports[0],
		"--cert-dir=" + certDir,
		"--token-auth-file=" + tokens,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + saKey,
		"--service-account-signing-key-file=" + saKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		// The server's own Service endpoints would name a loopback address: nothing uses them.
		"--endpoint-reconciler-type=none",
	}
	if o.FeatureGates != "" {
		args = append(args, "--feature-gates="+o.FeatureGates)
	}
	if o.RuntimeConfig != "" {
		args = append(args, "--runtime-config="+o.RuntimeConfig)
	}
	log, err := os.Create(c.Log)
	if err != nil {
		return err
	}
	cmd := exec.Command(o.Binary, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlive the tests
	if err := cmd.Start(); err != nil {
		log.Close()
		return err
	}
	c.apiserver = cmd
	go func() {
		c.exitErr = cmd.Wait()
		log.Close()
		close(c.exited)
	}()
	return nil
}

// writeServiceAccountKey writes a new ECDSA key to path, with which kube-apiserver signs and
// verifies service account tokens (the replicas' tokens, from the TokenRequest API).
func writeServiceAccountKey(path string) (string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}

// Config returns a client configuration for the server at host, "127.0.0.1:port" (a proxy in
// front of it), or at its own address if host is empty.
func (c *Cluster) Config(host string) *rest.Config {
	url := c.URL
	if host != "" {
		url = "https://" + host
	}
	return &rest.Config{Host: url, BearerToken: c.Token, TLSClientConfig: rest.TLSClientConfig{CAFile: c.CAFile}}
}

// awaitReady waits until the server answers /readyz with 200, it exits, or timeout passes.
func (c *Cluster) awaitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var client *http.Client
	for {
		if client == nil {
			// The CA file appears once the server has generated its certificate.
			if _, err := os.Stat(c.CAFile); err == nil {
				if client, err = rest.HTTPClientFor(c.Config("")); err != nil {
					return err
				}
			}
		}
		if client != nil {
			if resp, err := client.Get(c.URL + "/readyz"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return nil
				}
			}
		}
		select {
		case <-c.exited:
			return fmt.Errorf("kube-apiserver exited before it was ready: %v", c.exitErr)
		case <-deadline.C:
			return fmt.Errorf("kube-apiserver not ready after %v", timeout)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// Stop stops kube-apiserver (SIGTERM, then SIGKILL after 10 s) and etcd, and waits for both.
func (c *Cluster) Stop() {
	if c.apiserver != nil {
		c.apiserver.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.exited:
		case <-time.After(10 * time.Second):
			c.apiserver.Process.Kill()
			<-c.exited
		}
	}
	c.etcd.Close()
}
