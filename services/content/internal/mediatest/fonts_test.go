package mediatest_test

import (
	"os"
	"testing"

	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/services/content/internal/app"
	mt "github.com/videotpl/platform/services/content/internal/mediatest"
)

func TestFontUploadsReadWhatTheRequestLeavesOutFromTheFile(t *testing.T) {
	h := mt.Start(t, mt.Options{Media: app.MediaConfig{FontMaxBytes: 1 << 20}, NoBus: true})
	otf, err := os.ReadFile("testdata/CFFTest.otf")
	if err != nil {
		t.Fatal(err)
	}
	woff2 := append([]byte("wOF2\x00\x01\x00\x00"), randomBytes(2000, 9)...)
	cases := []struct {
		name  string
		parts []mt.Part
		want  content.Font
	}{
		{"a TrueType file alone", []mt.Part{mt.File("file", "GoRegular.ttf", goregular.TTF)},
			content.Font{Name: "Go Regular", Family: "Go", Style: "normal", Weight: 400, SystemName: "GoRegular", Direction: "ltr", OriginalName: "GoRegular.ttf"}},
		{"a bold italic TrueType file", []mt.Part{mt.File("file", "Go-BoldItalic.ttf", gobolditalic.TTF)},
			content.Font{Name: "Go Bold Italic", Family: "Go", Style: "italic", Weight: 600, SystemName: "Go-BoldItalic", Direction: "ltr", OriginalName: "Go-BoldItalic.ttf"}},
		{"an OpenType file with the request's name, family, direction and premium flag", []mt.Part{
			mt.Field("name", "Brand Sans"), mt.Field("family", "Brand"), mt.Field("direction", "rtl"), mt.Field("is_premium", "true"),
			mt.File("file", "cff.otf", otf)},
			content.Font{Name: "Brand Sans", Family: "Brand", Style: "italic", Weight: 400, SystemName: "CFFTest", Direction: "rtl", OriginalName: "cff.otf", IsPremium: true}},
		{"a WOFF2 file, named from its file name", []mt.Part{mt.File("file", "Inter-SemiBoldItalic.woff2", woff2)},
			content.Font{Name: "Inter-SemiBoldItalic", Family: "Inter-SemiBoldItalic", Style: "italic", Weight: 600, SystemName: "Inter-SemiBoldItalic", Direction: "ltr", OriginalName: "Inter-SemiBoldItalic.woff2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct, body := mt.Multipart(tc.parts...)
			r, err := h.Client.CreateFontWithBodyWithResponse(mt.Ctx(t), ct, body, h.Admin)
			mt.Want(t, r, r.Body, err, 201)
			got := *r.JSON201
			key := mt.ObjectKey(got.FileUrl, h.Media.Config().MediaBucket)
			if key == "" {
				t.Fatalf("file_url %q is not in the media bucket", got.FileUrl)
			}
			if _, _, err := h.S3.Hash(mt.Ctx(t), h.Media.Config().MediaBucket, key); err != nil {
				t.Fatalf("the font file is not stored: %v", err)
			}
			got.Id, got.FileUrl = tc.want.Id, tc.want.FileUrl
			if got != tc.want {
				t.Fatalf("font\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
	l, err := h.Client.ListFontsWithResponse(mt.Ctx(t), h.User)
	mt.Want(t, l, l.Body, err, 200)
	if len(l.JSON200.Data) != len(cases) {
		t.Fatalf("the library lists %d fonts, want %d", len(l.JSON200.Data), len(cases))
	}
}

func TestFontUploadsRefuse(t *testing.T) {
	h := mt.Start(t, mt.Options{Media: app.MediaConfig{FontMaxBytes: 1 << 20}, NoBus: true})
	big := append([]byte("\x00\x01\x00\x00"), randomBytes(1<<20, 10)...)
	cases := []struct {
		name   string
		caller content.RequestEditorFn
		parts  []mt.Part
		status int
	}{
		{"a file that is no font", h.Admin, []mt.Part{mt.File("file", "x.ttf", []byte("GIF89a not a font"))}, 415},
		{"a file above the bound", h.Admin, []mt.Part{mt.File("file", "big.ttf", big)}, 413},
		{"no file", h.Admin, []mt.Part{mt.Field("name", "x")}, 400},
		{"is_premium that is not a boolean", h.Admin, []mt.Part{mt.Field("is_premium", "maybe"), mt.File("file", "a.ttf", goregular.TTF)}, 400},
		{"a caller without the admin role", h.User, []mt.Part{mt.File("file", "a.ttf", goregular.TTF)}, 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct, body := mt.Multipart(tc.parts...)
			r, err := h.Client.CreateFontWithBodyWithResponse(mt.Ctx(t), ct, body, tc.caller)
			mt.Want(t, r, r.Body, err, tc.status)
		})
	}
	l, err := h.Client.ListFontsWithResponse(mt.Ctx(t), h.User)
	mt.Want(t, l, l.Body, err, 200)
	if len(l.JSON200.Data) != 0 {
		t.Fatalf("refused uploads created %d fonts", len(l.JSON200.Data))
	}
}
