"""Library exceptions. The CLI maps them to exit codes; the library never exits."""
from __future__ import annotations


class ErrcatError(Exception):
    """Bad input or an unusable source: reported as one line, exit code 2."""


class SourceError(ErrcatError):
    """A source (git repo, commit, release, directory) cannot be read."""


class ProfileError(ErrcatError):
    """A target profile is missing or malformed."""


class OutputError(ErrcatError):
    """The output location cannot be written."""
