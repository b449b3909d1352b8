package store

import (
	"context"
	"crypto/md5" //nolint:gosec // MD5 is the file checksum the contract asks for, not a security measure
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// S3Config configures the S3-compatible object storage (MinIO in development and tests).
type S3Config struct {
	Endpoint  string // e.g. http://127.0.0.1:9000; empty means AWS's own endpoints
	Region    string
	AccessKey string
	SecretKey string
	// PublicURL is the base of the object URLs recorded in the database (default Endpoint).
	PublicURL string
	// PartSize is the part size of streamed uploads (at least 5 MiB): with Concurrency parts
	// in flight, a streamed upload holds (Concurrency+1) * PartSize.
	PartSize    int64
	Concurrency int
}

// S3 is the object storage through aws-sdk-go-v2 (path-style addressing, so any
// S3-compatible server works).
type S3 struct {
	client      *s3.Client
	presign     *s3.PresignClient
	parts       *partBuffers
	concurrency int
	publicURL   string
}

var _ domain.ObjectStore = (*S3)(nil)

// NewS3 returns the object storage client.
func NewS3(cfg S3Config) (*S3, error) {
	cfg.PartSize = max(cfg.PartSize, domain.MinPartSize)
	awsCfg := aws.Config{
		Region:      cfg.Region,
		Credentials: credentials.NewStaticCredentialsProvider(cfg.AccessKey, cfg.SecretKey, ""),
		// Checksums only where S3 requires them: presigned part URLs must not demand a
		// checksum header the client does not know it has to send, and S3-compatible servers
		// differ in their support for the newer algorithms.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}
	client := s3.NewFromConfig(awsCfg, func(o *s3.Options) {
		o.UsePathStyle = true
		// Send a part's body at once rather than after a "100 Continue" round trip: the
		// storage refuses a part as rarely as it accepts one slowly.
		o.ContinueHeaderThresholdBytes = -1
		// Sign the headers, not the payload (UNSIGNED-PAYLOAD): hashing every uploaded byte
		// with SHA-256 only for the signature would cost a second pass of CPU per byte beside
		// the MD5 the contract asks for; integrity is checked by that MD5 end to end.
		o.APIOptions = append(o.APIOptions, v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware)
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
	})
	public := cfg.PublicURL
	if public == "" {
		public = cfg.Endpoint
	}
	if public == "" {
		public = "https://s3." + cfg.Region + ".amazonaws.com"
	}
	return &S3{client: client, presign: s3.NewPresignClient(client), parts: newPartBuffers(cfg.PartSize),
		concurrency: max(cfg.Concurrency, 1), publicURL: strings.TrimRight(public, "/")}, nil
}

// Client is the underlying SDK client (tests, benchmarks).
func (s *S3) Client() *s3.Client { return s.client }

// EnsureBucket creates bucket unless it exists.
func (s *S3) EnsureBucket(ctx context.Context, bucket string) error {
	_, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)})
	if err == nil {
		return nil
	}
	if code := apiCode(err); code != "NotFound" && code != "NoSuchBucket" {
		return fmt.Errorf("s3: head bucket %s: %w", bucket, err)
	}
	_, err = s.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)})
	if err != nil && apiCode(err) != "BucketAlreadyOwnedByYou" && apiCode(err) != "BucketAlreadyExists" {
		return fmt.Errorf("s3: create bucket %s: %w", bucket, err)
	}
	return nil
}

// EnsureAbortRule sets a lifecycle rule that aborts multipart uploads under prefix left
// incomplete for days, as a safety net beside the sweeper (servers that do not support the
// rule answer an error, which the caller may log and ignore).
func (s *S3) EnsureAbortRule(ctx context.Context, bucket, prefix string, days int32) error {
	_, err := s.client.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{
		Bucket: aws.String(bucket),
		LifecycleConfiguration: &types.BucketLifecycleConfiguration{Rules: []types.LifecycleRule{{
			ID:                             aws.String("abort-incomplete-aep-uploads"),
			Status:                         types.ExpirationStatusEnabled,
			Filter:                         &types.LifecycleRuleFilter{Prefix: aws.String(prefix)},
			AbortIncompleteMultipartUpload: &types.AbortIncompleteMultipartUpload{DaysAfterInitiation: aws.Int32(days)},
		}}},
	})
	if err != nil {
		return fmt.Errorf("s3: lifecycle rule on %s: %w", bucket, err)
	}
	return nil
}

// Ping checks that bucket answers (readiness).
func (s *S3) Ping(ctx context.Context, bucket string) error {
	_, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)})
	if err != nil {
		return fmt.Errorf("s3: bucket %s: %w", bucket, err)
	}
	return nil
}

// unavailable is a failure of the object storage that is not the caller's doing (unreachable,
// timing out, refusing): Unavailable (503), so media operations fail with a problem the client
// may retry while the catalog, which does not need the storage, keeps serving; readiness does
// not depend on the storage for the same reason.
func unavailable(err error, format string, args ...any) error {
	return errs.Wrap(errs.Unavailable, "the media storage does not answer: retry later",
		fmt.Errorf(format+": %w", append(args, err)...))
}

