package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/memlab/memlab/llm"
)

// configShow is `memlab config show [FILE]`: the effective configuration
// as TOML, keys never shown.
func configShow(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("config show", flag.ContinueOnError)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("config show takes at most one FILE, got %d arguments", len(pos))
	}
	var c *llm.Config
	switch {
	case len(pos) == 1:
		c, err = llm.LoadConfig(pos[0])
		if msg := llm.LegacyConfigNotice(c); msg != "" {
			fmt.Fprintln(stderr, msg)
		}
	default:
		c, err = llm.DefaultConfig()
	}
	if err != nil {
		return err
	}
	if c == nil {
		_, err := fmt.Fprintln(stdout, "# no model endpoint configured (neither MEMLAB_CONFIG nor OPENAI_BASE_URL / OPENAI_API_KEY is set): notebooks run offline")
		return err
	}
	_, err = fmt.Fprintf(stdout, "# effective config, from %s (keys are never shown)\n%s", llm.RedactURLs(c.Source), c.TOML(false))
	return err
}

// configConvert is `memlab config convert OLD [NEW.toml]`: the TOML
// equivalent of a line-format config file.
func configConvert(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("config convert", flag.ContinueOnError)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usagef("config convert takes OLD [NEW.toml], got %d arguments", len(pos))
	}
	old := pos[0]
	src, err := os.ReadFile(old)
	if err != nil {
		return fmt.Errorf("config convert: %w", err)
	}
	// The keys of api_key_env variables are not needed (nor written):
	// every variable reads as set, so that a file whose variables are not
	// exported here converts too.
	c, err := llm.ParseConfig(old, strings.NewReader(string(src)), func(string) string { return "set" })
	if err != nil {
		return err
	}
	if c.Format == llm.ConfigFormatTOML {
		return fmt.Errorf("config convert: %s is already TOML", old)
	}
	out := c.TOML(true)
	header := fmt.Sprintf("# memlab model config (TOML), converted from %s by memlab config convert.\n# The format: go doc github.com/memlab/memlab/llm.Config\n\n", old)
	if len(pos) == 2 && pos[1] == "-" {
		_, err := io.WriteString(stdout, header+out)
		return err
	}
	dst := strings.TrimSuffix(old, ".conf") + ".toml"
	if len(pos) == 2 {
		dst = pos[1]
	} else if dst == old {
		dst = old + ".toml"
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("config convert: %s exists: not overwritten (name another NEW.toml, or remove it)", dst)
	}
	if err != nil {
		return fmt.Errorf("config convert: %w", err)
	}
	if _, err := io.WriteString(f, header+out); err != nil {
		f.Close()
		return fmt.Errorf("config convert: write %s: %w", dst, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("config convert: write %s: %w", dst, err)
	}
	_, err = fmt.Fprintf(stdout, "wrote %s (%d endpoints, %d roles, %d prices); point MEMLAB_CONFIG at it\n", dst, len(c.Endpoints), len(c.Roles), len(c.Prices))
	return err
}
