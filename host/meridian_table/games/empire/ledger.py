"""The energy ledger: what every player's phone shows of an Empire in Space game.

Pure data for the page (``board.ledger`` in the page state, drawn by the game's own
``games/empire/static/page.js``): each seat's cells, charges, colonies, waypoints and
cards; the round, the turn and the final round's order; every action the seat to act
may take, grouped as on the costs table, with its cost worked out by the engine itself
(equity, cards and abilities applied); and the round's log in words.
"""

from __future__ import annotations

import re
from typing import Any

from meridian_table.games.empire.combat import damage_due
from meridian_table.games.empire.engine import Game
from meridian_table.games.empire.state import State
from meridian_table.i18n import N_, _, language, seat_word

#: The groups of the spending list, in the order of the costs table.
GROUPS = (
    ("move", N_("Move a ship")), ("settle", N_("Settle")), ("discover", N_("Discover")),
    ("colony", N_("New colony")), ("build", N_("Build a ship")), ("transfer", N_("Move colonies")),
    ("waypoint", N_("Waypoint")), ("charge", N_("Make a charge")), ("attack", N_("Attack")),
    ("event", N_("Play an event")), ("discard", N_("Discard an event (renew 3 cells)")),
    ("token", N_("Victory token")), ("give", N_("Give charges")),
    ("lend", N_("Lend ships")), ("defend", N_("Defend")), ("strike", N_("Strike")),
    ("damage", N_("Take the damage")), ("counter", N_("Counter-strike")),
    ("steal", N_("Stolen waypoint")), ("end", N_("End the turn")),
)
GROUP_TITLES = dict(GROUPS)

STAGES = {
    "lend": N_("decides whether to lend ships"),
    "defend": N_("chooses the defending ships"),
    "strike": N_("strikes"),
    "damage": N_("takes the damage one colony or shield at a time"),
    "counter": N_("counter-strikes"),
    "attacker-damage": N_("takes the counter-strike's damage one colony or shield at a time"),
    "steal": N_("reassigns a stolen waypoint"),
    "scelrotia": N_("(the Scelrotia) takes its turn"),
}
RINGS = {"yellow": N_("yellow"), "white": N_("white"), "orange": N_("orange")}
KINDS = {"fighter": N_("fighter {n}"), "frigate": N_("frigate {n}")}
KIND_WORDS = {"fighter": N_("fighter"), "frigate": N_("frigate")}
COLOUR_WORDS = (N_("Red"), N_("Blue"), N_("Green"), N_("Yellow"), N_("Scelrotia"))


def card_word(name: str) -> str:
    """A card's name in the table's language: the shipped set's names are in the
    catalogue; a set of one's own says its names as written."""
    return _(name) if name else name


def seat_name(colour: str) -> str:
    """A seat's colour as a word in the table's language ("red" -> "Red" / "Rouge")."""
    return seat_word(colour)


def thing(game: Game, token: str, names: tuple[str, ...] = ()) -> str:
    """A ship, body, quadrant or seat token in words; a face-down planet is never named
    (no free peeks): "the face-down white planet in sector 3"."""
    state = game.state
    if token in state.ships:
        ship = state.ships[token]
        return _(KINDS[ship.kind]).format(n=token[1:])
    body = state.bodies.get(token)
    if body is not None:
        if token.startswith("moon."):
            return _("moon {name}").format(name=card_word(body.card))
        if body.discovered:
            return card_word(body.card)
        sectors = "/".join(str(s) for s in game.board.bodies[token].borders)
        return _("the face-down {ring} planet in sector {sector}").format(
            ring=_(RINGS.get(token.split(".")[1], "yellow")), sector=sectors)
    if token.startswith("S") and "Q" in token:
        sector, quadrant = token[1:].split("Q")
        return _("sector {sector}, quadrant {quadrant}").format(sector=sector, quadrant=quadrant)
    if token.startswith("P") and token[1:].isdigit():
        seat = int(token[1:]) - 1
        return names[seat] if seat < len(names) else game.name(seat)
    return token


def _count(n: int | str, one: str, many: str) -> str:
    return (_(one) if str(n) == "1" else _(many)).format(n=n)


