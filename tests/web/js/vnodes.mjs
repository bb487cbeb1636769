// A test helper: a Preact element expanded into plain nodes without a DOM, for
// `node --test` (function components called with their props; class components and hooks
// are not supported). expand(vnode) -> a node {type, props, children} or a string;
// findAll(node, test) -> every node that passes; textOf(node) -> its text.

/** Expand `vnode` (a Preact element, a string, a number, an array, null) into nodes. */
export function expand(vnode) {
  if (vnode === null || vnode === undefined || typeof vnode === "boolean") return [];
  if (Array.isArray(vnode)) return vnode.flatMap(expand);
  if (typeof vnode !== "object") return [String(vnode)];
  if (typeof vnode.type === "function") return expand(vnode.type(vnode.props));
  const { children, ...props } = vnode.props || {};
  return [{ type: vnode.type, props, children: expand(children) }];
}

/** Every node under `nodes` (a node or a list) that `test` accepts, depth first. */
export function findAll(nodes, test) {
  const out = [];
  for (const node of [nodes].flat()) {
    if (typeof node === "string") continue;
    if (test(node)) out.push(node);
    out.push(...findAll(node.children, test));
  }
  return out;
}

/** The text of `nodes` (a node or a list), joined. */
export function textOf(nodes) {
  return [nodes]
    .flat()
    .map((n) => (typeof n === "string" ? n : textOf(n.children)))
    .join("");
}
