"""The `meridian-table` command line. Each module in this package adds its commands."""
