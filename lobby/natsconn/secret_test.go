package natsconn

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	natsd "github.com/nats-io/nats-server/v2/server"
)

var testSecret = []byte("correct horse battery staple, twice")

// TestSecretKeepsStrangersOut: two nodes sharing a secret form a cluster
// whose route port asks for TLS and a password; a server without the
// secret, or with another, that routes to it is refused, the refusal is
// logged, and the cluster's routes stay as they were.
func TestSecretKeepsStrangersOut(t *testing.T) {
	if testing.Short() {
		t.Skip("forming a cluster takes seconds")
	}
	refusals := make(chan string, 100)
	nodes := openCluster(t, 2, func(i int, cfg *Config) {
		cfg.Secret = testSecret
		if i == 0 {
			cfg.Logger = slog.New(teeHandler{slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}), refusals})
		}
	})
	first := nodes[0].srv
	if n := first.NumRoutes(); n < 1 {
		t.Fatalf("node 1 has %d routes, want its peer's", n)
	}
	addr := first.ClusterAddr().String()

	// The route port speaks TLS 1.3 only, and reads nothing from a
	// client with no certificate of the cluster.
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatalf("a TLS handshake with the route port: %v", err)
	}
	if v := conn.ConnectionState().Version; v != tls.VersionTLS13 {
		t.Errorf("the route port speaks TLS %x, want 1.3", v)
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a client with no certificate reads from the route port: %v, want its refusal", err)
	}
	conn.Close()

	routes := first.NumRoutes()
	for _, tc := range []struct {
		name   string
		secret []byte
	}{
		{"no secret", nil},
		{"another secret", []byte("an entirely different secret!")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for len(refusals) > 0 {
				<-refusals
			}
			stranger := startStranger(t, "nats://"+addr, tc.secret)
			select {
			case line := <-refusals:
				t.Logf("refused: %s", line)
			case <-time.After(30 * time.Second):
				t.Fatal("node 1 logged no refusal of the stranger's route")
			}
			if n := first.NumRoutes(); n != routes {
				t.Errorf("node 1 has %d routes, want %d: the stranger's was taken", n, routes)
			}
			if n := stranger.NumRoutes(); n != 0 {
				t.Errorf("the stranger has %d routes", n)
			}
		})
	}
}

// startStranger starts a bare NATS server, no JetStream, that routes to
// url as a node would with secret (none if nil).
func startStranger(t *testing.T, url string, secret []byte) *natsd.Server {
	t.Helper()
	c := &Conn{cfg: Config{Cluster: "127.0.0.1:0", Routes: []string{url}, Node: "stranger", Secret: secret}}
	opts := &natsd.Options{ServerName: "stranger", NoSigs: true, NoLog: true}
	if err := c.clusterOptions(opts); err != nil {
		t.Fatal(err)
	}
	s, err := natsd.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("the stranger did not start")
	}
	return s
}

// teeHandler passes records on and sends the messages of errors to a
// channel, dropping them when it is full.
type teeHandler struct {
	slog.Handler
	errs chan<- string
}

func (h teeHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		select {
		case h.errs <- r.Message:
		default:
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return teeHandler{h.Handler.WithAttrs(as), h.errs}
}

func (h teeHandler) WithGroup(name string) slog.Handler {
	return teeHandler{h.Handler.WithGroup(name), h.errs}
}

// TestOperatorRouteTLS: nodes with the operator's certificates (mutual
// TLS, host names checked) form a cluster.
func TestOperatorRouteTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("forming a cluster takes seconds")
	}
	dir := t.TempDir()
	caFile, certFile, keyFile := writeTestPKI(t, dir)
	tc, err := LoadRouteTLS(certFile, keyFile, caFile)
	if err != nil {
		t.Fatal(err)
	}
	nodes := openCluster(t, 2, func(_ int, cfg *Config) {
		cfg.Secret, cfg.RouteTLS = testSecret, tc
	})
	if n := nodes[1].srv.NumRoutes(); n < 1 {
		t.Fatalf("node 2 has %d routes", n)
	}
	if _, err := LoadRouteTLS(certFile, keyFile, certFile+".missing"); err == nil {
		t.Error("LoadRouteTLS took a missing authority")
	}
	if _, err := LoadRouteTLS(certFile, "", caFile); err == nil {
		t.Error("LoadRouteTLS took no key")
	}
}

