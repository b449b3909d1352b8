package httpapi

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/textproto"
	"path/filepath"
	"strings"
)

// formReader reads a multipart/form-data body part by part as mime/multipart.Reader does (the
// same delimiters, part headers, quoted-printable parts, and a malformed or truncated body
// failing the same way), but a part's content goes from the body straight into the caller's
// buffer: one read of the body per call and one scan for the delimiter, where
// mime/multipart copies every byte through a 4 KiB buffer of its own, a call per 4 KiB. For
// an AEP file that is a copy of every byte and tens of thousands of calls saved.
type formReader struct {
	r io.Reader
	// back holds delimiter lines, part headers, and what a read brought in past the end of a
	// part; buf is what of it is not consumed yet.
	back, buf []byte
	// err is the body's read error (io.EOF at its end), once it happened.
	err error

	nl, nlDashBoundary, dashBoundary, dashBoundaryDash []byte
	partsRead                                          int
	part                                               *formPart
}

// Bounds on what is read line by line: a line outside the parts' contents (a delimiter line,
// the preamble's), as mime/multipart's 4 KiB buffer bounds it, and a part's header block.
const (
	formLineMax   = 4 << 10
	formHeaderMax = 64 << 10
)

func newFormReader(r io.Reader, boundary string) *formReader {
	b := []byte("\r\n--" + boundary + "--")
	return &formReader{r: r, back: make([]byte, formHeaderMax),
		nl: b[:2], nlDashBoundary: b[:len(b)-2], dashBoundary: b[2 : len(b)-2], dashBoundaryDash: b[2:]}
}

// more reads more of the body after what buf holds; it fails when buf fills back (a line or
// header block longer than formHeaderMax) or the body has failed or ended.
func (f *formReader) more() error {
	if f.err != nil {
		return f.err
	}
	if len(f.buf) == len(f.back) {
		return errors.New("multipart: a part header is longer than 64 KiB")
	}
	n := copy(f.back, f.buf)
	m, err := f.r.Read(f.back[n:])
	f.buf = f.back[:n+m]
	f.err = err
	return nil
}

// keep makes b (read past the end of what the caller may have) the unconsumed bytes; buf is
// empty when it is called.
func (f *formReader) keep(b []byte) {
	if len(b) > len(f.back) {
		f.back = make([]byte, len(b))
	}
	f.buf = f.back[:copy(f.back, b)]
}

// readLine returns the next line with its "\n", or what is left with the body's error; a
// longer line than limit fails. The line is valid until the next read.
func (f *formReader) readLine(limit int) ([]byte, error) {
	for {
		if i := bytes.IndexByte(f.buf, '\n'); i >= 0 && i < limit {
			line := f.buf[:i+1]
			f.buf = f.buf[i+1:]
			return line, nil
		}
		if len(f.buf) >= limit {
			return nil, fmt.Errorf("multipart: a line is longer than %d bytes", limit)
		}
		if err := f.more(); err != nil {
			line := f.buf
			f.buf = f.buf[len(f.buf):]
			return line, err
		}
	}
}

// NextPart returns the next part, io.EOF after the last one. What the caller did not read of
// the previous part is skipped.
func (f *formReader) NextPart() (*formPart, error) {
	if f.part != nil {
		// As mime/multipart's Part.Close: through the decoding, a failure showing in what
		// follows.
		_, _ = io.Copy(io.Discard, f.part.r)
		f.part = nil
	}
	expectNewPart := false
	for {
		line, err := f.readLine(formLineMax)
		if errors.Is(err, io.EOF) && f.isFinalBoundary(line) {
			return nil, io.EOF // "--boundary--" without a line end closes the body too
		}
		if err != nil {
			return nil, fmt.Errorf("multipart: NextPart: %w", err)
		}
		switch {
		case f.isBoundaryDelimiterLine(line):
			f.partsRead++
			p, err := f.newPart()
			if err != nil {
				return nil, err
			}
			f.part = p
			return p, nil
		case f.isFinalBoundary(line):
			return nil, io.EOF
		case expectNewPart:
			return nil, fmt.Errorf("multipart: expecting a new Part; got line %q", string(line))
		case f.partsRead == 0:
			continue // the preamble
		case bytes.Equal(line, f.nl):
			expectNewPart = true // the line end between a part's content and its delimiter
		default:
			return nil, fmt.Errorf("multipart: unexpected line in Next(): %q", line)
		}
	}
}

// newPart reads the header block of the part whose delimiter line was just read.
func (f *formReader) newPart() (*formPart, error) {
	var block []byte
	for {
		line, err := f.readLine(formHeaderMax - len(block))
		block = append(block, line...)
		if errors.Is(err, io.EOF) {
			break // the header is cut short: textproto says how, as for mime/multipart
		}
		if err != nil {
			return nil, fmt.Errorf("multipart: part header: %w", err)
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			break
		}
	}
	header, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(block))).ReadMIMEHeader()
	if err != nil {
		return nil, err
	}
	p := &formPart{Header: header, f: f}
	p.raw = rawPartReader{p}
	p.r = p.raw
	if strings.EqualFold(header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		header.Del("Content-Transfer-Encoding")
		p.r = quotedprintable.NewReader(p.raw)
	}
	return p, nil
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (f *formReader) isFinalBoundary(line []byte) bool {
	if !bytes.HasPrefix(line, f.dashBoundaryDash) {
		return false
	}
	rest := line[len(f.dashBoundaryDash):]
	rest = skipLWSPChar(rest)
	return len(rest) == 0 || bytes.Equal(rest, f.nl)
}

