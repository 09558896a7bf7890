"""Starting the table with the computer: a systemd user unit and a kiosk on a Raspberry
Pi, a launchd agent on macOS, a Startup command on Windows (docs/MAKERS.md)."""
