"""legalog's version: one definition, read by the package, the report writers and the cache key
(a module of its own so that nothing inside legalog imports the package root)."""

__version__ = "0.1.0"
