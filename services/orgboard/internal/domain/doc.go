// Package domain holds the orgboard's entities, rules and errors, and the ports (interfaces) the use cases need.
package domain