def words(game: Game, action: str, names: tuple[str, ...] = ()) -> str:
    """``action`` in words for a player ("move fighter 3 to sector 2, quadrant 4"), in
    the table's language; ``names`` are the seats' names (the engine's own by default)."""
    parts = action.split()
    verb, args = parts[0], parts[1:]

    def it(token: str) -> str:
        return thing(game, token, names)

    if verb == "move":
        return _("move {ship} to {where}").format(ship=it(args[0]), where=it(args[1]))
    if verb == "settle":
        return _("settle {body} with a colony from {ship}").format(body=it(args[0]),
                                                                   ship=it(args[1]))
    if verb == "discover":
        return _("discover {body}").format(body=it(args[0]))
    if verb == "colony":
        return _("a new colony on {holder}").format(holder=it(args[0]))
    if verb == "build":
        n = int(args[3])
        kind = _(KIND_WORDS[args[0]])
        if args[1].startswith("moon."):  # Moon Equity: the colonies are created onto it
            return (_("build a {kind} at {where} around {moon}, {n} new colony aboard "
                      "(1E each)") if n == 1 else
                    _("build a {kind} at {where} around {moon}, {n} new colonies aboard "
                      "(1E each)")).format(kind=kind, where=it(args[2]), moon=it(args[1]), n=n)
        return (_("build a {kind} at {where} from {body}, {n} colony aboard") if n == 1 else
                _("build a {kind} at {where} from {body}, {n} colonies aboard")).format(
            kind=kind, where=it(args[2]), body=it(args[1]), n=n)
    if verb == "transfer":
        n = int(args[2])
        return (_("move {n} colony from {source} to {target}") if n == 1 else
                _("move {n} colonies from {source} to {target}")).format(
            n=n, source=it(args[0]), target=it(args[1]))
    if verb == "waypoint":
        return _("build a waypoint on {holder}").format(holder=it(args[0]))
    if verb == "charge":
        return _("make a charge")
    if verb == "give":
        return (_("{giver} gives {n} charge to {taker}") if args[2] == "1" else
                _("{giver} gives {n} charges to {taker}")).format(
            giver=it(args[0]), n=args[2], taker=it(args[1]))
    if verb == "attack":
        ships = ", ".join(it(s) for s in args[1].split(","))
        return _("attack {target} with {ships}").format(target=it(args[0]), ships=ships)
    if verb == "defend":
        return _("defend with no ship") if args[0] == "none" else \
            _("defend with {ships}").format(ships=", ".join(it(s) for s in args[0].split(",")))
    if verb == "strike":
        return _count(args[0], N_("strike {n} time"), N_("strike {n} times"))
    if verb == "counter":
        return _count(args[0], N_("counter-strike {n} time"), N_("counter-strike {n} times"))
    if verb == "damage" and len(args) == 1 and args[0].endswith((":1", ":1!", ":0/1")):
        unit = args[0].split(":")[0]
        if args[0].endswith(":0/1"):
            return _("{unit} shields one strike (1E)").format(unit=it(unit))
        if args[0].endswith("!"):
            return _("{unit} loses its last colony and self-destructs").format(unit=it(unit))
        return _("{unit} loses a colony").format(unit=it(unit))
    if verb == "damage":
        return _("damage: {split}").format(split=split_words(game, [
            _unit(u) for u in args], names))
    if verb == "lend":
        return _("lend the ships") if args[0] == "yes" else _("refuse to lend")
    if verb == "steal":
        if args[0] == "none":
            return _("let the waypoint go")
        fight = game.state.combat
        if fight is not None and fight.steals and fight.steals[0][2] == args[0]:
            return _("take over {body} and keep the waypoint there").format(body=it(args[0]))
        return _("take the waypoint onto {holder}").format(holder=it(args[0]))
    if verb == "event":
        return _("play the event {card}").format(card=card_word(" ".join(args)))
    if verb == "discard":
        return _("discard the event {card}").format(card=card_word(" ".join(args)))
    if verb == "token":
        return _("spend a victory token to skip the Scelrotia's turn") if args[0] == "skip" \
            else _("spend a victory token to renew 4 cells")
    if verb == "end":
        return _("end the turn")
    if verb == "time":
        return _("call time")
    if verb == "scelrotia":
        return _("the Scelrotia's turn")
    return action


