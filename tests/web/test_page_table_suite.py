"""Acceptance of issue 26: the table as lichess and BoardGameArena players expect it.

One table (a TableHost on the virtual board, with its SQLite log) and one browser for
the whole module. In four looks (desktop 1280x800 with a mouse, phone 390x844 with
touch; English and French; light and dark) a person plays Kato against the computer
and resigns from the page's Resign dialog; then three people play Colovini to the end
on a French phone in the dark theme; then each finished game is replayed from the
other game's table. In every state the page reaches, the module records:

- axe-core's serious and critical violations (WCAG 2 A/AA and best practices);
- whether the board is in view (desktop: all of it; phone: its top on screen);
- on the phone, every visible target smaller than 44 x 44 px;
- on a French page, every English word outside the players' names.

The tests at the end assert each of these over everything recorded.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from tests.french import ENGLISH as ENGLISH  # other French tests read the list here too
from tests.french import english_words
from tests.web.axe import blocking, require_axe
from tests.web.tables import table_host

from meridian_table.table.lobby import TableHost
from meridian_table.table.runner import TableSetup
from meridian_table.web import WebServer, serve

# One worker runs the whole suite in order (one table, one browser); the replay test
# still plays the games it needs itself when it runs alone or after a failure.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("table-suite")]

NAMES = ("Ann", "Bea", "Cid", "Ordi")


@dataclass(frozen=True)
class Look:
    name: str
    width: int
    height: int
    lang: str
    theme: str

    @property
    def phone(self) -> bool:
        return self.width < 600

    def context(self) -> dict[str, Any]:
        options: dict[str, Any] = {"viewport": {"width": self.width, "height": self.height},
                                   "locale": "fr-FR" if self.lang == "fr" else "en-GB",
                                   "color_scheme": self.theme}
        if self.phone:
            options.update(is_mobile=True, has_touch=True, device_scale_factor=2)
        return options


LOOKS = (
    Look("desktop-en-light", 1280, 800, "en", "light"),
    Look("desktop-fr-dark", 1280, 800, "fr", "dark"),
    Look("phone-en-dark", 390, 844, "en", "dark"),
    Look("phone-fr-light", 390, 844, "fr", "light"),
)
COLOVINI_LOOK = Look("phone-fr-dark", 390, 844, "fr", "dark")


@dataclass
class Findings:
    """What the checks found, by kind: each entry names the look and the state."""

    axe: list[str] = field(default_factory=list)
    board: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    english: list[str] = field(default_factory=list)
    replay: list[str] = field(default_factory=list)
    states: int = 0
    finished: dict[str, int] = field(default_factory=dict)  # game -> logged game id
    sites: dict[str, int] = field(default_factory=dict)     # game -> sites drawn live
    players: dict[str, list[str]] = field(default_factory=dict)


FINDINGS = Findings()

# English words on a French page: one reading for every French test (tests/french.py).
WORD = re.compile(r"[A-Za-zÀ-ÿ']+")


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableHost]:
    db = tmp_path_factory.mktemp("suite") / "games.sqlite3"
    setup = TableSetup(game="kato", board="sim", profile="kato-80", players=NAMES[:2],
                       db=str(db), settle_s=0.03)
    with table_host(setup) as lobby:
        yield lobby


@pytest.fixture(scope="module")
def server(host: TableHost) -> Iterator[WebServer]:
    with serve(host, port=0) as running:
        yield running


def _open(browser: Any, server: WebServer, look: Look, errors: list[str]) -> Any:
    context = browser.new_context(**look.context())
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(f"{look.name}: {exc}"))
    page.goto(server.url)
    page.wait_for_function("window.meridian && window.meridian.renders > 0 && "
                           "window.meridian.connected")
    if look.lang == "fr":
        page.wait_for_function("window.MeridianI18n && window.MeridianI18n.lang === 'fr'")
        wait(page, "s.lang === 'fr'")
    return page


def wait(page: Any, condition: str, timeout: float = 30000) -> None:
    page.wait_for_function(
        f"(() => {{ const s = window.meridian.state; return {condition}; }})()", timeout=timeout)


def state(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("window.meridian.state"))


def request(page: Any, cmd: dict[str, Any]) -> dict[str, Any]:
    return dict(page.evaluate("(cmd) => window.meridian.request(cmd, null, 30000)", cmd))


def names(page: Any) -> set[str]:
    """The players' names and the games' own names ("Meridian", "Meridians")."""
    s = state(page)
    spec = s.get("spec") or {}
    titles = WORD.findall(f"{spec.get('title', '')} {spec.get('published', '')}")
    return {*NAMES, *s.get("players", []), *(s.get("seats") or {}).values(), *titles}


def check(page: Any, look: Look, what: str) -> None:
    """Record what the page shows in this state against every rule of the suite."""
    FINDINGS.states += 1
    where = f"{look.name} / {what}"
    page.wait_for_timeout(50)  # the translations and the layout of this state settle
    for v in blocking(page):
        FINDINGS.axe.append(f"{where}: {v['impact']} {v['id']} ({v['help']}) at {v['targets']}")
    box = page.evaluate("""(() => { const r = document.getElementById('board')
        .getBoundingClientRect(); return [r.top, r.bottom, r.height, innerHeight]; })()""")
    top, bottom, height, inner = box
    if height <= 0 or top >= inner or (not look.phone and bottom > inner + 1):
        FINDINGS.board.append(f"{where}: board from y={top:.0f} to {bottom:.0f} "
                              f"in a {inner}px window")
    if look.phone:
        small = page.evaluate("""(() => {
            const out = [];
            const seen = (el) => { const r = el.getBoundingClientRect(); const cs = getComputedStyle(el);
              return r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none'; };
            const label = (el) => (el.id ? '#' + el.id : el.tagName.toLowerCase()) +
              (el.dataset.site ? `[${el.dataset.site}]` : '') + ' ' +
              (el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 24);
            for (const el of document.querySelectorAll(
                'button, select, input, summary, a[href], [role=button], g.site')) {
              if (!seen(el) || el.closest('dialog:not([open])')) continue;
              const r = el.getBoundingClientRect();
              if (r.width < 44 || r.height < 44)
                out.push(`${label(el)} ${Math.round(r.width)}x${Math.round(r.height)}`);
            }
            return out; })()""")
        FINDINGS.targets.extend(f"{where}: {s}" for s in small)
    if look.lang == "fr":
        text = page.evaluate("""(() => {
            const parts = [document.body.innerText];
            for (const el of document.querySelectorAll('[title], [aria-label]'))
              parts.push(el.getAttribute('title') || '', el.getAttribute('aria-label') || '');
            return parts.join('\\n'); })()""")
        found = english_words(text, names(page))
        if found:
            FINDINGS.english.append(f"{where}: {', '.join(found)}")


# ---- Kato against the computer, to a resignation --------------------------------------


def _resign(page: Any, look: Look) -> None:
    page.click("#resign-open")
    page.wait_for_selector("#resign-dialog[open]")
    check(page, look, "resign dialog")
    page.click("#resign-dialog .resign-confirm")
    wait(page, "s.result !== null")
    page.wait_for_selector("#resign-dialog", state="hidden")


@pytest.mark.parametrize("look", LOOKS, ids=[look.name for look in LOOKS])
def test_kato_against_the_computer_to_a_resignation(
        browser: Any, server: WebServer, host: TableHost, look: Look) -> None:
    require_axe()
    errors: list[str] = []
    answer = host.command({"cmd": "new_game", "game": "kato", "players": ["Ann", "Ordi"],
                           "seats": {"2": "bot:1:20"}, "profile": "kato-80"})
    assert answer.get("ok"), answer
    page = _open(browser, server, look, errors)
    wait(page, "s.game === 'kato' && s.moves.length === 0 && s.seats_kind.dark === 'bot:1:20'")
    check(page, look, "Kato, the first move")
    rng = random.Random(look.name)
    checked: set[str] = set()
    for _ in range(200):
        s = state(page)
        phase = s["phase"]
        # Resign between the computer's move and Light's answer, like a person who gives up.
        if len(s["moves"]) >= 6 and phase == "play" and s["to_move"] == "light":
            break
        if phase == "ended":
            # Light's random stones lost before the sixth move (the computer's seed is
            # drawn per game): start again, as a person would, and resign in that one.
            again = host.command({"cmd": "new_game", "game": "kato", "players": ["Ann", "Ordi"],
                                  "seats": {"2": "bot:1:20"}, "profile": "kato-80"})
            assert again.get("ok"), again
            wait(page, "s.game === 'kato' && s.moves.length === 0 && s.phase !== 'ended'")
            continue
        if phase not in checked and phase in ("play", "execute", "resync", "thinking"):
            checked.add(phase)
            check(page, look, f"Kato, phase {phase}")
        before = len(s["moves"])
        if phase in ("execute", "resync") and s["diff"]["next"]:
            site = s["diff"]["next"]
            page.locator(f"g.site[data-site='{site}']").click()
            wait(page, f"s.moves.length !== {before} || s.diff.next !== '{site}'")
        elif phase == "play" and s["to_move"] == "light" and s["legal"]:
            page.locator(f"g.site[data-site='{rng.choice(s['legal'])}']").click()
            wait(page, f"s.moves.length > {before} || s.phase !== 'play'")
        elif phase == "pass":
            request(page, {"cmd": "button", "name": "pass"})
            wait(page, f"s.moves.length > {before}")
        else:
            try:
                wait(page, f"s.phase !== '{phase}' || s.moves.length !== {before}", 60000)
            except Exception as exc:  # say what the table showed, for the failure report
                now = state(page)
                raise AssertionError(
                    f"{look.name}: stuck in phase {now['phase']!r} (to move "
                    f"{now['to_move']!r}, automaton {now['automaton']!r}): {now['message']!r}"
                ) from exc
    else:
        pytest.fail("the game never came back to Light after six moves")
    assert state(page)["resign"] == ["light"]  # the computer's seat does not resign
    _resign(page, look)
    s = state(page)
    assert s["result"]["winner"] == "dark" and s["result"]["resigned"] == "light"
    assert page.locator("#resign-open").count() == 0
    # One "New game…" on the end screen (issue 26 item 12: there were two).
    page.wait_for_selector("#end-new-game")
    assert page.locator("#new-game:visible, #end-new-game:visible").count() == 1
    summary = page.inner_text("#summary")
    assert ("abandonne" if look.lang == "fr" else "resigned") in summary, summary
    check(page, look, "Kato, resigned: the end screen")
    FINDINGS.finished["kato"] = int(s["game_id"])
    FINDINGS.sites["kato"] = len(s["board"]["sites"])
    FINDINGS.players["kato"] = list(s["players"])
    page.context.close()
    assert errors == []


# ---- Colovini, three people, to the end -----------------------------------------------


def _tower(page: Any, n: int) -> bool:
    """A meridian (the n-th choice), the card, a tower on a free city: True once logged."""
    s = state(page)
    moves = len(s["moves"])
    choices = s["question"]["choices"]
    request(page, {"cmd": "button", "name": f"meridian{choices[n % len(choices)]}"})
    s = state(page)
    if s["question"] and s["question"]["field"] == "card":
        request(page, {"cmd": "button", "name": "confirm"})
        s = state(page)
    empty = {x["id"] for x in s["board"]["sites"] if x["piece"] is None}
    free = [site for site in s["legal"] if site in empty]
    if s["phase"] != "play" or not free:
        return False
    site = free[n % len(free)]
    page.locator(f"g.site[data-site='{site}']").click()
    wait(page, f"s.moves.length > {moves} || (s.question && s.question.field !== 'meridian')"
               " || s.phase !== 'play'")
    for _ in range(3):
        s = state(page)
        if len(s["moves"]) > moves:
            return True
        asked = s["question"]
        assert asked is not None, s["message"]
        value = site if asked["field"] == "where" else asked["choices"][0]
        request(page, {"cmd": "choose", "field": asked["field"], "value": value})
    raise AssertionError(f"the tower on {site} was never taken: {state(page)['message']}")


def test_colovini_three_players_to_the_end(browser: Any, server: WebServer,
                                          host: TableHost) -> None:
    require_axe()
    look = COLOVINI_LOOK
    errors: list[str] = []
    answer = host.command({"cmd": "new_game", "game": "colovini", "players": list(NAMES[:3]),
                           "profile": "colovini-40"})
    assert answer.get("ok"), answer
    page = _open(browser, server, look, errors)
    page.wait_for_function("window.MeridianGames && "
                           "window.MeridianGames.registered.includes('colovini')")
    wait(page, "s.game === 'colovini' && s.moves.length === 0")
    check(page, look, "Colovini, the first turn")
    for turn in range(3 * 13):
        s = state(page)
        if s["result"] is not None:
            break
        moves = len(s["moves"])
        if turn in (1, 7):
            check(page, look, f"Colovini, turn {turn + 1}")
        question = s["question"]
        built = (turn % 5 != 4 and s["phase"] == "play" and question
                 and question["field"] == "meridian" and _tower(page, turn))
        if not built:
            request(page, {"cmd": "button", "name": "pass"})
            s = state(page)
            if len(s["moves"]) == moves:
                request(page, {"cmd": "button", "name": "confirm"})
        wait(page, f"s.moves.length === {moves + 1}")
    wait(page, "s.result !== null")
    s = state(page)
    assert s["phase"] == "ended" and len(s["moves"]) == 39
    check(page, look, "Colovini, the end screen")
    FINDINGS.finished["colovini"] = int(s["game_id"])
    FINDINGS.sites["colovini"] = len(s["board"]["sites"])
    FINDINGS.players["colovini"] = list(s["players"])
    page.context.close()
    assert errors == []


# ---- each finished game replayed from the other game's table ---------------------------


def _replay(page: Any, look: Look, game: str) -> None:
    gid = FINDINGS.finished[game]
    page.wait_for_function(f"document.querySelector('#games option[value=\"{gid}\"]')")
    page.select_option("#games", str(gid))
    page.wait_for_function(f"window.meridian.replay && window.meridian.replay.gameId === {gid}")
    page.click("#replay-bar [data-step='last']")
    page.wait_for_function("window.meridian.replay.ply === window.meridian.replay.moves")
    check(page, look, f"replay of the {game} game")
    drawn = page.locator("#board g.site").count()
    if drawn != FINDINGS.sites[game]:
        FINDINGS.replay.append(f"{look.name}: the {game} game drawn with {drawn} sites, "
                               f"not its own {FINDINGS.sites[game]}")
    shown = page.inner_text("#scores")
    missing = [p for p in FINDINGS.players[game] if p not in shown]
    if missing:
        FINDINGS.replay.append(f"{look.name}: the {game} game's players {missing} not shown")
    moves = page.eval_on_selector_all("#moves li", "els => els.map(e => e.textContent)")
    raw = [m for m in moves if re.search(r"\b\d+\.\d+\b|:pass\b|\b[a-z]\d+-\d+\b", m)]
    if raw:
        FINDINGS.replay.append(f"{look.name}: the {game} moves in notation: {raw[:3]}")


def _until(host: TableHost, what: str, ok: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The table's state once ``ok(state)`` holds (the virtual board settles on its own)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        s = dict(host.state())
        if ok(s):
            return s
        time.sleep(0.05)
    raise AssertionError(f"the table never reached {what}: {host.state()['message']!r}")


def _finish(host: TableHost, game: str) -> None:
    """A finished game of ``game`` in the log, played through the table's commands (no
    page): the replay test needs one from each game, whichever worker runs it and
    whether or not the tests above ran (or passed) there."""
    if game == "kato":
        answer = host.command({"cmd": "new_game", "game": "kato", "players": ["Ann", "Ordi"],
                               "profile": "kato-80"})
        assert answer.get("ok"), answer
        s = _until(host, "a new Kato game", lambda s: s["game"] == "kato" and not s["moves"]
                   and s["phase"] == "play")
        for n in (1, 2):
            site = s["legal"][len(s["legal"]) // (n + 1)]
            assert host.command({"cmd": "toggle", "site": site}).get("ok")
            s = _until(host, f"move {n}", lambda s, n=n: len(s["moves"]) == n
                       and s["phase"] == "play")
        resigned = "light"
    else:
        answer = host.command({"cmd": "new_game", "game": "colovini",
                               "players": list(NAMES[:3]), "profile": "colovini-40"})
        assert answer.get("ok"), answer
        for n in (1, 2, 3):
            s = _until(host, f"Colovini's turn {n}", lambda s, n=n: s["game"] == "colovini"
                       and len(s["moves"]) == n - 1 and s["phase"] in ("play", "pass"))
            assert host.command({"cmd": "button", "name": "pass"}).get("ok")
            s = dict(host.state())
            if len(s["moves"]) < n:
                card = s["question"]["choices"][0]
                assert host.command({"cmd": "choose", "field": "card", "value": card}).get("ok")
        resigned = str(host.state()["to_move"])
    assert host.command({"cmd": "resign", "player": resigned}).get("ok")
    s = _until(host, f"the end of the {game} game", lambda s: s["result"] is not None)
    FINDINGS.finished[game] = int(s["game_id"])
    FINDINGS.sites[game] = len(s["board"]["sites"])
    FINDINGS.players[game] = list(s["players"])


def test_each_finished_game_replayed_from_the_others_table(
        browser: Any, server: WebServer, host: TableHost) -> None:
    # Colovini's game last: the Kato game is then replayed from Colovini's table.
    for game in ("kato", "colovini"):
        if game not in FINDINGS.finished:
            _finish(host, game)
    if host.state()["game"] != "colovini":
        _finish(host, "colovini")
    errors: list[str] = []
    # Colovini is live (just ended): replay the Kato game from it.
    for look in (LOOKS[0], LOOKS[3]):
        page = _open(browser, server, look, errors)
        _replay(page, look, "kato")
        page.context.close()
    # Then Kato is live again: replay the Colovini game from it.
    answer = host.command({"cmd": "new_game", "game": "kato", "players": ["Ann", "Bea"],
                           "profile": "kato-80"})
    assert answer.get("ok"), answer
    for look in (LOOKS[1], LOOKS[2]):
        page = _open(browser, server, look, errors)
        wait(page, "s.game === 'kato'")
        _replay(page, look, "colovini")
        page.context.close()
    assert errors == []
    # Judged here too: the verdict below may run in another worker.
    assert FINDINGS.replay == [], "\n".join(FINDINGS.replay)


# ---- the verdicts over every state ---------------------------------------------------


def _verdict(found: list[str], what: str) -> None:
    if FINDINGS.states == 0:
        pytest.skip("no state was checked (the games above did not run)")
    assert found == [], f"{len(found)} {what}:\n" + "\n".join(found[:40])


def test_axe_finds_nothing_serious_in_any_state() -> None:
    _verdict(FINDINGS.axe, "serious or critical axe violations")


def test_the_board_is_in_view_in_every_state() -> None:
    _verdict(FINDINGS.board, "states with the board out of view")


def test_every_phone_target_is_at_least_44_px() -> None:
    _verdict(FINDINGS.targets, "phone targets under 44 px")


def test_a_french_page_shows_no_english_word() -> None:
    _verdict(FINDINGS.english, "French states with English words")


def test_a_replay_draws_the_game_from_its_own_spec() -> None:
    _verdict(FINDINGS.replay, "replay faults")
