"""The version of eidomap: the one place it is written (the build reads it too: pyproject.toml)."""

__version__ = "0.2.0"
