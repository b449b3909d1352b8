package main

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const base = `
asyncapi: 3.0.0
channels:
  events: {address: events}
components:
  schemas:
    Job:
      type: object
      required: [id]
      properties:
        id: {type: string, format: uuid}
        step: {type: string, enum: [Queued, Done]}
        progress: {type: integer, minimum: 0, maximum: 100}
        note: {type: string}
`

func doc(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDiffClassifiesChanges(t *testing.T) {
	cases := []struct {
		name, from, to, want string // want "" means not breaking
	}{
		{"an optional property added", "note: {type: string}", "note: {type: string}\n        extra: {type: string}", ""},
		{"a property removed", "        note: {type: string}\n", "", "Job.note removed"},
		{"a field newly required", "required: [id]", "required: [id, step]", "step became required"},
		{"a required field dropped", "required: [id]", "required: []", "id is no longer required"},
		{"an enum value removed", "enum: [Queued, Done]", "enum: [Queued]", "enum value Done removed"},
		{"a range narrowed", "maximum: 100", "maximum: 50", "maximum lowered"},
		{"a first maxLength on a string", "note: {type: string}", "note: {type: string, maxLength: 200}", ""},
		{"a format changed", "format: uuid", "format: date-time", "format changed"},
		{"a type changed", "progress: {type: integer", "progress: {type: string", "type changed"},
		{"a channel removed", "  events: {address: events}\n", "  other: {address: other}\n", "channels.events removed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			changed := strings.Replace(base, c.from, c.to, 1)
			if changed == base {
				t.Fatalf("test case did not change the document")
			}
			got := strings.Join(Diff(doc(t, base), doc(t, changed)), "\n")
			if c.want == "" && got != "" {
				t.Fatalf("want no breaking change, got:\n%s", got)
			}
			if c.want != "" && !strings.Contains(got, c.want) {
				t.Fatalf("want %q among:\n%s", c.want, got)
			}
		})
	}
}

// A first upper bound on a field is reported as possibly breaking (a producer sending more must
// keep within it), not as breaking; lowering a bound that exists is breaking.
func TestAFirstUpperBoundIsPossiblyBreakingAndALowerOneBreaking(t *testing.T) {
	bounded := strings.Replace(base, "note: {type: string}", "note: {type: string, maxLength: 200}", 1)
	if got := Diff(doc(t, base), doc(t, bounded)); len(got) != 0 {
		t.Errorf("a first maxLength: want no breaking change, got %v", got)
	}
	if got := strings.Join(Warnings(doc(t, base), doc(t, bounded)), "\n"); got != "components.schemas.Job.note: maxLength set to 200 (there was none)" {
		t.Errorf("a first maxLength: warnings %q", got)
	}
	withURLBound := strings.Replace(catalogue, "url: {type: string}", "url: {type: string, maxLength: 2000}", 1)
	want := "- message job.done.v1: payload.data.url: maxLength set to 2000 (there was none) (possibly breaking)"
	if got := strings.Join(Changelog(doc(t, catalogue), doc(t, withURLBound)), "\n"); got != want {
		t.Errorf("changelog %q, want %q", got, want)
	}
	lowered := strings.Replace(bounded, "maxLength: 200", "maxLength: 100", 1)
	if got := strings.Join(Diff(doc(t, bounded), doc(t, lowered)), "\n"); !strings.Contains(got, "Job.note: maxLength lowered from 200 to 100") {
		t.Errorf("a lowered maxLength: want it breaking, got %q", got)
	}
	if got := Warnings(doc(t, bounded), doc(t, lowered)); len(got) != 0 {
		t.Errorf("a lowered maxLength: want no warning, got %v", got)
	}
}

const catalogue = `
asyncapi: 3.0.0
channels:
  events: {address: events}
components:
  messages:
    JobDoneV1:
      name: job.done.v1
      payload:
        allOf:
          - $ref: '#/components/schemas/Envelope'
          - type: object
            properties:
              data: {$ref: '#/components/schemas/JobDone'}
    JobGoneV1:
      name: job.gone.v1
      payload: {$ref: '#/components/schemas/Envelope'}
  schemas:
    Envelope:
      type: object
      required: [event_id]
      properties:
        event_id: {type: string, format: uuid}
    JobDone:
      type: object
      required: [url]
      properties:
        url: {type: string}
        size: {type: integer, maximum: 100}
`

func TestChangelogListsMessagesAndFieldsAndMarksTheBreakingOnes(t *testing.T) {
	changed := strings.NewReplacer(
		"        url: {type: string}\n", "        note: {type: string}\n",
		"maximum: 100", "maximum: 200",
		"    JobGoneV1:\n      name: job.gone.v1\n", "    JobNewV1:\n      name: job.new.v1\n",
	).Replace(catalogue)
	got := Changelog(doc(t, catalogue), doc(t, changed))
	want := []string{
		"- message job.done.v1: payload.data.note added",
		"- message job.done.v1: payload.data.size: maximum raised from 100 to 200",
		"- message job.done.v1: payload.data.url removed (breaking)",
		"- message job.gone.v1 removed (breaking)",
		"- message job.new.v1 added",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("changelog:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if breaking := Diff(doc(t, catalogue), doc(t, changed)); len(breaking) == 0 || strings.Contains(strings.Join(breaking, "\n"), "note") {
		t.Fatalf("Diff must report the removals and not the added field:\n%s", strings.Join(breaking, "\n"))
	}
	if got := Changelog(doc(t, catalogue), doc(t, catalogue)); len(got) != 0 {
		t.Fatalf("unchanged documents: want no entry, got %v", got)
	}
}

const producers = `
asyncapi: 3.0.0
channels:
  events: {address: events}
components:
  messages:
    JobDoneV1:
      name: job.done.v1
      payload:
        allOf:
          - $ref: '#/components/schemas/Envelope'
          - type: object
            properties:
              producer: {const: render}
              data: {$ref: '#/components/schemas/JobDone'}
  schemas:
    Envelope:
      type: object
      properties:
        producer: {$ref: '#/components/schemas/Producer'}
    Producer:
      type: string
      enum: [render]
    JobDone:
      type: object
      properties:
        step: {type: string, enum: [Queued, Done]}
`

// A new producer widens the envelope's enum, but each message fixes its producer with a const:
// no consumer of an existing message can receive the new value. A value added to a payload
// field a consumer receives stays breaking.
func TestAnEnumValueAddedIsBreakingOnlyWhereAConsumerCanReceiveIt(t *testing.T) {
	newProducer := strings.NewReplacer(
		"      enum: [render]\n", "      enum: [render, board]\n",
		"  schemas:\n", "    BoardDoneV1:\n      name: board.done.v1\n      payload:\n        allOf:\n"+
			"          - $ref: '#/components/schemas/Envelope'\n          - type: object\n            properties:\n"+
			"              producer: {const: board}\n  schemas:\n",
	).Replace(producers)
	if got := Diff(doc(t, producers), doc(t, newProducer)); len(got) != 0 {
		t.Errorf("a new producer with its own messages: want no breaking change, got %v", got)
	}
	newStep := strings.Replace(producers, "enum: [Queued, Done]", "enum: [Queued, Done, Lost]", 1)
	if got := strings.Join(Diff(doc(t, producers), doc(t, newStep)), "\n"); !strings.Contains(got, "enum value Lost added") {
		t.Errorf("a value added to a received field: want it breaking, got %q", got)
	}
}