def _unit(text: str) -> tuple[str, int, int, bool]:
    name, _sep, rest = text.partition(":")
    lost, _sep, shields = rest.rstrip("!").partition("/")
    return name, int(lost or 0), int(shields or 0), text.endswith("!")


def split_words(game: Game, split: list[tuple[str, int, int, bool]],
                names: tuple[str, ...] = ()) -> str:
    """Damage per unit in words ("Nexus loses 1 colony; frigate 3 shields 2")."""
    out = []
    for unit, lost, shields, bang in split:
        parts = []
        if lost:
            parts.append(_count(lost, N_("loses {n} colony"), N_("loses {n} colonies")))
        if shields:
            parts.append(_count(shields, N_("shields {n} strike"), N_("shields {n} strikes")))
        if bang:
            parts.append(_("self-destructs"))
        out.append(f"{thing(game, unit, names)} " + _(", ").join(parts))
    return "; ".join(out)


#: What the Scelrotia did (``scelrotia.take_turn``), step by step, as patterns.
_STEPS = (
    (re.compile(r"(\S+) grows$"), N_("{a} grows")),
    (re.compile(r"(\S+) infects (\S+)$"), N_("{a} is full: it infects {b}")),
    (re.compile(r"(\S+) builds (\S+) at (\S+)$"), N_("{a} builds {b} at {c}")),
    (re.compile(r"(\S+) cannot build: its orbit is full$"),
     N_("{a} cannot build: its orbit is full")),
    (re.compile(r"(\S+) moves (\S+)-(\S+) towards (\S+)$"), N_("{a} moves to {c}, towards {d}")),
    (re.compile(r"the Scelrotia's turn is skipped \(a victory token\)$"),
     N_("its turn is skipped (a victory token)")),
)


def scelrotia_words(game: Game, steps: tuple[str, ...] | list[str]) -> list[str]:
    """The Scelrotia's turn in words, one step a line ("Moji is full: it infects moon
    Aster"); a moon or ship that infects a ship is "not full", so it just infects."""
    out = []
    for step in steps:
        for pattern, text in _STEPS:
            found = pattern.match(step)
            if found is None:
                continue
            parts = [thing(game, g) for g in found.groups()]
            said = _(text)
            if text == _STEPS[1][1] and (found.group(1).startswith(("moon.", "s"))
                                         and not found.group(1).startswith("sector")):
                said = _("{a} infects {b}")
            out.append(said.format(**dict(zip("abcd", parts, strict=False))))
            break
        else:
            out.append(step)
    return out


#: The end of a game and the end triggers, as the engine says them (patterns).
_REASONS = (
    (re.compile(r"(.+) controls the most waypoints \((\d+)\) after the final round$"),
     N_("{a} controls the most waypoints ({b}) after the final round")),
    (re.compile(r"the players hold the four inner planets, keeping (\d+) victory tokens$"),
     N_("the players hold the four inner planets, keeping {a} victory tokens")),
    (re.compile(r"the Scelrotia holds the four inner planets$"),
     N_("the Scelrotia holds the four inner planets")),
    (re.compile(r"the players have no colonies left$"), N_("the players have no colonies left")),
    (re.compile(r"the table called time before the players held the four inner planets$"),
     N_("the table called time before the players held the four inner planets")),
    (re.compile(r"the table called time$"), N_("the table called time")),
    (re.compile(r"(.+) has (\d+) waypoints$"), N_("{a} has {b} waypoints")),
    (re.compile(r"(.+) lost all their colonies$"), N_("{a} lost all their colonies")),
    (re.compile(r"(.+) has presence in all eight sectors$"),
     N_("{a} has presence in all eight sectors")),
    (re.compile(r"all planets and moons are settled$"), N_("all planets and moons are settled")),
    (re.compile(r"all planets are settled$"), N_("all planets are settled")),
)


def reason_words(game: Game, text: str, names: tuple[str, ...] = ()) -> str:
    """An end or trigger reason in the table's language, seats by their colour word."""
    for pattern, said in _REASONS:
        found = pattern.match(text)
        if found is None:
            continue
        parts = list(found.groups())
        if parts and parts[0] in game.names and not parts[0].isdigit():
            seat = game.names.index(parts[0])
            parts[0] = names[seat] if seat < len(names) else parts[0]
        return _(said).format(**dict(zip("ab", parts, strict=False)))
    return text


