// Package agentsmd parses AGENTS.md agent profiles: YAML frontmatter between '---' lines, then a
// Markdown body that becomes the agent's operating guide. The parser is strict: it refuses
// unknown keys, duplicate keys, wrong types, a missing key or version, a version that is not
// semantic versioning 2.0.0 and an empty body, each with a reason naming the field.
package agentsmd

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/mod/semver"
	"gopkg.in/yaml.v3"

	"github.com/videotpl/platform/pkg/errs"
)

// MaxSize is the largest AGENTS.md accepted, in bytes.
const MaxSize = 65536

// Autonomy levels, lowest to highest (the spec's Autonomy enum).
const (
	AutonomySuggest         = "suggest"
	AutonomyDraft           = "draft"
	AutonomyActWithApproval = "act_with_approval"
	AutonomyAutonomous      = "autonomous"
)

// Autonomies lists the autonomy levels, lowest to highest.
var Autonomies = []string{AutonomySuggest, AutonomyDraft, AutonomyActWithApproval, AutonomyAutonomous}

// Limits of frontmatter values.
const (
	maxKey        = 64
	maxVersion    = 64
	maxName       = 200
	maxDesc       = 2000
	maxListItems  = 100
	maxListItem   = 100
	frontmatterID = "body.frontmatter"
)

// Profile is a parsed AGENTS.md.
type Profile struct {
	Key         string
	Version     string
	Name        string
	Description string
	Skills      []string
	Tools       []string
	Autonomy    string
	// Body is the Markdown after the frontmatter: the operating guide.
	Body string
	// Content is the whole file as given.
	Content string
}

// frontmatter is the closed set of keys; yaml's KnownFields refuses any other.
type frontmatter struct {
	Key         *string   `yaml:"key"`
	Version     *string   `yaml:"version"`
	Name        *string   `yaml:"name"`
	Description *string   `yaml:"description"`
	Skills      *[]string `yaml:"skills"`
	Tools       *[]string `yaml:"tools"`
	Autonomy    *string   `yaml:"autonomy"`
}

var (
	keyPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	// semverPattern is the regular expression of semver.org for 2.0.0.
	semverPattern = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
		`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
		`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)
)

// Parse reads an AGENTS.md. A file above MaxSize is errs.TooLarge; any other defect is
// errs.Invalid naming each offending field (body.frontmatter.<key>, or body).
func Parse(data []byte) (Profile, error) {
	if len(data) > MaxSize {
		return Profile{}, errs.Ef(errs.TooLarge, "an AGENTS.md may have at most %d bytes", MaxSize)
	}
	if !utf8.Valid(data) {
		return Profile{}, invalid(errs.Field("body", "is not valid UTF-8"))
	}
	text := strings.TrimPrefix(string(data), "\uFEFF")
	head, body, err := split(text)
	if err != nil {
		return Profile{}, err
	}
	var fm frontmatter
	if err := decodeStrict(head, &fm); err != nil {
		return Profile{}, err
	}
	p := Profile{Body: body, Content: string(data)}
	var fields []errs.FieldError
	bad := func(key, msg string) { fields = append(fields, errs.Field(frontmatterID+"."+key, msg)) }

	switch {
	case fm.Key == nil || strings.TrimSpace(*fm.Key) == "":
		bad("key", "is required")
	case len(*fm.Key) > maxKey:
		bad("key", fmt.Sprintf("must have at most %d characters", maxKey))
	case !keyPattern.MatchString(*fm.Key):
		bad("key", "must match [a-z0-9][a-z0-9-]* (lower-case letters, digits and dashes)")
	default:
		p.Key = *fm.Key
	}
	switch {
	case fm.Version == nil || strings.TrimSpace(*fm.Version) == "":
		bad("version", "is required")
	default:
		if msg := CheckVersion(*fm.Version); msg != "" {
			bad("version", msg)
		} else {
			p.Version = *fm.Version
		}
	}
	switch {
	case fm.Name == nil || strings.TrimSpace(*fm.Name) == "":
		bad("name", "is required")
	case utf8.RuneCountInString(*fm.Name) > maxName:
		bad("name", fmt.Sprintf("must have at most %d characters", maxName))
	default:
		p.Name = strings.TrimSpace(*fm.Name)
	}
	if fm.Description != nil {
		if utf8.RuneCountInString(*fm.Description) > maxDesc {
			bad("description", fmt.Sprintf("must have at most %d characters", maxDesc))
		} else {
			p.Description = strings.TrimSpace(*fm.Description)
		}
	}
	p.Skills = list(fm.Skills, "skills", bad)
	p.Tools = list(fm.Tools, "tools", bad)
	p.Autonomy = AutonomySuggest
	if fm.Autonomy != nil {
		if !ValidAutonomy(*fm.Autonomy) {
			bad("autonomy", "must be one of "+strings.Join(Autonomies, ", "))
		} else {
			p.Autonomy = *fm.Autonomy
		}
	}
	if strings.TrimSpace(body) == "" {
		fields = append(fields, errs.Field("body", "the Markdown body (the operating guide) after the frontmatter must not be empty"))
	}
	if len(fields) > 0 {
		return Profile{}, invalid(fields...)
	}
	return p, nil
}

