package domain_test

import (
	"testing"

	"github.com/videotpl/platform/services/content/internal/domain"
)

func TestChunkSizeStaysWithinS3PartRules(t *testing.T) {
	cases := []struct {
		total, normal, want int64
	}{
		{300 << 20, 64 << 20, 64 << 20},
		{3 << 30, 64 << 20, 64 << 20},
		{50 << 30, 64 << 20, 64 << 20},
		{50 << 30, 5 << 20, 6 << 20}, // 10,240 parts of 5 MiB would be too many
		{1, 64 << 20, 64 << 20},
	}
	for _, tc := range cases {
		c := domain.ChunkSize(tc.total, tc.normal)
		if c != tc.want || (tc.total+c-1)/c > domain.MaxParts || c < domain.MinPartSize {
			t.Errorf("ChunkSize(%d, %d) = %d, want %d", tc.total, tc.normal, c, tc.want)
		}
	}
}
