package telemetry

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Signal is one of OpenTelemetry's three kinds of data.
type Signal string

const (
	Logs    Signal = "logs"
	Metrics Signal = "metrics"
	Traces  Signal = "traces"
)

var signals = []Signal{Logs, Metrics, Traces}

// Exporter names what a signal is sent to: "otlp" or "console" ("none" is the absence of
// both).
type Exporter string

const (
	ExporterOTLP    Exporter = "otlp"
	ExporterConsole Exporter = "console"
)

// Protocols of the OTLP exporters.
const (
	ProtocolGRPC         = "grpc"
	ProtocolHTTPProtobuf = "http/protobuf"
)

// OTLP is where and how one signal is sent over OTLP.
type OTLP struct {
	// Endpoint is the URL the signal goes to: for http/protobuf the full URL of the signal's
	// path (the base endpoint with /v1/<signal> added), for grpc the collector's address as a
	// URL. Empty is the exporter's default (localhost:4317 or localhost:4318).
	Endpoint string
	Protocol string
	Headers  map[string]string
	// Timeout bounds one export.
	Timeout time.Duration
}

// Config is the telemetry configuration read from the environment ([FromEnv]). Its zero value
// is telemetry off.
type Config struct {
	// Enabled is CLAUDE_CODE_ENABLE_TELEMETRY (or REINS_ENABLE_TELEMETRY) set to a true value.
	Enabled bool
	// Exporters lists, for each signal, where it goes; a signal with none is not collected.
	Exporters map[Signal][]Exporter
	OTLP      map[Signal]OTLP
	// MetricInterval and LogsInterval are OTEL_METRIC_EXPORT_INTERVAL and
	// OTEL_LOGS_EXPORT_INTERVAL; traces go at the logs' interval.
	MetricInterval time.Duration
	LogsInterval   time.Duration
	// LogUserPrompts (OTEL_LOG_USER_PROMPTS) puts the prompt's text in user_prompt events and
	// spans; LogToolDetails (OTEL_LOG_TOOL_DETAILS) puts tool inputs in tool_result events and
	// execute_tool spans. Both are off by default: only lengths and names go out.
	LogUserPrompts bool
	LogToolDetails bool
	// Resource is OTEL_RESOURCE_ATTRIBUTES, added to every signal's resource.
	Resource map[string]string
}

// Defaults of the export intervals and of one export's timeout, as in Claude Code and the
// OpenTelemetry specification.
const (
	DefaultMetricInterval = 60 * time.Second
	DefaultLogsInterval   = 5 * time.Second
	DefaultExportTimeout  = 10 * time.Second
)

