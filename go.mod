module github.com/tenpin/tenpin

go 1.26

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/google/uuid v1.6.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
)
