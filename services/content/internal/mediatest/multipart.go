package mediatest

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"strings"
	"testing"

	"github.com/videotpl/platform/gen/content"
)

// Part is one part of a multipart/form-data body: a file (Filename set) or a field.
type Part struct {
	Name, Filename, ContentType string
	Data                        []byte
	// Reader, when set, is streamed instead of Data.
	Reader io.Reader
}

// File is a file part.
func File(name, filename string, data []byte) Part {
	return Part{Name: name, Filename: filename, ContentType: "application/octet-stream", Data: data}
}

// Field is a text field.
func Field(name, value string) Part { return Part{Name: name, Data: []byte(value)} }

// JSONField is a part of Content-Type application/json (a color_keys entry).
func JSONField(name, value string) Part {
	return Part{Name: name, ContentType: "application/json", Data: []byte(value)}
}

func writeParts(mw *multipart.Writer, parts []Part) error {
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		disp := fmt.Sprintf(`form-data; name=%q`, p.Name)
		if p.Filename != "" {
			disp += fmt.Sprintf(`; filename=%q`, p.Filename)
		}
		h.Set("Content-Disposition", disp)
		if p.ContentType != "" {
			h.Set("Content-Type", p.ContentType)
		}
		w, err := mw.CreatePart(h)
		if err != nil {
			return err
		}
		src := p.Reader
		if src == nil {
			src = bytes.NewReader(p.Data)
		}
		if _, err := io.Copy(w, src); err != nil {
			return err
		}
	}
	return mw.Close()
}

// Multipart streams the parts through a pipe: the request has no Content-Length and is sent
// chunked, as a browser or curl streams a large file.
func Multipart(parts ...Part) (contentType string, body io.Reader) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() { pw.CloseWithError(writeParts(mw, parts)) }()
	return mw.FormDataContentType(), pr
}

// MultipartBytes builds the whole body in memory: the request declares its Content-Length.
func MultipartBytes(t testing.TB, parts ...Part) (contentType string, body *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if err := writeParts(mw, parts); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), &buf
}

// ProblemFields lists the field names of a problem's errors.
func ProblemFields(p *content.Problem) []string {
	if p == nil || p.Errors == nil {
		return nil
	}
	var out []string
	for _, e := range *p.Errors {
		out = append(out, e.Field)
	}
	return out
}

// ProblemDetail is a problem's detail ("" when none).
func ProblemDetail(p *content.Problem) string {
	if p == nil || p.Detail == nil {
		return ""
	}
	return *p.Detail
}

// ObjectKey cuts the bucket and key out of an object URL recorded by the service.
func ObjectKey(url, bucket string) string {
	_, key, _ := strings.Cut(url, "/"+bucket+"/")
	return key
}
