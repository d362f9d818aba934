package file

import (
	"context"
	"fmt"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/coltype-lab/lab/internal/testenv"
)

// fullListener listens on 127.0.0.1 with a backlog of 0 and never accepts;
// once its queue is full, connecting to it waits, as connecting to a host
// that drops SYNs does. ok is false where that cannot be arranged.
func fullListener(t *testing.T) (addr string, ok bool) {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return "", false
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return "", false
	}
	if err := syscall.Listen(fd, 0); err != nil {
		return "", false
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return "", false
	}
	addr = fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	for range 16 {
		c, err := net.DialTimeout("tcp", addr, 50*time.Millisecond)
		if err != nil {
			return addr, true // the queue is full: connects now wait
		}
		t.Cleanup(func() { c.Close() })
	}
	return "", false
}

func TestHTTPConnectTimeout(t *testing.T) {
	host, ok := fullListener(t)
	if !ok {
		t.Skip("could not fill a listen queue on 127.0.0.1")
	}
	const limit = 50 * time.Millisecond
	r := newTestResolver(t, Config{Schemes: []string{"http"}, HTTPHosts: []string{host},
		ConnectTimeout: limit, HeaderTimeout: time.Hour, IdleTimeout: time.Hour})
	uri := "http://" + host + "/obj.bin"
	err := testenv.ErrWithin(t, 5*time.Second, func() error {
		_, err := r.ReadAll(context.Background(), &Value{URI: Ptr(uri)})
		return err
	})
	want := `FILE uri "` + uri + `": connect timeout of 50ms: no connection to ` + host
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}
