"""facts room."""
