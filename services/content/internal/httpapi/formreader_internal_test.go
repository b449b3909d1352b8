package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"reflect"
	"strings"
	"testing"
)

// chunkedReader returns its bytes in chunks of random sizes, as a connection does, sometimes
// with io.EOF beside the last ones.
type chunkedReader struct {
	b   []byte
	rnd *rand.Rand
}

func (r *chunkedReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b[:min(len(r.b), 1+r.rnd.IntN(3000))])
	r.b = r.b[n:]
	if len(r.b) == 0 && r.rnd.IntN(2) == 0 {
		return n, io.EOF
	}
	return n, nil
}

// formOutcome is what a reader made of a body: each part's name, file name, headers and
// content, whether reading the content failed, and how the body ended (EOF or a failure).
type formOutcome struct {
	Parts []string
	End   string
}

type partLike interface {
	io.Reader
	FormName() string
	FileName() string
}

// outcome reads a body through next with reads of sizes drawn from rnd, leaving some parts
// unread (the same ones, whichever the reader).
func outcome[P partLike](seed uint64, rnd *rand.Rand, next func() (P, error), header func(P) map[string][]string) formOutcome {
	var o formOutcome
	for i := uint64(0); ; i++ {
		p, err := next()
		if err != nil {
			o.End = "failed"
			if errors.Is(err, io.EOF) {
				o.End = "EOF"
			}
			return o
		}
		if rand.New(rand.NewPCG(seed, i)).IntN(4) == 0 {
			o.Parts = append(o.Parts, fmt.Sprintf("%q %q %v skipped", p.FormName(), p.FileName(), header(p)))
			continue // left to NextPart
		}
		var content []byte
		var readErr error
		for readErr == nil {
			buf := make([]byte, []int{1, 7, 100, 4096, 70000}[rnd.IntN(5)])
			var n int
			n, readErr = p.Read(buf)
			content = append(content, buf[:n]...)
		}
		end := "read to EOF"
		if !errors.Is(readErr, io.EOF) {
			end = "failed"
		}
		o.Parts = append(o.Parts, fmt.Sprintf("%q %q %v %q %s", p.FormName(), p.FileName(), header(p), content, end))
		if end == "failed" {
			// Where a failed part leaves the body depends on the read sizes, for
			// mime/multipart itself: nothing after it is compared.
			o.End = "failed"
			return o
		}
	}
}

// randomForm writes a multipart body meant to trouble a parser: contents holding what starts
// a delimiter, lines ending in "\n" alone, preambles and epilogues, quoted-printable parts,
// and some bodies cut short or broken.
func randomForm(rnd *rand.Rand) (body []byte, boundary string) {
	boundary = []string{"b", "xYz-42", strings.Repeat("q", 70), "----WebKitFormBoundary7MA4YWxkTrZu0gW"}[rnd.IntN(4)]
	nl := "\r\n"
	if rnd.IntN(5) == 0 {
		nl = "\n"
	}
	pieces := []string{"a", "\r", "\n", "\r\n", "--", "-", " ", "\r\n--", "\r\n--" + boundary[:len(boundary)/2],
		"\r\n--" + boundary + "x", "\r\n--" + boundary + "-x", "--" + boundary + "x", "=", "=41", "é"}
	// Quoted-printable parts get valid quoted-printable: how a part that fails to decode
	// leaves the body depends on the read sizes, for mime/multipart itself.
	qpPieces := []string{"a", "\r\n", "--", "-", "\r\n--", "\r\n--" + boundary[:len(boundary)/2], "\r\n--" + boundary + "x", "=41"}
	content := func(qp bool) string {
		var b strings.Builder
		for range rnd.IntN(40) {
			if qp {
				b.WriteString(qpPieces[rnd.IntN(len(qpPieces))])
			} else {
				b.WriteString(pieces[rnd.IntN(len(pieces))])
			}
		}
		if !qp && rnd.IntN(3) == 0 {
			b.Write(bytes.Repeat([]byte{byte(rnd.IntN(256))}, rnd.IntN(20_000)))
		}
		return b.String()
	}
	var b strings.Builder
	if rnd.IntN(3) == 0 {
		b.WriteString("preamble" + nl + content(false) + nl)
	}
	for i := range rnd.IntN(4) {
		b.WriteString("--" + boundary + []string{"", " ", "\t "}[rnd.IntN(3)] + nl)
		fmt.Fprintf(&b, `Content-Disposition: form-data; name="f%d"`, i)
		if rnd.IntN(2) == 0 {
			b.WriteString(`; filename="dir/a b.aep"`)
		}
		b.WriteString(nl)
		qp := rnd.IntN(4) == 0
		if qp {
			b.WriteString("Content-Transfer-Encoding: quoted-printable" + nl)
		}
		if rnd.IntN(6) == 0 {
			b.WriteString("X-Folded: a" + nl + " b" + nl)
		}
		b.WriteString(nl + content(qp) + nl)
	}
	b.WriteString("--" + boundary + "--")
	if rnd.IntN(2) == 0 {
		b.WriteString(nl)
	}
	if rnd.IntN(4) == 0 {
		b.WriteString("epilogue" + content(false))
	}
	body = []byte(b.String())
	if rnd.IntN(5) == 0 {
		body = body[:rnd.IntN(len(body)+1)]
	}
	return body, boundary
}