// CheckVersion returns why v is not a semantic version 2.0.0 ("" when it is).
func CheckVersion(v string) string {
	if len(v) > maxVersion {
		return fmt.Sprintf("must have at most %d characters", maxVersion)
	}
	if !semverPattern.MatchString(v) {
		return fmt.Sprintf("%q is not a semantic version (MAJOR.MINOR.PATCH, e.g. 1.2.0)", v)
	}
	return ""
}

// CompareVersions orders two valid semantic versions (-1, 0, 1); pre-releases sort below their
// release and build metadata is ignored, as semver 2.0.0 says.
func CompareVersions(a, b string) int { return semver.Compare("v"+a, "v"+b) }

// ValidAutonomy reports whether s is an autonomy level.
func ValidAutonomy(s string) bool {
	for _, a := range Autonomies {
		if s == a {
			return true
		}
	}
	return false
}

// ValidKey reports whether s is a well-formed profile key.
func ValidKey(s string) bool { return len(s) <= maxKey && keyPattern.MatchString(s) }

// split cuts the text into frontmatter and body. The first line must be '---'; the frontmatter
// ends at the next line that is '---'.
func split(text string) (head, body string, err error) {
	first, rest, ok := cutLine(text)
	if strings.TrimRight(first, " \t") != "---" {
		return "", "", invalid(errs.Field(frontmatterID, "is missing: the file must start with a '---' line, then YAML keys, then a closing '---' line"))
	}
	if !ok {
		return "", "", invalid(errs.Field(frontmatterID, "is not closed by a '---' line"))
	}
	var b strings.Builder
	for {
		line, after, more := cutLine(rest)
		if strings.TrimRight(line, " \t") == "---" {
			return b.String(), after, nil
		}
		if !more {
			return "", "", invalid(errs.Field(frontmatterID, "is not closed by a '---' line"))
		}
		b.WriteString(line)
		b.WriteByte('\n')
		rest = after
	}
}

// cutLine returns the first line of s (without its \n or \r\n) and the rest; more is false when
// s had no line break.
func cutLine(s string) (line, rest string, more bool) {
	line, rest, more = strings.Cut(s, "\n")
	return strings.TrimSuffix(line, "\r"), rest, more
}

