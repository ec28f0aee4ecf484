"""The compiler's version, on its own so that any module can read it without
importing the package's public API (and so without an import circle)."""

__version__ = "0.1.0"
