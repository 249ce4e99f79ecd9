"""Small git repositories for tests: one helper to write files and commit at a fixed date."""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

import git

ME = git.Actor("Test", "test@example.invalid")


def commit(repo: git.Repo, files: dict[str, str | None], msg: str, when: str | None = None) -> str:
    """Write (or, for None, delete) files and commit them; `when` (ISO 8601) fixes the dates
    so SHAs are reproducible. Returns the commit SHA."""
    assert repo.working_tree_dir is not None  # not a bare repository
    root = Path(repo.working_tree_dir)
    for path, text in files.items():
        if text is None:
            repo.index.remove([path], working_tree=True)
        else:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
            repo.index.add([path])
    if when is None:
        return repo.index.commit(msg, author=ME, committer=ME).hexsha
    stamp = datetime.fromisoformat(when)
    return repo.index.commit(msg, author=ME, committer=ME, author_date=stamp, commit_date=stamp).hexsha
