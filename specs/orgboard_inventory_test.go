package specs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
)

// The orgboard inventory test reads seed 002 (the organization board and agent service interface)
// and checks that specs/openapi/orgboard.yaml states everything the seed states: each endpoint at its
// method and path, each named resource field (under its snake_case wire name), the enumerations, the
// board columns in order, the permission names, the audit action names, the operation groups whose
// paths the seed leaves to us, and the 400/403/409 statuses of its Errors table.

const orgboardSeedFile = "002_a8cd71b1293fa801.txt"

// orgboardGroupTags maps the label of a seed operation group whose paths the seed leaves open to the
// spec tag that holds those operations (the paths are our decision; a group under a path prefix needs
// no entry).
var orgboardGroupTags = map[string]string{
	"Tool-server registry":     "tool-servers",
	"Organizational structure": "structure",
}

type seedEndpoint struct{ method, path, purpose, permission string }

type seedResource struct{ name, fields string }

type seedGroup struct {
	label, prefix string
	line          string // the whole bullet, for PascalCase names
	items         [][]string
}

type seedError struct{ status, condition string }

// orgboardSeed is what the checker takes from the seed text.
type orgboardSeed struct {
	endpoints    []seedEndpoint
	resources    []seedResource
	boardColumns []string
	permissions  []string
	auditActions []string
	groups       []seedGroup
	errors       []seedError
}

func TestOrgboardSpecHoldsEverySeedStatement(t *testing.T) {
	seed := loadOrgboardSeed(t)
	doc := loadOrgboardSpec(t)
	for _, p := range checkOrgboard(seed, doc) {
		t.Error(p)
	}
}

func TestOrgboardSeedParserFindsTheStatedInventory(t *testing.T) {
	seed := loadOrgboardSeed(t)
	// Guards against a parser that silently finds nothing (and so checks nothing).
	if len(seed.endpoints) < 15 {
		t.Errorf("parsed %d endpoints from the seed, want at least 15", len(seed.endpoints))
	}
	if len(seed.resources) < 10 {
		t.Errorf("parsed %d resources, want at least 10", len(seed.resources))
	}
	if len(seed.boardColumns) != 4 {
		t.Errorf("parsed board columns %q, want 4", seed.boardColumns)
	}
	if len(seed.permissions) < 4 || len(seed.auditActions) < 6 {
		t.Errorf("parsed permissions %q and audit actions %q", seed.permissions, seed.auditActions)
	}
	if len(seed.groups) != 3 {
		t.Errorf("parsed %d operation groups, want 3", len(seed.groups))
	}
	if len(seed.errors) != 3 {
		t.Errorf("parsed %d error rows, want 3", len(seed.errors))
	}
}

