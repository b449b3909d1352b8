// Package storetest holds the fixtures of the servers a test run provides beside PostgreSQL:
// its MinIO (S3_TEST_* variables, set by scripts/test.sh) with buckets unique to each test.
package storetest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/uuid"

	"github.com/videotpl/platform/services/content/internal/store"
)

// S3Config is the test run's MinIO. Without S3_TEST_ENDPOINT the test fails and says how to
// start one.
func S3Config(t testing.TB) store.S3Config {
	t.Helper()
	endpoint := os.Getenv("S3_TEST_ENDPOINT")
	if endpoint == "" {
		t.Fatal("S3_TEST_ENDPOINT is not set: run scripts/test.sh, or start MinIO with " +
			"`source scripts/lib.sh && start_minio /tmp/minio-$USER` and export S3_TEST_ENDPOINT=$S3_ENDPOINT " +
			"S3_TEST_ACCESS_KEY=$S3_ACCESS_KEY S3_TEST_SECRET_KEY=$S3_SECRET_KEY")
	}
	region := os.Getenv("S3_TEST_REGION")
	if region == "" {
		region = "us-east-1"
	}
	return store.S3Config{Endpoint: endpoint, Region: region,
		AccessKey: os.Getenv("S3_TEST_ACCESS_KEY"), SecretKey: os.Getenv("S3_TEST_SECRET_KEY"),
		PartSize: 5 << 20, Concurrency: 2}
}

// Bucket returns a bucket name unique to this test (prefix-random) and removes the bucket
// with everything in it when the test ends. The bucket is not created: the code under test
// creates its buckets.
func Bucket(t testing.TB, s *store.S3, prefix string) string {
	t.Helper()
	name := strings.ToLower(fmt.Sprintf("%s-%s", prefix, strings.ReplaceAll(uuid.NewString(), "-", "")[:16]))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		EmptyAndRemove(ctx, s.Client(), name)
	})
	return name
}

// EmptyAndRemove aborts the bucket's multipart uploads, deletes its objects and the bucket.
func EmptyAndRemove(ctx context.Context, c *s3.Client, bucket string) {
	b := aws.String(bucket)
	if ups, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: b}); err == nil {
		for _, u := range ups.Uploads {
			_, _ = c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: b, Key: u.Key, UploadId: u.UploadId})
		}
	}
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: b})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			break
		}
		for _, o := range page.Contents {
			_, _ = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: o.Key})
		}
	}
	_, _ = c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: b})
}

// PendingUploads lists the bucket's open multipart uploads (key -> upload id).
func PendingUploads(t testing.TB, c *s3.Client, bucket string) map[string]string {
	t.Helper()
	out, err := c.ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatalf("list multipart uploads: %v", err)
	}
	m := map[string]string{}
	for _, u := range out.Uploads {
		m[aws.ToString(u.Key)] = aws.ToString(u.UploadId)
	}
	return m
}
