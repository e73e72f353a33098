"""Reading docs as their generator publishes them (build time only).

``markdown`` and ``llms`` parse text; one module per docs generator says how that
generator's site serves a docs folder (page URLs, heading anchors, which files are pages,
its navigation), registered in ``generators.GENERATORS``.
"""
