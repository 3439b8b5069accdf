package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
)

// TestRun: the three servers start on the ports asked, say the URLs for
// tenpin's -nats, and stop when the context ends.
func TestRun(t *testing.T) {
	p := freePorts(t, 6)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-dir", t.TempDir(),
			"-ports", fmt.Sprintf("%d,%d,%d", p[0], p[1], p[2]),
			"-cluster-ports", fmt.Sprintf("%d,%d,%d", p[3], p[4], p[5])}, w, io.Discard)
		w.Close()
	}()
	want := fmt.Sprintf("-nats nats://127.0.0.1:%d,nats://127.0.0.1:%d,nats://127.0.0.1:%d", p[0], p[1], p[2])
	var printed strings.Builder
	buf := make([]byte, 4096)
	for !strings.Contains(printed.String(), want) {
		n, err := out.Read(buf)
		if err != nil {
			t.Fatalf("natscluster printed %q, then %v; want a line with %q", &printed, err, want)
		}
		printed.Write(buf[:n])
	}
	cancel()
	go io.Copy(io.Discard, out)
	if err := <-done; err != nil {
		t.Errorf("run = %v after the context ended, want nil", err)
	}
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-host", "0.0.0.0"},
		{"-ports", "4222,4223", "-cluster-ports", "6222,6223,6224"},
		{"-ports", "x"},
		{"-ports", "4222,4223,4222"},
		{"-ports", "4222,4223,6222"},
		{"-only", "4"},
	} {
		if err := run(t.Context(), args, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("run(%q) = %v, want an error naming %s", args, err, args[0])
		}
	}
}

func freePorts(t *testing.T, n int) []int {
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports
}
