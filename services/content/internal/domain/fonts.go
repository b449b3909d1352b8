package domain

import (
	"context"
	"encoding/binary"
	"path"
	"strings"
	"time"

	"github.com/google/uuid"
	"golang.org/x/image/font/sfnt"

	"github.com/videotpl/platform/pkg/errs"
)

// Font is a font of the library.
type Font struct {
	ID               uuid.UUID
	Name             string
	OriginalName     string
	SystemName       string
	Family           string
	Style            string
	Direction        string
	FileURL          string
	SampleImageURL   string
	Weight           int
	IsPremium        bool
	InstalledOnNodes bool
}

// ErrFontNotFound is the answer for an absent font.
var ErrFontNotFound = errs.E(errs.NotFound, "font not found")

// FontFile is a font with its stored file.
type FontFile struct {
	Font
	FileKey   string
	FileSize  int64
	Format    string // ttf, otf, woff, woff2
	CreatedAt time.Time
}

// MaxFontBytes bounds a font file (POST /fonts; the contract's 20 MiB).
const MaxFontBytes = 20 << 20

// ErrFontTooLarge refuses a font file above MaxFontBytes.
var ErrFontTooLarge = errs.Ef(errs.TooLarge, "the font file is larger than %d bytes", MaxFontBytes)

// FontStore keeps the font library.
type FontStore interface {
	ListFonts(ctx context.Context) ([]Font, error)
	DeleteFont(ctx context.Context, id uuid.UUID) error
	InsertFont(ctx context.Context, f FontFile) error
}

// Font file formats, by their magic bytes.
const (
	fontTTF   = "ttf"
	fontOTF   = "otf"
	fontWOFF  = "woff"
	fontWOFF2 = "woff2"
)

var fontContentTypes = map[string]string{fontTTF: "font/ttf", fontOTF: "font/otf", fontWOFF: "font/woff", fontWOFF2: "font/woff2"}

// sniffFont recognises a font file by its first four bytes.
func sniffFont(head []byte) (string, bool) {
	if len(head) < 4 {
		return "", false
	}
	switch string(head[:4]) {
	case "\x00\x01\x00\x00", "true":
		return fontTTF, true
	case "OTTO":
		return fontOTF, true
	case "wOFF":
		return fontWOFF, true
	case "wOF2":
		return fontWOFF2, true
	}
	return "", false
}

// fontInfo is what a font file says about itself (zero values where it says nothing).
type fontInfo struct {
	Family, Subfamily, Full, PostScript string
	Weight                              int // OS/2 usWeightClass
	Italic, Oblique                     bool
}

// readFontInfo reads the names (name table) and weight and slant (OS/2 table) of a TrueType
// or OpenType file. WOFF and WOFF2 wrap compressed tables and are not read: their fields come
// from the request or the file name.
func readFontInfo(data []byte, format string) fontInfo {
	var fi fontInfo
	if format != fontTTF && format != fontOTF {
		return fi
	}
	if f, err := sfnt.Parse(data); err == nil {
		var buf sfnt.Buffer
		name := func(ids ...sfnt.NameID) string {
			for _, id := range ids {
				if s, err := f.Name(&buf, id); err == nil && strings.TrimSpace(s) != "" {
					return strings.TrimSpace(s)
				}
			}
			return ""
		}
		fi.Family = name(sfnt.NameIDTypographicFamily, sfnt.NameIDFamily)
		fi.Subfamily = name(sfnt.NameIDTypographicSubfamily, sfnt.NameIDSubfamily)
		fi.Full = name(sfnt.NameIDFull)
		fi.PostScript = name(sfnt.NameIDPostScript)
	}
	if os2 := sfntTable(data, "OS/2"); len(os2) >= 64 {
		fi.Weight = int(binary.BigEndian.Uint16(os2[4:6]))
		sel := binary.BigEndian.Uint16(os2[62:64])
		fi.Italic, fi.Oblique = sel&1 != 0, sel&(1<<9) != 0
	}
	return fi
}

