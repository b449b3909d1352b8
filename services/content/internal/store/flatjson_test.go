package store

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/videotpl/platform/services/content/internal/domain"
)

// The fast decoders must give what json.Unmarshal gives, for every input, or fail as it does.
func TestStoredItemsAndOptionsDecodeAsEncodingJSONDoes(t *testing.T) {
	inputs := []string{
		``, `[]`, ` [ ] `, `null`,
		`[{"sort": 1, "value": "#1e88e5", "element_key": "color_01"}, {"sort": 2, "value": "#e53935", "element_key": "color_02"}]`,
		`[{"icon": "", "name": "Light", "value": "light"}, {"icon": "x.svg", "name": "Dark", "value": "dark"}]`,
		`[{}]`, `[{"sort": -3}]`, `[{"sort": 0, "sort": 7}]`, `[{"value":"ü 日本 <a&b>"}]`,
		`[{"value": "a \"quoted\" \\ \u00e9 value"}]`, `[{"name": "tab\tin"}]`,
		`[{"Element_Key": "case"}]`, `[{"extra": {"nested": [1, 2]}, "value": "v"}]`, `[{"value": null}]`,
		`[{"sort": 1.5}]`, `[{"sort": 1e2}]`, `[{"sort": "1"}]`, `[{"sort": 99999999999999999999}]`,
		`[{"name": 5}]`, `["x"]`, `{}`, `[{"value": "v"}] trailing`, `[{"value": "v"`, `[{"value" "v"}]`,
		"[{\"value\": \"bad \xff utf8\"}]",
	}
	for _, in := range inputs {
		wantItems := []domain.ColorPresetItem{}
		wantErr := decode(json.RawMessage(in), &wantItems)
		gotItems, gotErr := decodeColorPresetItems([]byte(in))
		if (gotErr != nil) != (wantErr != nil) || (wantErr == nil && !reflect.DeepEqual(gotItems, wantItems)) {
			t.Errorf("items %q: got %#v, %v; encoding/json %#v, %v", in, gotItems, gotErr, wantItems, wantErr)
		}
		wantOptions := []domain.ControllerOption{}
		wantErr = decode(json.RawMessage(in), &wantOptions)
		gotOptions, gotErr := decodeControllerOptions([]byte(in))
		if (gotErr != nil) != (wantErr != nil) || (wantErr == nil && !reflect.DeepEqual(gotOptions, wantOptions)) {
			t.Errorf("options %q: got %#v, %v; encoding/json %#v, %v", in, gotOptions, gotErr, wantOptions, wantErr)
		}
	}
}

func TestStoredTitlesDecodeAsEncodingJSONDoes(t *testing.T) {
	inputs := []string{
		``, `{}`, ` { } `, `null`, `{"en": "Scene 1", "es": "Escena 1"}`, `{"en":"a","en":"b"}`,
		`{"de": "ü 日本 <a&b>"}`, `{"en": "a \"quoted\" \\ \u00e9"}`, `{"en": "tab\tin"}`, "{\"en\": \"tab\tin\"}",
		`{"en": null}`, `{"en": 1}`, `{"en": ["x"]}`, `[]`, `"x"`, `{"en": "v"} trailing`, `{"en": "v"`, `{"en" "v"}`,
		`{"en": "v",}`, "{\"en\": \"bad \xff utf8\"}", `{"": ""}`,
	}
	for _, in := range inputs {
		want := map[string]string{}
		wantErr := decode(json.RawMessage(in), &want)
		got, gotErr := decodeStrings([]byte(in))
		if (gotErr != nil) != (wantErr != nil) || (wantErr == nil && !reflect.DeepEqual(got, want)) {
			t.Errorf("%q: got %#v, %v; encoding/json %#v, %v", in, got, gotErr, want, wantErr)
		}
	}
}

func BenchmarkDecodeColorPresetItems(b *testing.B) {
	raw := []byte(`[{"sort": 1, "value": "#1e88e5", "element_key": "color_01"}, {"sort": 2, "value": "#e53935", "element_key": "color_02"}, {"sort": 3, "value": "#fdd835", "element_key": "color_03"}, {"sort": 4, "value": "#43a047", "element_key": "color_04"}, {"sort": 5, "value": "#8e24aa", "element_key": "color_05"}]`)
	b.Run("flat", func(b *testing.B) {
		for b.Loop() {
			_, _ = decodeColorPresetItems(raw)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			items := []domain.ColorPresetItem{}
			_ = decode(raw, &items)
		}
	})
}

func BenchmarkDecodeStrings(b *testing.B) {
	raw := []byte(`{"en": "Scene 12", "es": "Escena 12"}`)
	b.Run("flat", func(b *testing.B) {
		for b.Loop() {
			_, _ = decodeStrings(raw)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			m := map[string]string{}
			_ = decode(raw, &m)
		}
	})
}
