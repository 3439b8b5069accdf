//go:build !unix

package natsconn

import (
	"errors"
	"os"
)

// lockDir refuses: without flock nothing would keep a second process off
// the directory. Use an external NATS server ([Config.URL]) here.
func lockDir(path string) (*os.File, error) {
	return nil, errors.New("natsconn: the embedded server needs a Unix system to lock its data directory; set a NATS URL instead")
}
