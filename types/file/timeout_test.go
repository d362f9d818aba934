package file

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coltype-lab/lab/internal/testenv"
)

// rawServer accepts connections on 127.0.0.1 and hands each, after reading
// the request head, to serve; it is for servers net/http would not write.
func rawServer(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() {
				if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
					serve(c)
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// A server that stalls fails the row with the uri and the timeout that fired,
// quickly; one that closes early says so instead of "unexpected EOF".
func TestHTTPStallsAndShortBodies(t *testing.T) {
	const limit = 50 * time.Millisecond
	stall := func(net.Conn) {} // the connection stays open until cleanup
	headersThenStall := func(c net.Conn) {
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789"))
	}
	closeEarly := func(c net.Conn) {
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789"))
		c.Close()
	}
	for _, tt := range []struct {
		name  string
		serve func(net.Conn)
		sized bool
		msg   string
	}{
		{"accepts and never answers", stall, false, "header timeout of 50ms: no response headers after the request was sent"},
		{"headers then a stalled body", headersThenStall, false, "idle timeout of 50ms: no body bytes after 10"},
		{"headers then a stalled body, sized", headersThenStall, true, "idle timeout of 50ms: no body bytes after 10"},
		{"closes early", closeEarly, false, "the connection closed after 10 of the 100 bytes the server announced: unexpected EOF"},
		{"closes early, sized", closeEarly, true, "the connection closed after 10 of the 100 bytes the server announced: unexpected EOF"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			host := rawServer(t, tt.serve)
			r := newTestResolver(t, Config{Schemes: []string{"http"}, HTTPHosts: []string{host},
				ConnectTimeout: limit, HeaderTimeout: limit, IdleTimeout: limit})
			uri := "http://" + host + "/obj.bin"
			v := &Value{URI: Ptr(uri)}
			if tt.sized {
				v.Offset, v.Size = Ptr[int64](0), Ptr[int64](100)
			}
			start := time.Now()
			err := testenv.ErrWithin(t, 5*time.Second, func() error {
				_, err := r.ReadAll(context.Background(), v)
				return err
			})
			if err == nil || !strings.Contains(err.Error(), `FILE uri "`+uri+`": `+tt.msg) {
				t.Errorf("got %v, want the uri and %q", err, tt.msg)
			}
			if took := time.Since(start); took > time.Second {
				t.Errorf("took %s with %s timeouts", took, limit)
			}
		})
	}
}

func TestHTTPTimeoutsDefaultAndCheck(t *testing.T) {
	r := newTestResolver(t, Config{})
	if r.timeouts != (httpLimits{DefaultConnectTimeout, DefaultHeaderTimeout, DefaultIdleTimeout}) {
		t.Errorf("default timeouts %+v", r.timeouts)
	}
	if _, err := NewResolver(Config{IdleTimeout: -time.Second}); err == nil || !strings.Contains(err.Error(), "IdleTimeout -1s is negative") {
		t.Errorf("negative timeout: %v", err)
	}
}
