// Package cli runs a service binary's subcommands (serve, migrate, token, ...) with a
// context that is cancelled on SIGINT or SIGTERM, so every command shuts down gracefully.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/auth"
	"github.com/videotpl/platform/pkg/config"
)

// Command is one subcommand of a service binary.
type Command struct {
	Name  string
	Usage string
	Run   func(ctx context.Context, args []string) error
}

// DefaultGCPercent sets the garbage collector's target to percent unless the environment's GOGC
// chose one. For a service whose heap is mostly its requests' short-lived garbage, collecting
// less often saves CPU for memory that the deployment's GOMEMLIMIT bounds.
func DefaultGCPercent(percent int) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(percent)
	}
}

// ErrUsage makes Main print the usage and exit 2.
var ErrUsage = errors.New("usage")

// Main dispatches os.Args to a command and returns the process exit code.
func Main(binary string, vars []config.Var, cmds ...Command) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Dispatch(ctx, os.Stderr, binary, vars, os.Args[1:], cmds...)
}

// Dispatch runs the command named by args[0].
func Dispatch(ctx context.Context, stderr io.Writer, binary string, vars []config.Var, args []string, cmds ...Command) int {
	usage := func() {
		fmt.Fprintf(stderr, "usage: %s <command> [flags]\n\ncommands:\n", binary)
		for _, c := range cmds {
			fmt.Fprintf(stderr, "  %-10s %s\n", c.Name, c.Usage)
		}
		fmt.Fprintf(stderr, "\nenvironment:\n")
		sorted := append([]config.Var(nil), vars...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
		for _, v := range sorted {
			def := v.Default
			if def == "" {
				def = "(unset)"
			}
			fmt.Fprintf(stderr, "  %-30s %-40s %s\n", v.Name, def, v.Description)
		}
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage()
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range cmds {
		if c.Name != args[0] {
			continue
		}
		err := c.Run(ctx, args[1:])
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, ErrUsage):
			usage()
			return 2
		default:
			fmt.Fprintf(stderr, "%s %s: %v\n", binary, c.Name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "%s: unknown command %q\n", binary, args[0])
	usage()
	return 2
}

// TokenCommand mints a development JWT signed with JWT_HS256_SECRET, with the issuer and
// audience the service expects: `<service> token --sub U --tenant T --roles admin --ttl 1h`.
func TokenCommand(common func() (config.Common, error), out io.Writer) Command {
	return Command{
		Name:  "token",
		Usage: "mint a development JWT (--sub, --tenant, --roles, --ttl)",
		Run: func(_ context.Context, args []string) error {
			fs := flag.NewFlagSet("token", flag.ContinueOnError)
			sub := fs.String("sub", "", "user id (uuid; random when empty)")
			tenant := fs.String("tenant", "", "tenant id (uuid; random when empty)")
			roles := fs.String("roles", "", "comma-separated roles, e.g. admin")
			ttl := fs.Duration("ttl", time.Hour, "lifetime")
			if err := fs.Parse(args); err != nil {
				return err
			}
			c, err := common()
			if err != nil {
				return err
			}
			if c.JWTSecret == "" {
				return errors.New("JWT_HS256_SECRET is not set: development tokens are signed with it")
			}
			subID, err := uuidOrNew(*sub)
			if err != nil {
				return fmt.Errorf("--sub: %w", err)
			}
			tenantID, err := uuidOrNew(*tenant)
			if err != nil {
				return fmt.Errorf("--tenant: %w", err)
			}
			var rs []string
			if *roles != "" {
				rs = strings.Split(*roles, ",")
			}
			tok, err := auth.MintJWT([]byte(c.JWTSecret), c.JWTIssuer, c.JWTAudience, subID, tenantID, rs, *ttl)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(out, tok)
			return err
		},
	}
}

func uuidOrNew(s string) (uuid.UUID, error) {
	if s == "" {
		return uuid.NewV7()
	}
	return uuid.Parse(s)
}