// Get opens an object for reading.
func (s *S3) Get(ctx context.Context, bucket, key string) (io.ReadCloser, error) {
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		if code := apiCode(err); code == "NoSuchKey" || code == "NotFound" {
			return nil, errs.Wrap(errs.NotFound, "object not found", err)
		}
		return nil, unavailable(err, "s3: get %s/%s", bucket, key)
	}
	return out.Body, nil
}

// Hash streams an object through MD5.
func (s *S3) Hash(ctx context.Context, bucket, key string) (int64, string, error) {
	body, err := s.Get(ctx, bucket, key)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = body.Close() }()
	h := md5.New() //nolint:gosec // checksum, see import
	n, err := io.Copy(h, body)
	if err != nil {
		return 0, "", unavailable(err, "s3: read %s/%s", bucket, key)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// Delete removes an object (absent is fine).
func (s *S3) Delete(ctx context.Context, bucket, key string) error {
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return unavailable(err, "s3: delete %s/%s", bucket, key)
	}
	return nil
}

// StartMultipart creates a multipart upload.
func (s *S3) StartMultipart(ctx context.Context, bucket, key, contentType string) (string, error) {
	return s.startMultipart(ctx, bucket, key, contentType, "")
}

// startMultipart creates a multipart upload whose parts carry the checksum algo ("": none
// asked; a streamed Put's parts carry their CRC32).
func (s *S3) startMultipart(ctx context.Context, bucket, key, contentType string, algo types.ChecksumAlgorithm) (string, error) {
	in := &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumAlgorithm: algo}
	if contentType != "" {
		in.ContentType = aws.String(contentType)
	}
	out, err := s.client.CreateMultipartUpload(ctx, in)
	if err != nil {
		return "", unavailable(err, "s3: start multipart upload %s/%s", bucket, key)
	}
	return aws.ToString(out.UploadId), nil
}

// PresignPart returns a URL the client PUTs part number part to, valid for ttl.
func (s *S3) PresignPart(ctx context.Context, bucket, key, uploadID string, part int32, ttl time.Duration) (string, error) {
	req, err := s.presign.PresignUploadPart(ctx, &s3.UploadPartInput{
		Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(uploadID), PartNumber: aws.Int32(part),
	}, s3.WithPresignExpires(ttl))
	if err != nil {
		return "", fmt.Errorf("s3: presign part %d: %w", part, err)
	}
	return req.URL, nil
}

// CompleteMultipart assembles the parts. S3 refuses a wrong ETag, a part never uploaded or a
// part too small with the upload left open (Invalid here, so the client can fix and retry);
// when the upload is gone because an earlier call completed it, the object is there and the
// call succeeds.
func (s *S3) CompleteMultipart(ctx context.Context, bucket, key, uploadID string, parts []domain.CompletedPart) error {
	cp := make([]types.CompletedPart, len(parts))
	for i, p := range parts {
		cp[i] = types.CompletedPart{PartNumber: aws.Int32(p.Number), ETag: aws.String(p.ETag)}
	}
	_, err := s.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(uploadID),
		MultipartUpload: &types.CompletedMultipartUpload{Parts: cp},
	})
	if err == nil {
		return nil
	}
	switch code := apiCode(err); code {
	case "InvalidPart", "InvalidPartOrder", "EntityTooSmall":
		return errs.Wrap(errs.Invalid, partProblem(code), err)
	case "NoSuchUpload":
		if _, herr := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); herr == nil {
			return nil
		}
		return errs.Wrap(errs.Invalid, "the upload is no longer open (completed or aborted): start a new one", err)
	}
	return unavailable(err, "s3: complete multipart upload %s/%s", bucket, key)
}

func partProblem(code string) string {
	switch code {
	case "InvalidPartOrder":
		return "parts must be listed in ascending part_number order"
	case "EntityTooSmall":
		return "a part other than the last is smaller than the minimum part size"
	}
	return "a part was not uploaded or its etag does not match: upload the part again and retry"
}

// AbortMultipart drops an upload and its parts (an upload already gone is fine).
func (s *S3) AbortMultipart(ctx context.Context, bucket, key, uploadID string) error {
	_, err := s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
		Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(uploadID),
	})
	if err != nil && apiCode(err) != "NoSuchUpload" {
		return unavailable(err, "s3: abort multipart upload %s/%s", bucket, key)
	}
	return nil
}

// URL is the path-style address of an object under PublicURL.
func (s *S3) URL(bucket, key string) string {
	segs := strings.Split(key, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return s.publicURL + "/" + url.PathEscape(bucket) + "/" + strings.Join(segs, "/")
}

// apiCode is the S3 error code of err ("" when it is not an API error).
func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}
