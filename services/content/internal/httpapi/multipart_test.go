package httpapi_test

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"strings"
	"testing"
)

// part is one part of a multipart/form-data body: a file (Filename set) or a field.
type part struct {
	Name, Filename, ContentType string
	Data                        []byte
	// Reader, when set, is streamed instead of Data.
	Reader io.Reader
}

// filePart is a file part.
func filePart(name, filename string, data []byte) part {
	return part{Name: name, Filename: filename, ContentType: "application/octet-stream", Data: data}
}

// fieldPart is a text field.
func fieldPart(name, value string) part { return part{Name: name, Data: []byte(value)} }

// jsonPart is a part of Content-Type application/json (a color_keys entry).
func jsonPart(name, value string) part {
	return part{Name: name, ContentType: "application/json", Data: []byte(value)}
}

func writeParts(mw *multipart.Writer, parts []part) error {
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

// streamedBody streams the parts through a pipe: the request has no Content-Length and is sent
// chunked, as a browser or curl streams a large file.
func streamedBody(parts ...part) (contentType string, body io.Reader) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() { pw.CloseWithError(writeParts(mw, parts)) }()
	return mw.FormDataContentType(), pr
}

// bufferedBody builds the whole body in memory: the request declares its Content-Length.
func bufferedBody(t testing.TB, parts ...part) (contentType string, body *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if err := writeParts(mw, parts); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), &buf
}

// objectKey cuts the key out of an object URL of bucket recorded by the service.
func objectKey(url, bucket string) string {
	_, key, _ := strings.Cut(url, "/"+bucket+"/")
	return key
}
