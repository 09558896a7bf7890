"""The catalogs are complete: every message the Python code marks with ``_()`` or
``N_()`` has a French translation keeping its placeholders, and every text of the page
(index.html's texts, titles and labels, and every ``t("...")`` in its scripts) has an
entry in the page's French catalog. Adding a message without translating it fails here."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from meridian_table import i18n

HOST = Path(i18n.__file__).resolve().parents[1]
STATIC = HOST / "web" / "static"
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _python_messages() -> set[str]:
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(HOST), method_map=[("**.py", "python")], keywords={"_": None, "N_": None, "say": None}
    ):
        if isinstance(message, str) and message:
            found.add(message)
    return found


def test_every_python_message_has_a_french_translation() -> None:
    with open(i18n.catalog_path("fr"), "rb") as handle:
        catalog = read_po(handle, locale="fr")
    messages = _python_messages()
    assert len(messages) > 30  # the extraction finds the marked messages at all
    missing = sorted(m for m in messages if m not in catalog or not catalog[m].string)
    assert missing == [], f"add these to {i18n.catalog_path('fr')}: {missing}"
    fuzzy = sorted(str(m.id) for m in catalog if m.id and m.fuzzy)
    assert fuzzy == [], f"check and unmark these fuzzy translations: {fuzzy}"
    for message in messages:
        french = str(catalog[message].string)
        assert set(PLACEHOLDER.findall(french)) == set(PLACEHOLDER.findall(message)), message


def test_no_message_is_in_the_french_catalogue_twice() -> None:
    """gettext keeps one translation of a message: a second entry (another helper's
    "white", blanc beside blanche) silently wins or loses."""
    ids = re.findall(r'^msgid "(.+)"$', Path(i18n.catalog_path("fr")).read_text(encoding="utf-8"),
                     re.MULTILINE)
    twice = sorted({m for m in ids if ids.count(m) > 1})
    assert twice == [], f"these msgids are in {i18n.catalog_path('fr')} twice: {twice}"


def test_the_french_catalog_is_used() -> None:
    try:
        i18n.set_language("fr-FR")
        assert i18n.language() == "fr"
        assert i18n._("{seat}: place a stone").format(seat=i18n.seat_word("dark")) == (
            "Foncé : posez une pierre")
    finally:
        i18n.set_language("en")
    assert i18n.seat_word("light") == "Light"
    with pytest.raises(i18n.LanguageError, match="en, fr"):
        i18n.set_language("de")


class _Texts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.texts: set[str] = set()
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        for name, value in attrs:
            if name in ("title", "aria-label", "placeholder") and value:
                self.texts.add(value.strip())

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip and data.strip():
            self.texts.add(data.strip())


def _page_catalog() -> dict[str, dict[str, str]]:
    data = json.loads((STATIC / "i18n" / "fr.json").read_text(encoding="utf-8"))
    return {"messages": data["messages"], "templates": data["templates"]}


def _covered(text: str, catalog: dict[str, dict[str, str]]) -> bool:
    if text in catalog["messages"]:
        return True
    for source in catalog["templates"]:
        pattern = re.escape(source)
        pattern = re.sub(r"\\\{(\w+)\\\}", "(.+?)", pattern)
        if re.fullmatch(pattern, text):
            return True
    return False


def test_every_text_of_the_page_is_in_the_french_catalog() -> None:
    catalog = _page_catalog()
    parser = _Texts()
    parser.feed((STATIC / "index.html").read_text(encoding="utf-8"))
    # The scoring assistant's page speaks through the same catalog.
    parser.feed((HOST / "games" / "colovini" / "static" / "score" / "index.html")
                .read_text(encoding="utf-8"))
    texts = {t for t in parser.texts if re.search(r"[A-Za-z]{2}", t)}
    # The games' own page scripts (games/<id>/static/*.js) speak through it too.
    for script in [*sorted(STATIC.glob("*.js")), *sorted((HOST / "games").glob("*/static/*.js"))]:
        source = script.read_text(encoding="utf-8")
        texts |= {m.replace('\\"', '"') for m in re.findall(r'\bt\("((?:[^"\\]|\\.)*)"', source)}
    assert len(texts) > 40
    missing = sorted(t for t in texts if not _covered(t, catalog))
    assert missing == [], f"add these to static/i18n/fr.json: {missing}"


def test_the_page_catalog_keeps_every_placeholder() -> None:
    catalog = _page_catalog()
    for kind in ("messages", "templates"):
        for source, target in catalog[kind].items():
            assert target.strip(), f"{source!r} has an empty translation"
            assert set(PLACEHOLDER.findall(source)) == set(PLACEHOLDER.findall(target)), source


def test_play_lang_fr_speaks_french_headless(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "meridian_table.cli.main", "play", "kato", "--headless",
         "--board", "sim", "--db", str(tmp_path / "g.sqlite3"), "--lang", "fr",
         "--profile", "kato-80"],
        input="state\nquit\n", capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    states = [json.loads(line) for line in out.stdout.splitlines()
              if line.startswith("{") and '"full-state"' in line]
    assert states[-1]["state"]["message"] == "Clair : posez votre première pierre où vous voulez"
    assert states[-1]["state"]["lang"] == "fr"
    bad = subprocess.run(
        [sys.executable, "-m", "meridian_table.cli.main", "play", "kato", "--lang", "de"],
        capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2 and "--lang" in bad.stderr


def _shipped_specs() -> list[Any]:
    from meridian_table.games import registry

    return [spec for spec in registry.specs().values()
            if type(spec).__module__.startswith("meridian_table.")
            and spec.id in ("kato", "colovini", "empire")]


def _spec_texts(spec: Any) -> set[str]:
    """What the New game form shows of a game: its title, summary, options' labels and
    help, and its seats' labels."""
    texts = {spec.title, spec.summary}
    for option in spec.options:
        texts.add(option.label or option.name.replace("_", " ").capitalize())
        texts.add(option.help)
        if option.type is str and option.name not in ("map", "cards"):  # files keep names
            texts |= set(option.page_choices())
    texts |= {seat.label for seat in spec.page.seats}
    return {t for t in texts if t}


