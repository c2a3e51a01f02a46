"""Collection settings shared by the test suite and the doctests."""

collect_ignore = ["committee/__main__.py", "scripts", "benchmarks", "build"]


def pytest_collection_modifyitems(items):
    """The doctests score two-sentence toys: the plausibility warnings such
    toys earn (a bootstrap over too few sentences, an output equal to its
    gold) are expected there, and tested where they are the point."""
    import pytest
    from _pytest.doctest import DoctestItem

    for item in items:
        if isinstance(item, DoctestItem):
            item.add_marker(pytest.mark.filterwarnings(
                "ignore::committee.errors.PlausibilityWarning"))