// sfntTable returns the bytes of a table of an sfnt file, nil when absent or out of bounds.
func sfntTable(data []byte, tag string) []byte {
	if len(data) < 12 {
		return nil
	}
	n := int(binary.BigEndian.Uint16(data[4:6]))
	for i := range n {
		rec := 12 + 16*i
		if rec+16 > len(data) {
			return nil
		}
		if string(data[rec:rec+4]) != tag {
			continue
		}
		off := int(binary.BigEndian.Uint32(data[rec+8:]))
		length := int(binary.BigEndian.Uint32(data[rec+12:]))
		if off < 0 || length < 0 || off+length > len(data) {
			return nil
		}
		return data[off : off+length]
	}
	return nil
}

// weightWords map style names to CSS weights; longer names first so "ExtraBold" is not "Bold".
var weightWords = []struct {
	word   string
	weight int
}{
	{"extralight", 200}, {"ultralight", 200}, {"semibold", 600}, {"demibold", 600},
	{"extrabold", 800}, {"ultrabold", 800}, {"hairline", 100}, {"thin", 100}, {"light", 300},
	{"regular", 400}, {"normal", 400}, {"book", 400}, {"medium", 500}, {"bold", 700},
	{"heavy", 900}, {"black", 900},
}

// styleFromWords reads weight and slant from a style or file name such as "Bold Italic" or
// "Inter-SemiBoldItalic.woff2" (weight 0 when it names none).
func styleFromWords(s string) (weight int, style string) {
	l := strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(s))
	for _, w := range weightWords {
		if strings.Contains(l, w.word) {
			weight = w.weight
			break
		}
	}
	switch {
	case strings.Contains(l, "italic"):
		style = "italic"
	case strings.Contains(l, "oblique"):
		style = "oblique"
	}
	return weight, style
}

// FontUpload is an uploaded font file with the fields the request gave (nil: not given).
type FontUpload struct {
	Filename  string
	Data      []byte
	Name      *string
	Family    *string
	Direction *string
	IsPremium bool
}

// ErrNotAFont answers a file that is none of the accepted font formats.
var ErrNotAFont = errs.E(errs.UnsupportedMedia, "the file is not a TrueType, OpenType, WOFF or WOFF2 font (checked by its first bytes)")

// DescribeFont reads an uploaded font file: its format, recognised by its first bytes
// (ErrNotAFont for none of the accepted ones), and its library entry, whose name, family,
// system name, weight and style come from the file where the request does not give them.
func DescribeFont(in FontUpload) (Font, string, error) {
	format, ok := sniffFont(in.Data)
	if !ok {
		return Font{}, "", ErrNotAFont
	}
	fi := readFontInfo(in.Data, format)
	stem := strings.TrimSuffix(path.Base(in.Filename), path.Ext(in.Filename))
	given := func(p *string) string {
		if p == nil {
			return ""
		}
		return strings.TrimSpace(*p)
	}
	f := Font{
		OriginalName: in.Filename, IsPremium: in.IsPremium,
		Name:      firstOf(given(in.Name), fi.Full, strings.TrimSpace(fi.Family+" "+fi.Subfamily), stem, "font"),
		Direction: firstOf(given(in.Direction), "ltr"),
	}
	f.Family = firstOf(given(in.Family), fi.Family, f.Name)
	f.SystemName = firstOf(fi.PostScript, strings.ReplaceAll(f.Name, " ", "-"))
	wordWeight, wordStyle := styleFromWords(fi.Subfamily)
	if fi.Subfamily == "" {
		wordWeight, wordStyle = styleFromWords(stem)
	}
	switch {
	case fi.Weight >= 1 && fi.Weight <= 1000:
		f.Weight = fi.Weight
	case wordWeight > 0:
		f.Weight = wordWeight
	default:
		f.Weight = 400
	}
	switch {
	case fi.Italic:
		f.Style = "italic"
	case fi.Oblique:
		f.Style = "oblique"
	default:
		f.Style = firstOf(wordStyle, "normal")
	}
	return f, format, nil
}

// FontContentType is the media type a font file of format is stored with.
func FontContentType(format string) string { return fontContentTypes[format] }

// firstOf is the first non-empty value.
func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
