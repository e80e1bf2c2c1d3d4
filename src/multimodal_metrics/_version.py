"""The library's version (recorded in every signature as ``v:``)."""

__version__ = "0.1.0"
