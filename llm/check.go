package llm

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Check verifies, before any work starts, that every configured role's
// endpoint answers and knows the role's model: one GET /models per endpoint
// replica, with the endpoint's timeout and no retries, all within ctx's
// deadline (Default gives the check CheckTimeout). The error names the
// endpoint, the URL (without credentials) and what went wrong
// (unreachable, wrong key, unknown model, no answer within the limit that
// stopped it); a server that does not list models is taken at its word.
func (c *Client) Check(ctx context.Context) error {
	// The check's own limit, as the caller set it, for messages.
	var limit time.Duration
	if dl, ok := ctx.Deadline(); ok {
		limit = roundLimit(time.Until(dl))
	}
	var problems []string
	roles := make([]string, 0, len(c.cfg.Roles))
	for r := range c.cfg.Roles {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	listed := map[string]map[string]bool{} // base URL -> models
	for _, role := range roles {
		rm := c.cfg.Roles[role]
		rt := c.endpoints[rm.Endpoint]
		for i, rep := range rt.replicas {
			raw := rt.ep.BaseURLs[i]
			url := RedactURLs(raw) // for messages
			models, ok := listed[raw]
			if !ok {
				actx, cancel := context.WithTimeout(ctx, rt.ep.Timeout)
				actx, info := withAttemptInfo(actx)
				list, err := rep.client.ListModels(actx)
				cancel()
				if err != nil {
					e := classify(err, info, rt, rm.Model, 1)
					if errors.Is(err, context.DeadlineExceeded) {
						e.Kind = ErrTimeout
						if ctx.Err() != nil && limit > 0 {
							e.Message = fmt.Sprintf("no answer within %s (the endpoint check's limit)", limit)
						} else {
							e.Message = fmt.Sprintf("no answer within %s (the endpoint's timeout)", rt.ep.Timeout)
						}
					}
					msg := redactSecrets(e.Message, rt.ep.apiKey())
					problems = append(problems, fmt.Sprintf("endpoint %q (%s): %s: %s", rt.ep.Name, url, e.Kind, msg))
					listed[raw] = nil
					continue
				}
				models = map[string]bool{}
				for _, m := range list.Models {
					models[m.ID] = true
				}
				listed[raw] = models
			}
			if models != nil && len(models) > 0 && !models[rm.Model] {
				problems = append(problems, fmt.Sprintf("endpoint %q (%s) does not serve model %q for role %s", rt.ep.Name, url, rm.Model, role))
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("llm: endpoint check failed (%s):\n  %s", c.cfg.Source, strings.Join(uniq(problems), "\n  "))
	}
	return nil
}

// roundLimit rounds the time left before a deadline for a message: to
// 100 ms from a second up, to 10 ms below.
func roundLimit(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(10 * time.Millisecond)
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
