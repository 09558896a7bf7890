from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.link.collector import Collector


@pytest.fixture
def collector() -> Iterator[Collector]:
    yield Collector()