// decodeStrict decodes one YAML mapping into fm, refusing unknown and duplicate keys, wrong
// types, aliases and more than one document.
func decodeStrict(head string, fm *frontmatter) error {
	if strings.TrimSpace(head) == "" {
		return invalid(errs.Field(frontmatterID+".key", "is required"), errs.Field(frontmatterID+".version", "is required"))
	}
	// The opening '---' line goes before the frontmatter as an empty line, so that the lines YAML
	// reports are the file's own.
	head = "\n" + head
	var root yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(head))
	if err := dec.Decode(&root); err != nil {
		return invalid(errs.Field(frontmatterID, "is not valid YAML: "+yamlReason(err)))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return invalid(errs.Field(frontmatterID, "must be one YAML document"))
	}
	if len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return invalid(errs.Field(frontmatterID, "must be a YAML mapping of keys to values"))
	}
	if hasAlias(root.Content[0]) {
		return invalid(errs.Field(frontmatterID, "must not use YAML anchors or aliases"))
	}
	var fields []errs.FieldError
	known := map[string]bool{"key": true, "version": true, "name": true, "description": true, "skills": true, "tools": true, "autonomy": true}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode || !known[k.Value] {
			fields = append(fields, errs.Field(frontmatterID+"."+printable(k.Value), "is not a known key (known: key, version, name, description, skills, tools, autonomy)"))
			continue
		}
		if msg := shapeOf(k.Value, m.Content[i+1]); msg != "" {
			fields = append(fields, errs.Field(frontmatterID+"."+k.Value, msg))
		}
	}
	if len(fields) > 0 {
		return invalid(fields...)
	}
	var buf bytes.Buffer
	buf.WriteString(head)
	d := yaml.NewDecoder(&buf)
	d.KnownFields(true)
	if err := d.Decode(fm); err != nil {
		return invalid(errs.Field(frontmatterID, "is not valid: "+yamlReason(err)))
	}
	return nil
}

// shapeOf checks the YAML shape of one value: a string scalar, or a list of string scalars.
func shapeOf(key string, v *yaml.Node) string {
	switch key {
	case "skills", "tools":
		if v.Kind != yaml.SequenceNode {
			return "must be a list of strings"
		}
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode || it.Tag == "!!null" {
				return "must be a list of strings"
			}
		}
		return ""
	}
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return "must be a string"
	}
	if key == "version" && v.Tag != "!!str" {
		// "1.0" or 1 parse as numbers: a version must be written as MAJOR.MINOR.PATCH.
		return fmt.Sprintf("%q is not a semantic version (MAJOR.MINOR.PATCH, e.g. 1.2.0)", v.Value)
	}
	return ""
}

func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c) {
			return true
		}
	}
	return false
}

func list(v *[]string, key string, bad func(key, msg string)) []string {
	out := []string{}
	if v == nil {
		return out
	}
	if len(*v) > maxListItems {
		bad(key, fmt.Sprintf("may have at most %d items", maxListItems))
		return out
	}
	seen := map[string]bool{}
	for _, s := range *v {
		s = strings.TrimSpace(s)
		switch {
		case s == "":
			bad(key, "must not contain empty items")
			return out
		case utf8.RuneCountInString(s) > maxListItem:
			bad(key, fmt.Sprintf("items must have at most %d characters", maxListItem))
			return out
		case seen[s]:
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// yamlReason keeps the message of a YAML error without the package prefix. The YAML parser
// (unlike its scanner and its decoder) reports the line before the one it names, counted from 0:
// its line is moved to the one the reader sees.
func yamlReason(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return strings.Join(te.Errors, "; ")
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := parserLine.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return "line " + strconv.Itoa(n+1) + ": " + m[2]
		}
	}
	return msg
}

// parserLine matches the messages of the YAML parser's errors (gopkg.in/yaml.v3 parserc.go).
var parserLine = regexp.MustCompile(`^line (\d+): ((?:did not find expected|found duplicate %|found incompatible YAML|found undefined tag handle).*)$`)

// printable bounds an unknown key for the error message.
func printable(s string) string {
	if utf8.RuneCountInString(s) > 64 {
		return string([]rune(s)[:64]) + "…"
	}
	if s == "" {
		return "(empty)"
	}
	return s
}

func invalid(fields ...errs.FieldError) error {
	e := errs.InvalidFields(fields...)
	if len(fields) > 1 {
		e.Detail = "invalid AGENTS.md: " + fields[0].Field + ": " + fields[0].Message + fmt.Sprintf(" (and %d more)", len(fields)-1)
	} else {
		e.Detail = "invalid AGENTS.md: " + e.Detail
	}
	return e
}
