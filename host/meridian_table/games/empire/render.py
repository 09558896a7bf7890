"""The position of an Empire in Space game in plain text (for ``replay`` and ``empire play``)."""

from __future__ import annotations

from meridian_table.games.empire.engine import Game


def text_diagram(game: Game) -> str:
    """Seats, bodies held, ships by quadrant and the combat step, one item a line."""
    state = game.state
    read = game.read
    turn = game.turn()
    lines = [f"round {state.round}{' (final round)' if state.final else ''}; "
             f"{game.name(turn.seat)} to act ({turn.phase})"]
    if state.trigger:
        lines.append(f"final round triggered: {state.trigger}")
    for seat, name in enumerate(game.names):
        if not read.is_human(seat):
            lines.append(f"  {name}: {read.colonies(seat)} colonies")
            continue
        info = state.seats[seat]
        lines.append(
            f"  P{seat + 1} {name}: {info.cells - info.used}/{info.cells} cells, "
            f"{info.charges} charges, {read.colonies(seat)} colonies, "
            f"{read.waypoints(seat)} waypoints, presence {sorted(read.presence(seat))}")
    for body in state.bodies.values():
        if body.owner is None and not body.discovered:
            continue
        card = body.card if body.discovered else "?"
        owner = game.name(body.owner) if body.owner is not None else "-"
        marks = f" waypoint {','.join(w or '(blank)' for w in body.waypoints)}" \
            if body.waypoints else ""
        lines.append(f"  {body.id} {card}: {owner} x{body.colonies}{marks}")
    for ship in sorted(state.ships.values(), key=lambda s: int(s.id[1:])):
        owner = game.name(ship.owner) if ship.owner is not None else "abandoned"
        marks = f" waypoint {','.join(w or '(blank)' for w in ship.waypoints)}" \
            if ship.waypoints else ""
        lines.append(f"  {ship.id} {ship.kind} at {ship.quadrant}: {owner} x{ship.colonies}{marks}")
    fight = state.combat
    if fight is not None:
        lines.append(f"combat: {game.name(fight.attacker)} attacks {fight.target} with "
                     f"{','.join(fight.attackers)}; defenders {','.join(fight.defenders) or '-'}; "
                     f"step {fight.stage}")
    outcome = game.outcome()
    if outcome is not None:
        lines.append(f"over: {outcome.reason}")
    return "\n".join(lines)


__all__ = ["text_diagram"]
