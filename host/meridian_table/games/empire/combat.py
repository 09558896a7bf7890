"""Combat: one encounter, step by step, each step decided by the seat it belongs to.

The steps (docs/games/empire.md, "Combat"): the attacker declares the target and its
ships (``attack``); lenders named on either side agree or refuse (``lend``); the defender
names its defending ships (``defend``); the attacker strikes (``strike``); the defender
splits the damage and pays shields (``damage``); the defender counter-strikes for free
(``counter``); the attacker takes that damage (``damage``); whoever emptied a waypoint's
holder reassigns it (``steal``). ``acting_seat`` names who decides now, so a player who is
not the active one answers through the table like any other turn.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

from meridian_table.games.empire.notation import Action, Damage
from meridian_table.games.empire.rules import Mods
from meridian_table.games.empire.state import BodyState, Combat, Ship

if TYPE_CHECKING:
    from meridian_table.games.empire.base import GameBase as Game

RULE = "Starships - Combat"
NO_COMBAT_ROUNDS = 2


def acting_seat(fight: Combat) -> int:
    if fight.stage == "lend":
        return fight.asking[0][0]
    if fight.stage == "steal":
        return fight.steals[0][1]
    if fight.stage in ("strike", "attacker-damage"):
        return fight.attacker
    return fight.defender


def _sid(ship: str) -> int:
    return int(ship[1:])


def _subsets(items: list[str], limit: int = 5) -> list[tuple[str, ...]]:
    """Every non-empty subset up to ``limit`` items; beyond, each item and all of them."""
    if len(items) <= limit:
        return [c for k in range(1, len(items) + 1) for c in combinations(items, k)]
    return [(i,) for i in items] + [tuple(items)]


# --- who may attack what -----------------------------------------------------------------------


def _in_range(game: Game, ship: Ship, target: Ship | BodyState) -> bool:
    """A body is attacked from its orbit; a ship only by frigates in its own quadrant or
    an adjacent one (docs: "adjacent" includes the same quadrant)."""
    if isinstance(target, BodyState):
        return ship.quadrant in game.board.bodies[target.id].orbit
    if ship.kind != "frigate":
        return False
    return ship.quadrant == target.quadrant or \
        ship.quadrant in game.board.quadrants[target.quadrant].adjacent


def _may_attack(game: Game, seat: int, target: Ship | BodyState) -> str | None:
    """Why ``seat`` may not attack ``target`` now (None: it may)."""
    state = game.state
    if state.round <= NO_COMBAT_ROUNDS:
        return f"no combat in the first {NO_COMBAT_ROUNDS} rounds (this is round {state.round})"
    if target.owner is None or target.owner == seat or target.colonies == 0:
        return f"{target.id} is not held by an opponent"
    if game.read.infection:
        if target.owner != game.scelrotia:
            return "in the infection modes the players fight only the Scelrotia"
        if not any(state.seats[s].inner_settled for s in range(len(game.players))):
            return ("the players may not attack the Scelrotia before one of them settles an "
                    "inner planet")
    return None


def legal_attacks(game: Game, seat: int, mods: Mods) -> list[str]:
    state = game.state
    if state.round <= NO_COMBAT_ROUNDS:
        return []
    if state.seats[seat].energy < game.read.cost(seat, "strike", mods=mods):
        return []
    ships = [s for s in state.ships.values() if s.colonies > 0 and game.read.is_human(s.owner)]
    out: list[str] = []
    targets: list[Ship | BodyState] = [*state.bodies.values(), *state.ships.values()]
    for target in targets:
        if _may_attack(game, seat, target) is not None:
            continue
        near = [s for s in ships if s.owner != target.owner and _in_range(game, s, target)]
        own = [s.id for s in near if s.owner == seat]
        if not own:
            continue
        lenders = [s.id for s in near if s.owner != seat]
        choices = _subsets(own)
        if lenders:
            choices += [tuple(own) + extra for extra in _subsets(lenders, 3)]
        for choice in choices:
            out.append(f"attack {target.id} {','.join(sorted(choice, key=_sid))}")
    return out


def declare(game: Game, seat: int, action: Action, text: str) -> None:
    state = game.state
    target = game.read.holder(action.args[0])
    if target is None:
        raise game.fail(text, f"there is no body or ship {action.args[0]}", RULE)
    why = _may_attack(game, seat, target)
    if why is not None:
        raise game.fail(text, why, RULE)
    names = action.args[1].split(",")
    lenders: list[int] = []
    for sid in names:
        ship = state.ships.get(sid)
        if ship is None or ship.colonies == 0 or not game.read.is_human(ship.owner):
            raise game.fail(text, f"{sid} is not a crewed starship of a player", RULE)
        if ship.owner == target.owner:
            raise game.fail(text, f"{sid} belongs to the defender", RULE)
        if not _in_range(game, ship, target):
            where = ("in its orbit" if isinstance(target, BodyState)
                     else "a frigate in its quadrant or an adjacent one")
            raise game.fail(text, f"{sid} at {ship.quadrant} cannot attack {target.id}: an "
                            f"attacker must be {where}", RULE)
        if ship.owner != seat and ship.owner is not None and ship.owner not in lenders:
            lenders.append(ship.owner)
    if not any(state.ships[s].owner == seat for s in names):
        raise game.fail(text, f"{game.name(seat)} must attack with at least one own ship", RULE)
    price = game.read.cost(seat, "strike")
    if state.seats[seat].energy < price:
        raise game.fail(text, f"a strike needs {price}E, {game.name(seat)} has "
                        f"{state.seats[seat].energy}E", RULE)
    defender = target.owner if target.owner is not None else seat  # _may_attack: an owner
    fight = Combat(seat, defender, target.id, sorted(names, key=_sid))
    state.combat = fight
    if lenders:
        fight.stage = "lend"
        fight.asking = [(s, "attack") for s in sorted(lenders)]
    else:
        _to_defend(game, fight)


def _defence_options(game: Game, fight: Combat) -> tuple[list[str], list[str]]:
    """(own ships, lenders' ships) that may defend, the targeted ship left out."""
    state = game.state
    target = game.read.holder(fight.target)
    own: list[str] = []
    if target is None:
        return own, []
    lent: list[str] = []
    for ship in state.ships.values():
        if ship.colonies == 0 or ship.id == fight.target or ship.owner is None:
            continue
        if ship.owner == fight.attacker or ship.id in fight.attackers:
            continue
        if isinstance(target, BodyState):
            near = ship.quadrant in game.board.bodies[target.id].orbit
        else:
            # "Only frigates may engage in direct starship combat": a ship is defended by
            # frigates in range of it, as an attacker must be (the same or an adjacent
            # quadrant); the targeted ship always defends itself.
            near = _in_range(game, ship, target)
        if not near:
            continue
        if ship.owner == fight.defender:
            own.append(ship.id)
        elif game.read.is_human(ship.owner):
            lent.append(ship.id)
    return own, lent


def _to_defend(game: Game, fight: Combat) -> None:
    fight.asking = []
    base = [fight.target] if fight.target in game.state.ships else []
    own, lent = _defence_options(game, fight)
    if fight.defender == game.scelrotia:
        fight.defenders = base + own
        fight.stage = "strike"
    elif not own and not lent:
        fight.defenders = base
        fight.stage = "strike"
    else:
        fight.defenders = base
        fight.stage = "defend"


# --- the steps ---------------------------------------------------------------------------------


def legal(game: Game) -> tuple[str, ...]:
    fight = game.state.combat
    if fight is None:
        return ()
    stage = fight.stage
    if stage == "lend":
        return ("lend yes", "lend no")
    if stage == "defend":
        own, lent = _defence_options(game, fight)
        out = ["defend none"]
        choices = _subsets(own) + ([tuple(own) + extra for extra in _subsets(lent, 3)]
                                   if lent else [])
        out.extend(f"defend {','.join(sorted(c, key=_sid))}" for c in choices)
        return tuple(out)
    if stage == "strike":
        cap = min(_strike_cap(game, fight), _affordable(game, fight.attacker, "strike"))
        return tuple(f"strike {n}" for n in range(1, cap + 1))
    if stage in ("damage", "attacker-damage"):
        return tuple(_damage_options(game, fight))
    if stage == "counter":
        return tuple(f"counter {n}" for n in range(0, _counter_cap(game, fight) + 1))
    if stage == "steal":
        card, stealer, _ = fight.steals[0]
        return ("steal none", *(f"steal {h}" for h in _steal_holders(game, fight, stealer)))
    return ()


def _affordable(game: Game, seat: int, action: str) -> int:
    price = game.read.cost(seat, action)
    return game.state.seats[seat].energy // price if price else 99


def _strike_cap(game: Game, fight: Combat) -> int:
    """One strike per colony on the attacking ships (plus abilities)."""
    crews = sum(game.state.ships[s].colonies for s in fight.attackers if s in game.state.ships)
    return crews + game.read.mods(fight.attacker).strikes if crews else 0


def _counter_cap(game: Game, fight: Combat) -> int:
    """One free counter-strike per colony left on the defending ships (not the planet:
    "Defending ships may counter strike once for each remaining colony onboard")."""
    crews = sum(game.state.ships[s].colonies for s in fight.defenders if s in game.state.ships)
    return crews + game.read.mods(fight.defender).counters if crews else 0


def apply(game: Game, action: Action, text: str) -> None:
    fight = game.state.combat
    if fight is None:
        raise game.fail(text, "no combat is in progress", RULE)
    stage = fight.stage
    expected = {"lend": "lend", "defend": "defend", "strike": "strike", "damage": "damage",
                "attacker-damage": "damage", "counter": "counter", "steal": "steal"}[stage]
    if action.verb != expected:
        raise game.fail(text, f"combat is at the {stage} step: {game.name(acting_seat(fight))} "
                        f"must play {expected!r}", RULE)
    if stage == "lend":
        _lend(game, fight, action.args[0] == "yes")
    elif stage == "defend":
        _defend(game, fight, action, text)
    elif stage == "strike":
        _strike(game, fight, int(action.args[0]), text)
    elif stage == "damage":
        _take(game, fight, action.damage, text, defending=True)
    elif stage == "counter":
        _counter(game, fight, int(action.args[0]), text)
    elif stage == "attacker-damage":
        _take(game, fight, action.damage, text, defending=False)
    else:
        _steal(game, fight, action.args[0], text)


def _lend(game: Game, fight: Combat, agree: bool) -> None:
    seat, side = fight.asking.pop(0)
    if not agree:
        ships = fight.attackers if side == "attack" else fight.defenders
        ships[:] = [s for s in ships if game.state.ships[s].owner != seat]
    if fight.asking:
        return
    if side == "attack":
        _to_defend(game, fight)
    else:
        fight.stage = "strike"


def _defend(game: Game, fight: Combat, action: Action, text: str) -> None:
    if action.args[0] == "none":
        fight.stage = "strike"
        return
    own, lent = _defence_options(game, fight)
    chosen = action.args[0].split(",")
    for sid in chosen:
        if sid not in own and sid not in lent:
            raise game.fail(text, f"{sid} cannot defend {fight.target}: a defender is a crewed "
                            "ship of the defender or a third player, in range", RULE)
    fight.defenders = fight.defenders + sorted(chosen, key=_sid)
    lenders = sorted({o for s in chosen if s in lent and (o := game.state.ships[s].owner) is not None})
    if lenders:
        fight.stage = "lend"
        fight.asking = [(s, "defend") for s in lenders]
    else:
        fight.stage = "strike"


def _strike(game: Game, fight: Combat, count: int, text: str) -> None:
    cap = _strike_cap(game, fight)
    if count > cap:
        raise game.fail(text, f"the attacking ships may strike at most {cap} times (one per "
                        "colony aboard)", RULE + " (Attacker Strikes)")
    price = game.read.cost(fight.attacker, "strike") * count
    game.pay(fight.attacker, price, text, f"{count} strikes", RULE + " (1E = 1 Strike)")
    fight.strikes = count
    fight.stage = "damage"
    if fight.defender == game.scelrotia:
        _take(game, fight, _scelrotia_split(game, fight), text, defending=True)


def _units(game: Game, fight: Combat, defending: bool) -> list[Ship | BodyState]:
    state = game.state
    out: list[Ship | BodyState] = []
    if defending:
        target = state.bodies.get(fight.target)
        if target is not None and target.owner == fight.defender and target.colonies:
            out.append(target)
        names = fight.defenders
    else:
        names = fight.attackers
    out.extend(state.ships[s] for s in names if s in state.ships and state.ships[s].colonies)
    return out


def _merged(fight: Combat, damage: tuple[Damage, ...]) -> dict[str, Damage]:
    """The damage chosen so far at this step plus ``damage``, per unit."""
    out = {unit: Damage(unit, lost, shields, bang) for unit, lost, shields, bang in fight.split}
    for d in damage:
        was = out.get(d.unit, Damage(d.unit, 0))
        out[d.unit] = Damage(d.unit, was.lost + d.lost, was.shields + d.shields,
                             was.destruct or d.destruct)
    return out


def damage_due(game: Game, fight: Combat) -> tuple[int, int, int]:
    """The running total of a damage step: (chosen so far, due, colonies in the
    encounter on the side taking it)."""
    defending = fight.stage == "damage"
    count = fight.strikes if defending else fight.counters
    chosen = sum(lost + shields for _, lost, shields, _ in fight.split)
    total = sum(u.colonies for u in _units(game, fight, defending))
    return chosen, count, total


def _damage_problem(game: Game, fight: Combat, damage: tuple[Damage, ...],
                    defending: bool) -> str | None:
    """Why ``damage`` may not be added to the damage chosen so far (None: it may). The
    damage is chosen one unit at a time (``damage s4:1``, ``damage s4:0/1``), or all at
    once (``damage s4:1/2 planet.white.2:1``, the notation of older logs): either way the
    chosen damage never goes beyond what is due."""
    units = {u.id: u for u in _units(game, fight, defending)}
    payer = fight.defender if defending else fight.attacker
    count = fight.strikes if defending else fight.counters
    bonus = game.read.mods(payer).shields if payer != game.scelrotia else 0
    lost = shields = over = 0
    for d in damage:
        if d.unit not in units:
            return f"{d.unit} is not in the encounter on this side ({', '.join(units) or 'none'})"
        if d.shields and not isinstance(units[d.unit], Ship):
            return f"{d.unit} is not a ship: only colonies on ships shield"
    for d in _merged(fight, damage).values():
        unit = units[d.unit]
        if d.lost > unit.colonies:
            return f"{d.unit} holds only {unit.colonies} colonies"
        if d.destruct and (not isinstance(unit, Ship) or d.lost < unit.colonies):
            return f"only a ship whose colonies are all lost may self-destruct ({d.unit})"
        over += max(0, d.shields - unit.colonies)
        lost += d.lost
        shields += d.shields
    if over > bonus:
        return ("shields are capped at one per colony aboard, whatever energy remains"
                + (f" (plus {bonus} from abilities)" if bonus else ""))
    paying = sum(d.shields for d in damage)
    if paying and payer != game.scelrotia and paying > game.state.seats[payer].energy:
        return f"{paying} shields need {paying}E, {game.name(payer)} has " \
               f"{game.state.seats[payer].energy}E"
    if lost + shields > count:
        return f"the damage must add up to {count} (or destroy every colony in the encounter)"
    return None


def _damage_options(game: Game, fight: Combat) -> list[str]:
    """One unit at a time: a colony lost (with ``!``, the ship's last one, and the emptied
    ship self-destructs), or one shield on a ship (1E)."""
    defending = fight.stage == "damage"
    chosen = _merged(fight, ())
    out: list[str] = []
    for unit in _units(game, fight, defending):
        so_far = chosen.get(unit.id, Damage(unit.id, 0))
        steps = []
        if so_far.lost < unit.colonies:
            steps.append(Damage(unit.id, 1))
            if isinstance(unit, Ship) and so_far.lost + 1 == unit.colonies:
                steps.append(Damage(unit.id, 1, 0, True))
        if isinstance(unit, Ship):
            steps.append(Damage(unit.id, 0, 1))
        for step in steps:
            if _damage_problem(game, fight, (step,), defending) is None:
                out.append(f"damage {step.notation()}")
    return out


def _take(game: Game, fight: Combat, damage: tuple[Damage, ...], text: str,
          defending: bool) -> None:
    """Add ``damage`` to the damage chosen at this step (shields are paid at once); once
    it adds up to what is due, or every colony on this side is lost, it is taken."""
    problem = _damage_problem(game, fight, damage, defending)
    if problem is not None:
        raise game.fail(text, problem, RULE + " (Defender Takes Damage)")
    payer = fight.defender if defending else fight.attacker
    shields = sum(d.shields for d in damage)
    if shields and payer != game.scelrotia:
        game.pay(payer, shields, text, f"{shields} shields", RULE + " (Shield Damage)")
    merged = _merged(fight, damage)
    fight.split = [(d.unit, d.lost, d.shields, d.destruct) for d in merged.values()]
    chosen, count, total = damage_due(game, fight)
    lost = sum(d.lost for d in merged.values())
    if chosen < count and lost < total:
        return  # more to choose
    fight.split = []
    stealer = fight.attacker if defending else fight.defender
    state = game.state
    for d in merged.values():
        unit = game.read.holder(d.unit)
        if unit is None:  # checked by _damage_problem
            continue
        unit.colonies -= d.lost
        if unit.colonies:
            continue
        fight.steals.extend((card, stealer, unit.id) for card in unit.waypoints)
        unit.waypoints.clear()
        if isinstance(unit, BodyState):
            game.lose_body(unit)
        elif d.destruct:
            del state.ships[unit.id]
        else:
            unit.owner = None  # abandoned
    if defending:
        _to_counter(game, fight)
    else:
        _finish(game, fight)


def _scelrotia_split(game: Game, fight: Combat) -> tuple[Damage, ...]:
    """The Scelrotia takes damage on the target first, then its ships in id order; it
    has no energy, so no shields; emptied ships stay abandoned."""
    left = fight.strikes
    out = []
    for unit in _units(game, fight, True):
        lost = min(left, unit.colonies)
        if lost:
            out.append(Damage(unit.id, lost))
        left -= lost
    return tuple(out)


def _to_counter(game: Game, fight: Combat) -> None:
    if fight.defender == game.scelrotia:
        # "The Scelrotia always counter-attacks for each of their colonies, even when
        # not defended by a ship": the target's and the defending ships' colonies.
        target = game.read.holder(fight.target)
        count = sum(u.colonies for u in _units(game, fight, True))
        if target is not None and target.owner == game.scelrotia and isinstance(target, Ship) \
                and target.id not in fight.defenders:
            count += target.colonies
        _counter(game, fight, count, "counter")
        return
    if _counter_cap(game, fight) == 0:
        _finish(game, fight)
        return
    fight.stage = "counter"


def _counter(game: Game, fight: Combat, count: int, text: str) -> None:
    cap = _counter_cap(game, fight) if fight.defender != game.scelrotia else count
    if count > cap:
        raise game.fail(text, f"the defending ships may counter-strike at most {cap} times "
                        "(one per remaining colony aboard)", RULE + " (Defender Counter-Strikes)")
    fight.counters = count  # free: "Defenders counter-strike for free (0E)"
    if count == 0 or not _units(game, fight, False):
        _finish(game, fight)
        return
    fight.stage = "attacker-damage"
    if fight.attacker == game.scelrotia:  # never: the Scelrotia infects, it does not attack
        _finish(game, fight)


def _steal_holders(game: Game, fight: Combat, stealer: int) -> list[str]:
    """Where a stolen waypoint may go: the stealer's ships in the encounter or its
    planets and moons, with room, and not into a sector already holding one of its
    waypoints (docs: "Stolen waypoints")."""
    state = game.state
    read = game.read
    out: list[str] = []
    encounter = set(fight.attackers) | set(fight.defenders)
    candidates: list[Ship | BodyState] = [b for b in state.bodies.values() if b.owner == stealer]
    candidates += [state.ships[s] for s in sorted(encounter, key=_sid)
                   if s in state.ships and state.ships[s].owner == stealer]
    for holder in candidates:
        if holder.colonies == 0 or len(holder.waypoints) >= read.waypoint_limit(holder):
            continue
        if set(read.sectors(holder)) & read.waypoint_sectors(stealer, holder.id):
            continue
        out.append(holder.id)
    taken = _take_over(game, fight, stealer)
    if taken is not None:
        out.append(taken[0])
    return out


def _take_over(game: Game, fight: Combat, stealer: int) -> tuple[str, str] | None:
    """``(body, ship)`` when the stealer may "take over the planet and keep it there":
    the emptied holder is a body, one of the stealer's crewed ships in the encounter
    orbits it, and the stealer can settle it at its cost (the colony comes from that
    ship, as any settle's does); None otherwise."""
    state = game.state
    emptied = state.bodies.get(fight.steals[0][2]) if fight.steals else None
    if emptied is None or emptied.owner is not None or not game.may_settle(emptied):
        return None
    if set(game.read.sectors(emptied)) & game.read.waypoint_sectors(stealer):
        return None
    if state.seats[stealer].energy < game.read.settle_cost(stealer, emptied):
        return None
    orbit = game.board.bodies[emptied.id].orbit
    encounter = sorted(set(fight.attackers) | set(fight.defenders), key=_sid)
    for sid in encounter:
        ship = state.ships.get(sid)
        if ship is not None and ship.owner == stealer and ship.colonies and ship.quadrant in orbit:
            return emptied.id, sid
    return None


def _finish(game: Game, fight: Combat) -> None:
    """The encounter is over; reassign emptied waypoints, then back to the turn."""
    while fight.steals:
        card, stealer, _ = fight.steals[0]
        if game.read.is_human(stealer) and _steal_holders(game, fight, stealer):
            fight.stage = "steal"
            return
        fight.steals.pop(0)  # nobody can take it: it is under no player's control
    game.state.combat = None


def _steal(game: Game, fight: Combat, where: str, text: str) -> None:
    card, stealer, _ = fight.steals[0]
    if where != "none":
        if where not in _steal_holders(game, fight, stealer):
            raise game.fail(text, f"the waypoint cannot go to {where}: choose one of "
                            f"{', '.join(_steal_holders(game, fight, stealer))} or none",
                            "Waypoints (stealing)")
        taken = _take_over(game, fight, stealer)
        if taken is not None and where == taken[0]:
            # "or they can take over the planet and keep it there": settled at its cost.
            game.settle_body(stealer, taken[0], taken[1], text)
        holder = game.read.holder(where)
        if holder is not None:  # one of _steal_holders
            holder.waypoints.append(card)
    fight.steals.pop(0)
    _finish(game, fight)


__all__ = ["acting_seat", "apply", "damage_due", "declare", "legal", "legal_attacks"]
