package httpapi_test

import (
	"os"
	"testing"

	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/videotpl/platform/gen/content"
	"github.com/videotpl/platform/services/content/internal/domain"
)

func TestFontUploadsReadWhatTheRequestLeavesOutFromTheFile(t *testing.T) {
	ev := newEnv(t, alone())
	otf, err := os.ReadFile("testdata/CFFTest.otf")
	if err != nil {
		t.Fatal(err)
	}
	woff2 := append([]byte("wOF2\x00\x01\x00\x00"), randomBytes(2000, 9)...)
	cases := []struct {
		name  string
		parts []part
		want  content.Font
	}{
		{"a TrueType file alone", []part{filePart("file", "GoRegular.ttf", goregular.TTF)},
			content.Font{Name: "Go Regular", Family: "Go", Style: "normal", Weight: 400, SystemName: "GoRegular", Direction: "ltr", OriginalName: "GoRegular.ttf"}},
		{"a bold italic TrueType file", []part{filePart("file", "Go-BoldItalic.ttf", gobolditalic.TTF)},
			content.Font{Name: "Go Bold Italic", Family: "Go", Style: "italic", Weight: 600, SystemName: "Go-BoldItalic", Direction: "ltr", OriginalName: "Go-BoldItalic.ttf"}},
		{"an OpenType file with the request's name, family, direction and premium flag", []part{
			fieldPart("name", "Brand Sans"), fieldPart("family", "Brand"), fieldPart("direction", "rtl"), fieldPart("is_premium", "true"),
			filePart("file", "cff.otf", otf)},
			content.Font{Name: "Brand Sans", Family: "Brand", Style: "italic", Weight: 400, SystemName: "CFFTest", Direction: "rtl", OriginalName: "cff.otf", IsPremium: true}},
		{"a WOFF2 file, named from its file name", []part{filePart("file", "Inter-SemiBoldItalic.woff2", woff2)},
			content.Font{Name: "Inter-SemiBoldItalic", Family: "Inter-SemiBoldItalic", Style: "italic", Weight: 600, SystemName: "Inter-SemiBoldItalic", Direction: "ltr", OriginalName: "Inter-SemiBoldItalic.woff2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct, body := streamedBody(tc.parts...)
			r, err := ev.c.CreateFontWithBodyWithResponse(ctx(t), nil, ct, body, ev.admin)
			want(t, r, err, 201)
			got := *r.JSON201
			key := objectKey(got.FileUrl, ev.app.Config().MediaBucket)
			if key == "" {
				t.Fatalf("file_url %q is not in the media bucket", got.FileUrl)
			}
			if _, _, err := ev.s3.Hash(ctx(t), ev.app.Config().MediaBucket, key); err != nil {
				t.Fatalf("the font file is not stored: %v", err)
			}
			got.Id, got.FileUrl = tc.want.Id, tc.want.FileUrl
			if got != tc.want {
				t.Fatalf("font\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
	l, err := ev.c.ListFontsWithResponse(ctx(t), ev.user)
	want(t, l, err, 200)
	if len(l.JSON200.Data) != len(cases) {
		t.Fatalf("the library lists %d fonts, want %d", len(l.JSON200.Data), len(cases))
	}
}

func TestFontUploadsRefuse(t *testing.T) {
	ev := newEnv(t, alone())
	big := append([]byte("\x00\x01\x00\x00"), make([]byte, domain.MaxFontBytes)...)
	cases := []struct {
		name   string
		caller content.RequestEditorFn
		parts  []part
		status int
	}{
		{"a file that is no font", ev.admin, []part{filePart("file", "x.ttf", []byte("GIF89a not a font"))}, 415},
		{"a file above the bound", ev.admin, []part{filePart("file", "big.ttf", big)}, 413},
		{"no file", ev.admin, []part{fieldPart("name", "x")}, 400},
		{"is_premium that is not a boolean", ev.admin, []part{fieldPart("is_premium", "maybe"), filePart("file", "a.ttf", goregular.TTF)}, 400},
		{"a caller without the admin role", ev.user, []part{filePart("file", "a.ttf", goregular.TTF)}, 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct, body := streamedBody(tc.parts...)
			r, err := ev.c.CreateFontWithBodyWithResponse(ctx(t), nil, ct, body, tc.caller)
			want(t, r, err, tc.status)
		})
	}
	l, err := ev.c.ListFontsWithResponse(ctx(t), ev.user)
	want(t, l, err, 200)
	if len(l.JSON200.Data) != 0 {
		t.Fatalf("refused uploads created %d fonts", len(l.JSON200.Data))
	}
}
