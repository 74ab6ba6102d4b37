"""analyzer room."""
