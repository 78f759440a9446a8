package notebook

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/memlab/memlab/kernel"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	nethtml "golang.org/x/net/html"
)

// reportHTML renders a run as one self-contained HTML page: what report
// writes, with the markdown rendered (goldmark, GitHub-flavoured tables),
// figures inline (PNG as data: URIs, SVG in the page), the CSS in the page
// and nothing fetched from elsewhere (no script, font or stylesheet).
// Every text a cell produced is escaped: streams, values and errors as
// text, markdown and HTML displays through a whitelist of tags and
// attributes (sanitize), under which a <script> from a dataset or a model
// shows as text and never runs.
func reportHTML(res *RunResult) string {
	nb := res.Notebook
	var b strings.Builder
	title := nb.Title()
	params := "none"
	if len(nb.Params) > 0 {
		params = ""
		for i, k := range sortedKeys(nb.Params) {
			if i > 0 {
				params += ", "
			}
			params += "<code>" + html.EscapeString(k+"="+nb.Params[k]) + "</code>"
		}
	}
	status := "ok"
	if res.Err != nil {
		status = "failed"
	}
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" content=\"memlab run\">\n<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", html.EscapeString(title), htmlCSS)
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p class=\"run\">Notebook <code>%s</code> · parameters: %s · ran %s · %s · %s</p>\n",
		html.EscapeString(title), html.EscapeString(filepath.Base(nb.Path)), params,
		res.Started.UTC().Format(time.RFC3339), res.Duration.Round(time.Millisecond), status)
	titleDone := false
	for i, c := range nb.Cells {
		v := res.view(&c)
		if !v.cell {
			continue
		}
		if c.Kind == KindMarkdown {
			src := c.Source
			if !titleDone {
				src, titleDone = dropHeading(src, title)
			}
			if src = strings.Trim(src, "\n"); src != "" {
				b.WriteString("<section class=\"markdown\">\n" + markdownHTML(src) + "</section>\n")
			}
			continue
		}
		if c.Kind != KindCode {
			continue
		}
		b.WriteString("<section class=\"cell\">\n")
		code := "<pre class=\"source\"><code class=\"language-go\">" + html.EscapeString(strings.TrimRight(c.Source, "\n")) + "</code></pre>\n"
		switch v.input {
		case inputShown:
			b.WriteString(code)
		case inputFolded:
			b.WriteString("<details class=\"source\">\n<summary>Code</summary>\n" + code + "</details>\n")
		}
		r := res.Results[i]
		switch {
		case r == nil:
			b.WriteString("<p class=\"not-run\"><em>(not executed)</em></p>\n")
		case !v.outputs:
			if r.Err != nil {
				writeErrorHTML(&b, r.Err)
			}
		default:
			writeOutputsHTML(&b, r)
		}
		b.WriteString("</section>\n")
	}
	b.WriteString("</main>\n</body>\n</html>\n")
	return b.String()
}

// writeOutputsHTML writes the outputs of one executed cell.
func writeOutputsHTML(b *strings.Builder, r *kernel.CellResult) {
	for _, o := range r.Outputs {
		switch o.Kind {
		case kernel.OutStdout:
			b.WriteString("<pre class=\"stdout\">" + html.EscapeString(strings.TrimRight(o.Text, "\n")) + "</pre>\n")
		case kernel.OutStderr:
			b.WriteString("<pre class=\"stderr\">" + html.EscapeString(strings.TrimRight(o.Text, "\n")) + "</pre>\n")
		case kernel.OutDisplay:
			d := o.Display
			switch {
			case d.SVG != nil:
				b.WriteString("<figure>" + svgHTML(d.SVG, d.Name) + "</figure>\n")
			case d.PNG != nil:
				fmt.Fprintf(b, "<figure><img src=\"data:image/png;base64,%s\" alt=\"%s\"></figure>\n",
					base64.StdEncoding.EncodeToString(d.PNG), html.EscapeString(d.Name))
			case d.Markdown != "":
				b.WriteString("<div class=\"display\">\n" + markdownHTML(d.Markdown) + "</div>\n")
			case d.HTML != "":
				b.WriteString("<div class=\"display\">\n" + sanitize(d.HTML) + "\n</div>\n")
			default:
				b.WriteString("<pre class=\"stdout\">" + html.EscapeString(strings.TrimRight(d.Text, "\n")) + "</pre>\n")
			}
		}
	}
	if r.Value != "" {
		fmt.Fprintf(b, "<div class=\"value\"><span class=\"prompt\">Out[%d]:</span>\n<pre>%s</pre></div>\n", r.Count, html.EscapeString(strings.TrimRight(r.Value, "\n")))
	}
	if r.Err != nil {
		writeErrorHTML(b, r.Err)
	}
}

