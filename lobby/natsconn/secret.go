package natsconn

import (
	"bytes"
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"time"
)

// MinSecret is the shortest cluster secret [LoadSecret] takes, in bytes:
// 128 bits, for a secret anyone may try to guess at the route port.
const MinSecret = 16

// ErrNoSecret: a cluster address that other machines can reach, and no
// secret to keep strangers out of the cluster.
var ErrNoSecret = errors.New("natsconn: a cluster address open to other machines needs a cluster secret")

// LoadSecret reads a cluster secret from a file: its bytes, without the
// white space around them (a trailing newline, say). Every node of a
// cluster reads the same. Generate one with, for instance,
//
//	head -c 32 /dev/urandom | base64 > cluster.secret
func LoadSecret(file string) ([]byte, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("natsconn: read the cluster secret: %w", err)
	}
	b = bytes.TrimSpace(b)
	if len(b) < MinSecret {
		return nil, fmt.Errorf("natsconn: the cluster secret in %s is %d bytes: use at least %d random ones, such as head -c 32 /dev/urandom | base64", file, len(b), MinSecret)
	}
	return b, nil
}

// LoadRouteTLS reads the operator's certificates for the routes between
// nodes: this node's certificate and key (PEM) and the authority that
// issued every node's (PEM). Both ends of a route show a certificate and
// check the other's against the authority, and a node checks the name in
// the certificate of the node it routes to against the route's host.
func LoadRouteTLS(certFile, keyFile, caFile string) (*tls.Config, error) {
	if certFile == "" || keyFile == "" || caFile == "" {
		return nil, errors.New("natsconn: route TLS needs a certificate, its key and the authority that issued the nodes' certificates")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("natsconn: route TLS: %w", err)
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("natsconn: route TLS: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("natsconn: route TLS: %s holds no PEM certificate", caFile)
	}
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{cert},
		RootCAs:      pool,
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
	}, nil
}

// loopback reports whether a cluster address's host takes connections
// from this machine only. An empty host, 0.0.0.0 or :: take them from
// anywhere.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// routeUser is the user name routes authenticate as: the password, derived
// from the secret, is what counts.
const routeUser = "tenpin"

// routePassword derives the routes' password from the cluster secret,
// so that the secret itself never crosses a route.
func routePassword(secret []byte) (string, error) {
	k, err := hkdf.Key(sha256.New, secret, nil, "tenpin route password", 32)
	if err != nil {
		return "", fmt.Errorf("natsconn: derive the route password: %w", err)
	}
	return hex.EncodeToString(k), nil
}

// secretTLS makes the TLS of routes from the cluster secret alone, so
// that a cluster needs no certificates to be encrypted: every node derives
// the same certificate authority from the secret (an Ed25519 key from its
// HKDF, deterministic) and issues itself a certificate for a fresh key.
// Both ends of a route show theirs and check the other's against that
// authority. Host names are not checked, for nodes route to each other by
// whatever address gossip gives them: holding a certificate of the
// authority, which only a holder of the secret can issue, is what proves
// a node.
func secretTLS(secret []byte, node string) (*tls.Config, error) {
	seed, err := hkdf.Key(sha256.New, secret, nil, "tenpin route certificate authority", ed25519.SeedSize)
	if err != nil {
		return nil, fmt.Errorf("natsconn: derive the route authority: %w", err)
	}
	caKey := ed25519.NewKeyFromSeed(seed)
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "tenpin cluster authority"},
		NotBefore:             time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(2120, 1, 1, 0, 0, 0, 0, time.UTC),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return nil, fmt.Errorf("natsconn: make the route authority: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("natsconn: make the route authority: %w", err)
	}
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("natsconn: make the node's route key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("natsconn: make the node's route certificate: %w", err)
	}
	now := time.Now()
	leafDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: node},
		NotBefore:    now.Add(-time.Hour), // clocks of nodes differ
		NotAfter:     now.AddDate(10, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}, ca, pub, caKey)
	if err != nil {
		return nil, fmt.Errorf("natsconn: make the node's route certificate: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: key}},
		ClientAuth:   tls.RequireAnyClientCert,
		// The standard check would also match the route's host against
		// the certificate, which no node can know in advance:
		// VerifyConnection checks the chain alone, on both ends.
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("natsconn: the other end of the route showed no certificate")
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{
				Roots:     pool,
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny},
			})
			if err != nil {
				return fmt.Errorf("natsconn: the other end of the route is not of this cluster: %w", err)
			}
			return nil
		},
	}, nil
}
