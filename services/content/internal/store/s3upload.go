package store

import (
	"bytes"
	"cmp"
	"context"
	"crypto/md5" //nolint:gosec // MD5 is the file checksum the contract asks for, not a security measure
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"golang.org/x/sync/errgroup"

	"github.com/videotpl/platform/services/content/internal/domain"
)

// abortTimeout bounds the abort of a failed streamed upload, which runs even when the
// request that carried the body is gone.
const abortTimeout = 30 * time.Second

// partBuffers lends the part buffers of streamed uploads and takes them back, so that one
// upload after another reuses the same few buffers instead of leaving garbage the collector
// would grow the heap around; a buffer left idle through two collections is freed.
type partBuffers struct {
	size int64
	pool sync.Pool
}

func newPartBuffers(size int64) *partBuffers {
	b := &partBuffers{size: size}
	b.pool.New = func() any { return new(make([]byte, size)) }
	return b
}

func (b *partBuffers) get() *[]byte  { return b.pool.Get().(*[]byte) } //nolint:forcetypeassert // New makes only *[]byte
func (b *partBuffers) put(p *[]byte) { b.pool.Put(p) }

// fill reads r into b until b is full or r ends, hashing what it reads as it arrives.
func fill(r io.Reader, b []byte, h hash.Hash) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		_, _ = h.Write(b[n : n+m])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Put streams body to bucket/key: the body is read straight into reused part buffers of
// PartSize (hashed as it arrives), each sent as it fills with Concurrency parts in flight
// while the next one fills, so an upload holds at most (Concurrency+1) x PartSize whatever its
// size; a body smaller than one part is a single PutObject, sent from memory as it is when it
// is already there (a bytes.Reader). Every part carries its CRC32, which the storage checks
// (and, given one, computes no checksum of its own). When the body fails (its read error,
// e.g. a size bound, is returned as is) or a part is refused, the multipart upload is aborted:
// nothing is left behind.
func (s *S3) Put(ctx context.Context, bucket, key, contentType string, body io.Reader) (int64, string, error) {
	if r, ok := body.(*bytes.Reader); ok && int64(r.Len()) < s.parts.size {
		return s.putInMemory(ctx, bucket, key, contentType, r)
	}
	h := md5.New() //nolint:gosec // checksum, see import
	buf := s.parts.get()
	n, err := fill(body, *buf, h)
	switch {
	case errors.Is(err, io.EOF): // the whole body fits in one part
		defer s.parts.put(buf)
		data := (*buf)[:n]
		if err := s.putObject(ctx, bucket, key, contentType, bytes.NewReader(data), crc32Of(data)); err != nil {
			return 0, "", err
		}
		return int64(n), hex.EncodeToString(h.Sum(nil)), nil
	case err != nil:
		s.parts.put(buf)
		return 0, "", err
	}
	id, err := s.startMultipart(ctx, bucket, key, contentType, types.ChecksumAlgorithmCrc32)
	if err != nil {
		s.parts.put(buf)
		return 0, "", err
	}
	up := &streamedUpload{s: s, bucket: bucket, key: key, id: id}
	size, err := up.send(ctx, body, h, buf)
	if err != nil {
		s.abandon(ctx, bucket, key, id)
		return 0, "", err
	}
	return size, hex.EncodeToString(h.Sum(nil)), nil
}

// abandon aborts the multipart upload of a failed Put until the storage no longer has it,
// within abortTimeout, even when the request is gone. An abort can fail, or a part still being
// received can outlive it, and S3 asks for the abort to be repeated then: a failed upload must
// not leave its parts behind.
func (s *S3) abandon(ctx context.Context, bucket, key, id string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		if s.AbortMultipart(ctx, bucket, key, id) == nil && !s.uploadListed(ctx, bucket, key, id) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// uploadListed reports whether the storage still lists the parts of the upload id: only a
// listing that succeeds says so.
func (s *S3) uploadListed(ctx context.Context, bucket, key, id string) bool {
	_, err := s.client.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(bucket), Key: aws.String(key),
		UploadId: aws.String(id), MaxParts: aws.Int32(1)})
	return err == nil
}

// putInMemory sends what is left of r with one PutObject, without a part buffer: the bodies
// of fonts and previews, held in memory already.
func (s *S3) putInMemory(ctx context.Context, bucket, key, contentType string, r *bytes.Reader) (int64, string, error) {
	start, _ := r.Seek(0, io.SeekCurrent) // a bytes.Reader seeks without failing
	h, c := md5.New(), crc32.NewIEEE()    //nolint:gosec // checksum, see import
	n, _ := r.WriteTo(io.MultiWriter(h, c))
	_, _ = r.Seek(start, io.SeekStart)
	sum := aws.String(base64.StdEncoding.EncodeToString(c.Sum(nil)))
	if err := s.putObject(ctx, bucket, key, contentType, r, sum); err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// putObject sends body (its bytes from where it stands to its end) with its CRC32.
func (s *S3) putObject(ctx context.Context, bucket, key, contentType string, body *bytes.Reader, crc *string) error {
	in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumCRC32: crc,
		Body: body, ContentLength: aws.Int64(int64(body.Len()))}
	if contentType != "" {
		in.ContentType = aws.String(contentType)
	}
	if _, err := s.client.PutObject(ctx, in); err != nil {
		return unavailable(err, "s3: put %s/%s", bucket, key)
	}
	return nil
}