// FromEnv reads the configuration from getenv: CLAUDE_CODE_ENABLE_TELEMETRY and
// REINS_ENABLE_TELEMETRY, OTEL_{LOGS,METRICS,TRACES}_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT,
// _PROTOCOL, _HEADERS, _TIMEOUT and their per-signal variants, the export intervals,
// OTEL_LOG_USER_PROMPTS, OTEL_LOG_TOOL_DETAILS and OTEL_RESOURCE_ATTRIBUTES. With telemetry
// off nothing else is read, so a bad value of a variable that does nothing fails nothing. A bad
// value is an error naming the variable; every bad variable is named at once.
func FromEnv(getenv func(string) string) (Config, error) {
	on, err := enabled(getenv)
	if err != nil || !on {
		return Config{}, err
	}
	c := Config{Enabled: true, Exporters: map[Signal][]Exporter{}, OTLP: map[Signal]OTLP{}}
	var errs errList
	for _, s := range signals {
		c.Exporters[s], err = exporters(getenv, s)
		errs.note(err)
		if contains(c.Exporters[s], ExporterOTLP) {
			c.OTLP[s], err = otlpFor(getenv, s)
			errs.note(err)
		}
	}
	c.MetricInterval, err = interval(getenv, "OTEL_METRIC_EXPORT_INTERVAL", DefaultMetricInterval)
	errs.note(err)
	c.LogsInterval, err = interval(getenv, "OTEL_LOGS_EXPORT_INTERVAL", DefaultLogsInterval)
	errs.note(err)
	c.LogUserPrompts, err = flag(getenv, "OTEL_LOG_USER_PROMPTS")
	errs.note(err)
	c.LogToolDetails, err = flag(getenv, "OTEL_LOG_TOOL_DETAILS")
	errs.note(err)
	c.Resource, err = pairs("OTEL_RESOURCE_ATTRIBUTES", getenv("OTEL_RESOURCE_ATTRIBUTES"))
	errs.note(err)
	if err := errs.join(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// enabled reads the two switches; either one true turns telemetry on.
func enabled(getenv func(string) string) (bool, error) {
	on := false
	for _, name := range []string{"CLAUDE_CODE_ENABLE_TELEMETRY", "REINS_ENABLE_TELEMETRY"} {
		v, err := flag(getenv, name)
		if err != nil {
			return false, err
		}
		on = on || v
	}
	return on, nil
}

// flag reads a boolean variable: 1/true/yes/on or 0/false/no/off (any case), empty is false.
func flag(getenv func(string) string, name string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(getenv(name))) {
	case "", "0", "false", "no", "off":
		return false, nil
	case "1", "true", "yes", "on":
		return true, nil
	}
	return false, fmt.Errorf("%s=%q: want 1 or 0 (true or false)", name, getenv(name))
}

func exporters(getenv func(string) string, s Signal) ([]Exporter, error) {
	name := "OTEL_" + strings.ToUpper(string(s)) + "_EXPORTER"
	var out []Exporter
	for _, v := range strings.Split(getenv(name), ",") {
		switch v = strings.ToLower(strings.TrimSpace(v)); v {
		case "", "none":
		case "otlp", "console":
			if !contains(out, Exporter(v)) {
				out = append(out, Exporter(v))
			}
		case "prometheus":
			return nil, fmt.Errorf("%s=%q: the prometheus exporter is not supported; use otlp (a collector can expose Prometheus)", name, getenv(name))
		default:
			return nil, fmt.Errorf("%s=%q: unknown exporter %q; want otlp, console or none", name, getenv(name), v)
		}
	}
	return out, nil
}

// otlpFor reads one signal's OTLP settings: the per-signal variable wins over the general one.
func otlpFor(getenv func(string) string, s Signal) (OTLP, error) {
	up := strings.ToUpper(string(s))
	pick := func(suffix string) (name, value string) {
		name = "OTEL_EXPORTER_OTLP_" + up + "_" + suffix
		if v := getenv(name); v != "" {
			return name, v
		}
		name = "OTEL_EXPORTER_OTLP_" + suffix
		return name, getenv(name)
	}
	var o OTLP
	var errs errList
	var err error
	pname, proto := pick("PROTOCOL")
	switch proto = strings.TrimSpace(proto); proto {
	case "", ProtocolHTTPProtobuf:
		o.Protocol = ProtocolHTTPProtobuf
	case ProtocolGRPC:
		o.Protocol = ProtocolGRPC
	case "http/json":
		errs = append(errs, fmt.Errorf("%s=%q: http/json is not supported; use http/protobuf or grpc", pname, proto))
	default:
		errs = append(errs, fmt.Errorf("%s=%q: unknown protocol; want grpc or http/protobuf", pname, proto))
	}
	ename, endpoint := pick("ENDPOINT")
	perSignal := ename != "OTEL_EXPORTER_OTLP_ENDPOINT"
	o.Endpoint, err = endpointFor(ename, endpoint, perSignal, o.Protocol, s)
	errs.note(err)
	hname, headers := pick("HEADERS")
	o.Headers, err = pairs(hname, headers)
	errs.note(err)
	tname, timeout := pick("TIMEOUT")
	o.Timeout, err = millis(tname, timeout, DefaultExportTimeout)
	errs.note(err)
	return o, errs.join()
}

// endpointFor checks an endpoint URL and, for http/protobuf and the general variable, adds the
// signal's path as the specification says.
func endpointFor(name, raw string, perSignal bool, proto string, s Signal) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s=%q: want an http:// or https:// URL with a host", name, raw)
	}
	if proto == ProtocolHTTPProtobuf && !perSignal {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/" + string(s)
	}
	return u.String(), nil
}

func interval(getenv func(string) string, name string, def time.Duration) (time.Duration, error) {
	return millis(name, getenv(name), def)
}

// millis reads a positive number of milliseconds; empty is def.
func millis(name, v string, def time.Duration) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > int64(24*time.Hour/time.Millisecond) {
		return 0, fmt.Errorf("%s=%q: want a whole number of milliseconds between 1 and 86400000", name, v)
	}
	return time.Duration(n) * time.Millisecond, nil
}

// pairs reads "k=v,k2=v2" (values percent-encoded, as the specification says).
func pairs(name, v string) (map[string]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	out := map[string]string{}
	for i, p := range strings.Split(v, ",") {
		if strings.TrimSpace(p) == "" {
			continue
		}
		k, val, ok := strings.Cut(p, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%s: entry %d (%q) is not key=value", name, i+1, p)
		}
		dec, err := url.PathUnescape(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("%s: entry %d (%q): bad percent-encoding", name, i+1, k)
		}
		if strings.ContainsAny(dec, "\r\n") || strings.ContainsAny(k, "\r\n :") {
			return nil, fmt.Errorf("%s: entry %d (%q): a line break or a bad character in a header", name, i+1, k)
		}
		out[k] = dec
	}
	return out, nil
}

func contains(es []Exporter, e Exporter) bool {
	for _, x := range es {
		if x == e {
			return true
		}
	}
	return false
}

// errList gathers every bad variable, so that one run names them all.
type errList []error

// note records err, if any.
func (e *errList) note(err error) {
	if err != nil {
		*e = append(*e, err)
	}
}

func (e errList) join() error {
	if len(e) == 0 {
		return nil
	}
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return fmt.Errorf("telemetry: %s", strings.Join(msgs, "; "))
}