func writeErrorHTML(b *strings.Builder, err error) {
	_, _, tb := kernel.ErrorParts(err)
	b.WriteString("<div class=\"error\"><strong>Error</strong>\n<pre>" + html.EscapeString(strings.Join(tb, "\n")) + "</pre></div>\n")
}

// md renders markdown: GitHub-flavoured (tables, strikethrough, task
// lists, autolinks), raw HTML passed on to sanitize, which keeps only its
// whitelist.
var md = goldmark.New(
	goldmark.WithExtensions(
		extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
		extension.Strikethrough, extension.Linkify, extension.TaskList),
	goldmark.WithRendererOptions(gmhtml.WithUnsafe()),
)

// markdownHTML renders markdown text as safe HTML.
func markdownHTML(src string) string {
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf); err != nil {
		return "<pre>" + html.EscapeString(src) + "</pre>\n"
	}
	return sanitize(buf.String())
}

// allowedTags are the elements sanitize keeps, with the attributes each
// may have (besides the global ones in allowedAttrs).
var allowedTags = map[string][]string{
	"a": {"href"}, "abbr": nil, "b": nil, "blockquote": nil, "br": nil, "caption": nil,
	"code": nil, "dd": nil, "del": nil, "details": {"open"}, "div": nil, "dl": nil, "dt": nil,
	"em": nil, "figcaption": nil, "figure": nil, "h1": nil, "h2": nil, "h3": nil, "h4": nil,
	"h5": nil, "h6": nil, "hr": nil, "i": nil, "img": {"src", "alt", "width", "height"},
	"input": {"type", "checked", "disabled"}, "kbd": nil, "li": nil, "mark": nil,
	"ol": {"start"}, "p": nil, "pre": nil, "s": nil, "small": nil, "span": nil,
	"strong": nil, "sub": nil, "summary": nil, "sup": nil, "table": nil, "tbody": nil,
	"td": {"align", "colspan", "rowspan"}, "tfoot": nil, "th": {"align", "colspan", "rowspan", "scope"},
	"thead": nil, "tr": nil, "u": nil, "ul": nil,
}

// allowedAttrs are the attributes every kept element may have.
var allowedAttrs = map[string]bool{"title": true, "class": true, "id": true}

// sanitize re-writes an HTML fragment keeping only the whitelisted
// elements and attributes, every text escaped. Any other tag (<script>,
// <style>, <iframe>, an <img> whose src is not a data: image, an <a> whose
// href is not http, https, mailto or relative) is written as escaped text,
// so it shows and does nothing; comments are dropped.
func sanitize(fragment string) string {
	var b strings.Builder
	z := nethtml.NewTokenizer(strings.NewReader(fragment))
	for {
		tt := z.Next()
		switch tt {
		case nethtml.ErrorToken:
			if errors.Is(z.Err(), io.EOF) {
				return b.String()
			}
			return b.String() + html.EscapeString(string(z.Raw()))
		case nethtml.TextToken:
			b.WriteString(html.EscapeString(string(z.Text())))
		case nethtml.CommentToken, nethtml.DoctypeToken:
		case nethtml.StartTagToken, nethtml.SelfClosingTagToken, nethtml.EndTagToken:
			raw := string(z.Raw())
			t := z.Token()
			if s, ok := keepTag(t); ok {
				b.WriteString(s)
			} else {
				b.WriteString(html.EscapeString(raw))
			}
		}
	}
}

// keepTag re-writes a whitelisted tag with its allowed attributes, values
// escaped; ok is false for a tag that must show as text.
func keepTag(t nethtml.Token) (string, bool) {
	own, ok := allowedTags[t.Data]
	if !ok {
		return "", false
	}
	if t.Type == nethtml.EndTagToken {
		return "</" + t.Data + ">", true
	}
	var b strings.Builder
	b.WriteString("<" + t.Data)
	for _, a := range t.Attr {
		if a.Namespace != "" {
			continue
		}
		if !allowedAttrs[a.Key] && !contains(own, a.Key) {
			continue
		}
		switch {
		case a.Key == "href" && !safeLink(a.Val):
			return "", false
		case a.Key == "src" && !safeImage(a.Val):
			return "", false
		case t.Data == "input" && a.Key == "type" && a.Val != "checkbox":
			return "", false
		}
		fmt.Fprintf(&b, " %s=\"%s\"", a.Key, html.EscapeString(a.Val))
	}
	if t.Data == "img" && !strings.Contains(b.String(), " src=") {
		return "", false
	}
	b.WriteString(">")
	return b.String(), true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// safeLink accepts http, https and mailto links, fragments and relative
// paths.
func safeLink(href string) bool {
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "", "http", "https", "mailto":
		return !strings.ContainsAny(href, "\x00\t\n\r")
	}
	return false
}

