// Package golden checks what a test's code writes against a file in the
// package's testdata directory: a board, a stored event, a spreadsheet.
// Run the tests with -update to write the files from the code, then read
// the diff before committing it.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata with what the code writes")

// Check compares got with testdata/name, failing t with both if they
// differ; with -update it writes got to the file first.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the code writes:\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
