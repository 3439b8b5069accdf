module github.com/tenpin/tenpin

go 1.26.0

require (
	github.com/coder/websocket v1.8.15
	github.com/google/uuid v1.6.0
	golang.org/x/sync v0.24.0
)
