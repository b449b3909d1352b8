package domain

import (
	"context"
	"io"
	"time"

	"github.com/google/uuid"
)

// ObjectStore is the S3-compatible object storage.
type ObjectStore interface {
	// Put streams body to bucket/key (never holding the whole of it in memory) and returns
	// the bytes written and their hex MD5.
	Put(ctx context.Context, bucket, key, contentType string, body io.Reader) (size int64, md5hex string, err error)
	// Get opens an object; NotFound when absent.
	Get(ctx context.Context, bucket, key string) (io.ReadCloser, error)
	// Hash reads an object through and returns its size and hex MD5.
	Hash(ctx context.Context, bucket, key string) (size int64, md5hex string, err error)
	Delete(ctx context.Context, bucket, key string) error
	StartMultipart(ctx context.Context, bucket, key, contentType string) (uploadID string, err error)
	PresignPart(ctx context.Context, bucket, key, uploadID string, part int32, ttl time.Duration) (string, error)
	// CompleteMultipart assembles the parts; a wrong or missing part is an Invalid error and
	// the upload stays open. An upload already completed with the object present succeeds.
	CompleteMultipart(ctx context.Context, bucket, key, uploadID string, parts []CompletedPart) error
	AbortMultipart(ctx context.Context, bucket, key, uploadID string) error
	// URL is the address recorded for an object.
	URL(bucket, key string) string
}

// Store is the persistence the application needs, one port per resource group. Lookups of a
// missing row return a NotFound error; unique and reference violations come back as the
// errors of this package (or Invalid errors naming the field).
type Store interface {
	// InTx runs fn with a Store bound to one transaction: committed when fn returns nil.
	InTx(ctx context.Context, fn func(Store) error) error
	// HandleOnce runs fn in a transaction that also records jobID for consumer; for a jobID
	// already recorded it runs nothing and returns false.
	HandleOnce(ctx context.Context, consumer string, jobID uuid.UUID, fn func(Store) error) (bool, error)

	TemplateStore
	ContainerStore
	CategoryStore
	ProjectStore
	ProjectServerStore
	SceneStore
	ElementStore
	PresetStoryStore
	AepStore
	FontStore
	PreviewStore
	LibraryStore
	FavoriteStore
	CMSStore
	SettingsStore
}
