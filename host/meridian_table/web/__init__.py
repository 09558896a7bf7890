"""The live table page: Starlette app, WebSocket protocol and a background server.

See docs/WEB.md. ``serve(session)`` is what ``meridian-table play`` uses;
``create_app(session)`` is the bare ASGI app for tests and for mounting elsewhere.
"""

from meridian_table.web.app import (
    BadMessageError,
    TableSurface,
    TokenRequiredError,
    create_app,
    is_loopback,
    new_token,
)
from meridian_table.web.server import WebServer, WebServerError, page_url, serve

__all__ = [
    "BadMessageError",
    "TableSurface",
    "TokenRequiredError",
    "WebServer",
    "WebServerError",
    "create_app",
    "is_loopback",
    "new_token",
    "page_url",
    "serve",
]
