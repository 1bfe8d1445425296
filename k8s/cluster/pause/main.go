// The pod sandbox ("pause") image's only process: containerd's sandbox_image. No registry is
// reachable here, so registry.k8s.io/pause cannot be pulled; this does what it does: hold the
// pod's namespaces open, reap orphaned children (it is PID 1 when the pod shares its PID
// namespace) and exit when the kubelet stops the sandbox (SIGTERM/SIGINT).
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range sig {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
