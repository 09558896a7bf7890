"""Issue 26 item 1: every page state of every game, rendered in French, shows no English
word outside names.

One table (the virtual board, its SQLite log, the lobby) and a French phone page
(390 x 844, touch). For Kato, Colovini and Empire in turn the test starts the game from
the lobby and walks the page through its states: the first turn; a refused tap (the
engine's reason); a piece where none belongs (the board-fix reasons); the hint; the
rules; the New game form with each game chosen; the players and history; the resign
dialog; the end screen; a replay of the finished game. In each state it reads what a
player reads or hears: the page's text, every title and aria-label (the voice reads
those), the table's message and error, and the spoken cue. Names never count: the
players', the games' and the cards' (tests/french.py reads the words).

Each test ends with its verdict: every English word found, by game and state (a parallel
run may give this module's tests to different workers, so none depends on another; the
replay finishes a game of its own). The catalogue checks (missing or fuzzy entries) are
tests/test_i18n.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.french import english_words
from tests.web.tables import table_host

from meridian_table import i18n
from meridian_table.games.empire.files import load_cards
from meridian_table.table.lobby import TableHost
from meridian_table.table.runner import TableSetup
from meridian_table.web import WebServer, serve

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("french-states")]  # one table

NAMES = ("Ann", "Bea", "Cid")
#: What a player reads in a state: the page's text, titles and labels (the voice and a
#: screen reader say those), the table's own words.
READ = """(() => {
  const parts = [document.body.innerText, document.title];
  for (const el of document.querySelectorAll('[title], [aria-label], [placeholder]'))
    parts.push(el.getAttribute('title') || '', el.getAttribute('aria-label') || '',
               el.getAttribute('placeholder') || '');
  for (const el of document.querySelectorAll('input[type=text]')) parts.push(el.value);
  for (const el of document.querySelectorAll('option')) parts.push(el.textContent);
  const s = window.meridian.state;
  parts.push(s.message || '', s.error || '');
  // What the voice says: the last cues, in the page's language (sound.js says them so).
  const i18n = window.MeridianI18n;
  for (const cue of (window.MeridianSound ? window.MeridianSound.log : []).slice(-20))
    parts.push(i18n ? i18n.translate(cue.words) : cue.words);
  return parts.join('\\n'); })()"""


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableHost]:
    i18n.set_language("en")
    db = tmp_path_factory.mktemp("french") / "games.sqlite3"
    setup = TableSetup(game="kato", board="sim", profile="kato-80", players=NAMES[:2],
                       db=str(db), settle_s=0.03)
    with table_host(setup) as lobby:
        yield lobby
    i18n.set_language("en")  # the language is the process's: leave it as found


@pytest.fixture(scope="module")
def server(host: TableHost) -> Iterator[WebServer]:
    with serve(host, port=0) as running:
        yield running


@pytest.fixture(scope="module")
def page(browser: Any, server: WebServer) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="fr-FR",
                                  is_mobile=True, has_touch=True, device_scale_factor=2)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url)
    page.wait_for_function("window.meridian && window.meridian.renders > 0 && "
                           "window.meridian.connected")
    page.wait_for_function("window.MeridianI18n && window.MeridianI18n.lang === 'fr'")
    wait(page, "s.lang === 'fr'")
    yield page
    context.close()
    assert errors == [], errors


@pytest.fixture
def french(host: TableHost) -> Iterator[None]:
    """The table in French, as the page's French browser asked (every test starts in
    English: tests/conftest.py)."""
    answer = host.command({"cmd": "language", "lang": "fr"})
    assert answer.get("ok"), answer
    yield


FOUND: list[str] = []
STATES: list[str] = []


def wait(page: Any, condition: str, timeout: float = 30000) -> None:
    page.wait_for_function(
        f"(() => {{ const s = window.meridian.state; return {condition}; }})()", timeout=timeout)


def state(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("window.meridian.state"))


def names(page: Any) -> list[str]:
    from meridian_table.games import registry
    from meridian_table.profiles import list_profiles

    s = state(page)
    french = i18n.translations("fr")
    cards = load_cards("sample")
    card_names = [french.gettext(n) for n in (*cards.planets, *cards.moons, *cards.waypoints,
                                              *cards.events)]
    return [*NAMES, *s.get("players", []), *(s.get("seats") or {}).values(),
            *card_names, "Meridian", "Meridian Table", "Kato", "Colovini", "Scelrotia",
            "Empire in Space",
            # Every installed game's title is its name (an author's game may ship English
            # only: examples/five_in_a_row).
            *(spec.title for spec in registry.specs().values()),
            # The names of Colovini's board buttons, as the board prints them (their
            # wording in the prompt is issue 26 item 8's).
            *(f"Meridian{n}" for n in range(1, 11)),
            "Rowitt", "Fischer", "Bronstein", "sample", "sample-40", "sample-50",
            *list_profiles()]


def look(page: Any, game: str, what: str) -> None:
    """Record every English word the page shows in this state."""
    page.wait_for_timeout(80)  # the catalogue's translation of what was just drawn
    STATES.append(f"{game}: {what}")
    allowed = names(page)
    seen: set[str] = set()
    for line in page.evaluate(READ).splitlines():
        found = english_words(line, allowed)
        key = line.strip()[:100]
        if found and key not in seen:
            seen.add(key)
            FOUND.append(f"{game} / {what}: {found} in {key!r}")


def verdict() -> None:
    """This test's states: no English word in any (each test says its own, so that a
    parallel run, which may give the tests of this module to different workers, judges
    every state it rendered)."""
    found, looked = list(FOUND), list(STATES)
    FOUND.clear()
    STATES.clear()
    assert looked, "no state was looked at"
    assert found == [], f"{len(found)} English findings in {len(looked)} states:\n" + \
        "\n".join(found[:80])


def new_game(host: TableHost, page: Any, game: str, players: list[str], **extra: Any) -> None:
    answer = host.command({"cmd": "new_game", "game": game, "players": players, **extra})
    assert answer.get("ok"), answer
    wait(page, f"s.game === '{game}' && s.moves.length === 0 && s.result === null", 60000)
    # The last game's refusal does not follow the players into the new one.
    assert state(page)["error"] == "", state(page)["error"]
    shown = page.evaluate("""(() => { const e = document.getElementById('error');
        return e && !e.hidden ? e.textContent : ''; })()""")
    assert shown == "", shown


def dialogs(page: Any, game: str) -> None:
    """The dialogs every game's page offers, each looked at and closed."""
    page.click("#rules-open")
    page.wait_for_selector("#rules-dialog[open]")
    look(page, game, "the rules")
    page.click("#rules-close")
    page.click("#new-game")
    page.wait_for_selector("#newgame-dialog[open]")
    for other in ("kato", "colovini", "empire"):
        page.select_option("#ng-game", other)
        page.wait_for_function(f"document.getElementById('ng-game').value === '{other}'")
        look(page, game, f"the New game form for {other}")
    if game == "kato":
        # A set-up the table refuses (one name twice): its reason, in French.
        page.select_option("#ng-game", "kato")
        page.fill("#ng-name-1", "Ann")
        page.fill("#ng-name-2", "ann")
        page.click("#ng-start")
        page.wait_for_selector("#ng-error:not([hidden])")
        assert "deux fois" in page.inner_text("#ng-error"), page.inner_text("#ng-error")
        look(page, game, "a refused New game")
    page.click("#ng-cancel")
    page.click("#players-open")
    page.wait_for_selector("#players-dialog[open]")
    look(page, game, "players and history")
    page.click("#players-close")
    page.click("#link-details > summary")  # the board link panel, opened
    page.wait_for_selector("#link-details[open]")
    look(page, game, "the board link panel")
    page.click("#link-details > summary")