func TestOrgboardCheckerReportsWhatASpecCopyLacks(t *testing.T) {
	seed := loadOrgboardSeed(t)
	cases := []struct {
		name   string
		mutate func(*openapi3.T)
		want   string
	}{
		{"a removed resource field", func(d *openapi3.T) {
			delete(d.Components.Schemas["Team"].Value.Properties, "product_id")
		}, "Team: field ProductId"},
		{"a nullable field made non-null", func(d *openapi3.T) {
			d.Components.Schemas["AgentProfile"].Value.Properties["organization_id"].Value.Nullable = false
		}, "AgentProfile: field OrganizationId (organization_id) must be nullable"},
		{"an array of uuid turned into strings", func(d *openapi3.T) {
			d.Components.Schemas["Agent"].Value.Properties["mcp_server_ids"].Value.Items.Value.Format = ""
		}, "Agent: field McpServerIds (mcp_server_ids) must be an array of uuid"},
		{"a removed operation", func(d *openapi3.T) {
			d.Paths.Value("/api/orgboard/tasks/{id}/move").Patch = nil
		}, "PATCH /api/orgboard/tasks/{id}/move: missing"},
		{"a removed enum value", func(d *openapi3.T) {
			s := d.Components.Schemas["ProfileOrigin"].Value
			s.Enum = slices.DeleteFunc(s.Enum, func(v any) bool { return v == "Installed" })
		}, "AgentProfile: Origin enum"},
		{"board columns out of order", func(d *openapi3.T) {
			s := d.Components.Schemas["WorkItemStatus"].Value
			s.Enum[1], s.Enum[2] = s.Enum[2], s.Enum[1]
		}, "board: column statuses"},
		{"a 409 dropped from install", func(d *openapi3.T) {
			d.Paths.Value("/api/orgboard/agent-profiles/{id}/install").Post.Responses.Delete("409")
		}, "installAgentProfile: must declare 409"},
		{"a 403 dropped from creating a team", func(d *openapi3.T) {
			d.Paths.Value("/api/orgboard/teams").Post.Responses.Delete("403")
		}, "createTeam: must declare 403"},
		{"a secret returned in a response", func(d *openapi3.T) {
			d.Components.Schemas["McpServerConfig"].Value.Properties["headers"] = openapi3.NewObjectSchema().NewRef()
		}, "McpServerConfig: headers is never returned"},
		{"a missing group operation", func(d *openapi3.T) {
			d.Paths.Value("/api/orgboard/agent-profiles/{id}/fork").Post = nil
		}, `group "Under /api/orgboard/agent-profiles": no operation for "fork"`},
		{"an audit action left out", func(d *openapi3.T) {
			op := d.Paths.Value("/api/governance/audit").Get
			op.Description = strings.ReplaceAll(op.Description, "task.assigned", "task.given")
		}, "audit action task.assigned"},
	}
	for _, tc := range cases {
		t.Run(tc.name+" is reported", func(t *testing.T) {
			doc := loadOrgboardSpec(t)
			if ps := checkOrgboard(seed, doc); len(ps) != 0 {
				t.Fatalf("the unmodified spec already has problems: %q", ps)
			}
			tc.mutate(doc)
			ps := checkOrgboard(seed, doc)
			if !slices.ContainsFunc(ps, func(p string) bool { return strings.Contains(p, tc.want) }) {
				t.Errorf("want a problem containing %q, got %q", tc.want, ps)
			}
		})
	}
}

func loadOrgboardSpec(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(specPath("openapi/orgboard.yaml"))
	if err != nil {
		t.Fatalf("load orgboard.yaml: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("orgboard.yaml is not valid OpenAPI: %v", err)
	}
	return doc
}

func loadOrgboardSeed(t *testing.T) orgboardSeed {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(seedsDir(t), orgboardSeedFile))
	if err != nil {
		t.Fatalf("read seed: %v", err)
	}
	return parseOrgboardSeed(string(raw))
}

// ---- seed parsing ----------------------------------------------------------------------------

var (
	reBoardColumns = regexp.MustCompile(`(?m)^Board columns, in order: (.+?)\.\s*$`)
	rePermissions  = regexp.MustCompile(`(?m)^- Permission names: (.+?)\.\s*$`)
	reAuditActions = regexp.MustCompile(`Audit entry actions named: ([^(]+?)(?: \(|\.\s)`)
	reParens       = regexp.MustCompile(`\s*\(([^()]*)\)`)
	rePascal       = regexp.MustCompile(`\b[A-Z][a-z]+(?:[A-Z][a-z]+)*\b`)
	reMultiPascal  = regexp.MustCompile(`\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b`)
)

func parseOrgboardSeed(text string) orgboardSeed {
	var s orgboardSeed
	sections := splitSections(text)
	for _, row := range tableRows(sections["Endpoints"]) {
		if len(row) == 4 && isHTTPMethod(row[0]) {
			s.endpoints = append(s.endpoints, seedEndpoint{row[0], row[1], row[2], row[3]})
		}
	}
	for _, row := range tableRows(sections["Resources and fields"]) {
		if len(row) == 2 && row[0] != "Resource" {
			s.resources = append(s.resources, seedResource{row[0], row[1]})
		}
	}
	if m := reBoardColumns.FindStringSubmatch(text); m != nil {
		s.boardColumns = splitList(m[1])
	}
	if m := rePermissions.FindStringSubmatch(sections["Authentication"]); m != nil {
		s.permissions = splitList(m[1])
	}
	if m := reAuditActions.FindStringSubmatch(sections["Events"]); m != nil {
		s.auditActions = splitList(m[1])
	}
	inGroups := false
	for _, line := range strings.Split(sections["Endpoints"], "\n") {
		switch {
		case strings.HasPrefix(line, "Groups of operations"):
			inGroups = true
		case inGroups && strings.HasPrefix(line, "- "):
			s.groups = append(s.groups, parseGroup(strings.TrimPrefix(line, "- ")))
		case inGroups && strings.TrimSpace(line) != "":
			inGroups = false
		}
	}
	for _, row := range tableRows(sections["Errors"]) {
		if len(row) == 2 && row[0] != "Status" {
			s.errors = append(s.errors, seedError{row[0], row[1]})
		}
	}
	return s
}

