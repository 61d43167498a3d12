package bedrock

import "strings"

// models are Bedrock's ids of the models Reins names by their first-party ids. Bedrock serves
// the current models through cross-region inference profiles, whose id starts with the
// geography of the region ("us.", "eu.", "apac.").
var models = map[string]string{
	"claude-sonnet-4-5": "anthropic.claude-sonnet-4-5-20250929-v1:0",
	"claude-opus-4-5":   "anthropic.claude-opus-4-5-20251101-v1:0",
	"claude-haiku-4-5":  "anthropic.claude-haiku-4-5-20251001-v1:0",
}

// ModelID is the Bedrock id for a first-party model id in region; any other name (a Bedrock
// id, an inference profile's ARN) is kept.
func ModelID(model, region string) string {
	id, ok := models[model]
	if !ok {
		return model
	}
	geo, _, _ := strings.Cut(region, "-")
	switch geo {
	case "us", "eu":
		return geo + "." + id
	case "ap":
		return "apac." + id
	}
	return id
}