def cost(game: Game, seat: int, action: str) -> int:
    """Energy ``action`` costs ``seat``: the unused cells and charges it spends (a
    settle's price from the engine itself, since its card may give charges back).
    Played on ``game`` and taken back: callers that keep ``game.state`` use a clone."""
    verb = action.split()[0]
    if verb in ("give", "end"):
        return 0
    if verb == "settle":
        return game.read.settle_cost(seat, game.state.bodies[action.split()[1]])
    info = game.state.seats[seat]
    unused, charges = info.cells - info.used, info.charges
    game.play(action)
    try:
        after = game.state.seats[seat]
        spent = (unused - (after.cells - after.used)) + max(0, charges - after.charges)
    finally:
        game.undo()
    return max(0, spent)


def costs(game: Game) -> dict[str, int]:
    """Energy each legal action costs the seat that acts (equity, cards and abilities
    applied): played on the engine and taken back."""
    seat = game.turn().seat
    if seat is None or not game.read.is_human(seat):
        return {}
    # Probed on a copy: undo puts a copy of the state back, so an object read from
    # ``game`` before would be one probed action ahead (issue 24).
    probe = game.clone()
    return {action: cost(probe, seat, action) for action in probe.legal()}


def damage_words(game: Game, names: tuple[str, ...] = ()) -> str:
    """The running total of a damage step in words ("2 of 6 chosen (Nexus loses 1
    colony; frigate 3 shields 1 strike)")."""
    fight = game.state.combat
    if fight is None:
        return ""
    chosen, due, _total = damage_due(game, fight)
    said = _("{chosen} of {due} chosen").format(chosen=chosen, due=due)
    if fight.split:
        said += f" ({split_words(game, list(fight.split), names)})"
    return said


#: Seconds a defender or a lender has to decide before the default is taken.
DECIDE_S = 20


def default(game: Game) -> str | None:
    """What a seat deciding during another player's turn does if it lets the countdown
    run out: no lending, no extra defending ships, every counter-strike it may make (they
    are free), a stolen waypoint let go. Strikes and damage are never defaulted."""
    legal = game.legal()
    stage = game.turn().phase
    if stage == "lend" and "lend no" in legal:
        return "lend no"
    if stage == "defend" and "defend none" in legal:
        return "defend none"
    if stage == "counter":
        counters = [a for a in legal if a.startswith("counter ")]
        return max(counters, key=lambda a: int(a.split()[1])) if counters else None
    if stage == "steal" and "steal none" in legal:
        return "steal none"
    return None


def warning(game: Game, seat: int, action: str) -> str:
    """What ``action`` gives up of ``seat``'s own, in words ("" when nothing): a planet
    or moon left empty, a waypoint out of its control. Played on ``game`` and taken back
    (the ledger uses a copy)."""
    if action.split()[0] not in ("transfer", "build", "settle", "move", "colony"):
        return ""
    read = game.read
    bodies = {b.id for b in game.state.bodies.values() if b.owner == seat}
    waypoints = read.waypoints(seat)
    game.play(action)
    try:
        lost = sorted(bodies - {b.id for b in game.state.bodies.values() if b.owner == seat})
        fewer = waypoints - read.waypoints(seat)
    finally:
        game.undo()
    said = []
    if lost:
        said.append(_("you give up {bodies}").format(
            bodies=", ".join(thing(game, b) for b in lost)))
    if fewer > 0:
        said.append(_count(fewer, N_("you lose control of {n} waypoint"),
                           N_("you lose control of {n} waypoints")))
    return "; ".join(said)


def _where(game: Game, names: tuple[str, ...], holder: Any) -> str:
    return (_("{holder}: {n} colony") if holder.colonies == 1 else
            _("{holder}: {n} colonies")).format(holder=thing(game, holder.id, names),
                                                n=holder.colonies)