// splitSections maps each "## Heading" to the text under it.
func splitSections(text string) map[string]string {
	out := map[string]string{}
	var name string
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			out[name] = b.String()
			name = strings.TrimSpace(h)
			b.Reset()
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	out[name] = b.String()
	return out
}

// tableRows returns the cells of every Markdown table row that is not a separator.
func tableRows(section string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(section, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	return rows
}

func isHTTPMethod(s string) bool {
	return slices.Contains([]string{"GET", "POST", "PUT", "PATCH", "DELETE"}, s)
}

// splitList splits "a, b, c or d" / "a, b and c" into its items.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ", ") {
		for _, p := range regexp.MustCompile(` (?:and|or) `).Split(part, -1) {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

var groupVerbs = []string{"list", "create", "get", "delete", "update"}

// parseGroup reads "Label: item, item (note), item and item. Further sentences."; a list without
// commas such as "list and create divisions and products" is read as verbs times nouns.
func parseGroup(line string) seedGroup {
	g := seedGroup{line: line}
	label, rest, _ := strings.Cut(line, ": ")
	g.label = label
	if i := strings.Index(label, "/"); i >= 0 {
		g.prefix = label[i:]
	}
	rest = reParens.ReplaceAllString(rest, "")
	if i := strings.IndexAny(rest, ";"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.Index(rest, ". "); i >= 0 {
		rest = rest[:i]
	}
	rest = strings.TrimSuffix(strings.TrimSpace(rest), ".")
	if !strings.Contains(rest, ",") {
		var verbs, nouns []string
		for _, w := range strings.Fields(rest) {
			switch {
			case w == "and":
			case slices.Contains(groupVerbs, w) && len(nouns) == 0:
				verbs = append(verbs, w)
			default:
				nouns = append(nouns, w)
			}
		}
		for _, v := range verbs {
			for _, n := range nouns {
				g.items = append(g.items, []string{v, n})
			}
		}
		return g
	}
	for _, item := range splitList(rest) {
		g.items = append(g.items, strings.Fields(item))
	}
	return g
}

// ---- the checker -----------------------------------------------------------------------------

type orgboardChecker struct {
	doc      *openapi3.T
	problems []string
}

func (c *orgboardChecker) errorf(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// checkOrgboard returns every seed statement the spec does not hold.
func checkOrgboard(seed orgboardSeed, doc *openapi3.T) []string {
	c := &orgboardChecker{doc: doc}
	for _, e := range seed.endpoints {
		c.checkEndpoint(e, seed.permissions)
	}
	for _, r := range seed.resources {
		c.checkResource(r)
	}
	c.checkBoard(seed)
	c.checkAudit(seed)
	for _, g := range seed.groups {
		c.checkGroup(g, seed.permissions)
	}
	for _, e := range seed.errors {
		c.checkError(e)
	}
	for _, p := range seed.permissions {
		if len(c.opsWhere(func(_, _ string, op *openapi3.Operation) bool { return strings.Contains(op.Description, p) })) == 0 {
			c.errorf("permission %s: no operation names it in its description", p)
		}
	}
	return c.problems
}

type specOp struct {
	method, path string
	op           *openapi3.Operation
}

func (c *orgboardChecker) opsWhere(keep func(method, path string, op *openapi3.Operation) bool) []specOp {
	var out []specOp
	for path, item := range c.doc.Paths.Map() {
		for method, op := range item.Operations() {
			if keep(method, path, op) {
				out = append(out, specOp{method, path, op})
			}
		}
	}
	slices.SortFunc(out, func(a, b specOp) int { return strings.Compare(a.op.OperationID, b.op.OperationID) })
	return out
}

func (c *orgboardChecker) operation(method, path string) *openapi3.Operation {
	item := c.doc.Paths.Value(path)
	if item == nil {
		return nil
	}
	return item.GetOperation(method)
}

func declares(op *openapi3.Operation, status string) bool {
	return op.Responses != nil && op.Responses.Value(status) != nil
}

func (c *orgboardChecker) checkEndpoint(e seedEndpoint, permissions []string) {
	where := e.method + " " + e.path
	op := c.operation(e.method, e.path)
	if op == nil {
		c.errorf("%s: missing (%s)", where, e.purpose)
		return
	}
	for _, name := range regexp.MustCompile(`\{(\w+)\}`).FindAllStringSubmatch(e.path, -1) {
		if !hasPathParam(c.doc.Paths.Value(e.path), op, name[1]) {
			c.errorf("%s: path parameter %s is not declared", where, name[1])
		}
	}
	if !declares(op, "401") {
		c.errorf("%s: must declare 401", where)
	}
	if e.permission != "caller" && !declares(op, "403") {
		c.errorf("%s: permission %q, must declare 403", where, e.permission)
	}
	for _, p := range permissions {
		if strings.Contains(e.permission, p) && !strings.Contains(op.Description, p) {
			c.errorf("%s: description must name the permission %s", where, p)
		}
	}
	if strings.Contains(strings.ToLower(e.permission), "owner") && !strings.Contains(strings.ToLower(op.Description), "owner") {
		c.errorf("%s: description must say the operation is for owners", where)
	}
	if strings.Contains(e.path, "{id}") && !declares(op, "404") {
		c.errorf("%s: looks up {id}, must declare 404", where)
	}
}

func hasPathParam(item *openapi3.PathItem, op *openapi3.Operation, name string) bool {
	for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
		if p.Value != nil && p.Value.In == "path" && p.Value.Name == name {
			return true
		}
	}
	return false
}

var (
	reEnumParen   = regexp.MustCompile(`^[A-Za-z]+(?:, [A-Za-z]+)* or [A-Za-z]+$`)
	reEnumColon   = regexp.MustCompile(`\b(\w+): ([a-z]+(?:, [a-z]+)* or [a-z]+)`)
	reInvariant   = regexp.MustCompile(`invariant: (\w+) implies (\w+)`)
	reNullable    = regexp.MustCompile(`\bnullable (\w+)`)
	reBelongsTo   = regexp.MustCompile(`\bbelongs to an? (\w+)`)
	reScoped      = regexp.MustCompile(`\b(\w+)-scoped\b`)
	reRefersTo    = regexp.MustCompile(`\brefers to its (\w+)`)
	reRecordOf    = regexp.MustCompile(`\brecord of an? (\w+)`)
	reCreatedBy   = regexp.MustCompile(`\bcreated by (GET|POST|PUT|PATCH)\b`)
	reOnlyReturn  = regexp.MustCompile(`\bonly the ([a-z ]+?) are returned`)
	reNeverReturn = regexp.MustCompile(`\b(\w+) (?:is|are) (?:[a-z ()-]+ )?never returned`)
	reIsClause    = regexp.MustCompile(`^(\w+) is `)
)

// checkResource checks one row of the seed's Resources table against the component schema of the
// same name.
func (c *orgboardChecker) checkResource(r seedResource) {
	name := strings.TrimSpace(reParens.ReplaceAllString(r.name, ""))
	ref := c.doc.Components.Schemas[name]
	if ref == nil || ref.Value == nil {
		c.errorf("resource %s: no component schema of that name", name)
		return
	}
	s := ref.Value
	text := r.fields

	// Facts stated in parentheses belong to the word before them.
	for _, m := range regexp.MustCompile(`(\w+) \(([^()]*)\)`).FindAllStringSubmatch(text, -1) {
		field, note := m[1], m[2]
		switch {
		case reEnumParen.MatchString(note):
			c.checkEnum(name, s, field, splitList(note), true)
		case strings.HasPrefix(note, "values include "):
			vals := strings.Fields(strings.TrimPrefix(note, "values include "))
			if len(vals) >= 3 && vals[1] == "and" {
				c.checkEnum(name, s, field, []string{vals[0], strings.TrimSuffix(vals[2], ",")}, false)
			}
		case strings.HasPrefix(note, "null for "):
			c.checkFieldShape(name, s, field, func(p *openapi3.Schema) bool { return p.Nullable }, "be nullable")
		case strings.HasPrefix(note, "array of uuid"):
			c.checkFieldShape(name, s, field, func(p *openapi3.Schema) bool {
				return p.Type.Is("array") && p.Items != nil && p.Items.Value.Format == "uuid"
			}, "be an array of uuid")
		case note == "base URL":
			c.checkFieldShape(name, s, field, func(p *openapi3.Schema) bool { return p.Format == "uri" }, "be a uri")
		}
	}
	for _, m := range reEnumColon.FindAllStringSubmatch(text, -1) {
		c.checkEnum(name, s, m[1], splitList(m[2]), true)
	}
	for _, m := range reInvariant.FindAllStringSubmatch(text, -1) {
		for _, v := range m[1:] {
			if !hasEnumValue(s, v) {
				c.errorf("%s: invariant value %s is not a value of any enumerated field", name, v)
			}
		}
	}
	for _, m := range reNullable.FindAllStringSubmatch(text, -1) {
		c.checkFieldShape(name, s, m[1], func(p *openapi3.Schema) bool { return p.Nullable }, "be nullable")
	}
	for _, re := range []*regexp.Regexp{reBelongsTo, reScoped, reRefersTo} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			c.checkField(name, s, m[1]+"_id")
		}
	}
	for _, m := range reRecordOf.FindAllStringSubmatch(text, -1) {
		c.checkField(name, s, m[1])
	}
	plain := reParens.ReplaceAllString(text, "")
	for _, m := range reOnlyReturn.FindAllStringSubmatch(plain, -1) {
		c.checkField(name, s, strings.ReplaceAll(m[1], " ", "_"))
	}
	for _, m := range reNeverReturn.FindAllStringSubmatch(plain, -1) {
		for prop := range s.Properties {
			if prop == m[1] || strings.HasSuffix(prop, "_"+m[1]) {
				c.errorf("%s: %s is never returned, yet the schema has %s", name, m[1], prop)
			}
		}
	}
	for _, m := range reCreatedBy.FindAllStringSubmatch(text, -1) {
		if len(c.opsWhere(func(method, _ string, op *openapi3.Operation) bool {
			return method == m[1] && responseSchemaIs(op, "201", ref)
		})) == 0 {
			c.errorf("%s: created by %s, but no %s operation answers 201 with it", name, m[1], m[1])
		}
	}

	// Named fields: the comma lists of each clause, parentheses removed.
	for _, clause := range strings.Split(plain, ";") {
		clause = strings.TrimSpace(clause)
		if strings.Contains(clause, ":") {
			continue // "state: ..." and "invariant: ..." are checked above
		}
		if m := reIsClause.FindStringSubmatch(clause); m != nil {
			c.checkField(name, s, m[1])
			continue
		}
		items := splitCommaItems(clause)
		for _, item := range items {
			words := strings.Fields(strings.TrimPrefix(strings.TrimPrefix(item, "optional "), "nullable "))
			switch {
			case len(words) == 0:
			case slices.ContainsFunc(words, isPascal):
				c.checkField(name, s, words...)
			case len(items) >= 2 && len(words) <= 2:
				c.checkField(name, s, words...)
			}
		}
	}
}

// splitCommaItems splits on commas only (a field phrase may contain "and").
func splitCommaItems(clause string) []string {
	var out []string
	for _, p := range strings.Split(clause, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func isPascal(w string) bool {
	return rePascal.MatchString(w) && rePascal.FindString(w) == w && strings.ToUpper(w) != w
}

// snake turns seed words ("fallback", "ApiConfigId") into a wire name (fallback_api_config_id).
func snake(words ...string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte('_')
		}
		for j, r := range w {
			if unicode.IsUpper(r) {
				if j > 0 {
					b.WriteByte('_')
				}
				r = unicode.ToLower(r)
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// resolveField finds the property a seed field name maps to: its snake_case name, the name with _id
// (a reference), the first word of a descriptive phrase ("autonomy dial"), or, when the seed name is
// a component schema (ProfileVisibility), the property that uses that schema.
func (c *orgboardChecker) resolveField(s *openapi3.Schema, words ...string) (string, *openapi3.Schema) {
	candidates := []string{snake(words...), snake(words...) + "_id"}
	if len(words) > 1 {
		candidates = append(candidates, snake(words[0]))
	}
	for _, cand := range candidates {
		if p := s.Properties[cand]; p != nil {
			return cand, p.Value
		}
	}
	if len(words) == 1 {
		if comp := c.doc.Components.Schemas[words[0]]; comp != nil {
			for prop, p := range s.Properties {
				if refersTo(p, comp) {
					return prop, p.Value
				}
			}
		}
	}
	return "", nil
}

func refersTo(p, comp *openapi3.SchemaRef) bool {
	if p.Value == comp.Value {
		return true
	}
	for _, a := range p.Value.AllOf {
		if a.Value == comp.Value {
			return true
		}
	}
	return false
}

// checkField reports a seed field that the schema lacks; a field the seed names on a resource may
// also be a sub-resource of it (Product Identity -> /products/{id}/identity).
func (c *orgboardChecker) checkField(resource string, s *openapi3.Schema, words ...string) {
	if prop, _ := c.resolveField(s, words...); prop != "" {
		return
	}
	sub := "/{id}/" + snake(words...)
	for path := range c.doc.Paths.Map() {
		if strings.HasSuffix(path, sub) && strings.Contains(path, strings.ToLower(resource)) {
			return
		}
	}
	c.errorf("%s: field %s (%s) is missing", resource, strings.Join(words, " "), snake(words...))
}

func (c *orgboardChecker) checkFieldShape(resource string, s *openapi3.Schema, field string, ok func(*openapi3.Schema) bool, want string) {
	prop, p := c.resolveField(s, field)
	if p == nil {
		c.errorf("%s: field %s (%s) is missing", resource, field, snake(field))
		return
	}
	if !ok(p) {
		c.errorf("%s: field %s (%s) must %s", resource, field, prop, want)
	}
}

// checkEnum checks that the field's enumeration holds the seed's values (exactly, when the seed
// gives the complete list).
func (c *orgboardChecker) checkEnum(resource string, s *openapi3.Schema, field string, values []string, exact bool) {
	prop, p := c.resolveField(s, field)
	if p == nil {
		c.errorf("%s: enumerated field %s (%s) is missing", resource, field, snake(field))
		return
	}
	got := enumValues(p)
	missing := slices.DeleteFunc(slices.Clone(values), func(v string) bool { return slices.Contains(got, v) })
	if len(missing) > 0 || (exact && len(got) != len(values)) {
		c.errorf("%s: %s enum (%s) is %q, the seed states %q", resource, field, prop, got, values)
	}
}

func enumValues(s *openapi3.Schema) []string {
	enum := s.Enum
	if len(enum) == 0 && len(s.AllOf) == 1 {
		enum = s.AllOf[0].Value.Enum
	}
	var out []string
	for _, v := range enum {
		out = append(out, fmt.Sprint(v))
	}
	return out
}

func hasEnumValue(s *openapi3.Schema, v string) bool {
	for _, p := range s.Properties {
		if slices.Contains(enumValues(p.Value), v) {
			return true
		}
	}
	return false
}

func responseSchemaIs(op *openapi3.Operation, status string, want *openapi3.SchemaRef) bool {
	s := responseSchema(op, status)
	return s != nil && s == want.Value
}

func responseSchema(op *openapi3.Operation, status string) *openapi3.Schema {
	if !declares(op, status) {
		return nil
	}
	r := op.Responses.Value(status).Value
	if r == nil || r.Content["application/json"] == nil || r.Content["application/json"].Schema == nil {
		return nil
	}
	return r.Content["application/json"].Schema.Value
}

func requestSchema(op *openapi3.Operation) *openapi3.Schema {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	mt := op.RequestBody.Value.Content["application/json"]
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return mt.Schema.Value
}

// checkBoard: the board operation's columns carry the seed's column titles in order, and their
// statuses are the same names in snake_case, in the same order.
func (c *orgboardChecker) checkBoard(seed orgboardSeed) {
	var boardOp *openapi3.Operation
	for _, e := range seed.endpoints {
		if strings.Contains(e.purpose, "board with the columns") {
			boardOp = c.operation(e.method, e.path)
		}
	}
	if boardOp == nil {
		c.errorf("board: no operation for the board endpoint")
		return
	}
	board := responseSchema(boardOp, "200")
	if board == nil || board.Properties["columns"] == nil || board.Properties["columns"].Value.Items == nil {
		c.errorf("board: the 200 response has no columns array")
		return
	}
	col := board.Properties["columns"].Value.Items.Value
	var wantStatus []string
	for _, name := range seed.boardColumns {
		wantStatus = append(wantStatus, strings.ReplaceAll(name, " ", "_"))
	}
	if title := col.Properties["title"]; title == nil || !slices.Equal(enumValues(title.Value), seed.boardColumns) {
		c.errorf("board: column titles must be the enum %q in that order", seed.boardColumns)
	}
	if status := col.Properties["status"]; status == nil || !slices.Equal(enumValues(status.Value), wantStatus) {
		c.errorf("board: column statuses must be the enum %q in that order", wantStatus)
	}
	if !strings.Contains(boardOp.Description, strings.Join(seed.boardColumns, ", ")) {
		c.errorf("board: the description must give the column order %q", strings.Join(seed.boardColumns, ", "))
	}
}

// checkAudit: the audit endpoint names every action the seed names and says the log is append-only.
func (c *orgboardChecker) checkAudit(seed orgboardSeed) {
	var op *openapi3.Operation
	for _, e := range seed.endpoints {
		if strings.Contains(e.purpose, "audit") {
			op = c.operation(e.method, e.path)
		}
	}
	if op == nil {
		c.errorf("audit: no operation for the audit endpoint")
		return
	}
	for _, a := range seed.auditActions {
		if !regexp.MustCompile(`(^|[\s,])` + regexp.QuoteMeta(a) + `([\s,.]|$)`).MatchString(op.Description) {
			c.errorf("audit action %s: not named in the audit operation's description", a)
		}
	}
	if !strings.Contains(op.Description, "append-only") {
		c.errorf("audit: the description must say the log is append-only")
	}
}

// checkGroup: every operation the seed names in a group exists among the group's operations (under
// its path prefix, or with its tag), each names a permission, and the group's PascalCase field names
// appear in one of their responses.
func (c *orgboardChecker) checkGroup(g seedGroup, permissions []string) {
	tag, tagged := orgboardGroupTags[g.label]
	if g.prefix == "" && !tagged {
		c.errorf("group %q: no path prefix and no tag mapping (add it to orgboardGroupTags)", g.label)
		return
	}
	ops := c.opsWhere(func(_, path string, op *openapi3.Operation) bool {
		if g.prefix != "" {
			return strings.HasPrefix(path, g.prefix)
		}
		return slices.Contains(op.Tags, tag)
	})
	for _, words := range g.items {
		if !slices.ContainsFunc(ops, func(o specOp) bool { return opIDHasWords(o.op.OperationID, words) }) {
			c.errorf("group %q: no operation for %q", g.label, strings.Join(words, " "))
		}
	}
	for _, o := range ops {
		if !slices.ContainsFunc(permissions, func(p string) bool { return strings.Contains(o.op.Description, p) }) &&
			!strings.Contains(o.op.Description, "Owner") {
			c.errorf("group %q: %s does not name its permission", g.label, o.op.OperationID)
		}
	}
	for _, name := range reMultiPascal.FindAllString(g.line, -1) {
		if slices.Contains(permissions, name) {
			continue
		}
		if !slices.ContainsFunc(ops, func(o specOp) bool { return responseHasProperty(o.op, snake(name)) }) {
			c.errorf("group %q: no response carries %s (%s)", g.label, name, snake(name))
		}
	}
}

// opIDHasWords: every word of the seed's operation name (but "get"; plural nouns singular) is in the
// operationId.
func opIDHasWords(opID string, words []string) bool {
	id := strings.ToLower(opID)
	for _, w := range words {
		w = strings.ToLower(w)
		if w == "get" {
			continue
		}
		if !strings.Contains(id, w) && !strings.Contains(id, strings.TrimSuffix(w, "s")) {
			return false
		}
	}
	return true
}

func responseHasProperty(op *openapi3.Operation, prop string) bool {
	var walk func(s *openapi3.Schema, depth int) bool
	walk = func(s *openapi3.Schema, depth int) bool {
		if s == nil || depth > 3 {
			return false
		}
		if s.Properties[prop] != nil {
			return true
		}
		if s.Items != nil && walk(s.Items.Value, depth+1) {
			return true
		}
		for _, p := range s.Properties {
			if walk(p.Value, depth+1) {
				return true
			}
		}
		return false
	}
	for status := range op.Responses.Map() {
		if strings.HasPrefix(status, "2") && walk(responseSchema(op, status), 0) {
			return true
		}
	}
	return false
}

var (
	reCreating    = regexp.MustCompile(`creating an? ([a-z ]+?)(?: or an? ([a-z ]+?))?\)`)
	reInvalidDoc  = regexp.MustCompile(`^invalid (\S+) (\w+)$`)
	reReferenceTo = regexp.MustCompile(`^an? reference to an? ([a-z, ]+?) or other record`)
	reGerund      = regexp.MustCompile(`^(\w+)ing `)
)

// checkError: the operations an Errors row is about declare its status.
func (c *orgboardChecker) checkError(e seedError) {
	matched := false
	require := func(what string, ops []specOp) {
		matched = true
		if len(ops) == 0 {
			c.errorf("%s (%s): no operation found", e.status, what)
		}
		for _, o := range ops {
			if !declares(o.op, e.status) {
				c.errorf("%s: must declare %s (%s)", o.op.OperationID, e.status, what)
			}
		}
	}
	for _, m := range reCreating.FindAllStringSubmatch(e.condition, -1) {
		for _, noun := range m[1:] {
			if noun == "" {
				continue
			}
			id := "create" + pascal(noun)
			require("creating a "+noun, c.opsWhere(func(_, _ string, op *openapi3.Operation) bool { return op.OperationID == id }))
		}
	}
	for _, clause := range strings.Split(e.condition, ";") {
		clause = strings.TrimSpace(clause)
		if m := reInvalidDoc.FindStringSubmatch(clause); m != nil {
			require(clause, c.opsWhere(func(_, _ string, op *openapi3.Operation) bool {
				return strings.Contains(strings.ToLower(op.OperationID), m[2]) && strings.Contains(op.Description, m[1])
			}))
		}
		if m := reReferenceTo.FindStringSubmatch(clause); m != nil {
			for _, noun := range splitList(m[1]) {
				field := snake(noun) + "_id"
				require("a reference to a "+noun, c.opsWhere(func(_, _ string, op *openapi3.Operation) bool {
					rs := requestSchema(op)
					return rs != nil && rs.Properties[field] != nil
				}))
			}
		}
		if m := reGerund.FindStringSubmatch(clause); m != nil && e.status == "409" {
			verb := strings.ToLower(m[1])
			require(clause, c.opsWhere(func(_, _ string, op *openapi3.Operation) bool {
				return strings.HasPrefix(strings.ToLower(op.OperationID), verb)
			}))
		}
	}
	if !matched {
		c.errorf("error row %s %q: the checker does not understand it (extend checkError)", e.status, e.condition)
	}
}

func pascal(phrase string) string {
	var b strings.Builder
	for _, w := range strings.Fields(phrase) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}
