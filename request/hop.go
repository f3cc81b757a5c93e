package request

// Face names the side of the bridge a request came in on.
type Face string

const (
	FaceA2A Face = "a2a" // A2A JSON-RPC / HTTP+JSON inbound
	FaceMCP Face = "mcp" // MCP stdio / streamable HTTP inbound
)

// Direction names what the hop does.
type Direction string

const (
	DirPublish  Direction = "publish"   // A2A caller → MCP server published as an agent
	DirExpose   Direction = "expose"    // MCP host → A2A agent exposed as a tool
	DirFrontA2A Direction = "front_a2a" // A2A caller → fronted A2A agent
	DirFrontMCP Direction = "front_mcp" // MCP host → fronted MCP server
	DirLocal    Direction = "local"     // served by the bridge itself (demo agent)
)

// Hop is everything a rule or a limit may look at. Fields that do not apply are empty.
type Hop struct {
	Principal *Principal
	Face      Face
	Direction Direction
	// Agent is the configured name of the agent (publish/front name, expose alias).
	Agent string
	// Skill is the A2A skill id the request targets, if known.
	Skill string
	// Tool is the MCP tool name the request targets, if known.
	Tool string
	// ToolDestructive is the tool's destructiveHint (false when unknown).
	ToolDestructive bool
	// ToolReadOnly is the tool's readOnlyHint.
	ToolReadOnly bool
	// Resource is the MCP resource URI a resources/read (or a listing of
	// it) is about; for a resource template's listing, the URI template.
	Resource string
	// Prompt is the MCP prompt a prompts/get (or a listing of it) is about,
	// under its own name on its server (not a fronted server's prefixed name).
	Prompt string
	// Method is the protocol method: "SendMessage", "GetTask", "tools/call", ...
	Method string
	// TaskID is the task the request names, if any.
	TaskID string
	// RemoteIP is the caller's address (no port).
	RemoteIP string
}