def test_every_game_text_of_the_new_game_form_has_a_french_translation() -> None:
    with open(i18n.catalog_path("fr"), "rb") as handle:
        catalog = read_po(handle, locale="fr")
    specs = _shipped_specs()
    assert {s.id for s in specs} == {"kato", "colovini", "empire"}
    texts = set().union(*(_spec_texts(s) for s in specs))
    missing = sorted(t for t in texts if t not in catalog or not catalog[t].string)
    assert missing == [], f"add these to {i18n.catalog_path('fr')}: {missing}"


def test_every_shipped_card_name_has_a_french_entry() -> None:
    """Empire's sample cards are shown by name (a planet once discovered, a moon, a
    waypoint, an event in hand): each name has an entry, even when it stays as written."""
    from meridian_table.games.empire.files import load_cards

    with open(i18n.catalog_path("fr"), "rb") as handle:
        catalog = read_po(handle, locale="fr")
    cards = load_cards("sample")
    names = [*cards.planets, *cards.moons, *cards.waypoints, *cards.events]
    assert len(names) > 40
    missing = sorted(n for n in names if n not in catalog or not catalog[n].string)
    assert missing == [], f"add these card names to {i18n.catalog_path('fr')}: {missing}"
    try:
        i18n.set_language("fr")
        from meridian_table.games.empire.ledger import card_word

        assert card_word("Solar Wind") == "Vent solaire" and card_word("Barlow") == "Barlow"
        assert card_word("A card of one's own") == "A card of one's own"
    finally:
        i18n.set_language("en")


def test_the_play_commands_own_messages_are_french_with_lang_fr(tmp_path: Path) -> None:
    """``play --lang fr``: the command's refusals are said in French (click's own frame,
    "Error: Invalid value for '--seat':", stays click's)."""
    import subprocess
    import sys

    from tests.french import english_words

    def refused(*args: str) -> str:
        out = subprocess.run(
            [sys.executable, "-m", "meridian_table.cli.main", "play", "kato", "--headless",
             "--board", "sim", "--lang", "fr", *args],
            input="quit\n", capture_output=True, text=True, timeout=120, check=False)
        assert out.returncode == 2, out.stderr
        said = out.stderr.strip().splitlines()[-1]
        # What follows click's own "Error: Invalid value for --x: ".
        return re.sub(r"^Error: Invalid value for [^:]+: ", "", said)

    seat = refused("--seat", "9=random")
    assert "n'est pas une place de Les Méridiens de Kato" in seat, seat
    db = refused("--db", str(tmp_path / "nowhere" / "g.sqlite3"))
    assert "n'existe pas" in db, db
    game = refused("--resume", "abc")
    assert "n'est pas un numéro de partie" in game, game
    for text in (seat, db, game):
        assert english_words(text, [str(tmp_path / "nowhere")]) == [], text


@pytest.mark.slow
def test_the_log_commands_speak_the_environments_language() -> None:
    """``games``, ``replay`` and ``export`` speak the environment's language, as ``play``
    does without --lang: French under ``LANG=fr_FR.UTF-8``."""
    import tempfile

    # A short path with no English in it: the games' table prints it in its title,
    # wrapped to the table's width.
    with tempfile.TemporaryDirectory(prefix="journal-") as folder:
        _log_commands_in_french(Path(folder))


def _log_commands_in_french(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from tests.french import english_words

    db = tmp_path / "g.sqlite3"
    played = subprocess.run(
        [sys.executable, "-m", "meridian_table.cli.main", "play", "kato", "--headless",
         "--board", "sim", "--db", str(db), "--profile", "kato-80", "--players", "Ann,Bob"],
        input="toggle G6\nwait\nquit\n", capture_output=True, text=True, timeout=120,
        check=False)
    assert played.returncode == 0, played.stderr
    env = {**os.environ, "LANG": "fr_FR.UTF-8", "LC_ALL": "", "LC_MESSAGES": "",
           "COLUMNS": "1000"}

    def run(*args: str) -> str:
        out = subprocess.run([sys.executable, "-m", "meridian_table.cli.main", *args,
                              "--db", str(db)], capture_output=True, text=True, timeout=120,
                             check=False, env=env)
        assert out.returncode == 0, out.stderr
        return out.stdout + out.stderr

    listed = run("games")
    assert "Parties dans" in listed and "joueurs" in listed, listed
    shown = run("replay", "1")
    assert "Partie 1" in shown and "Position après le coup" in shown, shown
    # The options are shown as the command line gives them (size=5): notation.
    names = ["Ann", "Bob", "kato", str(db), str(tmp_path), "size", "pie", "tournament"]
    for text in (listed, shown):
        assert english_words(text, names) == [], text
    exported = subprocess.run(
        [sys.executable, "-m", "meridian_table.cli.main", "export", "1", "--db", str(db),
         "--format", "record", "-o", str(tmp_path / "g.kato")], capture_output=True, text=True, timeout=120,
        check=False, env=env)
    assert exported.returncode == 0 and "écrite au format" in exported.stderr, exported.stderr