func (f *formReader) isBoundaryDelimiterLine(line []byte) bool {
	if !bytes.HasPrefix(line, f.dashBoundary) {
		return false
	}
	rest := skipLWSPChar(line[len(f.dashBoundary):])
	// Lines ending in "\n" alone on the first delimiter line: the whole body is read so.
	if f.partsRead == 0 && len(rest) == 1 && rest[0] == '\n' {
		f.nl = f.nl[1:]
		f.nlDashBoundary = f.nlDashBoundary[1:]
	}
	return bytes.Equal(rest, f.nl)
}

func skipLWSPChar(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

// formPart is a part of a formReader's body.
type formPart struct {
	Header textproto.MIMEHeader
	f      *formReader
	raw    io.Reader // the content as sent
	r      io.Reader // the content, decoded
	total  int64     // raw bytes returned
	n      int       // bytes at the start of f.buf that are content, found so by a scan
	err    error     // what follows those n bytes: io.EOF at the part's end, or the body's error
}

// Read reads the part's content.
func (p *formPart) Read(d []byte) (int, error) { return p.r.Read(d) }

// FormName is the name parameter of a form-data Content-Disposition, "" otherwise.
func (p *formPart) FormName() string {
	v, params, err := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
	if err != nil || v != "form-data" {
		return ""
	}
	return params["name"]
}

// FileName is the base of the filename parameter of the Content-Disposition ("" without one).
func (p *formPart) FileName() string {
	_, params, err := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
	if err != nil || params["filename"] == "" {
		return ""
	}
	return filepath.Base(params["filename"])
}

// rawPartReader reads a part's content as sent: from what the formReader holds when it holds
// some, else from the body straight into the caller's buffer, each time up to the delimiter.
type rawPartReader struct{ p *formPart }

func (r rawPartReader) Read(d []byte) (int, error) {
	p, f := r.p, r.p.f
	for p.n == 0 && p.err == nil {
		if len(f.buf) == 0 && f.err == nil && len(d) > len(f.dashBoundaryDash)+2 {
			m, err := f.r.Read(d)
			f.err = err
			n, perr := scanUntilBoundary(d[:m], f.dashBoundary, f.nlDashBoundary, p.total, noEOF(err))
			f.keep(d[n:m]) // a delimiter and what follows it, or what may start one
			if n > 0 {
				p.total += int64(n)
				return n, perr
			}
			p.err = perr
			continue
		}
		var readErr error
		if f.err != nil {
			readErr = noEOF(f.err)
		}
		p.n, p.err = scanUntilBoundary(f.buf, f.dashBoundary, f.nlDashBoundary, p.total, readErr)
		if p.n == 0 && p.err == nil {
			if err := f.more(); err != nil && f.err == nil {
				p.err = err // no room left to find the delimiter in
			}
		}
	}
	if p.n == 0 {
		return 0, p.err
	}
	n := copy(d, f.buf[:p.n])
	f.buf = f.buf[n:]
	p.total += int64(n)
	if p.n -= n; p.n == 0 {
		return n, p.err
	}
	return n, nil
}

// scanUntilBoundary is mime/multipart's: how many bytes at the start of buf are content (n),
// and what follows them (io.EOF at the delimiter, readErr when the body failed or ended
// without one, nil when buf must grow to decide).
func scanUntilBoundary(buf, dashBoundary, nlDashBoundary []byte, total int64, readErr error) (int, error) {
	if total == 0 {
		// At the beginning of the content, a delimiter may come without its line end.
		if bytes.HasPrefix(buf, dashBoundary) {
			switch matchAfterPrefix(buf, dashBoundary, readErr) {
			case -1:
				return len(dashBoundary), nil
			case 0:
				return 0, nil
			case +1:
				return 0, io.EOF
			}
		}
		if bytes.HasPrefix(dashBoundary, buf) {
			return 0, readErr
		}
	}
	if i := bytes.Index(buf, nlDashBoundary); i >= 0 {
		switch matchAfterPrefix(buf[i:], nlDashBoundary, readErr) {
		case -1:
			return i + len(nlDashBoundary), nil
		case 0:
			return i, nil
		case +1:
			return i, io.EOF
		}
	}
	if bytes.HasPrefix(nlDashBoundary, buf) {
		return 0, readErr
	}
	// Up to the last line end is content, and the rest too unless it may start a delimiter.
	i := bytes.LastIndexByte(buf, nlDashBoundary[0])
	if i >= 0 && bytes.HasPrefix(nlDashBoundary, buf[i:]) {
		return i, nil
	}
	return len(buf), readErr
}

// matchAfterPrefix is mime/multipart's: whether buf, which starts with prefix, is a delimiter
// (+1: "--", a space or a line end follows), is not (-1), or cannot tell yet (0).
func matchAfterPrefix(buf, prefix []byte, readErr error) int {
	if len(buf) == len(prefix) {
		if readErr != nil {
			return +1
		}
		return 0
	}
	c := buf[len(prefix)]
	if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
		return +1
	}
	if c == '-' {
		if len(buf) == len(prefix)+1 {
			if readErr != nil {
				return -1 // the prefix and "-" end the body: not a delimiter
			}
			return 0
		}
		if buf[len(prefix)+1] == '-' {
			return +1
		}
	}
	return -1
}
