package zbctlcli

import (
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/zenbrain/zb/mcpserver"
)

// Version is zbctl's version, reported to MCP clients.
const Version = "0.1.0-dev"

func (a *app) mcpCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve zenbrain to an agent over MCP on stdin/stdout",
		Long: `mcp runs a Model Context Protocol server on stdin/stdout for one tenant, with the tools
remember, recall, context, forget, feedback and core_set, and the resource zenbrain://core.

Register it with an MCP client, e.g.:
  {"command": "zbctl", "args": ["mcp", "--tenant", "me"], "env": {"ZB_DATABASE_URL": "postgres://..."}}`,
		Args: cobra.NoArgs,
	}
	tenant := a.tenantFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		co, pool, err := a.openCoordinator(cmd.Context())
		if err != nil {
			return err
		}
		defer pool.Close()
		srv, err := mcpserver.New(&mcpserver.Config{Coordinator: co, Tenant: *tenant, Version: Version})
		if err != nil {
			return err
		}
		return srv.Run(cmd.Context(), &mcp.IOTransport{Reader: io.NopCloser(a.stdin), Writer: nopWriteCloser{a.stdout}})
	}
	return cmd
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
