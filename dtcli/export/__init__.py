"""Render a fitted tree: `text` (rich diagram), `dot` (Graphviz), `rules`; JSON is the model file itself."""