// crc32Of is the x-amz-checksum-crc32 value of data (base64 of the big-endian CRC-32/IEEE):
// a hardware-assisted checksum, far cheaper per byte than the SHA-256 or CRC64 the client or
// the storage would compute otherwise.
func crc32Of(data []byte) *string {
	return aws.String(base64.StdEncoding.EncodeToString(binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(data))))
}

// streamedUpload is a multipart upload fed from a body as it is read.
type streamedUpload struct {
	s               *S3
	bucket, key, id string

	mu    sync.Mutex
	parts []types.CompletedPart
}

// send uploads first (a full part) and the rest of body part by part, then completes the
// upload; it returns the size sent. The body's read error comes first, then a refused part.
//
// A part once handed to the storage is let finish there, even when the request is gone or
// another part failed: a part the storage is still receiving when the upload is aborted can
// land after the abort and bring the upload back (S3 says as much of AbortMultipartUpload), so
// the caller aborts only once no part is in flight. A part still unanswered abortTimeout after
// the request ended is cancelled all the same.
func (u *streamedUpload) send(ctx context.Context, body io.Reader, h hash.Hash, first *[]byte) (int64, error) {
	partCtx, cancel := outlive(ctx, abortTimeout)
	defer cancel()
	g, stop := errgroup.WithContext(ctx) // the request ended or a part failed
	g.SetLimit(u.s.concurrency)
	size, readErr := u.feed(partCtx, stop, g, body, h, first)
	if err := g.Wait(); readErr == nil && err != nil {
		return 0, err
	}
	if readErr != nil {
		return 0, readErr
	}
	return size, u.complete(ctx)
}

// outlive returns a context with ctx's values that ends grace after ctx ends (or when cancel
// is called).
func outlive(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(grace, cancel) })
	return out, func() { stop(); cancel() }
}

// feed hands buf, full, and every further part of body to g, one UploadPart each under ctx,
// until the body ends or fails, or stop is done: it returns stop's cause then.
func (u *streamedUpload) feed(ctx, stop context.Context, g *errgroup.Group, body io.Reader, h hash.Hash, buf *[]byte) (int64, error) {
	var size int64
	n := len(*buf)
	for num := int32(1); ; num++ {
		if num > domain.MaxParts {
			u.s.parts.put(buf)
			return size, fmt.Errorf("s3: put %s/%s: more than %d parts of %d bytes", u.bucket, u.key, domain.MaxParts, len(*buf))
		}
		part, data := buf, (*buf)[:n]
		size += int64(n)
		g.Go(func() error {
			defer u.s.parts.put(part)
			return u.uploadPart(ctx, num, data)
		})
		if n < len(*part) {
			return size, nil // the body ended with this part
		}
		select {
		case <-stop.Done():
			return size, context.Cause(stop)
		default:
		}
		buf = u.s.parts.get()
		var err error
		if n, err = fill(body, *buf, h); n == 0 || (err != nil && !errors.Is(err, io.EOF)) {
			u.s.parts.put(buf)
			if errors.Is(err, io.EOF) {
				return size, nil
			}
			return size, err
		}
	}
}

func (u *streamedUpload) uploadPart(ctx context.Context, num int32, data []byte) error {
	sum := crc32Of(data)
	out, err := u.s.client.UploadPart(ctx, &s3.UploadPartInput{
		Bucket: aws.String(u.bucket), Key: aws.String(u.key), UploadId: aws.String(u.id), PartNumber: aws.Int32(num),
		ChecksumCRC32: sum, Body: bytes.NewReader(data), ContentLength: aws.Int64(int64(len(data))),
	})
	if err != nil {
		return unavailable(err, "s3: upload part %d of %s/%s", num, u.bucket, u.key)
	}
	u.mu.Lock()
	u.parts = append(u.parts, types.CompletedPart{PartNumber: aws.Int32(num), ETag: out.ETag, ChecksumCRC32: sum})
	u.mu.Unlock()
	return nil
}

// complete assembles the parts; the parts are the service's own, so a refusal is the
// storage's failure, not the caller's.
func (u *streamedUpload) complete(ctx context.Context) error {
	slices.SortFunc(u.parts, func(a, b types.CompletedPart) int { return cmp.Compare(*a.PartNumber, *b.PartNumber) })
	_, err := u.s.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: aws.String(u.bucket), Key: aws.String(u.key), UploadId: aws.String(u.id),
		MultipartUpload: &types.CompletedMultipartUpload{Parts: u.parts},
	})
	if err != nil {
		return unavailable(err, "s3: complete the upload of %s/%s", u.bucket, u.key)
	}
	return nil
}
