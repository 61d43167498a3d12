package shared

// The --output-format values. The shapes of the json and stream-json lines are Claude Code's,
// defined once in internal/sdkproto for `-p` and the Agent SDK's protocol alike.
const (
	FormatText       = "text"
	FormatJSON       = "json"
	FormatStreamJSON = "stream-json"
)
