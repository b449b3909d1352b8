package svgpreview

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// rgb is an 8-bit sRGB colour.
type rgb struct{ R, G, B uint8 }

// lab is a CIE L*a*b* colour (D65 white).
type lab struct{ L, A, B float64 }

// Hex renders c as "#rrggbb".
func (c rgb) Hex() string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// ParseColor reads "#rgb" or "#rrggbb" (the "#" is optional, case-insensitive).
func ParseColor(s string) (rgb, error) {
	h := strings.TrimPrefix(strings.TrimSpace(s), "#")
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	if len(h) != 6 {
		return rgb{}, fmt.Errorf("colour %q is not #rrggbb", s)
	}
	v, err := strconv.ParseUint(h, 16, 32)
	if err != nil {
		return rgb{}, fmt.Errorf("colour %q is not #rrggbb", s)
	}
	return rgb{uint8(v >> 16), uint8(v >> 8), uint8(v)}, nil
}

// ValidColor reports whether s is a colour ParseColor accepts.
func ValidColor(s string) bool { _, err := ParseColor(s); return err == nil }

// linear8 maps an 8-bit sRGB channel to linear light (a read-only table).
var linear8 = func() (t [256]float64) {
	for i := range t {
		c := float64(i) / 255
		if c <= 0.04045 {
			t[i] = c / 12.92
		} else {
			t[i] = math.Pow((c+0.055)/1.055, 2.4)
		}
	}
	return t
}()

func labF(t float64) float64 {
	const e = 216.0 / 24389.0
	const k = 24389.0 / 27.0
	if t > e {
		return math.Cbrt(t)
	}
	return (k*t + 16) / 116
}

func (c rgb) lab() lab { return labOf(linear8[c.R], linear8[c.G], linear8[c.B]) }

// labOf converts linear-light RGB (0..1) to Lab.
func labOf(r, g, b float64) lab {
	x := (0.4124564*r + 0.3575761*g + 0.1804375*b) / 0.95047
	y := 0.2126729*r + 0.7151522*g + 0.0721750*b
	z := (0.0193339*r + 0.1191920*g + 0.9503041*b) / 1.08883
	fx, fy, fz := labF(x), labF(y), labF(z)
	return lab{L: 116*fy - 16, A: 500 * (fx - fy), B: 200 * (fy - fz)}
}

// dist2 is the squared CIE76 colour difference.
func (p lab) dist2(q lab) float64 {
	dl, da, db := p.L-q.L, p.A-q.A, p.B-q.B
	return dl*dl + da*da + db*db
}
