package domain

import (
	"testing"

	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goregular"
)

func TestFontFilesAreRecognisedByTheirMagicBytes(t *testing.T) {
	cases := []struct {
		head   string
		format string
		ok     bool
	}{
		{"\x00\x01\x00\x00rest", fontTTF, true},
		{"true", fontTTF, true},
		{"OTTO\x00\x0a", fontOTF, true},
		{"wOFF\x00\x01", fontWOFF, true},
		{"wOF2\x00\x01", fontWOFF2, true},
		{"\x89PNG", "", false},
		{"OTT", "", false},
		{"", "", false},
	}
	for _, tc := range cases {
		got, ok := sniffFont([]byte(tc.head))
		if got != tc.format || ok != tc.ok {
			t.Errorf("sniffFont(%q) = %q %v, want %q %v", tc.head, got, ok, tc.format, tc.ok)
		}
	}
}

func TestTrueTypeNamesWeightAndSlantAreReadFromTheFile(t *testing.T) {
	cases := []struct {
		name               string
		data               []byte
		family, full, post string
		weight             int
		italic             bool
	}{
		{"Go Regular", goregular.TTF, "Go", "Go Regular", "GoRegular", 400, false},
		{"Go Bold Italic", gobolditalic.TTF, "Go", "Go Bold Italic", "Go-BoldItalic", 600, true},
	}
	for _, tc := range cases {
		fi := readFontInfo(tc.data, fontTTF)
		if fi.Family != tc.family || fi.Full != tc.full || fi.PostScript != tc.post || fi.Weight != tc.weight || fi.Italic != tc.italic {
			t.Errorf("%s: read %+v", tc.name, fi)
		}
	}
	if fi := readFontInfo(goregular.TTF[:40], fontTTF); fi != (fontInfo{}) {
		t.Errorf("a truncated file gave %+v", fi)
	}
	if fi := readFontInfo([]byte("wOF2...."), fontWOFF2); fi != (fontInfo{}) {
		t.Errorf("a WOFF2 file is not read, got %+v", fi)
	}
}

func TestStyleNamesGiveWeightAndSlant(t *testing.T) {
	cases := []struct {
		in     string
		weight int
		style  string
	}{
		{"Bold Italic", 700, "italic"},
		{"Inter-SemiBoldItalic", 600, "italic"},
		{"Roboto_ExtraBold", 800, ""},
		{"Lato-Light", 300, ""},
		{"Some Oblique", 0, "oblique"},
		{"Regular", 400, ""},
		{"mystery", 0, ""},
	}
	for _, tc := range cases {
		w, s := styleFromWords(tc.in)
		if w != tc.weight || s != tc.style {
			t.Errorf("styleFromWords(%q) = %d %q, want %d %q", tc.in, w, s, tc.weight, tc.style)
		}
	}
}
