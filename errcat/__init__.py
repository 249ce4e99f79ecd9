"""errcat: turn a project's validation code into an error catalog."""
from extractor.tool import VERSION as __version__  # noqa: N811 - the package's version by its usual name

__all__ = ["__version__"]
