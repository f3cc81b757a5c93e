package endpoint

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// PromptHopDescriber is implemented by sources whose prompts belong to an
// agent or upstream, so that the policy decides who may list and get them
// (Method "prompts/get"): the hop names the server (Agent) and the prompt
// under its own name there (Prompt).
type PromptHopDescriber interface {
	PromptHop(name string) (request.Hop, bool)
}

// Every policy check and rate limit of the face reads its hop from one of
// these three, so a tool, a resource and a prompt are each decided as what
// they are: the agent or server they belong to, and the tool, resource URI
// or prompt itself.

// toolHop is the hop of calling (or listing) tool name.
func (f *Face) toolHop(p *request.Principal, name string, t *mcp.Tool) request.Hop {
	hop := request.Hop{}
	for _, s := range f.cfg.Sources {
		if hd, ok := s.(HopDescriber); ok {
			if h, ok := hd.Hop(name); ok {
				hop = h
				break
			}
		}
	}
	hop.Principal, hop.Face, hop.Tool, hop.Method = p, request.FaceMCP, name, string(mcp.MethodToolsCall)
	if t != nil {
		if t.Annotations.DestructiveHint != nil {
			hop.ToolDestructive = *t.Annotations.DestructiveHint
		}
		if t.Annotations.ReadOnlyHint != nil {
			hop.ToolReadOnly = *t.Annotations.ReadOnlyHint
		}
	}
	return hop
}

// resourceHop is the hop of reading (or listing) resource uri. served is
// the URI or URI template the face serves it under, which the sources
// describe; uri is the resource itself (they differ for a template read).
func (f *Face) resourceHop(p *request.Principal, served, uri string) request.Hop {
	hop, ok := f.describeResource(served)
	if !ok && served == uri {
		// A read names only the URI: the template it matches, if any, is
		// what the sources describe.
		if ts := f.templates.Load(); ts != nil {
			for _, t := range *ts {
				if t.Regexp().MatchString(uri) {
					hop, _ = f.describeResource(t.Raw())
					break
				}
			}
		}
	}
	hop.Principal, hop.Face, hop.Resource, hop.Method = p, request.FaceMCP, uri, string(mcp.MethodResourcesRead)
	return hop
}

func (f *Face) describeResource(served string) (request.Hop, bool) {
	for _, s := range f.cfg.Sources {
		if rd, ok := s.(ResourceHopDescriber); ok {
			if h, ok := rd.ResourceHop(served); ok {
				return h, true
			}
		}
	}
	return request.Hop{}, false
}

// promptHop is the hop of getting (or listing) prompt name.
func (f *Face) promptHop(p *request.Principal, name string) request.Hop {
	hop := request.Hop{}
	for _, s := range f.cfg.Sources {
		if pd, ok := s.(PromptHopDescriber); ok {
			if h, ok := pd.PromptHop(name); ok {
				hop = h
				break
			}
		}
	}
	if hop.Prompt == "" {
		hop.Prompt = name
	}
	hop.Principal, hop.Face, hop.Method = p, request.FaceMCP, string(mcp.MethodPromptsGet)
	return hop
}

// allowResource applies the policy to reading resource uri, served under
// served (uri itself, or the template it matched).
func (f *Face) allowResource(ctx context.Context, served, uri string) bool {
	p := request.PrincipalFrom(ctx)
	if p == nil {
		return false
	}
	if f.cfg.Policy == nil {
		return true
	}
	return f.cfg.Policy.Decide(ctx, f.resourceHop(p, served, uri)).Allow
}

// allowPrompt applies the policy to getting prompt name.
func (f *Face) allowPrompt(ctx context.Context, name string) bool {
	p := request.PrincipalFrom(ctx)
	if p == nil {
		return false
	}
	if f.cfg.Policy == nil {
		return true
	}
	return f.cfg.Policy.Decide(ctx, f.promptHop(p, name)).Allow
}

// listHooks filters every list the policy covers: a resource, template or
// prompt the caller may not read is not listed either.
func (f *Face) listHooks(hooks *server.Hooks) {
	hooks.AddAfterListResources(func(ctx context.Context, _ any, _ *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
		if res == nil {
			return
		}
		kept := res.Resources[:0]
		lctx, l := policy.WithListing(ctx, string(mcp.MethodResourcesList))
		defer l.Audit(ctx)
		for _, r := range res.Resources {
			if f.allowResource(lctx, r.URI, r.URI) {
				kept = append(kept, r)
			}
		}
		res.Resources = kept
	})
	hooks.AddAfterListResourceTemplates(func(ctx context.Context, _ any, _ *mcp.ListResourceTemplatesRequest, res *mcp.ListResourceTemplatesResult) {
		if res == nil {
			return
		}
		kept := res.ResourceTemplates[:0]
		lctx, l := policy.WithListing(ctx, string(mcp.MethodResourcesTemplatesList))
		defer l.Audit(ctx)
		for _, t := range res.ResourceTemplates {
			if raw := templateRaw(t); f.allowResource(lctx, raw, raw) {
				kept = append(kept, t)
			}
		}
		res.ResourceTemplates = kept
	})
	hooks.AddAfterListPrompts(func(ctx context.Context, _ any, _ *mcp.ListPromptsRequest, res *mcp.ListPromptsResult) {
		if res == nil {
			return
		}
		kept := res.Prompts[:0]
		lctx, l := policy.WithListing(ctx, string(mcp.MethodPromptsList))
		defer l.Audit(ctx)
		for _, p := range res.Prompts {
			if f.allowPrompt(lctx, p.Name) {
				kept = append(kept, p)
			}
		}
		res.Prompts = kept
	})
}

func templateRaw(t mcp.ResourceTemplate) string {
	if t.URITemplate == nil || t.URITemplate.Template == nil {
		return ""
	}
	return t.URITemplate.Raw()
}
