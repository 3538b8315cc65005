"""Walking a list by its cursor: each page's `pagination.nextAfter` is the next request's `after`, until
`hasMore` is false. Deep pages cost what the first does and new entries do not shift them (the service's
keyset paging, README "API"), so a walk sees each entry once."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class _Cursor(Protocol):
    @property
    def has_more(self) -> bool: ...

    @property
    def next_after(self) -> str | None: ...


class Page(Protocol[T_co]):
    @property
    def data(self) -> Sequence[T_co]: ...

    @property
    def pagination(self) -> _Cursor: ...


def _next(page: Page[object]) -> str | None:
    return page.pagination.next_after if page.pagination.has_more else None


def iterate(fetch: Callable[[str | None], Page[T]]) -> Iterator[T]:
    """Every entry, fetching each page when the previous one is used up."""
    after: str | None = None
    while True:
        page = fetch(after)
        yield from page.data
        after = _next(page)
        if after is None:
            return


async def iterate_async(fetch: Callable[[str | None], Awaitable[Page[T]]]) -> AsyncIterator[T]:
    """Every entry, as `iterate`, for the async client."""
    after: str | None = None
    while True:
        page = await fetch(after)
        for entry in page.data:
            yield entry
        after = _next(page)
        if after is None:
            return
