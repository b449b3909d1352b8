package domain

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// AepFile is a project's AEP file in object storage.
type AepFile struct {
	URL  string
	Key  string
	MD5  string // hex
	Size int64
}

// AepUpload is a multipart AEP upload that was started and not completed yet.
type AepUpload struct {
	ID        uuid.UUID
	ProjectID uuid.UUID
	UploadID  string
	Bucket    string
	Key       string
	Filename  string
	TotalSize int64
	ChunkSize int64
	PartCount int
	CreatedAt time.Time
}

// CompletedPart is a part of a multipart upload as the client reports it.
type CompletedPart struct {
	Number int32
	ETag   string
}

// S3's multipart rules, and the contract's bound on a multipart AEP upload.
const (
	MinPartSize = 5 << 20
	MaxPartSize = 5 << 30
	MaxParts    = 10_000
	// MaxAepSize is the largest multipart AEP upload (50 GiB).
	MaxAepSize = 50 << 30
)

// ChunkSize picks the part size of a file of total bytes: normal, grown (in whole MiB) when
// the file would need more than MaxParts parts.
func ChunkSize(total, normal int64) int64 {
	c := normal
	if (total+c-1)/c > MaxParts {
		c = (total + MaxParts - 1) / MaxParts
		c = (c + 1<<20 - 1) &^ (1<<20 - 1)
	}
	return c
}

// CheckParts wants parts 1..count, each once, in ascending order: S3 would accept a subset
// and assemble a shorter file.
func CheckParts(parts []CompletedPart, count int) error {
	var bad []errs.FieldError
	if !slices.IsSortedFunc(parts, func(a, b CompletedPart) int { return int(a.Number - b.Number) }) {
		bad = append(bad, errs.Field("body.parts", "must be in ascending part_number order"))
	}
	seen := make(map[int32]bool, len(parts))
	for i, p := range parts {
		switch {
		case p.Number < 1 || int(p.Number) > count:
			bad = append(bad, errs.Field(fmt.Sprintf("body.parts[%d].part_number", i), fmt.Sprintf("must be from 1 to %d", count)))
		case seen[p.Number]:
			bad = append(bad, errs.Field(fmt.Sprintf("body.parts[%d].part_number", i), "is repeated"))
		}
		seen[p.Number] = true
		if p.ETag == "" {
			bad = append(bad, errs.Field(fmt.Sprintf("body.parts[%d].etag", i), "is required"))
		}
	}
	var missing []int
	for n := 1; n <= count; n++ {
		if !seen[int32(n)] { //nolint:gosec // count <= 10,000
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		list := fmt.Sprint(missing[:min(len(missing), 10)])
		if len(missing) > 10 {
			list = fmt.Sprintf("%s and %d more", list, len(missing)-10)
		}
		bad = append(bad, errs.Field("body.parts", fmt.Sprintf("parts %s are missing: the upload has %d parts", list, count)))
	}
	if len(bad) > 0 {
		return errs.InvalidFields(bad...)
	}
	return nil
}

// AepStore keeps projects' AEP files and the multipart uploads in progress.
type AepStore interface {
	// SetProjectAepFile records f on the project and returns the key of the file it replaced
	// ("" when none). ErrProjectNotFound when the project is gone.
	SetProjectAepFile(ctx context.Context, projectID uuid.UUID, f AepFile, at time.Time) (previousKey string, err error)
	InsertAepUpload(ctx context.Context, u AepUpload) error
	// GetAepUpload finds a pending upload of the project by its S3 upload id.
	GetAepUpload(ctx context.Context, projectID uuid.UUID, uploadID string) (AepUpload, error)
	DeleteAepUpload(ctx context.Context, id uuid.UUID) error
	ListStaleAepUploads(ctx context.Context, before time.Time, limit int) ([]AepUpload, error)
}