// writeTestPKI writes an authority and one certificate it issued for
// 127.0.0.1, which every test node shows, as PEM files.
func writeTestPKI(t *testing.T, dir string) (caFile, certFile, keyFile string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test authority"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, caKey.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ = x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "node"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}, ca, key.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, typ string, b []byte) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	return write("ca.pem", "CERTIFICATE", caDER), write("node.pem", "CERTIFICATE", der), write("node.key", "PRIVATE KEY", keyDER)
}

func TestLoadSecret(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		want          string // "" for a refusal
	}{
		{"a line", "0123456789abcdef0123\n", "0123456789abcdef0123"},
		{"white space around", "  0123456789abcdef \r\n", "0123456789abcdef"},
		{"too short", "0123456789abcde\n", ""},
		{"empty", "\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			if err := os.WriteFile(f, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := LoadSecret(f)
			switch {
			case tc.want == "" && err == nil:
				t.Fatalf("LoadSecret took %q", tc.content)
			case tc.want != "" && (err != nil || string(got) != tc.want):
				t.Fatalf("LoadSecret = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := LoadSecret(filepath.Join(dir, "missing")); err == nil {
		t.Error("LoadSecret read a missing file")
	}
}

func TestLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.1.2.3": true, "::1": true, "localhost": true,
		"": false, "0.0.0.0": false, "::": false, "10.0.0.5": false, "node1.example": false,
	} {
		if got := loopback(host); got != want {
			t.Errorf("loopback(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestLogKinds: lines about different connections are one kind; each
// kind has its own burst, so a flood of one leaves the others logged.
func TestLogKinds(t *testing.T) {
	for format, want := range map[string]string{
		"127.0.0.1:50704 - rid:17 - TLS route handshake error: %v": "TLS route handshake error: %v",
		"[::1]:6222 - cid:4 - Authorization Error":                 "Authorization Error",
		"JetStream out of resources, will be DISABLED":             "JetStream out of resources, will be DISABLED",
		"Error trying to connect to route (attempt %v): %v":        "Error trying to connect to route (attempt %v): %v",
	} {
		if got := lineKind(format); got != want {
			t.Errorf("lineKind(%q) = %q, want %q", format, got, want)
		}
	}
	var ls logLimits
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for range 5 * logBurst {
		ls.allow(lineKind("10.0.0.9:1 - rid:1 - TLS route handshake error: %v"), now)
	}
	if ok, _ := ls.allow("JetStream out of resources, will be DISABLED", now); !ok {
		t.Error("a flood of one kind of line silenced another")
	}
	if ok, _ := ls.allow(lineKind("10.0.0.9:2 - rid:2 - TLS route handshake error: %v"), now); ok {
		t.Error("the flooded kind was logged past its burst")
	}
}

// TestLogLimit: a burst is logged, the rest of the window is counted and
// told when the next window starts.
func TestLogLimit(t *testing.T) {
	var l logLimit
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	for i := range logBurst {
		if ok, _ := l.allow(t0.Add(time.Duration(i) * time.Millisecond)); !ok {
			t.Fatalf("line %d of a burst was dropped", i+1)
		}
	}
	for range 5 {
		if ok, _ := l.allow(t0.Add(time.Second)); ok {
			t.Fatal("a line past the burst was allowed")
		}
	}
	ok, dropped := l.allow(t0.Add(logWindow))
	if !ok || dropped != 5 {
		t.Fatalf("next window: allow = %v, dropped %d; want true, 5", ok, dropped)
	}
	if _, dropped := l.allow(t0.Add(logWindow + time.Second)); dropped != 0 {
		t.Fatalf("dropped told twice: %d", dropped)
	}
}
