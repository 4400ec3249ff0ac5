"""A tree as one self-contained HTML page: the SVG drawing (`svg.py`), a small inline
script and style, nothing loaded from anywhere else.

Clicking a split folds its subtree away (its box drawn bold) and clicking it again
unfolds it, the subtrees folded inside staying folded; the tree that stays is laid
out again (`_LAYOUT`: layout.py's tidy layout, line for line, so that an unfolded
tree is where the SVG put it), its boxes moved sideways and its edges redrawn, so
that folding a wide subtree closes the gap it leaves. The title, notes and legend
are the page's header, once (the drawing is the tree alone). Hovering a node shows its
details (the SVG <title>: tests, counts, p-value, leaf model) in a panel; buttons
zoom in and out, or fit the drawing to the window's width. The page's
address may name nodes to fold at load, `tree.html#fold=0,12`, to share a view.
"""
from __future__ import annotations

from dtcli.export import svg
from dtcli.export.svgkit import FONT, class_colours, escape

_STYLE = """
body { font-family: %s; margin: 0; }
header { padding: 8px 12px; border-bottom: 1px solid #ddd; font-size: 13px; color: #333;
  position: sticky; top: 0; left: 0; background: white; z-index: 1; }
header button { margin-left: 8px; }
header .help { margin-top: 4px; color: #555; }
.swatch { margin-right: 12px; white-space: nowrap; }
.swatch i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
#drawing { overflow: auto; }
g.node { cursor: default; }
g.node.openable { cursor: pointer; }
g.node.folded > rect:first-of-type { stroke: #000; stroke-width: 3; }
g.node:hover > rect:first-of-type { stroke: #000; }
.hidden { display: none; }
#details { position: fixed; right: 12px; bottom: 12px; max-width: 420px; padding: 8px 10px;
  background: #fffff0; border: 1px solid #bbb; font-size: 12px; white-space: pre-wrap;
  display: none; box-shadow: 0 1px 4px rgba(0,0,0,.2); }
""" % FONT

# layout.py's tidy layout in JavaScript: x centres of the tree below `root`, whose
# children(node) are listed left to right and whose slot[node] are the layout widths
_LAYOUT = """
function tidyX(root, children, slot, gap) {
  function distance(a, b) {
    var shared = Math.min(a.left.length, b.left.length), best = -Infinity;
    for (var i = 1; i <= shared; i++)
      best = Math.max(best, a.right[a.right.length - i] + a.shift -
                      b.left[b.left.length - i] - b.shift);
    return best;
  }
  function merged(a, b, offset) {
    b.shift += offset;
    var shared = Math.min(a.left.length, b.left.length), i;
    if (a.left.length >= b.left.length) {
      for (i = 1; i <= shared; i++)
        a.right[a.right.length - i] = b.right[b.right.length - i] + b.shift - a.shift;
      return a;
    }
    for (i = 1; i <= shared; i++)
      b.left[b.left.length - i] = a.left[a.left.length - i] + a.shift - b.shift;
    return b;
  }
  var order = [], stack = [root], relative = {}, contours = {}, x = {};
  while (stack.length) {
    var node = stack.pop(), below = children(node);
    order.push(node);
    for (var i = below.length - 1; i >= 0; i--) stack.push(below[i]);
  }
  for (var k = order.length - 1; k >= 0; k--) {
    var n = order[k], kids = children(n);
    if (!kids.length) {
      contours[n] = {left: [-slot[n] / 2], right: [slot[n] / 2], shift: 0};
      continue;
    }
    var joined = contours[kids[0]], offsets = [0];
    for (var j = 1; j < kids.length; j++) {
      offsets.push(distance(joined, contours[kids[j]]) + gap);
      joined = merged(joined, contours[kids[j]], offsets[j]);
    }
    var centre = (offsets[0] + offsets[offsets.length - 1]) / 2;
    for (j = 0; j < kids.length; j++) relative[kids[j]] = offsets[j] - centre;
    joined.shift -= centre;
    joined.left.push(-slot[n] / 2 - joined.shift);
    joined.right.push(slot[n] / 2 - joined.shift);
    contours[n] = joined;
  }
  x[root] = 0;
  order.forEach(function (n) {
    children(n).forEach(function (c) { x[c] = x[n] + relative[c]; });
  });
  return x;
}
"""

