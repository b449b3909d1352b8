package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/pkg/httpx"
	"github.com/videotpl/platform/services/content/internal/app"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// multipartOverhead is what a multipart body may carry beyond its file: boundaries, part
// headers and the small fields.
const multipartOverhead = 1 << 20

// uploadBodyLimits are the body limits of the upload operations for
// httpx.Options.OperationBodyLimits, keyed by their operationIds in the spec: the file bound
// plus the multipart overhead. A body that declares more is refused at once; the handlers stop a body whose file
// part passes the bound while streaming (413 too, the AEP one pointing to the multipart upload).
func uploadBodyLimits(c app.Config) map[string]int64 {
	return map[string]int64{
		"uploadProjectAep":   c.AepMaxSingleUpload + multipartOverhead,
		"createFont":         domain.MaxFontBytes + multipartOverhead,
		"generateSvgPreview": domain.MaxPreviewImageBytes + multipartOverhead,
	}
}

// bodyError turns a failure to read a multipart body into the caller's error: a body above
// the operation's limit is 413, a malformed or truncated one 400.
func bodyError(err error) error {
	if _, ok := errs.As(err); ok {
		return err
	}
	var maxed *http.MaxBytesError
	if errors.As(err, &maxed) {
		return errs.Wrap(errs.TooLarge, fmt.Sprintf("the request body is larger than %d bytes", maxed.Limit), err)
	}
	return errs.Wrap(errs.Invalid, "the multipart/form-data body could not be read", err)
}

// partReader reads a multipart part, turning read failures into the caller's errors (so the
// object storage upload stops with a 400 or 413, not a 500).
type partReader struct{ p io.Reader }

func (r partReader) Read(b []byte) (int, error) {
	n, err := r.p.Read(b)
	if err != nil && !errors.Is(err, io.EOF) {
		return n, bodyError(err)
	}
	return n, err
}

// formValue reads a small text field (at most 4 KiB) and holds it to the operation's form
// schema (httpx.CheckFormField).
func formValue(ctx context.Context, p *multipart.Part) (string, error) {
	b, err := io.ReadAll(io.LimitReader(partReader{p}, 4<<10+1))
	if err != nil {
		return "", err
	}
	if len(b) > 4<<10 {
		return "", errs.InvalidFields(errs.Field("body."+p.FormName(), "is longer than 4 KiB"))
	}
	v := strings.TrimSpace(string(b))
	if err := httpx.CheckFormField(ctx, p.FormName(), v); err != nil {
		return "", err
	}
	return v, nil
}