// safeImage accepts only images inside the page (data: PNG, JPEG, GIF or
// WebP): the report fetches nothing.
func safeImage(src string) bool {
	for _, p := range []string{"data:image/png;base64,", "data:image/jpeg;base64,", "data:image/gif;base64,", "data:image/webp;base64,"} {
		if strings.HasPrefix(src, p) {
			return true
		}
	}
	return false
}

// svgHTML puts an SVG figure into the page: inline when it is plain
// drawing (no script, no event handler, no foreign object, no link out of
// the document), else as an <img> of a data: URI, where nothing in it
// runs or loads.
func svgHTML(svg []byte, name string) string {
	if body, ok := plainSVG(svg); ok {
		return body
	}
	return fmt.Sprintf("<img src=\"data:image/svg+xml;base64,%s\" alt=\"%s\">", base64.StdEncoding.EncodeToString(svg), html.EscapeString(name))
}

// plainSVG checks an SVG document token by token and returns it from its
// <svg> element on (without the XML declaration and doctype); ok is false
// when it is not well-formed XML or holds anything that could run or
// fetch.
func plainSVG(svg []byte) (string, bool) {
	dec := xml.NewDecoder(bytes.NewReader(svg))
	dec.Strict = true
	start := -1
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if start < 0 {
				if t.Name.Local != "svg" {
					return "", false
				}
				start = int(off)
			}
			switch strings.ToLower(t.Name.Local) {
			case "script", "foreignobject", "iframe", "object", "embed", "use", "image", "a", "animate", "set", "handler", "listener":
				return "", false
			}
			for _, a := range t.Attr {
				k := strings.ToLower(a.Name.Local)
				if strings.HasPrefix(k, "on") || k == "href" || strings.Contains(strings.ToLower(a.Value), "url(") && !strings.Contains(a.Value, "url(#") {
					return "", false
				}
			}
		case xml.ProcInst, xml.Directive:
			if start >= 0 {
				return "", false
			}
		}
	}
	if start < 0 {
		return "", false
	}
	s := string(svg[start:])
	if strings.Contains(strings.ToLower(s), "<style") && strings.Contains(strings.ToLower(s), "@import") {
		return "", false
	}
	return strings.TrimRight(s, "\n"), true
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// htmlCSS is the page's style: readable on a screen and in print, wide
// tables scrolled on a screen and shrunk on paper.
const htmlCSS = `:root { color-scheme: light; }
body { margin: 0; background: #fff; color: #1a1a1a; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem; }
h1, h2, h3 { line-height: 1.25; }
p.run { color: #555; font-size: 0.9rem; font-style: italic; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.85rem; }
pre { background: #f6f8fa; padding: 0.6rem 0.8rem; overflow-x: auto; border-radius: 4px; }
pre.source { border-left: 3px solid #8ab4f8; }
pre.stderr { background: #fff5f5; }
details.source > summary { cursor: pointer; color: #555; font-size: 0.9rem; }
.error pre { background: #fdecea; border-left: 3px solid #d93025; }
.value .prompt { color: #888; font-size: 0.8rem; }
table { border-collapse: collapse; margin: 0.8rem 0; font-size: 0.85rem; display: block; overflow-x: auto; max-width: 100%; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.5rem; vertical-align: top; }
th { background: #f6f8fa; }
tr:nth-child(even) td { background: #fbfbfb; }
td[align="right"], th[align="right"] { font-variant-numeric: tabular-nums; }
[title] { text-decoration: underline dotted #999; }
th[title], td[title] { text-decoration: none; }
figure { margin: 1rem 0; }
figure img, figure svg { max-width: 100%; height: auto; }
.not-run { color: #888; }
@media print {
  body { font-size: 10pt; }
  main { max-width: none; padding: 0; }
  pre { white-space: pre-wrap; word-break: break-word; overflow: visible; }
  table { display: table; font-size: 8pt; overflow: visible; }
  section, figure, table, pre { break-inside: avoid; }
  details.source { display: none; }
}
`