def test_kato_in_french(host: TableHost, page: Any, french: None) -> None:
    new_game(host, page, "kato", ["Ann", "Bea"], profile="kato-80",
             seats={"2": "bot:1:20"})
    look(page, "kato", "the first move")
    s = state(page)
    first = s["legal"][0]
    page.locator(f"g.site[data-site='{first}']").click()
    wait(page, "s.moves.length >= 1")
    # The computer chooses, and the people carry its move out on the board.
    for _step in range(20):
        wait(page, "s.phase !== 'thinking'", 60000)
        s = state(page)
        if s["phase"] == "play" and s["to_move"] == "light":
            break
        if s["phase"] in ("execute", "resync") and s["diff"]["next"]:
            if s["phase"] == "execute":
                look(page, "kato", "carrying out the computer's move")
            page.locator(f"g.site[data-site='{s['diff']['next']}']").click()
            wait(page, f"s.phase !== '{s['phase']}' || s.diff.next !== '{s['diff']['next']}'")
    look(page, "kato", "after the computer's move")
    # A tap on a point the rules refuse: the engine's reason, said in French.
    s = state(page)
    refused = next(x["id"] for x in s["board"]["sites"]
                   if x["piece"] is None and x["id"] not in s["legal"])
    page.locator(f"g.site[data-site='{refused}']").click()
    wait(page, "s.phase === 'resync'")
    look(page, "kato", "a refused move: fixing the board")
    host.command({"cmd": "button", "name": "hint"})  # refused while the board is wrong
    look(page, "kato", "a press refused while the board is wrong")
    page.locator(f"g.site[data-site='{refused}']").click()
    wait(page, "s.phase === 'play'")
    host.command({"cmd": "button", "name": "swap"})  # no pie choice in this game
    wait(page, "s.error !== ''")
    look(page, "kato", "a refused button")
    page.locator("#buttons .control[data-name='hint']").click()
    wait(page, "/Indice/.test(s.message) || s.error !== ''", 60000)
    look(page, "kato", "a hint")
    dialogs(page, "kato")
    page.click("#resign-open")
    page.wait_for_selector("#resign-dialog[open]")
    look(page, "kato", "the resign dialog")
    page.click("#resign-dialog .resign-confirm")
    wait(page, "s.result !== null")
    look(page, "kato", "the end screen")
    verdict()


