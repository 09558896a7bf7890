"""The page's Admin view never shows a password: a new table's login is masked, and the
table gets a one-time invitation code instead (redeemed by ``club join``)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import httpx
import psycopg
from starlette.testclient import TestClient

from meridian_table.club.admin import join_with_code
from meridian_table.club.web import create_club_app

from .conftest import Club


def test_adding_a_table_shows_no_password(club: Club, tmp_path: Path) -> None:
    admin = (f"{club.dbname}_admin", str(httpx.URL(club.admin_url).password))
    with TestClient(create_club_app(club.page_url), base_url="http://127.0.0.1") as page:
        added = page.post("/admin", auth=admin, data={"action": "add", "name": "hall"})
    assert added.status_code == 200 and "Table hall added" in added.text
    assert added.headers["cache-control"] == "no-store"
    text = html.unescape(added.text)
    logins = re.findall(r"postgresql://[^:\s]+:([^@\s]*)@", text)
    assert logins and all(password == "***" for password in logins), logins
    code = re.search(r"club join (\S+)", text)
    assert code is not None
    # the code is the table's way in, once: it becomes a password only the table knows
    url = join_with_code(code.group(1), tmp_path)
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT club.my_table()").fetchone() == ("hall",)
    assert str(httpx.URL(url).password) not in text
