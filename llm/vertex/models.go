package vertex

// models are Vertex AI's ids of the models Reins names by their first-party ids.
var models = map[string]string{
	"claude-sonnet-4-5": "claude-sonnet-4-5@20250929",
	"claude-opus-4-5":   "claude-opus-4-5@20251101",
	"claude-haiku-4-5":  "claude-haiku-4-5@20251001",
}

// ModelID is the Vertex AI id for a first-party model id; any other name is kept.
func ModelID(model string) string {
	if id, ok := models[model]; ok {
		return id
	}
	return model
}
