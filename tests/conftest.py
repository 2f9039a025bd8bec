"""Run the fast unit tests first, then the notebook checks, then the book build (which reuses the
models the notebook checks trained, through the results cache)."""

ORDER = {"notebooks": 1, "book": 2}


def pytest_collection_modifyitems(items):
    def rank(item):
        return max((ORDER.get(m.name, 0) for m in item.iter_markers()), default=0)

    items.sort(key=rank)
