package httpx_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/config"
	"github.com/videotpl/platform/pkg/httpx"
)

// tightHTTP is the shared HTTP configuration at its defaults, with one-second bounds.
func tightHTTP(t *testing.T, tune func(*config.HTTP)) func(*httpx.Options) {
	t.Helper()
	h, err := config.Defaults[config.HTTP]()
	if err != nil {
		t.Fatal(err)
	}
	h.ReadHeaderTimeout, h.BodyTimeout, h.WriteTimeout, h.MinBodyRate = time.Second, time.Second, time.Second, 1024
	if tune != nil {
		tune(&h)
	}
	return func(o *httpx.Options) { o.HTTP = h }
}

func TestASlowBodyIsCutAtItsDeadlineWhileOthersAreServed(t *testing.T) {
	f := newServer(t, tightHTTP(t, nil))
	tok := f.jwt(t)
	addr := strings.TrimPrefix(f.url, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "POST /v1/things/%s/notes HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n", uuid.NewString(), addr, tok)
	// One byte a second, until the server stops listening.
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for range 30 {
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
			<-tick.C
		}
	}()

	// Meanwhile 20 other clients are served.
	var wg sync.WaitGroup
	failures := make(chan string, 20)
	for range 20 {
		wg.Go(func() {
			req, _ := http.NewRequest("GET", f.url+"/v1/things", nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				failures <- err.Error()
				return
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				failures <- resp.Status
			}
		})
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Errorf("a client served while the slow body arrives: %s", f)
	}

	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("reading the answer to the slow body: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), "did not arrive within") {
		t.Fatalf("status %d, want 408: %s", resp.StatusCode, body)
	}
	if elapsed < 900*time.Millisecond || elapsed > 4*time.Second {
		t.Fatalf("the slow body was cut after %s, want about the 1s deadline", elapsed)
	}
}

func TestAnUploadKeepingTheMinimumRateOutlastsTheBodyTimeout(t *testing.T) {
	f := newServer(t, tightHTTP(t, nil))
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	const chunk, chunks = 8 << 10, 20 // 160 KiB over 2 s: far above 1 KiB/s, twice the body timeout
	go func() {
		part, _ := mw.CreateFormFile("file", "a.bin")
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for range chunks {
			if _, err := part.Write(bytes.Repeat([]byte("x"), chunk)); err != nil {
				pw.CloseWithError(err)
				return
			}
			<-tick.C
		}
		pw.CloseWithError(mw.Close())
	}()
	req, _ := http.NewRequest("POST", f.url+"/v1/uploads", pr)
	req.Header.Set("Authorization", "Bearer "+f.jwt(t))
	req.Header.Set("Content-Type", mw.FormDataContentType())
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), fmt.Sprint(chunk*chunks)) {
		t.Fatalf("status %d after %s: %s", resp.StatusCode, time.Since(start), body)
	}
	if time.Since(start) < 1500*time.Millisecond {
		t.Fatalf("the upload took %s, want longer than the body timeout", time.Since(start))
	}
}

func TestAnEventStreamOutlastsTheWriteTimeout(t *testing.T) {
	f := newServer(t, tightHTTP(t, nil))
	req, _ := http.NewRequest("GET", f.url+"/v1/things/"+uuid.NewString()+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+f.jwt(t))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("the stream broke: %v after %q", err, body)
	}
	if n := strings.Count(string(body), "data: "); n != eventCount {
		t.Fatalf("%d events, want %d (over %s, the write timeout is 1s)", n, eventCount, eventCount*eventPace)
	}
}

func TestSlowHeadersAreCutAtTheirDeadline(t *testing.T) {
	f := newServer(t, tightHTTP(t, nil))
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "GET /v1/public HTTP/1.1\r\nHost: x\r\n") // the headers never end
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = io.ReadAll(conn)
	if elapsed := time.Since(start); err != nil || elapsed > 4*time.Second {
		t.Fatalf("the connection ended after %s with %v, want closed at about the 1s deadline", elapsed, err)
	}
}

func TestForwardedForIsBelievedOnlyFromTrustedProxies(t *testing.T) {
	for _, tt := range []struct {
		name, trusted, want string
	}{
		{"no proxy is trusted by default: the log names the peer", "", `"remote_ip":"127.0.0.1"`},
		{"a proxy outside the trusted ranges is not believed", "10.0.0.0/8", `"remote_ip":"127.0.0.1"`},
		{"a trusted proxy names the client", "10.0.0.0/8, 127.0.0.0/8", `"remote_ip":"203.0.113.9"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newServer(t, tightHTTP(t, func(h *config.HTTP) { h.TrustedProxies = tt.trusted }))
			do(t, "GET", f.url+"/v1/public", "", "", "", "X-Forwarded-For", "203.0.113.9", "X-Real-IP", "203.0.113.9")
			deadline := time.Now().Add(5 * time.Second)
			for !strings.Contains(f.logs.String(), `"path":"/v1/public"`) {
				if time.Now().After(deadline) {
					t.Fatalf("no access log line: %s", f.logs.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			if !strings.Contains(f.logs.String(), tt.want) {
				t.Fatalf("access log lacks %s: %s", tt.want, f.logs.String())
			}
		})
	}
	t.Run("a trust list that is not CIDR ranges is refused at start", func(t *testing.T) {
		h, _ := config.Defaults[config.HTTP]()
		h.TrustedProxies = "10.0.0.1"
		_, err := httpx.New(httpx.Options{Service: "things", SpecDocument: specDocument(t), HTTP: h})
		if err == nil || !strings.Contains(err.Error(), "TRUSTED_PROXIES") {
			t.Fatalf("err = %v, want one naming TRUSTED_PROXIES", err)
		}
	})
}
