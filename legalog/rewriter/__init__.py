"""rewriter room."""
