"""rules room."""
