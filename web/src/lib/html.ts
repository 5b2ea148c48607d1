/**
 * Article HTML (news, help, agreement) comes from our own content tables, but it is still
 * sanitised before it is inserted: only formatting tags survive, event handlers, scripts, styles
 * and javascript: URLs are dropped, and links open in a new tab.
 */
const ALLOWED_TAGS = new Set([
  "a", "b", "blockquote", "br", "code", "div", "em", "figure", "figcaption", "h1", "h2", "h3", "h4",
  "h5", "h6", "hr", "i", "img", "li", "ol", "p", "pre", "s", "small", "span", "strong", "sub", "sup",
  "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul",
]);
const ALLOWED_ATTRS: Record<string, Set<string>> = {
  a: new Set(["href", "title"]),
  img: new Set(["src", "alt", "width", "height"]),
  td: new Set(["colspan", "rowspan"]),
  th: new Set(["colspan", "rowspan"]),
};
const DROP_WITH_CONTENT = new Set(["script", "style", "iframe", "object", "embed", "noscript", "template", "svg", "math", "form"]);

function safeUrl(value: string, forImage: boolean): boolean {
  const v = value.trim().toLowerCase();
  if (v.startsWith("http://") || v.startsWith("https://") || v.startsWith("/") || v.startsWith("#")) return true;
  if (!forImage && v.startsWith("mailto:")) return true;
  return forImage && /^data:image\/(png|jpe?g|gif|webp);/.test(v);
}

function clean(node: Element) {
  for (const child of Array.from(node.children)) {
    const tag = child.tagName.toLowerCase();
    if (DROP_WITH_CONTENT.has(tag)) {
      child.remove();
      continue;
    }
    if (!ALLOWED_TAGS.has(tag)) {
      clean(child);
      child.replaceWith(...Array.from(child.childNodes));
      continue;
    }
    const allowed = ALLOWED_ATTRS[tag];
    for (const attr of Array.from(child.attributes)) {
      const name = attr.name.toLowerCase();
      const keep = allowed?.has(name) && (name !== "href" && name !== "src" ? true : safeUrl(attr.value, name === "src"));
      if (!keep) child.removeAttribute(attr.name);
    }
    if (tag === "a") {
      child.setAttribute("target", "_blank");
      child.setAttribute("rel", "noopener noreferrer");
    }
    if (tag === "img") child.setAttribute("loading", "lazy");
    clean(child);
  }
}

export function sanitizeHtml(html: string): string {
  const doc = new DOMParser().parseFromString(`<div>${html}</div>`, "text/html");
  const root = doc.body.firstElementChild;
  if (!root) return "";
  clean(root);
  return root.innerHTML;
}
