//go:build !unix

package nats

import (
	"errors"
	"os"
)

// lockDir refuses: without flock nothing would keep a second process off
// the directory. Use an external NATS server ([StoreConfig.URL]) here.
func lockDir(path string) (*os.File, error) {
	return nil, errors.New("nats: the embedded server needs a Unix system to lock its data directory; set a NATS URL instead")
}
