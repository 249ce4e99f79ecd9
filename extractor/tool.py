"""errcat's own version, the one place it is written: pyproject.toml reads it (setuptools
``dynamic``), result-cache fingerprints (`extractor.result_cache`) stamp it as well as
published catalogs (`errcat`). Held by the lowest layer so all of them can import it."""
VERSION = "0.1.0"
