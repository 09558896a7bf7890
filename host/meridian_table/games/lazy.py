"""A package's public names, imported on first use (PEP 562).

A game package re-exports its engine, records and maps for a short ``from
meridian_table.games import kato; kato.Game(...)``; importing those eagerly would make
every ``import meridian_table.games.kato.spec`` (the registry, ``meridian-table --help``)
pay for the whole engine. ``exports`` gives the package a module ``__getattr__`` that
imports the submodule holding a name the first time that name is read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from meridian_table.games.contract import Policy, PolicyFactory


def exports(package: str, names: Mapping[str, str]) -> Callable[[str], object]:
    """``__getattr__`` for ``package``: ``names`` maps a public name to the submodule that
    defines it (a name equal to its submodule's is the submodule itself)."""

    def __getattr__(name: str) -> object:
        where = names.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(f"{package}.{where}")
        value = module if name == where else getattr(module, name)
        setattr(importlib.import_module(package), name, value)
        return value

    return __getattr__




def policy(module: str, name: str) -> PolicyFactory:
    """A policy factory for ``module.name`` that imports its module on the first call, so a
    spec can list its bots without importing them."""

    def factory(seed: int | None = None, argument: str | None = None) -> Policy:
        made = getattr(importlib.import_module(module), name)(seed, argument)
        return cast("Policy", made)

    factory.__qualname__ = factory.__name__ = name
    return factory


__all__ = ["exports", "policy"]