def test_colovini_in_french(host: TableHost, page: Any, french: None) -> None:
    new_game(host, page, "colovini", list(NAMES), profile="colovini-40")
    page.wait_for_function("window.MeridianGames && "
                           "window.MeridianGames.registered.includes('colovini')")
    look(page, "colovini", "the first turn")
    s = state(page)
    question = s["question"]
    if question and question["choices"]:
        host.command({"cmd": "button", "name": f"meridian{question['choices'][0]}"})
        look(page, "colovini", "a meridian chosen")
    dialogs(page, "colovini")
    for _turn in range(3 * 13):
        s = state(page)
        if s["result"] is not None:
            break
        moves = len(s["moves"])
        host.command({"cmd": "button", "name": "pass"})
        if len(state(page)["moves"]) == moves:
            host.command({"cmd": "button", "name": "confirm"})
        wait(page, f"s.moves.length > {moves} || s.result !== null")
        if _turn == 4:
            look(page, "colovini", "after a few passes")
    wait(page, "s.result !== null")
    look(page, "colovini", "the end screen")
    verdict()


def test_empire_in_french(host: TableHost, page: Any, french: None) -> None:
    new_game(host, page, "empire", ["Ann"], options={"mode": "infection-solo", "seed": 4},
             settings={"sensing": "off"})
    page.wait_for_function("document.querySelector('#empire-ledger .ledger-seat')")
    look(page, "empire", "the first turn")
    dialogs(page, "empire")
    verdict()


def test_a_replay_in_french(host: TableHost, page: Any, french: None) -> None:
    # A finished game of its own (a parallel run may have played the others elsewhere).
    new_game(host, page, "kato", ["Ann", "Bea"], profile="kato-80")
    s = state(page)
    page.locator(f"g.site[data-site='{s['legal'][0]}']").click()
    wait(page, "s.moves.length === 1")
    page.click("#resign-open")
    page.wait_for_selector("#resign-dialog[open]")
    page.click("#resign-dialog .resign-confirm")
    wait(page, "s.result !== null")
    gid = int(state(page)["game_id"])
    new_game(host, page, "colovini", list(NAMES), profile="colovini-40")
    page.wait_for_function(f"document.querySelector('#games option[value=\"{gid}\"]')")
    page.select_option("#games", str(gid))
    page.wait_for_function(f"window.meridian.replay && window.meridian.replay.gameId === {gid}")
    page.click("#replay-bar [data-step='last']")
    page.wait_for_function("window.meridian.replay.ply === window.meridian.replay.moves")
    look(page, "replay", f"the Kato game {gid} from Colovini's table, at its end")
    verdict()
