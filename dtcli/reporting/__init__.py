"""What `evaluate` and `compare` report: documents (the JSON output), sentences, tables
(rich, markdown, CSV), critical-difference diagrams, and tables of published figures."""