_SCRIPT = """
(function () {
  var drawing = document.querySelector("svg.dtree-tree");
  var nodes = {}, kids = {}, edges = {};
  // Zoom: the drawing keeps its viewBox, so scaling its size scales it all.
  var box = drawing.viewBox.baseVal, scale = 1;
  drawing.querySelectorAll("g.node").forEach(function (g) {
    nodes[g.dataset.node] = g;
    (kids[g.dataset.parent] = kids[g.dataset.parent] || []).push(g.dataset.node);
  });
  drawing.querySelectorAll("g.edge").forEach(function (e) { edges[e.dataset.child] = e; });
  function show(node, visible) {
    nodes[node].classList.toggle("hidden", !visible);
    if (edges[node]) edges[node].classList.toggle("hidden", !visible);
  }
  // Fold: hide every node below. Unfold: show the children, and below them what no
  // folded node hides. Then lay out again what is shown (unless more changes follow).
  function setFolded(node, folded, more) {
    if (!kids[node]) return;
    nodes[node].classList.toggle("folded", folded);
    var stack = kids[node].slice();
    while (stack.length) {
      var child = stack.pop();
      show(child, !folded);
      if ((folded || !nodes[child].classList.contains("folded")) && kids[child])
        stack.push.apply(stack, kids[child]);
    }
    if (!more) relayout();
  }
  var MARGIN = 10, GAP = 14, EDGE = /^M[-0-9.]+,([-0-9.]+) V([-0-9.]+) H[-0-9.]+ V([-0-9.]+)$/;
  function shown(node) {
    return nodes[node].classList.contains("folded") ? [] : (kids[node] || []);
  }
  function relayout() {
    var slot = {}, left = Infinity, right = -Infinity;
    Object.keys(nodes).forEach(function (n) { slot[n] = +nodes[n].dataset.slot; });
    var x = tidyX("0", shown, slot, GAP);
    Object.keys(x).forEach(function (n) {
      left = Math.min(left, x[n] - slot[n] / 2);
      right = Math.max(right, x[n] + slot[n] / 2);
    });
    Object.keys(x).forEach(function (n) {
      x[n] += MARGIN - left;
      nodes[n].setAttribute("transform",
        "translate(" + (x[n] - nodes[n].dataset.x).toFixed(2) + ",0)");
      var edge = edges[n];
      if (!edge) return;
      var path = edge.querySelector("path"), parent = nodes[n].dataset.parent;
      path.setAttribute("d", path.getAttribute("d").replace(EDGE, function (_, y1, elbow, y2) {
        return "M" + x[parent].toFixed(1) + "," + y1 + " V" + elbow + " H" +
          x[n].toFixed(1) + " V" + y2;
      }));
      var label = edge.querySelector("text");
      if (label) label.setAttribute("x", (x[n] + 4).toFixed(1));
    });
    box.width = right - left + 2 * MARGIN;
    zoom(scale);
  }
  var panel = document.getElementById("details");
  Object.keys(nodes).forEach(function (node) {
    var g = nodes[node], title = g.querySelector("title");
    if (kids[node]) g.classList.add("openable");
    g.addEventListener("click", function () {
      setFolded(node, !g.classList.contains("folded"));
    });
    g.addEventListener("mouseenter", function () {
      panel.textContent = title.textContent + (kids[node] ? "\\n(click to " +
        (g.classList.contains("folded") ? "unfold" : "fold") + " the subtree)" : "");
      panel.style.display = "block";
    });
    g.addEventListener("mouseleave", function () { panel.style.display = "none"; });
  });
  document.getElementById("unfold").addEventListener("click", function () {
    Object.keys(nodes).forEach(function (node) { setFolded(node, false, true); });
    relayout();
  });
  function zoom(to) {
    scale = Math.min(4, Math.max(0.05, to));
    drawing.setAttribute("width", box.width * scale);
    drawing.setAttribute("height", box.height * scale);
  }
  document.getElementById("zoom-in").addEventListener("click",
    function () { zoom(scale * 1.25); });
  document.getElementById("zoom-out").addEventListener("click",
    function () { zoom(scale / 1.25); });
  document.getElementById("zoom-fit").addEventListener("click", function () {
    zoom(document.getElementById("drawing").clientWidth / box.width);
  });
  // A wide tree opens with its root in view.
  var area = document.getElementById("drawing"), rootBox = nodes["0"].querySelector("rect");
  area.scrollLeft = rootBox.x.baseVal.value + rootBox.width.baseVal.value / 2 -
    area.clientWidth / 2;
  var match = /fold=([0-9,]+)/.exec(location.hash);
  if (match) {
    match[1].split(",").forEach(function (node) {
      if (nodes[node]) setFolded(node, true, true);
    });
    relayout();
  }
})();
"""


def _legend(diagram: svg.Diagram) -> str:
    """The title, notes and class colours above the drawing, in view however far a wide
    tree is scrolled (the drawing leaves them out)."""
    colours = class_colours(len(diagram.classes))
    swatches = "".join(f'<span class="swatch"><i style="background:{c}"></i>{escape(name)}</span>'
                       for c, name in zip(colours, diagram.classes))
    notes = "".join(f"<div>{escape(note)}</div>" for note in diagram.notes)
    return f"<b>{escape(diagram.title)}</b>{notes}<div>{swatches}</div>"


def page(diagram: svg.Diagram) -> str:
    """The diagram as a standalone HTML document."""
    drawing = svg.render(diagram, header=False)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{escape(diagram.title)}</title>\n<style>{_STYLE}</style>\n</head>\n"
            f"<body>\n<header>{_legend(diagram)}<div class=\"help\">"
            "Click a split to fold or unfold its subtree; hover over a node "
            "for its details. <button id=\"unfold\" type=\"button\">unfold all</button>"
            "<button id=\"zoom-out\" type=\"button\">−</button>"
            "<button id=\"zoom-in\" type=\"button\">+</button>"
            "<button id=\"zoom-fit\" type=\"button\">fit width</button></div>"
            f"</header>\n<div id=\"drawing\">\n{drawing}</div>\n<div id=\"details\"></div>\n"
            f"<script>{_LAYOUT}{_SCRIPT}</script>\n</body>\n</html>\n")
