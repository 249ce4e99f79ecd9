"""errcat's own version, held by the lowest layer: result-cache fingerprints
(`extractor.result_cache`) stamp it as well as published catalogs (`errcat`)."""
VERSION = "0.1.0"
