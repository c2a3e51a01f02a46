"""Collection settings shared by the test suite and the doctests."""

collect_ignore = ["committee/__main__.py", "scripts", "build"]
