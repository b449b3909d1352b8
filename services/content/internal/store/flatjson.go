package store

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/videotpl/platform/services/content/internal/domain"
)

// The project aggregate decodes the stored items of every colour preset and the options of
// every character controller: encoding/json's reflection over these small arrays was a tenth of
// the aggregate's CPU. flatObjects reads the common case directly (an array of objects whose
// members are strings without escapes or integers, as PostgreSQL prints jsonb); anything else
// is left to encoding/json, so the result is always the one json.Unmarshal gives.

// flatObjects calls member for each member of each object of the array raw and end after each
// object. It reports false when raw is not in that simple form or member refuses a member.
func flatObjects(raw []byte, member func(key, value []byte, quoted bool) bool, end func()) bool {
	r := flatReader{b: raw}
	if !r.skip('[') {
		return false
	}
	if r.skip(']') {
		return r.done()
	}
	for {
		if !r.skip('{') {
			return false
		}
		if !r.skip('}') {
			for {
				key, ok := r.str()
				if !ok || !r.skip(':') {
					return false
				}
				var value []byte
				quoted := r.peek() == '"'
				if quoted {
					value, ok = r.str()
				} else {
					value, ok = r.integer()
				}
				if !ok || !member(key, value, quoted) {
					return false
				}
				if r.skip('}') {
					break
				}
				if !r.skip(',') {
					return false
				}
			}
		}
		end()
		if r.skip(']') {
			return r.done()
		}
		if !r.skip(',') {
			return false
		}
	}
}

type flatReader struct {
	b []byte
	i int
}

func (r *flatReader) space() {
	for r.i < len(r.b) && (r.b[r.i] == ' ' || r.b[r.i] == '\n' || r.b[r.i] == '\t' || r.b[r.i] == '\r') {
		r.i++
	}
}

func (r *flatReader) peek() byte {
	r.space()
	if r.i < len(r.b) {
		return r.b[r.i]
	}
	return 0
}

func (r *flatReader) skip(c byte) bool {
	if r.peek() == c {
		r.i++
		return true
	}
	return false
}

func (r *flatReader) done() bool { r.space(); return r.i == len(r.b) }

// str reads a string without escapes or control characters, in valid UTF-8.
func (r *flatReader) str() ([]byte, bool) {
	if !r.skip('"') {
		return nil, false
	}
	end := bytes.IndexByte(r.b[r.i:], '"')
	if end < 0 {
		return nil, false
	}
	s := r.b[r.i : r.i+end]
	for _, c := range s {
		if c == '\\' || c < 0x20 {
			return nil, false
		}
	}
	if !utf8.Valid(s) {
		return nil, false
	}
	r.i += end + 1
	return s, true
}

// integer reads an optional minus sign and digits.
func (r *flatReader) integer() ([]byte, bool) {
	start := r.i
	if r.i < len(r.b) && r.b[r.i] == '-' {
		r.i++
	}
	digits := r.i
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
		r.i++
	}
	if r.i == digits {
		return nil, false
	}
	return r.b[start:r.i], true
}

// decodeColorPresetItems decodes a preset's stored items as json.Unmarshal would.
func decodeColorPresetItems(raw []byte) ([]domain.ColorPresetItem, error) {
	items := make([]domain.ColorPresetItem, 0, bytes.Count(raw, []byte("{")))
	var it domain.ColorPresetItem
	ok := flatObjects(raw, func(key, value []byte, quoted bool) bool {
		switch {
		case quoted && string(key) == "element_key":
			it.ElementKey = string(value)
		case quoted && string(key) == "value":
			it.Value = string(value)
		case !quoted && string(key) == "sort":
			n, err := strconv.Atoi(string(value))
			if err != nil {
				return false
			}
			it.Sort = n
		default:
			return false
		}
		return true
	}, func() { items = append(items, it); it = domain.ColorPresetItem{} })
	if ok {
		return items, nil
	}
	items = []domain.ColorPresetItem{}
	return items, decode(raw, &items)
}

// decodeControllerOptions decodes a controller's stored options as json.Unmarshal would.
func decodeControllerOptions(raw []byte) ([]domain.ControllerOption, error) {
	options := make([]domain.ControllerOption, 0, bytes.Count(raw, []byte("{")))
	var o domain.ControllerOption
	ok := flatObjects(raw, func(key, value []byte, quoted bool) bool {
		if !quoted {
			return false
		}
		switch string(key) {
		case "name":
			o.Name = string(value)
		case "icon":
			o.Icon = string(value)
		case "value":
			o.Value = string(value)
		default:
			return false
		}
		return true
	}, func() { options = append(options, o); o = domain.ControllerOption{} })
	if ok {
		return options, nil
	}
	options = []domain.ControllerOption{}
	return options, decode(raw, &options)
}

// flatStrings calls member for each member of the object raw whose values are all strings,
// and reports false when raw is not in that simple form.
func flatStrings(raw []byte, member func(key, value []byte)) bool {
	r := flatReader{b: raw}
	if !r.skip('{') {
		return false
	}
	if r.skip('}') {
		return r.done()
	}
	for {
		key, ok := r.str()
		if !ok || !r.skip(':') {
			return false
		}
		value, ok := r.str()
		if !ok {
			return false
		}
		member(key, value)
		if r.skip('}') {
			return r.done()
		}
		if !r.skip(',') {
			return false
		}
	}
}

// decodeStrings decodes a stored object of strings (a scene's titles by language) as
// json.Unmarshal would into an empty map; an empty column gives the empty map.
func decodeStrings(raw []byte) (map[string]string, error) {
	m := map[string]string{}
	if len(raw) == 0 || flatStrings(raw, func(key, value []byte) { m[string(key)] = string(value) }) {
		return m, nil
	}
	m = map[string]string{}
	return m, decode(raw, &m)
}
