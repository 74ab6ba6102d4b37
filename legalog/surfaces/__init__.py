"""The product surfaces above the pipeline: text/JSON/SARIF reports, batches and their cache,
passes_dump planning, and the query language."""
