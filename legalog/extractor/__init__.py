"""extractor room."""
