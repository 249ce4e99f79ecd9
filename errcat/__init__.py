"""errcat: turn a project's validation code into an error catalog."""
from extractor.tool import VERSION as __version__

__all__ = ["__version__"]