func TestFormReaderReadsEveryBodyAsMimeMultipartDoes(t *testing.T) {
	for seed := range uint64(2000) {
		body, boundary := randomForm(rand.New(rand.NewPCG(seed, 1)))
		std := multipart.NewReader(&chunkedReader{body, rand.New(rand.NewPCG(seed, 2))}, boundary)
		want := outcome(seed, rand.New(rand.NewPCG(seed, 3)), std.NextPart, func(p *multipart.Part) map[string][]string { return p.Header })
		ours := newFormReader(&chunkedReader{body, rand.New(rand.NewPCG(seed, 4))}, boundary)
		got := outcome(seed, rand.New(rand.NewPCG(seed, 5)), ours.NextPart, func(p *formPart) map[string][]string { return p.Header })
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d, a body of %d bytes starting %q:\n got  %.2000v\n want %.2000v", seed, len(body), body[:min(len(body), 300)], got, want)
		}
	}
}

// countingReader counts the reads of its body.
type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

// A file part goes from the body straight into the caller's buffer: a 1 MiB file read into a
// larger buffer takes a few reads of the body, not one per 4 KiB.
func TestFormReaderReadsAFileInAFewReadsOfTheBody(t *testing.T) {
	file := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	body := &countingReader{r: strings.NewReader("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.aep\"\r\n\r\n" +
		string(file) + "\r\n--b--\r\n")}
	p, err := newFormReader(body, "b").NextPart()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2<<20)
	n := 0
	for err == nil {
		var m int
		m, err = p.Read(buf[n:])
		n += m
	}
	if !errors.Is(err, io.EOF) || !bytes.Equal(buf[:n], file) {
		t.Fatalf("read %d bytes and %v, want the %d bytes of the file and io.EOF", n, err, len(file))
	}
	if body.reads > 4 {
		t.Fatalf("%d reads of the body for a 1 MiB file", body.reads)
	}
}

// The random 32 MiB file part of a body read into 8 MiB buffers, by formReader and by
// mime/multipart: the cost per byte the upload adds to its MD5.
func BenchmarkFormFileRead(b *testing.B) {
	file := make([]byte, 32<<20)
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range file {
		file[i] = byte(rnd.Uint32())
	}
	body := []byte("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.aep\"\r\n\r\n" + string(file) + "\r\n--b--\r\n")
	buf := make([]byte, 8<<20)
	read := func(b *testing.B, p io.Reader) {
		for {
			if _, err := p.Read(buf); err != nil {
				if !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				return
			}
		}
	}
	b.Run("formReader", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		for b.Loop() {
			p, err := newFormReader(bytes.NewReader(body), "b").NextPart()
			if err != nil {
				b.Fatal(err)
			}
			read(b, p)
		}
	})
	b.Run("mime/multipart", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		for b.Loop() {
			p, err := multipart.NewReader(bytes.NewReader(body), "b").NextPart()
			if err != nil {
				b.Fatal(err)
			}
			read(b, p)
		}
	})
}
