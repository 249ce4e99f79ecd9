"""errcat: turn a project's validation code into an error catalog."""
__version__ = "0.1.0"
