package app

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"path"
	"strings"

	"golang.org/x/image/font/sfnt"

	"github.com/videotpl/platform/pkg/errs"
	"github.com/videotpl/platform/services/content/internal/domain"
)

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

// FontUpload is a font file with the fields the request gave (nil: not given).
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

// CreateFont stores a font file and adds it to the library; name, family, style and weight
// come from the file where the request does not give them.
func (a *App) CreateFont(ctx context.Context, actor domain.Actor, in FontUpload) (domain.Font, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.Font{}, err
	}
	if len(in.Data) > domain.MaxFontBytes {
		return domain.Font{}, domain.ErrFontTooLarge
	}
	format, ok := sniffFont(in.Data)
	if !ok {
		return domain.Font{}, ErrNotAFont
	}
	fi := readFontInfo(in.Data, format)
	stem := strings.TrimSuffix(path.Base(in.Filename), path.Ext(in.Filename))
	given := func(p *string) string {
		if p == nil {
			return ""
		}
		return strings.TrimSpace(*p)
	}
	f := domain.Font{
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

	id, err := newID()
	if err != nil {
		return domain.Font{}, err
	}
	f.ID = id
	key := fmt.Sprintf("fonts/%s/%s", id, safeName(in.Filename, "font."+format))
	bucket := a.cfg.MediaBucket
	size, _, err := a.objects.Put(ctx, bucket, key, fontContentTypes[format], bytes.NewReader(in.Data))
	if err != nil {
		return domain.Font{}, err
	}
	f.FileURL = a.objects.URL(bucket, key)
	err = a.store.InsertFont(ctx, domain.FontFile{Font: f, FileKey: key, FileSize: size, Format: format, CreatedAt: a.now()})
	if err != nil {
		a.deleteQuietly(ctx, bucket, key)
		return domain.Font{}, err
	}
	return f, nil
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
