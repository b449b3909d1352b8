module github.com/videotpl/platform/e2e

go 1.26
