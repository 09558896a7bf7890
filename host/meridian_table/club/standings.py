"""Standings per game from the club's finished games, rated with OpenSkill.

OpenSkill's Plackett-Luce model (Weng and Lin, "A Bayesian Approximation Method for
Online Ranking", JMLR 2011) rates any number of players in one free-for-all from their
finishing order, so a four-player Colovini game is one rating update, not six duels.
Games are rated in the order they finished. A player is known by name across tables.
The order in a game: winners first (tied), then the others by score (higher is better,
the same score ties), then those without a score, tied last. Abandoned games and games
without a result are not rated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce


@dataclass(frozen=True)
class Finished:
    """One finished game as the standings need it."""

    game: str
    players: tuple[str, ...]
    result: Mapping[str, Any]


@dataclass
class Standing:
    player: str
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    history: list[float] = field(default_factory=list)

    @property
    def ordinal(self) -> float:
        """The conservative skill that ranks the table: mu - 3 sigma."""
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, object]:
        return {"player": self.player, "rating": round(self.ordinal, 2), "mu": round(self.mu, 3),
                "sigma": round(self.sigma, 3), "games": self.games, "wins": self.wins}


def ranks(players: Sequence[str], result: Mapping[str, Any]) -> list[int]:
    """Each player's place (1 is best, equal places tie) from a logged result."""
    winners = set(result.get("winners") or [])
    totals: dict[str, float] = {}
    for score in result.get("scores") or []:
        total = score.get("total")
        if isinstance(total, (int, float)) and not isinstance(total, bool):
            totals[str(score.get("player"))] = float(total)
    keys = []
    for name in players:
        if name in winners:
            keys.append((0, 0.0))
        elif name in totals:
            keys.append((1, -totals[name]))
        else:
            keys.append((2, 0.0))
    ordered = sorted(set(keys))
    return [ordered.index(k) + 1 for k in keys]


def rate(games: Iterable[Finished]) -> dict[str, list[Standing]]:
    """Standings per game id, best first."""
    model = PlackettLuce()
    tables: dict[str, dict[str, Standing]] = {}
    for finished in games:
        result = finished.result
        if result.get("abandoned") or len(finished.players) < 2:
            continue
        board = tables.setdefault(finished.game, {})
        for name in finished.players:
            if name not in board:
                fresh = model.rating()
                board[name] = Standing(name, fresh.mu, fresh.sigma)
        teams = [[model.rating(mu=board[n].mu, sigma=board[n].sigma)] for n in finished.players]
        places = ranks(finished.players, result)
        rated = model.rate(teams, ranks=[float(p) for p in places])
        winners = set(result.get("winners") or [])
        for name, team in zip(finished.players, rated, strict=True):
            standing = board[name]
            standing.mu, standing.sigma = team[0].mu, team[0].sigma
            standing.games += 1
            standing.wins += name in winners
            standing.history.append(standing.ordinal)
    return {game: sorted(board.values(), key=lambda s: (-s.ordinal, s.player))
            for game, board in sorted(tables.items())}