def action_entries(game: Game, labels: tuple[str, ...], actor: int | None
                   ) -> list[dict[str, Any]]:
    """The ledger's actions: every legal action with its words, its cost and what it
    gives up (each probed on a copy of ``game``)."""
    probe = game.clone()
    return [{"notation": action, "group": action.split()[0],
             "words": words(game, action, labels), "cost": spent,
             "warning": warning(probe, actor, action) if actor is not None else ""}
            for action, spent in costs(game).items()]


class ActionsMemo:
    """The ledger's actions for the last position asked, worked out again only when the
    position (compared field by field), the language, the seats' names or the seat
    acting changed. The page is drawn again on every switch change, while the position
    changes only when an action is played; working each legal action's cost and warning
    out (two probes each) took most of the page's time (issue 29)."""

    def __init__(self) -> None:
        self._key: tuple[str, tuple[str, ...], int | None] | None = None
        self._state: State | None = None
        self._actions: list[dict[str, Any]] = []

    def actions(self, game: Game, labels: tuple[str, ...], actor: int | None
                ) -> list[dict[str, Any]]:
        """:func:`action_entries` of ``game`` (fresh dicts: the caller may change them)."""
        key = (language(), labels, actor)
        if self._key != key or self._state is None or game.state != self._state:
            self._actions = action_entries(game, labels, actor)
            self._key, self._state = key, game.state.copy()
        return [dict(entry) for entry in self._actions]


def ledger(game: Game, colours: tuple[str, ...], history: list[str],
           offers: list[str], memo: ActionsMemo | None = None) -> dict[str, Any]:
    """Everything the energy ledger shows (module docstring), in the table's language:
    a pure function of ``game``, which it leaves untouched (the costs and warnings are
    probed on a copy). ``memo`` keeps the actions of a position asked again."""
    state = game.state
    read = game.read
    turn = game.turn()
    seats = []
    labels = tuple(seat_name(c) for c in colours)
    for seat, name in enumerate(labels):
        bodies = [{"id": b.id, "card": b.card, "card_words": card_word(b.card),
                   "colonies": b.colonies,
                   "waypoints": list(b.waypoints), "words": _where(game, labels, b)}
                  for b in state.bodies.values() if b.owner == seat]
        ships = [{"id": s.id, "kind": s.kind, "quadrant": s.quadrant, "colonies": s.colonies,
                  "waypoints": list(s.waypoints),
                  "words": (_("{ship} at {where}: {n} colony") if s.colonies == 1 else
                            _("{ship} at {where}: {n} colonies")).format(
                      ship=thing(game, s.id), where=thing(game, s.quadrant), n=s.colonies)}
                 for s in state.ships.values() if s.owner == seat]
        entry: dict[str, Any] = {"seat": colours[seat], "name": name, "bodies": bodies,
                                 "ships": ships, "colonies": read.colonies(seat)}
        if read.is_human(seat):
            info = state.seats[seat]
            equity = []
            if read.energy_equity() == seat:
                equity.append(_("Energy Equity: settle and make charges for 1E less"))
            if read.moon_equity() == seat:
                equity.append(_("Moon Equity: build ships around moons, their colonies at 1E"))
            entry.update({
                "cells": info.cells, "unused": info.cells - info.used, "used": info.used,
                "charges": info.charges, "energy": info.energy,
                "waypoints": read.waypoints(seat), "presence": sorted(read.presence(seat)),
                "hand": list(info.hand), "events": list(info.events), "guild": info.guild,
                # The cards' names as the page shows them (the lists above are notation).
                "hand_words": [card_word(c) for c in info.hand],
                "events_words": [card_word(c) for c in info.events],
                "guild_words": seat_word(info.guild) if info.guild else "",  # its colour
                "equity": equity,
            })
        seats.append(entry)
    actor = turn.seat
    actions = (memo or ActionsMemo()).actions(game, labels, actor)
    fight = state.combat
    combat = None
    if fight is not None:
        combat = {
            "attacker": colours[fight.attacker], "defender": colours[fight.defender],
            "target": fight.target, "attackers": list(fight.attackers),
            "defenders": list(fight.defenders), "stage": fight.stage,
            "strikes": fight.strikes, "counters": fight.counters,
            "chosen": damage_due(game, fight)[0], "due": damage_due(game, fight)[1],
            "split": [{"unit": u, "lost": lost, "shields": sh, "destruct": bang}
                      for u, lost, sh, bang in fight.split],
            "split_words": damage_words(game, labels)
            if fight.stage in ("damage", "attacker-damage") else "",
            "words": _("{attacker} attacks {target} of {defender} with {ships}").format(
                attacker=labels[fight.attacker], target=thing(game, fight.target),
                defender=labels[fight.defender],
                ships=", ".join(thing(game, s) for s in fight.attackers if s in state.ships))
            + ("; " + _("defending: {ships}").format(ships=", ".join(
                thing(game, s) for s in fight.defenders if s in state.ships))
               if fight.defenders else "")
            + ("; " + _count(fight.strikes, N_("{n} strike"), N_("{n} strikes")) if fight.strikes else "")
            + ("; " + _count(fight.counters, N_("{n} counter-strike"), N_("{n} counter-strikes"))
               if fight.counters else ""),
        }
    outcome = None
    if state.winners is not None:
        outcome = {
            "winners": [colours[w] for w in state.winners],
            "reason": reason_words(game, state.reason, labels),
            "infection": read.infection,
            "tokens": state.tokens if read.infection else None,
            "standing": {} if read.infection else
            {colours[s]: list(game.standing(s)) for s in range(len(game.players))}}
    return {
        "round": state.round,
        "final": state.final,
        "trigger": reason_words(game, state.trigger, labels) if state.trigger else "",
        "order": [colours[s] for s in state.order],
        "names": dict(zip(colours, labels, strict=True)),
        "turn": None if actor is None else colours[actor],
        "active": colours[state.active] if state.winners is None else None,
        "stage": turn.phase,
        "stage_words": _(STAGES[turn.phase]) if turn.phase in STAGES else "",
        "seats": seats,
        "infection": read.infection,
        "tokens": state.tokens if read.infection else None,
        "face_up_waypoint": state.face_up,
        "groups": [{"id": g, "title": _(t)} for g, t in GROUPS],
        "actions": actions,
        "offers": list(offers),
        "combat": combat,
        "default": None if (fallback := default(game)) is None else {
            "action": fallback, "words": words(game, fallback, labels), "seconds": DECIDE_S,
            "key": f"{len(game.history)}:{turn.phase}"},
        "scelrotia_did": scelrotia_words(game, state.scelrotia_did) if read.infection else [],
        "time": None if state.winners is not None or (state.trigger and not read.infection)
        else {"action": "time", "words": _("Call time"),
              "confirm": _("Calling time ends the game now: the Scelrotia wins, since the "
                           "players do not hold the four inner planets.") if read.infection
              else _("Calling time starts the final round: everyone plays one more turn, "
                     "then the most waypoints wins.")},
        "log": history[-30:],
        "outcome": outcome,
    }


