"""Render a fitted tree: `text` (rich diagram), `dot` (Graphviz), `rules`, and pictures:
`svg` and `html` (`pictures`), curves (`plots`), the comparison page (`compare_report`);
JSON is the model file itself."""
