package golden_test

import (
	"flag"
	"testing"

	"github.com/tenpin/tenpin/lane/golden"
)

// TestCheck: the same bytes pass, others fail (on a recorder, so that this
// test itself passes).
func TestCheck(t *testing.T) {
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		t.Skip("with -update Check writes what it is given: here a file the test keeps")
	}
	golden.Check(t, "hello.txt", []byte("hello\n"))
	var r recorder
	golden.Check(&r, "hello.txt", []byte("goodbye\n"))
	if !r.failed {
		t.Error("different bytes passed")
	}
}

type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