def scores(game: Game, colours: tuple[str, ...]) -> dict[str, Any]:
    """Per seat: in the infection modes the victory tokens kept (the book's score,
    shared by the players) and colonies; in the standard game the waypoints, then the
    tie-breakers in their order."""
    read = game.read
    out: dict[str, Any] = {}
    for seat, colour in enumerate(colours):
        if not read.is_human(seat):
            out[colour] = {"total": read.colonies(seat), "breakdown": [
                {"label": _("colonies"), "value": read.colonies(seat)}]}
            continue
        info = game.state.seats[seat]
        if read.infection:
            out[colour] = {"total": game.state.tokens, "breakdown": [
                {"label": _("victory tokens kept"), "value": game.state.tokens},
                {"label": _("colonies"), "value": read.colonies(seat)}]}
            continue
        out[colour] = {"total": read.waypoints(seat), "breakdown": [
            {"label": _("waypoints"), "value": read.waypoints(seat)},
            {"label": _("energy"), "value": info.energy},
            {"label": _("cells"), "value": info.cells},
            {"label": _("charges"), "value": info.charges},
            {"label": _("sectors of presence"), "value": len(read.presence(seat))},
            {"label": _("colonies"), "value": read.colonies(seat)},
        ]}
    return out


__all__ = ["DECIDE_S", "GROUPS", "ActionsMemo", "action_entries", "cost", "costs", "damage_words",
           "default", "ledger",
           "card_word", "reason_words", "scelrotia_words", "scores", "seat_name", "split_words", "thing", "warning",
           "words"]
