// Package domain holds the orgboard's entities and rules: the permission resolution along the
// scope chain [team, org], the work-item transitions, the audit vocabulary. It imports no
// transport, database or broker package.
package domain
